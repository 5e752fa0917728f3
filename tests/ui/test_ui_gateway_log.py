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
