"""A big store session indexed while its mirror is written: `IndexingRewrite`.

Writing the mirror (`inspector.read.store.mirror`) and only then indexing it leaves a core idle while the mirror is
written (the read, zstd, the writes: about as long as the parallel index itself). Here, once the mirror holds
`PARALLEL_MIN_BYTES` (`inspector.read.parallel`: a smaller session is written and opened as before), the index's
workers (`inspector.storage.forkpool`, `column_runs.extract_range_runs`, as for any big file) start on what is written,
range after range of the growing temporary file (each ends at a line's end: a range is handed out only once it is
written and flushed), while this process goes on writing the rest of the snapshot; the results are assembled in
file order into a `Session` of the mirror (`Session.index_ranges`), handed to `open_session` (`session.preload`) once
the mirror is renamed in place.

The mirror is written exactly as `read_events` writes it (`take_rows`, damaged events as placeholders), in the same
one read transaction, and the workers parse those bytes: the mirror, its sidecar and the index are the plain ones. A
first line with a byte-order mark or a carriage return is left to the plain opening (its own diagnostics for them).
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from inspector.read import parallel
from inspector.read.estimates import ReaderEstimates
from inspector.read.jsonl_reader import BOM, peek_version
from inspector.read.store.connection import read_transaction
from inspector.read.store.events import EventsSnapshot, event_rows, read_state, take_rows
from inspector.session.session import Session

RANGE_BYTES = 8 * 1024 * 1024
"""Mirror bytes per worker call: small enough to keep both workers fed, big enough that a call's overhead is noise."""
FETCH_ROWS = 256
"""Rows read and written at a time."""


class IndexingRewrite:
    """A `mirror.Rewrite` that also indexes the session it writes (see the module docstring); `session` is the
    index afterwards (None: the session was small, or left to the plain opening).

    `rules_for(snapshot)`: the rule set to index with, told from the store's schema and writer (None: no index)."""

    def __init__(self, rules_for: Callable[[EventsSnapshot], str | None]) -> None:
        self.rules_for = rules_for
        self.session: Session | None = None

    def __call__(self, db: sqlite3.Connection, store: Path | str, session_id: str, f: BinaryIO, tmp: str, path: str) -> EventsSnapshot:
        self.session = None
        snap = EventsSnapshot()
        with read_transaction(db, store):
            read_state(db, session_id, snap, None, None)
            rows = event_rows(db, session_id, None)
            threshold = parallel.PARALLEL_MIN_BYTES
            while snap.written < threshold and (chunk := rows.fetchmany(FETCH_ROWS)):
                take_rows(chunk, snap, f)
            if snap.written < threshold or parallel.worker_count() < 2:
                take_rows(rows, snap, f)
                return snap
            f.flush()
            first = _first_line(tmp)
            rules_id = None if first.startswith(BOM) or first.endswith(b"\r") else self.rules_for(snap)
            if rules_id is None:
                take_rows(rows, snap, f)
                return snap
            session = Session(path, rules_id)
            bounds = _written_bounds(rows, snap, f, tmp, db)
            session.index_ranges(_parse_growing(tmp, bounds, peek_version(first), session.estimates), f.fileno())
        self.session = session
        return snap


def _first_line(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.readline()


def _written_bounds(rows: sqlite3.Cursor, snap: EventsSnapshot, f: BinaryIO, tmp: str, db: sqlite3.Connection) -> Iterator[int]:
    """Offsets cutting the mirror into ranges that each end at a line's end: those of what is written already, then
    one each time another `RANGE_BYTES` are written (and flushed), the rest of the rows being written meanwhile. The
    read transaction ends with the last row (the parse of the last ranges does not hold it)."""
    with open(tmp, "rb") as written:
        yield from parallel.split_points(written, snap.written, max(1, snap.written // RANGE_BYTES))
    last = snap.written
    while chunk := rows.fetchmany(FETCH_ROWS):
        take_rows(chunk, snap, f)
        if snap.written - last >= RANGE_BYTES:
            f.flush()
            last = snap.written
            yield last
    db.execute("COMMIT")
    if snap.written > last:
        f.flush()
        yield snap.written


def _parse_growing(path: str, bounds: Iterator[int], version: int, est: ReaderEstimates) -> Iterator[parallel.RangeResult]:
    """`extract_range_runs` of each range between consecutive `bounds` (taken as they come: taking one writes more
    of the file) in worker processes, yielded in file order. Range `k` goes to worker `k % workers`, each holding
    two at most (`parallel.parse_ranges`); while bounds come, a result is taken only when it is ready (the writing
    never waits for the parse), then in order."""
    from inspector.read.column_runs import extract_range_runs
    from inspector.storage.forkpool import ForkPool

    with ForkPool(parallel.worker_count(), extract_range_runs) as pool:
        workers = len(pool)
        waiting: deque[tuple[int, int]] = deque()
        sent = taken = 0
        start = next(bounds)
        for end in bounds:
            waiting.append((start, end))
            start = end
            while True:
                while waiting and sent < taken + 2 * workers:
                    pool.send(sent % workers, path, *waiting.popleft(), 1, version, est)
                    sent += 1
                if taken == sent or not pool.ready(taken % workers):
                    break
                yield pool.result(taken % workers)
                taken += 1
        while taken < sent:
            result = pool.result(taken % workers)
            taken += 1
            while waiting and sent < taken + 2 * workers:
                pool.send(sent % workers, path, *waiting.popleft(), 1, version, est)
                sent += 1
            yield result
            del result  # do not keep a range's records alive while waiting for the next one
