"""Reading a session's snapshot file while the command is still importing its modules.

A command that reopens a big session restores it from its snapshot (`index_cache`): 25-60 MB read from the page
cache into a fresh buffer (15-35 ms, mostly page faults) before it is unpickled. `start` reads it in a thread as
soon as the command line is known, while the command imports what it runs (~50 ms): reading releases the
interpreter lock, so the two overlap. `take` hands the result to `index_cache` (the same `read_entry` result a read
at that point would give, the file having been checked the same way); anything not taken is simply dropped.

Every fork waits for the reads first (`os.register_at_fork`): a process is never forked with a reading thread.
"""

from __future__ import annotations

import os
import threading

from ._hash import blake2b
from .filekey import resolved
from .store import CacheUnavailable, checked_dir, entry_name, read_entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INDEX_KIND = "index"
NOT_PREFETCHED = object()
"""What `take` gives for an entry no prefetch read."""

_reads: dict[tuple[str, str], threading.Thread] = {}
_results: dict[tuple[str, str], Any] = {}


def index_entry_name(path: str | os.PathLike[str]) -> str:
    """The snapshot's file name for a session path (one per resolved path)."""
    return entry_name(INDEX_KIND, blake2b(resolved(path).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest())


def _read(key: tuple[str, str]) -> None:
    try:
        _results[key] = read_entry(*key)
    except Exception:  # a prefetch is never an error: the restore reads the entry itself
        _results[key] = NOT_PREFETCHED


def start(candidates: list[str]) -> None:
    """Read the snapshot of the session path among `candidates` (the command line's words that are not options) in
    the background: only when exactly one of them is a regular file (another one, a config file say, could leave a
    snapshot read that nothing takes). Never raises."""
    try:
        files = [path for path in candidates if os.path.isfile(path)]
        if len(files) != 1:
            return
        key = (checked_dir(create=False), index_entry_name(files[0]))
        if key in _reads:
            return
        thread = threading.Thread(target=_read, args=(key,), name="snapshot-prefetch", daemon=True)
        _reads[key] = thread
        thread.start()
    except (CacheUnavailable, OSError, ValueError, RuntimeError):
        return


def take(directory: str, name: str) -> Any:
    """The prefetched `read_entry(directory, name)` (waiting for its read to end), or `NOT_PREFETCHED`."""
    thread = _reads.pop((directory, name), None)
    if thread is None:
        return NOT_PREFETCHED
    thread.join()
    return _results.pop((directory, name), NOT_PREFETCHED)


def forget() -> None:
    """Drop every read not taken (the command is over: a later command in the same process reads afresh)."""
    settle()
    _reads.clear()
    _results.clear()


def settle() -> None:
    """Wait for every read still running (before a fork: see the module docstring)."""
    for thread in list(_reads.values()):
        thread.join()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=settle)
