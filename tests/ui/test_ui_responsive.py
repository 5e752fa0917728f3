"""The app stays responsive on a generated mid-size session: no key of the help screen blocks the event loop for more
than 100 ms, Esc (and `q`) cancel the compaction forecast's planning at once,
its thread included, a newer estimator switch (and `q`) cancels the one under way, and a cold open by the app writes
the index snapshot the CLI restores."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import bench_generator
from test_ui_support import settle
from textual.widgets import Input

from inspector.rules.openclaw_2026_4_12.compaction import prepare as april_prepare
from inspector.session.index_cache import RESTORED, how_opened, index_entry_name, open_cached, save_opened
from widgets.compaction.view import CompactionView
from widgets.screens.inspector import InspectorScreen
from widgets.transcript import model as transcript_model
from widgets.transcript.model import TranscriptModel

MAX_BLOCK = 0.100
NOT_YET = {"z": 0.200, "p": 0.200, "t": 0.250}
"""Keys still over `MAX_BLOCK` at times, with the bound they are held to meanwhile: `z` (zoom the message, and back)
30-120 ms: Textual lays out and repaints the whole screen, and restyles the focus change (its restyle of the screen's
`-maximized-view` class, every node, is already cut to the screen and the zoomed widget); `p` 40-55 ms quiet, 60-78
ms with the machine loaded and 112 ms once in the whole suite: Textual re-renders the overlay's ~80 widgets when its
top panels fill in; `t` (the next colour theme) ~60-116 ms: Textual restyles and repaints every widget of the app
with the new theme's variables."""
SIZE = (160, 48)
KEYS = (
    "C", "escape", "o", "o", "b", "u", "U", "c", "w", "escape", "s", "s", "m", "escape", "slash", "r", "a", "t", "e", "enter", "escape",
    "e", "e", "e", "e", "question_mark", "escape", "p", "escape", "l", "escape", "R", "escape", "d", "escape",
    "X", "escape", "f", "escape", "n", "N", "z", "z", "a", "r", "t", "escape",
    "down", "up", "pagedown", "pageup", "end", "home", "enter", "escape", "escape",
)
"""Every key of the inspector's help screen (`q` quits: `test_quitting_cancels_the_planning_thread`), each pressed
once the previous one settled, Esc closing what a key opened (and, last, the inspector's own Esc)."""


@pytest.fixture(scope="module")
def mid_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 12,000-entry session of the benchmark's thinking shape (thinking, tool calls, details, custom entries)."""
    path = tmp_path_factory.mktemp("mid") / "thinking.jsonl"
    bench_generator().generate(path, entries=12_000, seed=5, shape="thinking")
    return path


@pytest.fixture
def uncompacted_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """3,000 entries that never compacted: pi's cut-point walk goes over all of them."""
    gen = bench_generator()
    monkeypatch.setattr(gen, "COMPACT_AT_CHARS", 10**15)
    path = tmp_path / "uncompacted.jsonl"
    gen.generate(path, entries=3000, seed=9, shape="chat")
    return path


class LoopWatch:
    """The longest the event loop was blocked between two runs of a 5 ms heartbeat, inside the `with` block.

    A gap counts as blocked for the CPU time the event loop's own thread spent in it plus the garbage collector's
    passes in any thread (a pass stops every thread), at most the gap's wall time. A worker's Python code does not
    block the loop (the interpreter hands the GIL over every 5 ms), nor does time the OS gave other processes on a
    loaded machine (the tests run beside others). `longest_process` is the same with the whole process's CPU time
    (workers included), for the failure message."""

    def __init__(self) -> None:
        self.longest = 0.0
        self.longest_process = 0.0
        self.longest_wall = 0.0
        self._gc = 0.0
        self._gc_start: dict[int, float] = {}
        self._task: asyncio.Task[None] | None = None

    def _on_gc(self, phase: str, info: dict) -> None:
        tid = threading.get_ident()
        if phase == "start":
            self._gc_start[tid] = time.thread_time()
        elif tid in self._gc_start:
            self._gc += time.thread_time() - self._gc_start.pop(tid)

    async def _beat(self) -> None:
        last, last_cpu, last_own, last_gc = time.perf_counter(), time.process_time(), time.thread_time(), self._gc
        while True:
            await asyncio.sleep(0.005)
            now, cpu, own, gc_time = time.perf_counter(), time.process_time(), time.thread_time(), self._gc
            wall = now - last
            self.longest = max(self.longest, min(wall, own - last_own + gc_time - last_gc))
            self.longest_process = max(self.longest_process, min(wall, cpu - last_cpu))
            self.longest_wall = max(self.longest_wall, wall)
            last, last_cpu, last_own, last_gc = now, cpu, own, gc_time

    def __enter__(self) -> LoopWatch:
        gc.callbacks.append(self._on_gc)
        self._task = asyncio.get_running_loop().create_task(self._beat())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        gc.callbacks.remove(self._on_gc)


def threads_in(function_name: str, module_suffix: str) -> list[int]:
    """The threads whose stack is inside `function_name` of a module whose file ends with `module_suffix`."""
    out = []
    for tid, frame in sys._current_frames().items():
        f = frame
        while f is not None:
            if f.f_code.co_name == function_name and f.f_code.co_filename.endswith(module_suffix):
                out.append(tid)
                break
            f = f.f_back
    return out


async def wait_until(predicate, timeout: float) -> bool:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if predicate():
            return True
        await asyncio.sleep(0.005)
    return predicate()


