"""The compaction forecast view (`C`): the plan drawn on the transcript, its panel, live settings, Esc.

Fixture sessions are issue 9's plan cases (`tests/oracle/cases.py`); their settings come from an openclaw.json
written beside them (`--config`), so each state shows without typing. Snapshots: fixed clock, no animations.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from oracle.cases import after_compaction_session, boundary_session, oversized_session, share_session, split_turn_session
from test_ui_support import SIZE, make_app, settle

from inspector.figures.forecast.marks import FORECAST_KINDS
from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.figures.marks import MarkKind
from inspector.session.session import open_session
from widgets.compaction.plan_settings import PLAN_FIELDS, parse_plan_field
from widgets.compaction.plan_text import gauge_text, stages_text, status_text, triggers_text
from widgets.compaction.view import CompactionView


def _case(directory: Path, name: str, builder, compaction: dict | None = None, window: int | None = None) -> tuple[Path, dict]:
    """Write the session and its openclaw.json; returns (session path, app overrides)."""
    path = builder.write(directory / f"{name}.jsonl")
    config = directory / f"{name}.openclaw.json"
    config.write_text(json.dumps({"agents": {"defaults": {"compaction": compaction or {}}}}))
    return path, {"config_path": config, "context_window": window}


def _split(d: Path):
    b, ids = split_turn_session()
    return (*_case(d, "split", b, {"keepRecentTokens": 2100}), ids)


def _share(d: Path):
    b, ids = share_session()
    return (*_case(d, "share", b, {"keepRecentTokens": 10_100, "recentTurnsPreserve": 1}, 100_000), ids)


def _oversized(d: Path):
    b, kept = oversized_session()
    return (*_case(d, "oversized", b, {"keepRecentTokens": 200, "recentTurnsPreserve": 0}, 100_000), kept)


def _boundary(d: Path):
    b, note = boundary_session()
    return (*_case(d, "boundary", b, {"keepRecentTokens": 200}), note)


def _none(d: Path):
    return (*_case(d, "none", after_compaction_session()), None)


async def _open(ui, path, overrides):
    pilot = await ui(path, **overrides)
    await pilot.press("C")
    await settle(pilot)
    return pilot


def _entry_id(screen, kind: MarkKind) -> list[str]:
    model = screen.model
    return [model.session.entries[mk.entry_index].id for mk in model.marks.of_kind(kind)]


def _plan(b, tmp_path, config=None, **kw):
    s = open_session(b.write(tmp_path / "s.jsonl"))
    return plan_compaction(s, s.context(), PlanOptions(config=config or {}, **kw))


def test_plan_fields_parse_and_reject():
    by = {f.key: f for f in PLAN_FIELDS}
    assert parse_plan_field(by["keepRecentTokens"], " 2100 ") == 2100
    assert parse_plan_field(by["earlyThresholds"], "0.5, .7") == (0.5, 0.7)
    for key, bad in (("keepRecentTokens", "0"), ("reserveTokens", "-1"), ("contextWindow", "1e5"), ("earlyThresholds", "0.5, 1.5")):
        with pytest.raises(ValueError):
            parse_plan_field(by[key], bad)


@pytest.mark.anyio
async def test_key_opens_the_view_and_marks_land_on_the_right_rows(tmp_path, ui):
    path, overrides, ids = _split(tmp_path)
    pilot = await _open(ui, path, overrides)
    screen = pilot.app.screen
    view = screen.query_one(CompactionView)
    assert view.plan is not None and view.plan.is_split_turn
    assert _entry_id(screen, MarkKind.CUT_POINT) == [ids["a4"]]
    assert _entry_id(screen, MarkKind.SPLIT_TURN_PREFIX) == [ids[k] for k in ("u2", "a2", "r2", "a3", "r3")]
    assert _entry_id(screen, MarkKind.CHUNK_BOUNDARY) == [ids["u2"]]
    status = str(view.query_one("#plan-status").render())
    assert "split turn (5 in its prefix)" in status and "6,000 tokens before" in status
    # the transcript draws them: the cut glyph on a4's row, the chunk label before u2's preview
    transcript = screen.transcript
    lines = ["".join(seg.text for seg in transcript.render_line(y)) for y in range(transcript.size.height)]
    assert any(line.startswith("✂") for line in lines)
    assert any("↳" in line and "prefix chunk 1/" in line for line in lines)


@pytest.mark.anyio
async def test_editing_keep_recent_tokens_moves_the_cut_and_esc_clears(tmp_path, ui):
    path, overrides, ids = _split(tmp_path)
    pilot = await _open(ui, path, overrides)
    screen = pilot.app.screen
    view = screen.query_one(CompactionView)
    panel = view.query_one("#plan-settings")
    panel.set_value("keepRecentTokens", "20000")
    await pilot.pause(0.4)
    await settle(pilot)
    # 20000 keeps everything from the first message: the cut moves to u1, nothing is split
    assert _entry_id(screen, MarkKind.CUT_POINT) == [ids["u1"]] and not view.plan.is_split_turn
    assert screen.model.marks.of_kind(MarkKind.SPLIT_TURN_PREFIX) == []
    # an invalid value: inline error, the last plan stays
    panel.set_value("keepRecentTokens", "abc")
    await settle(pilot)
    assert "whole number" in str(panel.query_one("#error-plan-setting-keepRecentTokens").render())
    assert _entry_id(screen, MarkKind.CUT_POINT) == [ids["u1"]]
    await pilot.press("escape")
    await settle(pilot)
    assert not screen.query(CompactionView)
    assert not any(screen.model.marks.of_kind(k) for k in FORECAST_KINDS)
    assert screen.query_one("#tabs").display


@pytest.mark.anyio
async def test_nothing_to_plan_shows_its_reason(tmp_path, ui):
    path, overrides, _ = _none(tmp_path)
    pilot = await _open(ui, path, overrides)
    view = pilot.app.screen.query_one(CompactionView)
    assert view.plan.nothing_to_plan is not None
    assert f"Nothing to plan: {view.plan.nothing_to_plan.reason}" in str(view.query_one("#plan-status").render())
    assert not any(pilot.app.screen.model.marks.of_kind(k) for k in FORECAST_KINDS)


@pytest.mark.anyio
async def test_a_new_entry_replans(tmp_path, ui):
    path, overrides, ids = _split(tmp_path)
    pilot = await _open(ui, path, overrides)
    screen = pilot.app.screen
    view = screen.query_one(CompactionView)
    first = view.plan
    line = {"type": "message", "id": "zz000001", "parentId": ids["a4"], "timestamp": "2026-01-02T10:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "x" * 400}], "timestamp": 1767348000000}}
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    screen.check_for_updates()
    await settle(pilot)
    await settle(pilot)
    assert view.plan is not first
    assert view.plan.rows[-1].entry_id == "zz000001"


def test_panel_text_plugin_engine_and_numbers(tmp_path):
    """The side panel's text (widgets.compaction.plan_text) renders the plan's own figures and the plugin warning."""
    b, _ = split_turn_session()
    cfg = {"agents": {"defaults": {"compaction": {"mode": "default"}}}, "plugins": {"slots": {"contextEngine": "lossless-claw"}}}
    plan = _plan(b, tmp_path, config=cfg, keep_recent_tokens=2100)
    t = plan.triggers.threshold
    triggers = triggers_text(plan).plain
    assert "context engine: plugin 'lossless-claw'" in triggers and "the plugin decides" in triggers
    assert "auto-compaction: off" in triggers and "mode: default" in triggers
    for w in plan.triggers.early_warnings:
        assert f"early {w.fraction:g} ({w.threshold_tokens:,})" in triggers
    assert f"pre-prompt route (prompt 0): {plan.triggers.pre_prompt.route}" in triggers
    gauge = gauge_text(plan, 40).plain.splitlines()
    assert len(gauge[0]) == 40 and gauge[0].count("┃") == 1 and gauge[0].count("╎") == 2
    assert f"┃ {t.threshold_tokens:,} compacts" in gauge[2]
    stages = stages_text(plan).plain.splitlines()
    assert stages[0] == "Stages" and len(stages) == 1 + len(plan.stages)
    assert "split turn (5 in its prefix)" in status_text(plan).plain


def test_panel_text_nothing_to_plan(tmp_path):
    plan = _plan(after_compaction_session(), tmp_path)
    assert status_text(plan).plain == f"Nothing to plan: {plan.nothing_to_plan.reason}"
    assert stages_text(plan).plain == "Stages\n(none)"


def _snapshot(snap_compare, monkeypatch, tmp_path, case):
    monkeypatch.chdir(tmp_path)
    path, overrides, _ = case(Path("."))

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("C")
        await settle(pilot)

    return snap_compare(make_app(path, **overrides), terminal_size=SIZE, run_before=run_before)


def test_snapshot_no_plan(snap_compare, monkeypatch, tmp_path):
    """The last entry is a compaction: the panel says "Nothing to plan" with pi's reason; no marks."""
    assert _snapshot(snap_compare, monkeypatch, tmp_path, _none)


