"""Reading the browser's per-file figures in the background, in two worker processes.

`FigureFill.run` (called in the screen's thread worker) has one process glance at every file (`inspector.host.listing`:
header and tail, a millisecond each, 16 files per task) while another summarizes them (`inspector.figures.file_summary`: a full
index each, seconds for a big file). Reading them in this process would hold the GIL most of the time: every key
would wait behind it (seconds, measured with `bench/many_browser.py`). Without worker processes it falls back to
reading here. Both go by `FillOrder`: the rows on
screen first (asked again before every file, so a scroll or a sort is followed at once), then the list's order.
Results are posted in batches (`Glanced`, `Summarized`): one redraw per batch, not per file.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Executor, Future, ProcessPoolExecutor, wait
from pathlib import Path

from textual.message import Message
from textual.screen import Screen

from inspector.figures.file_summary import SessionSummary
from inspector.host.listing import SessionGlance
from inspector.host.listing.file_memo import FileMemo, Stamp, file_stamp
from inspector.read.parallel import end_workers

BATCH_FILES = 256
BATCH_SECONDS = 0.25
"""A batch of figures is posted after this many files or this long, whichever comes first."""
IN_FLIGHT = 2
"""Tasks queued in each worker process at a time (few: the order can still follow the screen)."""
GLANCE_CHUNK = 16
"""Files per glance task (a few milliseconds of work: the order still follows the screen)."""


def _worker_init() -> None:
    """In a worker: SIGTERM ends it at once; Ctrl-C is the app's to handle (as `inspector.read.parallel`'s workers)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_pool() -> ProcessPoolExecutor:
    """One worker process. Forked where the platform can, as `inspector.read.parallel` does: a spawned process (and the
    resource tracker it needs) cannot start while Textual holds stdout and stderr."""
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    return ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_worker_init)


def end_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's worker process now, mid-file if need be: quitting the app must not wait for a big file's summary."""
    end_workers(pool)


class Glanced(Message):
    """Glances of `paths` are in the screen's `glances` (a batch: one redraw for many files)."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self.paths = paths


class Summarized(Message):
    """Full summaries of `paths` are in the screen's `summaries` (a batch)."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self.paths = paths


class FillOrder:
    """The order files are read in: the rows on screen first (asked before every file), then the list's order."""

    def __init__(self, paths: list[Path], visible: Callable[[], list[Path]]) -> None:
        self.waiting = deque(paths)
        self.wanted = {str(p) for p in paths}
        self.visible = visible
        self.done: set[str] = set()

    def next(self) -> Path | None:
        """The next path to read, or None when every one was."""
        for path in self.visible():
            key = str(path)
            if key in self.wanted and key not in self.done:
                self.done.add(key)
                return path
        while self.waiting:
            path = self.waiting.popleft()
            if str(path) not in self.done:
                self.done.add(str(path))
                return path
        return None


class _Batch:
    """Paths whose figures were read, posted as one message after `BATCH_FILES` files or `BATCH_SECONDS`."""

    def __init__(self, screen: Screen, message: type[Glanced] | type[Summarized]) -> None:
        self.screen, self.message = screen, message
        self.paths: list[Path] = []
        self.started = time.monotonic()

    def add(self, path: Path) -> None:
        if not self.paths:
            self.started = time.monotonic()
        self.paths.append(path)
        if len(self.paths) >= BATCH_FILES or time.monotonic() - self.started >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self.paths:
            self.screen.post_message(self.message(self.paths))
            self.paths = []


def glance_many(read: Callable[[Path], SessionGlance], paths: list[Path]) -> list[tuple[Path, Stamp | None, SessionGlance]]:
    """`read` of each path with the file's stamp taken before (runs in a worker process)."""
    return [(path, file_stamp(path), read(path)) for path in paths]


def summarize_one(read: Callable[[Path], SessionSummary], path: Path) -> list[tuple[Path, Stamp | None, SessionSummary]]:
    """`read(path)` with the file's stamp taken before (runs in a worker process)."""
    return [(path, file_stamp(path), read(path))]


