"""The session browser: listing, summaries, sort, filter as you type, live updates from the watcher."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_ui_support import basic_builder, compaction_builder, settle, write_session

from inspector.samples.demo import demo_session_path
from widgets.browser.screen import BrowserScreen
from widgets.browser.table import SessionTable
from widgets.browser.watch import ManualWatcher
from widgets.screens.inspector import InspectorScreen


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
