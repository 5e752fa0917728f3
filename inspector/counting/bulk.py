"""Real token counts of many context messages at the tokenizer's speed: `count_lines`.

Counting a context re-reads each message's line from disk, parses it, builds pi's AgentMessage and tokenizes
the text the model sees (`TokenCounter.count_message`). Done one message at a time, the seeks and small reads
cost as much as the tokenizer; here the lines are read in a few large sequential reads (sorted by offset, lines
close to each other read together), and a big share of work is split into byte-balanced parts counted by worker
processes (with fork they inherit the tokenizer already loaded). Neither tiktoken nor bpe-openai releases the
GIL while counting, so threads would not help; small jobs stay in this process.

Rows that cannot be read back as they were indexed (the file changed on disk) come back as `UNREADABLE`: the
caller re-reads them its usual way, which reports the problem.

This module is imported by `inspector.figures.session_figures`, not re-exported by `inspector.rules.openclaw_2026_4_12.tokens` (it needs
`inspector.read`, which itself imports `inspector.rules.openclaw_2026_4_12.tokens`).
"""

from __future__ import annotations

import gc
import signal
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from inspector.counting import helper
from inspector.counting.counter import Implementation, get_token_counter
from inspector.model import entries as m
from inspector.read import parallel
from inspector.read.jsonl_reader import agent_message_of
from inspector.read.records import decode_line
from inspector.storage import nums_layout as nl

if TYPE_CHECKING:
    from concurrent.futures import Future

    from inspector.session.session import Session

__all__ = [
    "COALESCE_GAP",
    "MAX_READ",
    "PARALLEL_MIN_BYTES",
    "UNREADABLE",
    "LineJob",
    "context_line_jobs",
    "count_context_soon",
    "count_lines",
    "messages_containing",
    "plan_shares",
    "precount_summaries",
    "rows_line_jobs",
]

PARALLEL_MIN_BYTES = 4 * 1024 * 1024
"""Jobs whose lines total fewer bytes than this are counted in this process (a pool costs ~50 ms to start)."""
SHARES_PER_WORKER = 4
"""Parts per worker process: small parts even out the load when some lines tokenize slower than others."""
COALESCE_GAP = 256 * 1024
"""Lines closer than this are read in one read (the bytes between them are read and skipped)."""
MAX_READ = 8 * 1024 * 1024
"""A coalesced read stops growing at this size (a single longer line is still read whole)."""
UNREADABLE = -1
"""The count given to a row whose bytes no longer parse into the object that was indexed."""
_location = nl.location


class LineJob(NamedTuple):
    """One message to count: `pos` (the caller's position, returned with the count), and the entry's line."""

    pos: int
    offset: int
    length: int
    entry_type: str


class _EntryKind(NamedTuple):
    """What `agent_message_of` reads of an entry (its type) for a line read back from disk."""

    type: str


def _reads(jobs: Sequence[LineJob]) -> list[tuple[int, int, list[LineJob]]]:
    """`jobs` (sorted by offset) grouped into reads `(start, end, jobs)`: neighbours within `COALESCE_GAP`,
    each read at most `MAX_READ` unless one line is longer."""
    groups: list[tuple[int, int, list[LineJob]]] = []
    start = end = 0
    group: list[LineJob] = []
    for job in jobs:
        job_end = job.offset + job.length
        if group and job.offset - end <= COALESCE_GAP and max(end, job_end) - start <= MAX_READ:
            group.append(job)
            end = max(end, job_end)
            continue
        if group:
            groups.append((start, end, group))
        start, end, group = job.offset, job_end, [job]
    if group:
        groups.append((start, end, group))
    return groups


def _count_share(path: str, jobs: Sequence[LineJob], version: int, encoding: str, implementation: Implementation) -> list[tuple[int, int | None]]:
    """`(pos, count)` of every job: its line read back, parsed like `Session.load_message` and counted."""
    counter = get_token_counter(encoding, implementation)
    out: list[tuple[int, int | None]] = []
    collecting = gc.isenabled()
    gc.disable()  # parsed JSON is acyclic (freed by reference counts): collections would only scan the index
    try:
        _count_into(out, path, jobs, version, counter.count_message)
    finally:
        if collecting:
            gc.enable()
    return out