Pending = list[tuple[Future, FileMemo, _Batch, list[Path]]]


class FigureFill:
    """One run of the background fill over `paths` (see the module docstring)."""

    def __init__(
        self,
        screen: Screen,
        paths: list[Path],
        visible: Callable[[], list[Path]],
        glances: FileMemo[SessionGlance],
        summaries: FileMemo[SessionSummary],
        pools: tuple[Executor, Executor] | None,
    ) -> None:
        self.glances, self.summaries, self.pools = glances, summaries, pools
        self.paths, self.visible = paths, visible
        self.glance_order = FillOrder(paths, visible)
        self.summary_order = FillOrder(paths, visible)
        self.glanced = _Batch(screen, Glanced)
        self.summarized = _Batch(screen, Summarized)
        self.pending: Pending = []

    def run(self, cancelled: Callable[[], bool]) -> None:
        """Read until every file has both figures, or `cancelled()`."""
        finished = False
        if self.pools is not None:
            try:
                self._run_in_processes(self.pools, cancelled)
                finished = True
            except (BrokenExecutor, RuntimeError):  # a worker process died, or the pool was shut down: go on here
                pass
        if not finished:
            self._run_here(cancelled)
        self.glanced.flush()
        self.summarized.flush()

    def _run_here(self, cancelled: Callable[[], bool]) -> None:
        """Without worker processes: glances first, then summaries, letting the GIL go after every file (from the
        start again after the processes failed: what they read is kept and skipped)."""
        for memo, batch in ((self.glances, self.glanced), (self.summaries, self.summarized)):
            order = FillOrder(self.paths, self.visible)
            while (path := order.next()) is not None and not cancelled():
                if memo.get(path) is None:
                    memo.compute(path)
                    batch.add(path)
                time.sleep(0)

    def _next_paths(self, order: FillOrder, memo: FileMemo, count: int) -> list[Path] | None:
        """Up to `count` paths still to read (None: none left)."""
        chosen: list[Path] = []
        while len(chosen) < count:
            path = order.next()
            if path is None:
                return chosen or None
            if memo.get(path) is None:
                chosen.append(path)
        return chosen

    def _run_in_processes(self, pools: tuple[Executor, Executor], cancelled: Callable[[], bool]) -> None:
        glance_pool, summary_pool = pools
        glancing = summarizing = True
        while (glancing or summarizing or self.pending) and not cancelled():
            in_glance = sum(1 for _, memo, _, _ in self.pending if memo is self.glances)
            while glancing and in_glance < IN_FLIGHT:
                paths = self._next_paths(self.glance_order, self.glances, GLANCE_CHUNK)
                if paths is None:
                    glancing = False
                    break
                self.pending.append((glance_pool.submit(glance_many, self.glances.read, paths), self.glances, self.glanced,
                                     paths))
                in_glance += 1
            in_summary = len(self.pending) - in_glance
            while summarizing and in_summary < IN_FLIGHT:
                one = self._next_paths(self.summary_order, self.summaries, 1)
                if one is None:
                    summarizing = False
                    break
                self.pending.append((summary_pool.submit(summarize_one, self.summaries.read, one[0]), self.summaries,
                                     self.summarized, one))
                in_summary += 1
            if self.pending:
                wait([f for f, _, _, _ in self.pending], timeout=0.05, return_when=FIRST_COMPLETED)
            self._collect()
        for future, _, _, _ in self.pending:
            future.cancel()

    def _collect(self) -> None:
        """Keep the results that are done."""
        still: Pending = []
        for future, memo, batch, paths in self.pending:
            if not future.done():
                still.append((future, memo, batch, paths))
                continue
            try:
                results = future.result()
            except Exception:  # a reader that cannot go to a process (a closure), a broken pool: read them here
                results = [(path, file_stamp(path), memo.read(path)) for path in paths]
            for path, stamp, value in results:
                memo.store(path, stamp, value)
                batch.add(path)
        self.pending = still