def test_snapshot_split_turn(snap_compare, monkeypatch, tmp_path):
    """keepRecentTokens 2100: ✂ on the last assistant, the split-turn prefix (↳) with its chunk label."""
    assert _snapshot(snap_compare, monkeypatch, tmp_path, _split)


def test_snapshot_history_share_drop(snap_compare, monkeypatch, tmp_path):
    """Window 100k: the first four messages are dimmed (dropped by the history share), a chunk starts at u3."""
    assert _snapshot(snap_compare, monkeypatch, tmp_path, _share)


def test_snapshot_oversized(snap_compare, monkeypatch, tmp_path):
    """The 42.5k-token tool result is flagged oversized (!); parts and chunks have their labels."""
    assert _snapshot(snap_compare, monkeypatch, tmp_path, _oversized)


def test_snapshot_boundary_only(snap_compare, monkeypatch, tmp_path):
    """Nothing real to summarize: the status says a boundary entry only; the stages list one boundary stage."""
    assert _snapshot(snap_compare, monkeypatch, tmp_path, _boundary)


@pytest.mark.anyio
@pytest.mark.parametrize(("rules", "label"), [("openclaw-2026.4.12", "pi threshold"), ("openclaw-2026.9.6", "agent threshold")])
async def test_threshold_row_is_named_by_the_rule_set(tmp_path, ui, rules, label):
    """The view's threshold trigger takes its name from the session's rule set (`triggers.THRESHOLD_LABEL`)."""
    path, overrides, _ = _split(tmp_path)
    pilot = await _open(ui, path, {**overrides, "rules": rules})
    triggers = str(pilot.app.screen.query_one(CompactionView).query_one("#plan-triggers").render()).splitlines()
    assert triggers[1].startswith(f"{label}: ")
    assert not any(line.startswith("pi threshold") for line in triggers) or label == "pi threshold"


@pytest.mark.anyio
@pytest.mark.parametrize("rules", ["openclaw-2026.4.12", "openclaw-2026.9.6"])
async def test_the_forecast_says_what_the_quality_guard_does(tmp_path, ui, rules):
    """Under 2026.9.6 the forecast's stages end with its quality guard (on by default): the retries a failing summary
    gets and that one still failing cancels the compaction; 2026.4.12's forecast says nothing of it."""
    path, overrides, _ = _split(tmp_path)
    pilot = await _open(ui, path, {**overrides, "rules": rules})
    await pilot.app.workers.wait_for_complete()  # the checks are computed after the plan, in a worker
    await pilot.pause()
    stages = str(pilot.app.screen.query_one(CompactionView).query_one("#plan-stages").render())
    assert "assembly" in stages
    if rules == "openclaw-2026.9.6":
        assert "guard: OpenClaw 2026.9.6's quality guard is on" in stages and "1 more time" in stages
        assert "still fails cancels the compaction" in stages
    else:
        assert "guard:" not in stages
