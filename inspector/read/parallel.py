"""Indexing a big file with worker processes: byte ranges cut just after newlines, parsed in parallel, handed back
in file order.

`split_points` cuts a file into ranges with one bounded scan per cut (a huge line costs one scan, not one per
cut); `parse_ranges` runs `inspector.read.column_runs.extract_range_runs` on them in forked workers
(`inspector.storage.forkpool`), two ranges per worker at most, a result staying in its worker until the caller has
assembled the ones before it. The caller (`Session`) turns the records into entries in order. `end_workers`
ends the `concurrent.futures` pools of the tool's other process pools (token counting).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

    from inspector.read.column_runs import RangeParts
    from inspector.read.estimates import ReaderEstimates

# The workers' parser is imported by `parse_ranges` only: a session restored from the cache and extended by a few
# appended lines never starts a pool.

__all__ = [
    "CHUNKS_PER_WORKER",
    "PARALLEL_MIN_BYTES",
    "end_workers",
    "next_line_start",
    "parse_ranges",
    "sigterm_to_exit",
    "split_points",
    "worker_count",
]

PARALLEL_MIN_BYTES = 64 * 1024 * 1024
"""Files at least this big are indexed by worker processes (when more than one worker is allowed)."""
CHUNKS_PER_WORKER = 16
"""Ranges per worker: small ranges keep the in-order assembly fed while the workers parse."""

RangeResult = tuple["RangeParts", int, bytes]
"""`extract_range_runs`'s result: the range's lines as column runs and rows (line numbers within the range), lines
seen, trailing bytes."""


def worker_count() -> int:
    """Worker processes for indexing big files (`SESSION_INSPECTOR_WORKERS` overrides; 1 = serial)."""
    cores = os.cpu_count() or 1
    env = os.environ.get("SESSION_INSPECTOR_WORKERS", "").strip()
    if env.isdigit() and len(env) < 10:
        return max(1, min(int(env), cores))  # never more processes than cores, whatever is asked
    return min(cores, 8)


def sigterm_to_exit(signum: int, frame: object) -> None:
    """A SIGTERM handler: the signal becomes `SystemExit`, so `finally` blocks end worker pools."""
    raise SystemExit(128 + signum)


def end_workers(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's worker processes now (a SIGTERM or an error must not leave them running; quitting must not
    wait for them): terminate, cancel what is queued, join briefly. Every pool of the tool ends this way."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for proc in processes:
        try:
            proc.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        try:
            proc.join(timeout=2)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass


def split_points(f: BinaryIO, size: int, parts: int) -> list[int]:
    """Byte offsets cutting [0, size) into about `parts` ranges, each ending just after a newline.

    A newline is searched only up to the next target, so one huge line costs one scan, not one per target.
    """
    points = [0]
    for k in range(1, parts):
        target = size * k // parts
        limit = size * (k + 1) // parts
        if target <= points[-1]:
            continue
        pos = next_line_start(f, target, limit)
        if pos is not None and points[-1] < pos < size:
            points.append(pos)
    points.append(size)
    return points


def next_line_start(f: BinaryIO, start: int, limit: int, block: int = 1 << 20) -> int | None:
    """Offset just after the first newline at or after `start` and before `limit` (None if there is none)."""
    pos = start
    f.seek(pos)
    while pos < limit:
        data = f.read(min(block, limit - pos))
        if not data:
            return None
        nl = data.find(b"\n")
        if nl >= 0:
            return pos + nl + 1
        pos += len(data)
    return None


def parse_ranges(path: str, bounds: list[int], version: int, est: ReaderEstimates, segmented: bool = False) -> Iterator[RangeResult]:
    """`extract_range_runs` of each range `[bounds[i], bounds[i + 1])` in worker processes, yielded in file order.

    Line numbers in each result count from 1 within its range; the caller adds the lines seen before it. Range `k`
    goes to worker `k % workers`, each worker holding two calls at most: it parses its next range while its
    previous result waits in its pipe for the caller (no result is taken into this process before it is used).
    Without `fork`, the ranges are parsed here, one after the other.
    """
    from inspector.read.column_runs import extract_range_runs
    from inspector.storage.forkpool import ForkPool
    from inspector.storage.heap import release_free_heap

    ranges = list(zip(bounds, bounds[1:]))
    if not hasattr(os, "fork"):
        for a, b in ranges:
            yield extract_range_runs(path, a, b, 1, version, est, segmented)
        return
    previous: Any = None
    if threading.current_thread() is threading.main_thread():
        # SIGTERM becomes SystemExit so the workers below are ended rather than orphaned.
        previous = signal.signal(signal.SIGTERM, sigterm_to_exit)
    try:
        with ForkPool(min(worker_count(), len(ranges)), extract_range_runs) as pool:
            workers = len(pool)
            for k, (a, b) in enumerate(ranges[: 2 * workers]):
                pool.send(k % workers, path, a, b, 1, version, est, segmented)
            for k in range(len(ranges)):
                if k:
                    release_free_heap()  # the previous result's buffers, freed: their pages back before this one comes
                result: RangeResult = pool.result(k % workers)
                if k + 2 * workers < len(ranges):
                    a, b = ranges[k + 2 * workers]
                    pool.send(k % workers, path, a, b, 1, version, est, segmented)
                yield result
                del result  # do not keep a range's records alive while waiting for the next one
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