@pytest.mark.anyio
async def test_no_key_blocks_the_event_loop(mid_session, ui):
    pilot = await ui(mid_session, size=SIZE, settle=True)
    assert isinstance(pilot.app.screen, InspectorScreen) and pilot.app.screen.model is not None
    pilot.app.collector.idle_seconds = 3600  # its deferred full collection waits for an idle user, never between these keys
    blocked: dict[str, LoopWatch] = {}
    for key in KEYS:
        with LoopWatch() as watch:
            await pilot.press(key)
            await settle(pilot, 60)
        if key in ("n", "N"):  # the query typed after `/` is kept: n / N move between matches, no search bar opens
            assert not isinstance(pilot.app.focused, Input), f"{key} opened the search bar (the keys after it typed into it)"
        if key not in blocked or watch.longest > blocked[key].longest:
            blocked[key] = watch
    assert isinstance(pilot.app.screen, InspectorScreen), "every key's screen closed again"
    slow = {
        k: f"{1000 * w.longest:.0f} ms (process {1000 * w.longest_process:.0f}, wall {1000 * w.longest_wall:.0f})"
        for k, w in blocked.items() if w.longest > NOT_YET.get(k, MAX_BLOCK)
    }
    assert not slow, f"keys that blocked the event loop over {1000 * MAX_BLOCK:.0f} ms (NOT_YET: their own bound): {slow}"


def _slow_cut_points(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each cut-point test takes 2 ms: planning the 3,000 uncompacted entries takes ~6 s unless cancelled."""
    real = april_prepare.is_cut_point

    def slow(entry):
        time.sleep(0.002)
        return real(entry)

    monkeypatch.setattr(april_prepare, "is_cut_point", slow)


@pytest.mark.anyio
@pytest.mark.parametrize("key", ["escape", "C"])
async def test_leaving_the_forecast_cancels_its_planning_thread(uncompacted_session, ui, monkeypatch, key):
    pilot = await ui(uncompacted_session, size=SIZE, settle=True)
    _slow_cut_points(monkeypatch)
    await pilot.press("C")
    assert await wait_until(lambda: threads_in("plan_compaction", "forecast/plan.py"), 5), "planning started"
    with LoopWatch() as watch:
        await pilot.press(key)
        gone = await wait_until(lambda: not threads_in("plan_compaction", "forecast/plan.py"), 0.3)
    assert gone, f"{key} left the planning thread running"
    assert not pilot.app.screen.query(CompactionView), "the forecast closed"
    assert watch.longest <= MAX_BLOCK


@pytest.mark.anyio
async def test_quitting_cancels_the_planning_thread(uncompacted_session, ui, monkeypatch):
    pilot = await ui(uncompacted_session, size=SIZE, settle=True)
    _slow_cut_points(monkeypatch)
    await pilot.press("C")
    assert await wait_until(lambda: threads_in("plan_compaction", "forecast/plan.py"), 5), "planning started"
    await pilot.press("q")
    assert await wait_until(lambda: not threads_in("plan_compaction", "forecast/plan.py"), 0.3), "q left the planning thread running"


@pytest.mark.anyio
async def test_a_cold_open_writes_the_snapshot_the_cli_restores(mid_session, ui, _own_index_cache):
    snapshot = _own_index_cache / index_entry_name(mid_session)
    assert not snapshot.exists()
    pilot = await ui(mid_session, size=SIZE, settle=True)
    assert pilot.app.screen.session is not None
    assert snapshot.exists(), "the app saved the index it built"
    session = open_cached(mid_session)
    try:
        assert how_opened(session) == RESTORED
        assert session.entries == pilot.app.screen.session.entries
    finally:
        save_opened()


def _slow_sizes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each message's size takes 5 ms more (a block of `PREPARE_CHUNK`, 64 here, 0.32 s): an estimator switch takes
    seconds unless cancelled between two blocks."""
    real = TranscriptModel._compute_sizes

    def slow(self, estimator, start, stop):
        time.sleep(0.005 * (stop - start))
        return real(self, estimator, start, stop)

    monkeypatch.setattr(TranscriptModel, "_compute_sizes", slow)
    monkeypatch.setattr(transcript_model, "PREPARE_CHUNK", 64)


@pytest.mark.anyio
async def test_a_newer_estimator_switch_cancels_the_older_ones_thread(mid_session, ui, monkeypatch):
    pilot = await ui(mid_session, size=SIZE, settle=True)
    screen = pilot.app.screen
    assert screen.model.message_count > 4 * 64, "enough messages for several blocks"
    _slow_sizes(monkeypatch)
    await pilot.press("e")
    assert await wait_until(lambda: threads_in("prepared_estimator", "estimator_prep.py"), 5), "the switch started"
    first = threads_in("prepared_estimator", "estimator_prep.py")
    with LoopWatch() as watch:
        await pilot.press("e")
        gone = await wait_until(lambda: not set(first) & set(threads_in("prepared_estimator", "estimator_prep.py")), 0.6)
    assert gone, "the older switch's thread kept computing"
    assert watch.longest <= MAX_BLOCK
    await settle(pilot, 60)
    assert screen.estimator == "tiktoken" and screen.transcript.estimator == "tiktoken", "the newest switch applied"


@pytest.mark.anyio
async def test_quitting_cancels_the_estimator_switch(mid_session, ui, monkeypatch):
    pilot = await ui(mid_session, size=SIZE, settle=True)
    _slow_sizes(monkeypatch)
    await pilot.press("e")
    assert await wait_until(lambda: threads_in("prepared_estimator", "estimator_prep.py"), 5), "the switch started"
    await pilot.press("q")
    assert await wait_until(lambda: not threads_in("prepared_estimator", "estimator_prep.py"), 0.6), "q left the switch running"
