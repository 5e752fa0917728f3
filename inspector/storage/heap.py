"""Big allocations in their own mappings, so that indexing a big file leaves no holes in the C heap.

Indexing a big file grows a few long buffers (the entry table's columns, the id dict) while results of about a
megabyte each arrive from the workers and are freed. glibc's malloc serves an allocation of 128 KiB or more
with a mapping of its own, but raises that threshold to the size of every such mapping freed: after the first
worker result, the growing columns and the results share the heap, and the holes the results leave behind stay
resident (about 4 MB of a 256 MB session's ~65 MB peak). `keep_big_allocations_mapped` fixes the threshold at
its default, once per process (the setting also stops it moving). Elsewhere (another C library, no `ctypes`)
it does nothing: only the memory differs, never a result.
"""

from __future__ import annotations

import sys

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter number for the mapping threshold."""
MAPPED_FROM = 128 * 1024
"""Allocations of at least this many bytes get a mapping of their own (glibc's default, kept fixed)."""

_done = False


def keep_big_allocations_mapped() -> bool:
    """Fix malloc's mapping threshold at `MAPPED_FROM` for this process (glibc only); whether it is in force."""
    global _done
    if _done:
        return True
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):  # no ctypes, or a C library without mallopt (musl)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _done = mallopt(M_MMAP_THRESHOLD, MAPPED_FROM) == 1
    return _done