def _count_into(out: list[tuple[int, int | None]], path: str, jobs: Sequence[LineJob], version: int, count_message: Callable[[dict[str, Any]], int | None]) -> None:
    """`_count_share`'s loop: appends `(pos, count)` to `out`, one large read per group of neighbouring lines."""
    with open(path, "rb") as f:
        for start, end, group in _reads(sorted(jobs, key=lambda j: j.offset)):
            f.seek(start)
            buf = f.read(end - start)
            for job in group:
                at = job.offset - start
                raw = buf[at : at + job.length]
                if len(raw) != job.length:
                    out.append((job.pos, UNREADABLE))
                    continue
                try:
                    obj, _ = decode_line(raw)
                except ValueError:
                    obj = None
                if not isinstance(obj, dict):
                    out.append((job.pos, UNREADABLE))
                    continue
                msg = agent_message_of(cast(m.Entry, _EntryKind(job.entry_type)), obj, version)
                out.append((job.pos, count_message(msg) if msg is not None else None))


def messages_containing(path: str, jobs: Sequence[LineJob], version: int, needle: bytes) -> list[tuple[int, dict[str, Any]]]:
    """`(pos, message)` of every job whose line holds the bytes `needle` (read like `count_lines`: a few large
    sequential reads; only those lines are parsed), in offset order. Lines that no longer parse are left out."""
    out: list[tuple[int, dict[str, Any]]] = []
    with open(path, "rb") as f:
        for start, end, group in _reads(sorted(jobs, key=lambda j: j.offset)):
            f.seek(start)
            buf = f.read(end - start)
            for job in group:
                at = job.offset - start
                if buf.find(needle, at, at + job.length) < 0:
                    continue
                try:
                    obj, _ = decode_line(buf[at : at + job.length])
                except ValueError:
                    continue
                msg = agent_message_of(cast(m.Entry, _EntryKind(job.entry_type)), obj, version) if isinstance(obj, dict) else None
                if msg is not None:
                    out.append((job.pos, msg))
    return out


