"""OpenClaw's Gateway log in the app: the timeline's summary and the compaction forecast show what it recorded and
where it disagrees; without a log neither changes (the snapshot tests hold that)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gateway_log_support import compaction_end, compaction_start, log_line, loop_abort, precheck, write_log
from test_diagnosis_fixtures import build_runaway
from test_ui_support import settle

from widgets.compaction.plan_text import gateway_text
from widgets.compaction.view import CompactionView
from widgets.diagnosis.summary import TimelineSummary

KEY = "agent:main:main"
SID = "8a186f4a-4c11-4daf-899f-d7e80dfe1faf"
T0 = 1767323045680


def _setup(tmp_path: Path, with_log: bool = True) -> tuple[Path, Path]:
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    session = folder / f"{SID}.jsonl"
    build_runaway(session)
    (folder / "sessions.json").write_text(json.dumps({KEY: {"sessionId": SID, "updatedAt": 1}}))
    log = tmp_path / "logs" / "gw.log"
    if with_log:
        write_log(log, [
            log_line(T0 - 5, precheck(KEY, estimate=4900, route="fits")),
            log_line(T0 + 408000, compaction_start(KEY)),
            log_line(T0 + 408500, compaction_end(KEY)),
            log_line(T0 + 999999, loop_abort(KEY, SID)),
        ])
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps({"logging": {"file": str(log)}}))
    return session, config


def _text(widget) -> str:
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


@pytest.mark.anyio
@pytest.mark.parametrize("with_log", [True, False])
async def test_timeline_summary_shows_the_log(tmp_path, ui, with_log):
    session, config = _setup(tmp_path, with_log)
    pilot = await ui(session, config_path=config)
    await pilot.press("l")
    await settle(pilot)
    summary = _text(pilot.app.screen.query_one(TimelineSummary))
    if with_log:
        assert "OpenClaw's log 1 overflow precheck, 1 compaction attempt, 1 compaction result, 1 loop abort" in summary
        assert "1 loop abort · 2 disagreements: OpenCl" in summary  # the first one, cut to the width
    else:
        assert "OpenClaw's log" not in summary


@pytest.mark.anyio
async def test_compaction_view_sets_the_log_beside_the_forecast(tmp_path, ui):
    session, config = _setup(tmp_path)
    pilot = await ui(session, config_path=config)
    await pilot.press("C")
    await settle(pilot)
    triggers = str(pilot.app.screen.query_one(CompactionView).query_one("#plan-triggers").render())
    assert "OpenClaw's log (4 events)" in triggers
    assert "last precheck: fits, estimate 4900, budget 150000 (an earlier context)" in triggers
    assert "last compaction: compacted (budget), 19200 → 5100 tok" in triggers
    assert "OpenClaw estimated 4,900 prompt tokens where the product's estimate is" in triggers


def test_gateway_text_is_inert():
    gw = {"events": 1, "last_precheck": {"figures": {"route": "\x1b[2Jfits", "estimated_prompt_tokens": 1}}, "same_context": True,
          "last_compaction": None, "disagreements": [{"message": "x\u202ey"}]}
    text = gateway_text(gw).plain
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b[2Jfits" in text


def test_gateway_log_option_is_parsed(tmp_path):
    from widgets.launch import parse_args

    assert parse_args([str(tmp_path), "--gateway-log", "logs/gw.log"]).gateway_log == Path("logs/gw.log")
    assert parse_args([str(tmp_path)]).gateway_log is None


def _elsewhere(tmp_path: Path) -> Path:
    """Move the log out of the config's `logging.file`: only `--gateway-log` finds it now."""
    log = tmp_path / "logs" / "gw.log"
    moved = tmp_path / "elsewhere" / "openclaw-gw.log"
    moved.parent.mkdir()
    log.rename(moved)
    return moved


@pytest.mark.anyio
@pytest.mark.parametrize("named", [True, False])
async def test_the_gateway_log_option_is_read_by_the_timeline_and_the_forecast(tmp_path, ui, named):
    session, config = _setup(tmp_path)
    moved = _elsewhere(tmp_path)
    pilot = await ui(session, config_path=config, gateway_log=moved if named else None)
    await pilot.press("l")
    await settle(pilot)
    summary = _text(pilot.app.screen.query_one(TimelineSummary))
    assert ("OpenClaw's log 1 overflow precheck, 1 compaction attempt" in summary) is named
    await pilot.press("escape")
    await settle(pilot)
    await pilot.press("C")
    await settle(pilot)
    triggers = str(pilot.app.screen.query_one(CompactionView).query_one("#plan-triggers").render())
    assert ("OpenClaw's log (4 events)" in triggers) is named


@pytest.mark.anyio
async def test_a_named_log_without_the_session_says_so(tmp_path, ui):
    session, config = _setup(tmp_path, with_log=False)
    empty = tmp_path / "empty.log"
    write_log(empty, [log_line(T0, precheck("agent:other:main"))])
    pilot = await ui(session, config_path=config, gateway_log=empty)
    await pilot.press("l")
    await settle(pilot)
    assert "OpenClaw's log no event" in _text(pilot.app.screen.query_one(TimelineSummary))


@pytest.mark.anyio
async def test_a_store_session_matches_the_log_by_its_key(tmp_path, ui):
    """The store session's mirror has no `sessions.json` beside it and the log's lines name only the key: they
    are found because the app passes the store session's key."""
    from store_support import build_store

    source = tmp_path / "source.jsonl"
    build_runaway(source)
    store, _ = build_store(tmp_path / "home", {KEY: source})
    log = tmp_path / "gw" / "openclaw-1.log"
    write_log(log, [
        log_line(T0 - 5, precheck(KEY, estimate=4900, route="fits")),
        log_line(T0 + 408000, compaction_start(KEY)),
        log_line(T0 + 408500, compaction_end(KEY)),
    ])
    pilot = await ui(store, gateway_log=log)
    screen = pilot.app.screen
    assert screen.opener.mirror is not None and screen.opener.mirror.session_key == KEY
    await pilot.press("l")
    await settle(pilot)
    assert "OpenClaw's log 1 overflow precheck, 1 compaction attempt, 1 compaction result" in _text(screen.app.screen.query_one(TimelineSummary))
    await pilot.press("escape")
    await settle(pilot)
    await pilot.press("C")
    await settle(pilot)
    triggers = str(screen.query_one(CompactionView).query_one("#plan-triggers").render())
    assert "OpenClaw's log (3 events)" in triggers and "last compaction: compacted (budget)" in triggers
