"""Big allocations in their own mappings, so that indexing a big file leaves no holes in the C heap.

Indexing a big file grows a few long buffers (the entry table's columns, the id dict) while results of about a
megabyte each arrive from the workers and are freed. glibc's malloc serves an allocation of 128 KiB or more
with a mapping of its own, but raises that threshold to the size of every such mapping freed: after the first
worker result, the growing columns and the results share the heap, and the holes the results leave behind stay
resident (about 4 MB of a 256 MB session's ~65 MB peak). `keep_big_allocations_mapped` fixes the threshold at
its default, once per process (the setting also stops it moving). Elsewhere (another C library, no `ctypes`)
it does nothing: only the memory differs, never a result.

What is freed in the heap below its top still stays resident: the buffers of each worker result (its pickle, the
run's lists and buffers once copied into the columns) leave free chunks the next results do not always fit. The
indexer calls `release_free_heap` before each result but the first (`inspector.read.parallel.parse_ranges`) (glibc's `malloc_trim(0)`: the free pages go back to the
system; about 2 MB of a 256 MB session's peak, for ~1 ms a call).

glibc also gives each thread that allocates an arena of its own (up to 8 per core), and what a thread freed stays
in its arena for that arena's next user: an app whose worker threads take turns (indexing, the timeline, previews,
estimators) spreads the same memory over several arenas, and how much depends on which thread got which arena
(the peak after the same tour of keys varied by 25 MB from run to run). `limit_malloc_arenas` makes them share one
(before threads start): the app's peak after a tour of every key, 177 -> 143 MB on a 200-entry session and
191 -> 161 MB on a 16 MiB one, within 2 MB from run to run (one allocation lock for every thread: cheap here,
Python's small objects never reach malloc).
"""

from __future__ import annotations

import os
import sys

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter number for the mapping threshold."""
M_ARENA_MAX = -8
"""glibc's `mallopt` parameter number for the arena cap."""
MALLOC_ARENAS = 1
"""Arenas the threads of a process that calls `limit_malloc_arenas` share (glibc's default: 8 per core)."""
MAPPED_FROM = 128 * 1024
"""Allocations of at least this many bytes get a mapping of their own (glibc's default, kept fixed)."""

_done = False
_trim: object = None


def _mallopt(param: int, value: int) -> bool:
    """glibc's `mallopt(param, value)`; False where there is none (no ctypes, another C library) or it refused."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, or a C library without mallopt (musl)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(param, value) == 1)


def keep_big_allocations_mapped() -> bool:
    """Fix malloc's mapping threshold at `MAPPED_FROM` for this process (glibc only); whether it is in force."""
    global _done
    if not _done:
        _done = _mallopt(M_MMAP_THRESHOLD, MAPPED_FROM)
    return _done


def limit_malloc_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """Let the process's threads share at most `arenas` malloc arenas (glibc only; call before threads start, as
    arenas made already stay); whether it is in force. `$MALLOC_ARENA_MAX`, when set, is left to decide."""
    if os.environ.get("MALLOC_ARENA_MAX", "").strip():
        return False
    return _mallopt(M_ARENA_MAX, arenas)


def release_free_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc's `malloc_trim(0)`; elsewhere nothing); whether it
    ran."""
    global _trim
    if _trim is None:
        _trim = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                trim = ctypes.CDLL(None).malloc_trim
                trim.argtypes = (ctypes.c_size_t,)
                trim.restype = ctypes.c_int
                _trim = trim
            except (ImportError, OSError, AttributeError):  # no ctypes, or no malloc_trim (musl)
                pass
    if _trim is False:
        return False
    _trim(0)  # type: ignore[operator]
    return True