def plan_shares(jobs: Sequence[LineJob], parts: int) -> list[list[LineJob]]:
    """`jobs` sorted by offset and cut into about `parts` runs of similar byte totals (each run contiguous)."""
    ordered = sorted(jobs, key=lambda j: j.offset)
    total = sum(j.length for j in ordered)
    target = max(1, -(-total // max(1, parts)))
    shares: list[list[LineJob]] = []
    share: list[LineJob] = []
    size = 0
    for job in ordered:
        share.append(job)
        size += job.length
        if size >= target:
            shares.append(share)
            share, size = [], 0
    if share:
        shares.append(share)
    return shares


def count_lines(
    path: str,
    jobs: Sequence[LineJob],
    version: int,
    encoding: str = "cl100k_base",
    implementation: Implementation = "auto",
    *,
    workers: int | None = None,
    min_bytes: int | None = None,
) -> dict[int, int | None]:
    """Token count of the message of every job, by `pos`: None when the line maps to no message, `UNREADABLE`
    when it no longer parses into an object.

    When a counting helper for this encoding runs (`inspector.counting.helper.start`) and `workers` and
    `min_bytes` are left to their defaults, the helper counts (the same counts; the tokenizer stays out of this
    process). Otherwise counts with `get_token_counter(encoding, implementation)` (load it before calling:
    forked workers inherit it). Lines totalling at least `min_bytes` (default `PARALLEL_MIN_BYTES`) are counted by `workers`
    processes (default `inspector.read.parallel.worker_count()`, which `SESSION_INSPECTOR_WORKERS` caps; 1 = in this
    process).
    """
    if workers is None and min_bytes is None and helper.active(encoding, implementation):
        try:
            return helper.count_lines(path, jobs, version)
        except helper.HelperFailed:
            pass  # counted here instead: the same counts
    workers = parallel.worker_count() if workers is None else max(1, workers)
    threshold = PARALLEL_MIN_BYTES if min_bytes is None else min_bytes
    total = sum(j.length for j in jobs)
    if workers == 1 or total < threshold or len(jobs) < 2:
        return dict(_count_share(path, jobs, version, encoding, implementation))
    get_token_counter(encoding, implementation).prepare()  # loaded once here, inherited by forked workers
    shares = plan_shares(jobs, workers * SHARES_PER_WORKER)
    counts: dict[int, int | None] = {}
    for result in _in_pool(workers, [(path, share, version, encoding, implementation) for share in shares]):
        counts.update(result)
    return counts


def _worker_init() -> None:
    """In a worker: SIGTERM ends the process at once; Ctrl-C is the parent's to handle (it ends us). What the fork
    inherited (the session's index) is frozen out of garbage collection: scanning it would copy its pages."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()


def _in_pool(workers: int, calls: list[tuple[str, list[LineJob], int, str, Implementation]]) -> list[list[tuple[int, int | None]]]:
    """`_count_share(*call)` for every call in a pool of `workers` processes (fork where available), like
    `inspector.read.parallel`: a SIGTERM in the main thread becomes SystemExit, which ends the workers."""
    import multiprocessing as mp  # here: a few counts in this process never pay for a pool's imports
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else None
    previous: Any = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, parallel.sigterm_to_exit)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(calls)), mp_context=ctx, initializer=_worker_init)
    try:
        futures: list[Future[list[tuple[int, int | None]]]] = [pool.submit(_count_share, *call) for call in calls]
        results = [future.result() for future in futures]
    except BaseException:
        parallel.end_workers(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return results


def context_line_jobs(session: Session, ctx: m.SessionContext, known: dict[int, int]) -> tuple[list[int | None], list[int], list[LineJob]]:
    """What counting the messages of `ctx` takes: the count of each (None where not known yet), the positions of
    the compaction summaries not known (counted from the index), and a `LineJob` for every other one not known.
    `known`: the counts made already, by entry offset (`session.token_counts[encoding]`). Read from the context rows'
    packed numbers and the table's columns: no `Entry` is built."""
    return rows_line_jobs(session, ctx.messages, known)


def rows_line_jobs(session: Session, rows: Sequence[m.ContextMessage], known: dict[int, int]) -> tuple[list[int | None], list[int], list[LineJob]]:
    """`context_line_jobs` of any context rows (those of several contexts: a timeline's)."""
    entries = session.entries
    counts: list[int | None] = [None] * len(rows)
    summaries: list[int] = []
    todo: list[LineJob] = []
    for pos, row in enumerate(rows):
        _, offset, length = _location(row.nums)
        count = known.get(offset)
        if count is not None:
            counts[pos] = count
            continue
        etype = entries.type_of(row.entry_index)
        if etype == m.COMPACTION and entries.data_of(row.entry_index) is not None:
            summaries.append(pos)
        else:
            todo.append(LineJob(pos, offset, length, etype))
    return counts, summaries, todo


def count_context_soon(session: Session, ctx: m.SessionContext, encoding: str) -> bool:
    """Send the lines of `ctx` whose counts are not known to the counting helper now, when one runs for `encoding`:
    `figures.tiktoken_counts_for` then reads the counts made meanwhile (its `count_lines` asks for the same jobs).
    Call it after `precount_summaries`. False when nothing was sent."""
    if not helper.active(encoding, "auto"):
        return False
    counter = get_token_counter(encoding)
    if not counter.available:
        return False
    _, _, todo = context_line_jobs(session, ctx, session.token_counts.get(counter.name, {}))
    if not todo:
        return False
    try:
        helper.count_lines_soon(str(session.path), todo, session.version)
    except helper.HelperFailed:
        return False
    return True


def precount_summaries(session: Session, ctx: m.SessionContext, encoding: str) -> int:
    """Count, in the counting helper, the compaction summaries of `ctx` whose counts `session.token_counts` lacks,
    and store them there (by entry offset, under the encoding in use): the messages `figures.tiktoken_counts_for`
    counts from the index rather than through `count_lines`. Returns how many were stored; 0 when no helper
    for `encoding` runs or it fails (the caller then counts them itself, with the same result)."""
    if not helper.active(encoding, "auto"):
        return 0
    counter = get_token_counter(encoding)
    if not counter.available:
        return 0
    known = session.token_counts.setdefault(counter.name, {})
    entries = session.entries
    todo: list[tuple[int, dict[str, Any]]] = []
    for pos in context_line_jobs(session, ctx, known)[1]:
        e = entries[ctx.messages[pos].entry_index]
        msg = session.load_message(e)
        if msg is not None:
            todo.append((e.offset, msg))
    if not todo:
        return 0
    try:
        counts = helper.count_messages([msg for _, msg in todo])
    except helper.HelperFailed:
        return 0
    stored = 0
    for (offset, _), count in zip(todo, counts):
        if isinstance(count, int):
            known[offset] = count
            stored += 1
    return stored
