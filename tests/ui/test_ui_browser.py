"""The session browser: listing, summaries, sort, filter as you type, live updates from the watcher."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
from test_ui_support import NOW, basic_builder, compaction_builder, settle, write_session

from inspector.figures.file_summary import summarize_session
from inspector.host.listing import glance_session
from inspector.samples.demo import demo_session_path
from widgets.browser.fill import FillOrder
from widgets.browser.screen import BrowserScreen
from widgets.browser.table import PENDING, SessionTable
from widgets.browser.watch import ManualWatcher
from widgets.screens.inspector import InspectorScreen
from widgets.transcript.previews import compact_number

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.many_sessions import generate_dir


def make_dir(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    root.mkdir()
    write_session(root, "aaa.jsonl", basic_builder(1))
    write_session(root, "bbb.jsonl", compaction_builder(2))
    small = root / "ccc.jsonl"
    small.write_text('{"type":"session","version":3,"id":"ccc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n', encoding="utf-8")
    for i, name in enumerate(("aaa.jsonl", "bbb.jsonl", "ccc.jsonl")):
        os.utime(root / name, (1_767_000_000 + i * 3600, 1_767_000_000 + i * 3600))
    return root


def names(table: SessionTable) -> list[str]:
    return [r.file.path.name for r in table.rows_shown]


@pytest.mark.anyio
async def test_browser_lists_sorts_and_filters(tmp_path, ui):
    root = make_dir(tmp_path)
    pilot = await ui(root)
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    table = screen.query_one(SessionTable)
    assert names(table) == ["ccc.jsonl", "bbb.jsonl", "aaa.jsonl"]  # newest first
    summary = screen.summaries.get(root / "bbb.jsonl")
    assert summary is not None and summary.compactions == 1 and summary.messages and summary.context_tokens
    screen._sort_by("size")
    screen.reverse = False
    screen._redraw()
    sizes = [r.file.size for r in table.rows_shown]
    assert sizes == sorted(sizes)
    await pilot.press("slash")
    await pilot.press(*"bbb")
    await pilot.pause()
    assert names(table) == ["bbb.jsonl"]
    await pilot.press("escape")
    await pilot.pause()
    assert len(names(table)) == 3
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, InspectorScreen)
    await pilot.press("escape")
    assert app.screen is screen


@pytest.mark.anyio
async def test_browser_updates_live_when_files_appear_and_disappear(tmp_path, ui):
    root = make_dir(tmp_path)
    watchers: list[ManualWatcher] = []

    def factory(paths):
        w = ManualWatcher(paths)
        watchers.append(w)
        return w
    pilot = await ui(root, watcher_factory=factory)
    app = pilot.app
    table = app.screen.query_one(SessionTable)
    assert watchers and watchers[0].paths == [root]
    write_session(root, "ddd.jsonl", basic_builder(4))
    watchers[0].trigger(root / "ddd.jsonl")
    await settle(pilot)
    assert "ddd.jsonl" in names(table)
    assert app.screen.summaries.get(root / "ddd.jsonl") is not None
    (root / "aaa.jsonl").unlink()
    watchers[0].trigger(root / "aaa.jsonl")
    await settle(pilot)
    assert "aaa.jsonl" not in names(table) and len(names(table)) == 3


@pytest.mark.anyio
async def test_no_path_and_no_sessions_opens_the_demo(tmp_path, ui):
    pilot = await ui(None, home=tmp_path, env={"HOME": str(tmp_path)})
    app = pilot.app
    assert isinstance(app.screen, InspectorScreen)
    assert app.screen.path == demo_session_path()
    assert len(app.screen.model) > 10


@pytest.mark.anyio
async def test_no_path_lists_sessions_in_the_default_places(tmp_path, ui):
    sessions = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    write_session(sessions, "0b7e1c9a-1111-4222-8333-944445555666.jsonl", basic_builder(5))
    pilot = await ui(None, home=tmp_path, env={"HOME": str(tmp_path)})
    app = pilot.app
    assert isinstance(app.screen, BrowserScreen)
    rows = app.screen.query_one(SessionTable).rows_shown
    assert [r.agent for r in rows] == ["main"]


# ------------------------------------------------------------------------------------------------ many files


def test_fill_order_follows_the_screen():
    """The rows on screen are read first, asked again before every file (a scroll or a sort is followed at once)."""
    paths = [Path(f"/s/{i:02}.jsonl") for i in range(10)]
    on_screen = [paths[7], paths[8]]
    order = FillOrder(paths, lambda: on_screen)
    assert [order.next(), order.next(), order.next()] == [paths[7], paths[8], paths[0]]
    on_screen[:] = [paths[5], Path("/elsewhere.jsonl")]  # scrolled; a path not asked for is never read
    assert [order.next(), order.next()] == [paths[5], paths[1]]
    rest = list(iter(order.next, None))
    assert rest == [paths[i] for i in (2, 3, 4, 6, 9)]


@pytest.mark.anyio
async def test_the_list_comes_before_the_figures_and_the_figures_come(tmp_path, ui, monkeypatch):
    """With every file's reading held back, the list is already there (figures `…`, keys work); once let go, every
    row gets the glance's and the full summary's figures. Fails if the figures were read before the list is shown,
    or never."""
    root = make_dir(tmp_path)
    gate = threading.Event()

    def held(read):
        def wait_then_read(path):
            assert gate.wait(30)
            return read(path)
        return staticmethod(wait_then_read)

    monkeypatch.setattr(BrowserScreen, "use_processes", False)  # in this process: the gate is a thread event
    monkeypatch.setattr(BrowserScreen, "glance_reader", held(glance_session))
    monkeypatch.setattr(BrowserScreen, "summary_reader", held(summarize_session))
    pilot = await ui(root, settle=False)
    screen = pilot.app.screen
    table = screen.query_one(SessionTable)
    for _ in range(500):
        if table.row_count == 3:
            break
        await pilot.pause(0.01)
    assert names(table) == ["ccc.jsonl", "bbb.jsonl", "aaa.jsonl"]
    assert {r.cells(NOW)["context"] for r in table.rows_shown} == {PENDING}
    assert "reading figures, 0 of 3 done" in screen.query_one("#browser-title").text
    await pilot.press("s")  # a key while every read is held back
    assert screen.sort_column == "size"
    gate.set()
    await settle(pilot)
    for row in table.rows_shown:
        summary = summarize_session(row.file.path)
        assert row.summary == summary and row.glance == glance_session(row.file.path)
        assert row.cells(NOW)["context"] == compact_number(summary.context_tokens) != PENDING
    assert "reading figures" not in screen.query_one("#browser-title").text


@pytest.mark.anyio
async def test_figures_of_many_files_arrive_from_the_worker_processes(tmp_path, ui):
    """A generated directory (`bench/many_sessions.py`): every row gets its figures from the worker processes,
    equal to reading the file here."""
    root = tmp_path / "sessions"
    generate_dir(root, 60, big=0, big_size=0, seed=9)
    pilot = await ui(root, size=(140, 30))
    screen = pilot.app.screen
    table = screen.query_one(SessionTable)
    assert table.row_count == 60  # live ones, archives and checkpoints: every transcript
    assert screen._pools is not None  # read in the worker processes, not here
    rows = table.rows_shown
    assert all(r.summary is not None and r.glance is not None for r in rows)
    for row in rows[:: 7]:
        assert row.summary == summarize_session(row.file.path)
        assert row.glance == glance_session(row.file.path)
        assert row.context_tokens == row.glance.context_tokens == row.summary.context_tokens
    await pilot.press("end")
    assert table.cursor_row == len(rows) - 1 and table.scroll_offset.y > 0


@pytest.mark.anyio
async def test_a_reader_that_cannot_go_to_a_process_is_read_here(tmp_path, ui, monkeypatch):
    """A glance reader that cannot be sent to the worker process (a closure, as a cache might plug in): the figures
    are still read, here."""
    root = make_dir(tmp_path)
    seen: list[Path] = []

    def local_glance(path):
        seen.append(path)
        return glance_session(path)

    monkeypatch.setattr(BrowserScreen, "glance_reader", staticmethod(local_glance))
    pilot = await ui(root)
    table = pilot.app.screen.query_one(SessionTable)
    assert sorted(p.name for p in seen) == ["aaa.jsonl", "bbb.jsonl", "ccc.jsonl"]
    assert all(r.glance == glance_session(r.file.path) and r.summary is not None for r in table.rows_shown)


@pytest.mark.anyio
async def test_a_dead_worker_process_does_not_leave_rows_unread(tmp_path, ui):
    """The summary process is killed before the first discovery's reading: a rescan reads every figure here."""
    root = make_dir(tmp_path)
    watchers: list[ManualWatcher] = []

    def factory(paths):
        watchers.append(ManualWatcher(paths))
        return watchers[-1]

    pilot = await ui(root, watcher_factory=factory)
    screen = pilot.app.screen
    for pool in screen._pools:
        for proc in list(pool._processes.values()):
            proc.kill()
            proc.join(5)
    write_session(root, "ddd.jsonl", basic_builder(4))
    watchers[0].trigger(root / "ddd.jsonl")
    await settle(pilot)
    rows = screen.query_one(SessionTable).rows_shown
    assert len(rows) == 4 and all(r.summary == summarize_session(r.file.path) for r in rows)
