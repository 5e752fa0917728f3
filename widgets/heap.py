"""Keep the garbage collector from pausing the UI.

An indexed 300k-entry session is millions of long-lived Python objects (entries, estimates, tree maps). The
cyclic garbage collector's full (generation 2) passes walk all of them: hundreds of milliseconds, at random
moments while scrolling. `gc.freeze()` moves everything alive now into a permanent generation the collector
skips; objects freed later are still reclaimed by reference counting.

What the app builds after that (screens, the timeline, a pruning preview, an estimator's sizes: some 100k objects
per key) lands in generation 2 again, and CPython runs a full pass once generation 2 has grown by a quarter since the
last one: right after a key press, 100-400 ms on the UI thread (the pass stops every thread). `IdleCollector`
defers full passes while the user works (`defer_full_collections`: the young generations are still collected as
usual) and runs one after `IDLE_SECONDS` without input once no worker is busy, when a pause is not seen.

What a full pass frees mostly stays with the C allocator (glibc keeps freed pages of its heaps for reuse): after the
pass, `release_free_memory` hands the free pages back to the system (`malloc_trim`), so the resident size falls back
after a timeline or a compaction plan was built and dropped (10-15 MB on a 64 MiB session).
"""

from __future__ import annotations

import ctypes
import gc
import time
from collections.abc import Callable

IDLE_SECONDS = 2.0
"""Input-free time after which a deferred full collection runs."""
DEFERRED_THRESHOLD = 1_000_000
"""Generation 2's threshold while deferred: young collections before a full one is considered (never, in practice)."""


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)  # the process's own symbols: glibc's, on Linux
    except OSError:
        return None


_TRIM = _malloc_trim()


def release_free_memory() -> bool:
    """Give the C allocator's free pages back to the system (glibc's `malloc_trim(0)`; False where there is none)."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True


def freeze_long_lived() -> None:
    """Exclude every object alive now from future collections (call after indexing a session)."""
    gc.collect(1)
    gc.freeze()


class IdleCollector:
    """Full collections only when the user is idle (see the module docstring).

    `start()` defers automatic full passes; `note_input()` on every key or mouse event; `tick(busy)` from a timer runs
    the deferred pass once input has been quiet for `idle_seconds` and nothing is busy; `stop()` gives CPython its thresholds back."""

    def __init__(self, idle_seconds: float = IDLE_SECONDS) -> None:
        self.idle_seconds = idle_seconds
        self.last_input = time.monotonic()
        self.collections = 0
        self._thresholds: tuple[int, int, int] | None = None

    def start(self) -> None:
        """Defer automatic full collections (the young generations keep their thresholds)."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            gc.set_threshold(self._thresholds[0], self._thresholds[1], DEFERRED_THRESHOLD)

    def stop(self) -> None:
        """Automatic full collections as before `start`."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def note_input(self) -> None:
        """The user pressed a key or used the mouse."""
        self.last_input = time.monotonic()

    def tick(self, busy: bool = False) -> bool:
        """Run the deferred full collection when input has been quiet long enough, no work is under way (`busy`: a
        worker still computing what the last key asked for) and something was promoted to generation 2 since the
        last one; True when it ran."""
        if busy or self._thresholds is None or time.monotonic() - self.last_input < self.idle_seconds:
            return False
        if gc.get_count()[2] < self._thresholds[2]:
            return False
        gc.collect()
        release_free_memory()
        self.collections += 1
        return True
