"""The diagnosis views in the app (issue 13): the timeline screen, its chart and repeats panel, jumps into the
transcript, the not-in-transcript share and the over-the-window state. Driven with Textual's pilot on real files;
the figures shown are checked against `session-inspector timeline --json` run as a real process.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, corpus_file
from inprocess import run_cli
from test_diagnosis_fixtures import build_over_window, build_runaway
from test_ui_support import settle

from inspector.figures.diagnosis.fill import context_fill
from inspector.figures.diagnosis.timeline import TimelineOptions, build_timeline
from inspector.figures.session_figures import WindowOptions, context_overview
from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session
from widgets.breakdown import ContextBreakdown
from widgets.diagnosis.call_panel import CallFigures
from widgets.diagnosis.calls_table import CallsTable
from widgets.diagnosis.chart import TimelineChart
from widgets.diagnosis.occurrences import DiagnosisJump, Occurrences
from widgets.diagnosis.repeats import RepeatsPanel
from widgets.diagnosis.screen import TimelineScreen
from widgets.diagnosis.summary import TimelineSummary
from widgets.gauge import ContextGauge
from widgets.screens.inspector import InspectorScreen
from widgets.session_header import SessionHeader

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
CONTROL = {chr(c) for c in range(0x20) if chr(c) not in "\n\t"} | {"\x7f"} | {chr(c) for c in range(0x80, 0xA0)}


def timeline_json(path: Path, *extra: str) -> dict:
    """`session-inspector timeline PATH --json` as a user runs it (in this process: `inprocess.run_cli`; no config,
    no home)."""
    env = dict(os.environ, HOME=str(path.parent / "no-home"), OPENCLAW_STATE_DIR=str(path.parent / "no-state"), PYTHONPATH=str(ROOT))
    r = run_cli(["timeline", path, "--json", *extra], env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def text_of(widget) -> str:
    """What a widget draws, line by line (as plain text)."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


def inspector(app) -> InspectorScreen:
    screen = app.screen
    assert isinstance(screen, InspectorScreen), type(screen)
    return screen


def timeline_screen(app) -> TimelineScreen:
    screen = app.screen
    assert isinstance(screen, TimelineScreen), type(screen)
    return screen


def current_line(app) -> int:
    """The file line of the entry under the transcript's cursor."""
    screen = inspector(app)
    row = screen.transcript.current_row
    assert row is not None
    return screen.model.entry(row).line


def demo_copy(tmp_path: Path) -> Path:
    path = tmp_path / "demo-session.jsonl"
    shutil.copyfile(DEMO, path)
    return path


async def open_timeline(pilot, key: str = "l") -> TimelineScreen:
    await pilot.press(key)
    await settle(pilot)
    return timeline_screen(pilot.app)


# ------------------------------------------------------------------------------------------- the chart


@pytest.mark.anyio
async def test_chart_draws_the_cli_figures_and_starts_on_the_largest_jump(tmp_path, ui):
    path = demo_copy(tmp_path)
    data = timeline_json(path)
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    chart = screen.query_one(TimelineChart)
    calls = chart.timeline.calls
    assert [c.prompt_tokens for c in calls] == [c["prompt_tokens"] for c in data["calls"]]
    assert [c.transcript_estimate for c in calls] == [c["transcript_estimate"] for c in data["calls"]]
    assert chart.cursor == data["jumps"][0]["call_index"] == 38
    figures = text_of(screen.query_one(CallFigures))
    call = data["calls"][38]
    assert f"Call 38 of {len(data['calls'])}" in figures
    for value in ("prompt_tokens", "transcript_estimate", "not_in_transcript"):
        assert f"{call[value]:,}" in figures
    assert "Jump #1 of 10" in figures and "web_fetch" in figures
    summary = text_of(screen.query_one(TimelineSummary))
    assert f"${data['cost']['total']:,.4f}" in summary
    assert f"cache hit {data['cache']['hit_ratio'] * 100:.1f}%" in summary
    assert f"{data['overhead']['latest']:,} tok" in summary
    assert data["overhead"]["latest"] > 50_000, "the demo has ~54k tokens outside the transcript"


@pytest.mark.anyio
async def test_left_right_move_between_calls_and_enter_shows_the_call(tmp_path, ui):
    path = demo_copy(tmp_path)
    data = timeline_json(path)
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    chart = screen.query_one(TimelineChart)
    await pilot.press("right", "right", "left")
    assert chart.cursor == 39
    await pilot.pause()
    assert "Call 39 of" in text_of(screen.query_one(CallFigures))
    await pilot.press("enter")
    await settle(pilot)
    assert current_line(pilot.app) == data["calls"][39]["line"]
    assert not inspector(pilot.app).show_off_path, "call 39 is after the compaction: in the context view"


@pytest.mark.anyio
async def test_a_call_before_the_compaction_is_shown_in_the_every_entry_view(tmp_path, ui):
    path = demo_copy(tmp_path)
    data = timeline_json(path)
    compaction_before = next(mk["before_call"] for mk in data["markers"] if mk["kind"] == "compaction")
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    await pilot.press("home", "right", "right")
    assert screen.query_one(TimelineChart).cursor == 2 < compaction_before
    await pilot.press("enter")
    await settle(pilot)
    assert inspector(pilot.app).show_off_path
    assert current_line(pilot.app) == data["calls"][2]["line"]


@pytest.mark.anyio
async def test_clicking_the_chart_selects_the_nearest_call(tmp_path, ui):
    path = demo_copy(tmp_path)
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    chart = screen.query_one(TimelineChart)
    for target in (5, 30, 50):
        x, y = chart.get_pixel_from_coordinate(target, chart.timeline.calls[target].prompt_tokens)
        await pilot.click("#timeline-chart #plot", offset=(x, y))
        await pilot.pause()
        assert chart.cursor == target
        assert f"Call {target} of" in text_of(screen.query_one(CallFigures))


@pytest.mark.anyio
async def test_jump_keys_and_x_show_the_largest_cause(tmp_path, ui):
    path = demo_copy(tmp_path)
    data = timeline_json(path)
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    chart = screen.query_one(TimelineChart)
    await pilot.press("right_square_bracket")
    assert chart.cursor == data["jumps"][1]["call_index"]
    await pilot.press("left_square_bracket")
    assert chart.cursor == data["jumps"][0]["call_index"]
    await pilot.press("x")
    await settle(pilot)
    cause = data["jumps"][0]["causes"][0]
    assert current_line(pilot.app) == cause["line"]


@pytest.mark.anyio
async def test_esc_goes_back_without_moving(tmp_path, ui):
    path = demo_copy(tmp_path)
    pilot = await ui(path)
    before = current_line(pilot.app)
    await open_timeline(pilot)
    await pilot.press("escape")
    await settle(pilot)
    assert current_line(pilot.app) == before and inspector(pilot.app).occurrences is None


@pytest.mark.anyio
async def test_tiny_terminal_falls_back_to_a_table(tmp_path, ui):
    path = demo_copy(tmp_path)
    data = timeline_json(path)
    pilot = await ui(path, size=(64, 18))
    screen = await open_timeline(pilot)
    table = screen.query_one(CallsTable)
    assert table.display and not screen.query_one(TimelineChart).display
    assert table.row_count == len(data["calls"]) and table.cursor_row == 38
    await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)
    assert current_line(pilot.app) == data["calls"][39]["line"]


# ------------------------------------------------------------------------------------------- the repeats panel


@pytest.mark.anyio
async def test_repeats_panel_lists_the_ranked_repeats_and_steps_through_occurrences(tmp_path, ui):
    path = tmp_path / "runaway.jsonl"
    build_runaway(path)
    data = timeline_json(path)
    pilot = await ui(path)
    screen = await open_timeline(pilot, "R")
    panel = screen.query_one(RepeatsPanel)
    assert screen.focused is panel
    assert panel.option_count == len(data["repeats"]) == 4
    shown = text_of(panel)
    assert "file re-read" in shown and f"{data['repeats'][0]['tokens']:,} tok" in shown
    first = data["repeats"][0]
    assert first["kind"] == "file_reread" and len(first["lines"]) == 2
    await pilot.press("enter")
    await settle(pilot)
    app = pilot.app
    assert current_line(app) == first["lines"][0]
    assert inspector(app).show_off_path, "the re-reads were summarized by the compaction"
    await pilot.press("n")
    await settle(pilot)
    assert current_line(app) == first["lines"][1]
    await pilot.press("n")
    await settle(pilot)
    assert current_line(app) == first["lines"][0], "n wraps around"
    await pilot.press("N")
    await settle(pilot)
    assert current_line(app) == first["lines"][1]


@pytest.mark.anyio
async def test_a_retry_jumps_to_the_assistant_attempts_and_a_search_takes_n_back(tmp_path, ui):
    path = tmp_path / "runaway.jsonl"
    build_runaway(path)
    data = timeline_json(path)
    retry_rank = next(i for i, r in enumerate(data["repeats"]) if r["kind"] == "retry_after_failure")
    pilot = await ui(path)
    await open_timeline(pilot, "R")
    for _ in range(retry_rank):
        await pilot.press("down")
    await pilot.press("enter")
    await settle(pilot)
    app = pilot.app
    lines = data["repeats"][retry_rank]["lines"]
    assert current_line(app) == lines[0]
    await pilot.press("n")
    await settle(pilot)
    assert current_line(app) == lines[1]
    await pilot.press("slash", *"final", "enter")
    await settle(pilot)
    assert inspector(app).occurrences is None


@pytest.mark.anyio
async def test_repeat_subjects_from_the_file_are_inert(tmp_path, ui):
    hostile = "echo \x1b]0;pwned\x07\x1b[2J \x1b]52;c;cHduZWQ=\x07 [bold]x[/bold]"
    b = SessionBuilder(seed=3)
    b.header(cwd="/w")
    b.user("go")
    for _ in range(2):
        b.assistant([b.tool_call("exec", {"command": hostile})])
        b.tool_result(b.last_tool_call_ids[0], "exec", "done")
    b.assistant("ok")
    path = b.write(tmp_path / "hostile.jsonl")
    pilot = await ui(path, size=(160, 40))
    screen = await open_timeline(pilot, "R")
    panel = screen.query_one(RepeatsPanel)
    strips = [panel.render_line(y) for y in range(panel.size.height)]
    text = "".join(seg.text for strip in strips for seg in strip)
    assert "same command" in text and "[bold]x[/bold]" in text and "\\x1b" in text
    assert not CONTROL & set(text)


def test_occurrences_wrap_both_ways():
    occ = Occurrences(DiagnosisJump((3, 7, 9), ("a", "b", "c"), "same command ls"))
    assert occ.current == 3
    assert occ.step(1) == 7 and occ.step(1) == 9 and occ.step(1) == 3
    assert occ.step(-1) == 9
    assert occ.describe() == "same command ls: 3 of 3 · n / N next / previous"
    assert Occurrences(DiagnosisJump((4,), ("x",), "call 0 (line 4)")).describe() == "call 0 (line 4)"


# ------------------------------------------------------------------------------------------- the inspector screen


@pytest.mark.anyio
async def test_not_in_the_transcript_has_its_own_share_in_gauge_and_breakdown(tmp_path, ui):
    path = demo_copy(tmp_path)
    data = timeline_json(path)
    pilot = await ui(path)
    screen = inspector(pilot.app)
    overhead = data["overhead"]
    gauge = text_of(screen.query_one(ContextGauge))
    assert f"not in the transcript (derived) {overhead['latest']:,} tok" in gauge
    assert "▓" in gauge, "its own share of the bar"
    breakdown = "\n".join(text_of(w) for w in screen.query_one(ContextBreakdown).query("Static"))
    assert "Not in the transcript (derived)" in breakdown
    assert f"{overhead['latest_share_of_prompt'] * 100:.1f}% of the last prompt" in breakdown
    assert f"{overhead['trend']['direction']}" in breakdown
    assert f"derived from {overhead['calls_used']} calls ({overhead['first_entry_id']}" in breakdown.replace("\n", " ")


@pytest.mark.anyio
async def test_over_the_window_is_a_warning_apart_from_the_guard(tmp_path, ui):
    path = tmp_path / "over.jsonl"
    build_over_window(path)
    data = timeline_json(path, "--context-window", "100000")
    assert data["fill"]["over_window"] and data["guard"]["level"] == "ok"
    pilot = await ui(path, context_window=100_000)
    screen = inspector(pilot.app)
    header = text_of(screen.query_one(SessionHeader))
    assert "⚠ OVER THE WINDOW 130.0% (30,020 over)" in header
    assert "window 100,000 (flag) · size guard OK" in header
    gauge = screen.query_one(ContextGauge)
    shown = text_of(gauge)
    assert "OVER THE WINDOW" in shown and "The next request cannot fit" in shown.replace("\n", " ")
    assert "window-size guard OK" in shown
    assert gauge.has_class("-over")
    assert gauge.fill_state is not None and gauge.fill_state.to_json()["message"] == data["fill"]["message"]


@pytest.mark.anyio
async def test_a_session_without_calls_says_so(tmp_path, ui):
    b = SessionBuilder(seed=1)
    b.header(cwd="/w")
    b.user("only a question")
    path = b.write(tmp_path / "nocall.jsonl")
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    assert "No call on the active path has recorded usage" in text_of(screen.query_one(CallFigures))
    await pilot.press("enter", "right", "x")
    await settle(pilot)
    assert isinstance(pilot.app.screen, TimelineScreen)


@pytest.mark.anyio
async def test_timeline_key_is_in_help_and_palette(tmp_path, ui):
    path = demo_copy(tmp_path)
    pilot = await ui(path)
    screen = inspector(pilot.app)
    titles = [title for title, _help, _cb in screen.palette_commands()]
    assert "Timeline" in titles and "Repeats" in titles
    await pilot.press("question_mark")
    await settle(pilot)
    shown = "\n".join(text_of(w) for w in pilot.app.screen.query("Static"))
    assert "Timeline" in shown and "Repeats" in shown


def test_fill_message_and_label_show_the_same_percentage():
    """17,612 / 8,000 = 2.2015: the engine's message and the header's label both print the rounded fill (220.1%)."""
    from widgets.diagnosis.texts import fill_label

    fill = context_fill(17_612, 8_000, "block", None, rule_set())
    assert fill.fill == 2.2015
    assert "220.1% of the 8,000-token window" in fill.message
    assert fill_label(fill) == "OVER THE WINDOW 220.1% (9,612 over)"


def test_context_fill_is_the_timeline_fill(tmp_path):
    """The header's quick fill (no timeline needed) is the same state the timeline reports."""
    path = tmp_path / "over.jsonl"
    build_over_window(path)
    for p, override in ((DEMO, None), (path, 100_000)):
        session = open_session(p)
        ctx = session.context()
        options = WindowOptions(override=override)
        overview = context_overview(session, ctx, options)
        fill = context_fill(overview.usage.tokens, overview.window.tokens, overview.guard.level, None, rule_set(), basis=overview.usage.basis)
        assert fill == build_timeline(session, ctx, TimelineOptions(window=options)).fill


# ------------------------------------------------------------------------------------------- when it is computed


@pytest.mark.anyio
async def test_a_large_session_gets_its_timeline_on_demand(tmp_path, ui, monkeypatch):
    import widgets.diagnosis.runner as runner

    monkeypatch.setattr(runner, "AUTO_ENTRIES", 5)
    path = tmp_path / "runaway.jsonl"
    build_runaway(path)
    assert len(open_session(path).entries) > 5
    pilot = await ui(path)
    screen = inspector(pilot.app)
    assert screen.timeline is None
    breakdown = "\n".join(text_of(w) for w in screen.query_one(ContextBreakdown).query("Static"))
    assert "computed with the timeline (l; on demand for a large session)" in breakdown.replace("\n", " ")
    assert screen.query_one(ContextGauge).fill_state is not None, "the fill never waits for the timeline"
    timeline = await open_timeline(pilot)
    assert timeline.timeline is not None and len(timeline.timeline.calls) == 8
    assert screen.timeline is timeline.timeline


@pytest.mark.anyio
async def test_the_open_timeline_follows_appended_calls(tmp_path, ui):
    b = SessionBuilder(seed=9)
    b.header(cwd="/w")
    b.user("start")
    b.assistant("one")
    path = b.write(tmp_path / "live.jsonl")
    base = path.read_text(encoding="utf-8")
    b.user("more")
    b.assistant("two")
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    chart = screen.query_one(TimelineChart)
    assert len(chart.timeline.calls) == 1
    with path.open("a", encoding="utf-8") as f:
        f.write(b.text()[len(base):])
    inspector_screen = pilot.app.screen_stack[-2]
    assert isinstance(inspector_screen, InspectorScreen)
    inspector_screen.check_for_updates()
    for _ in range(100):
        await settle(pilot)
        if len(chart.timeline.calls) == 2:
            break
        await pilot.pause(0.1)
    assert len(chart.timeline.calls) == 2
    assert " of 2 " in text_of(screen.query_one(CallFigures))


@pytest.mark.anyio
async def test_timeline_help_names_its_keys(tmp_path, ui):
    path = demo_copy(tmp_path)
    pilot = await ui(path)
    await open_timeline(pilot)
    await pilot.press("question_mark")
    await settle(pilot)
    shown = "\n".join(text_of(w) for w in pilot.app.screen.query("Static"))
    assert "One point per LLM call" in shown and "Estimators (e cycles)" not in shown
    for key, what in (("]", "Next jump"), ("[", "Previous jump"), ("x", "Cause"), ("enter", "Show in transcript"), ("R", "Repeats")):
        assert any(line.strip().startswith(key) and what in line for line in shown.splitlines()), key


@pytest.mark.corpus
@pytest.mark.anyio
async def test_a_real_session_shows_where_it_jumped_what_repeats_and_what_is_outside(tmp_path, ui):
    """A real pi session from the corpus: the timeline opens on its largest jump, names the message that caused it,
    lists its repeats and what the transcript does not show, all as `timeline --json` says; Enter shows the jump."""
    path = tmp_path / "large-session.v1.jsonl"
    shutil.copyfile(corpus_file("pi", "large-session.v1.jsonl"), path)
    data = timeline_json(path)
    pilot = await ui(path, size=(160, 48))
    screen = await open_timeline(pilot)
    jump = data["jumps"][0]
    assert screen.query_one(TimelineChart).cursor == jump["call_index"]
    figures = text_of(screen.query_one(CallFigures))
    cause = jump["causes"][0]
    assert f"line {cause['line']}" in figures and f"{cause['pi_tokens']:,} tok" in figures
    assert screen.query_one(RepeatsPanel).option_count == max(1, len(data["repeats"]))
    summary = text_of(screen.query_one(TimelineSummary))
    assert f"{data['overhead']['latest']:,} tok" in summary
    await pilot.press("enter")
    await settle(pilot)
    assert current_line(pilot.app) == jump["line"]


@pytest.mark.anyio
async def test_a_timeline_that_arrives_before_the_screen_is_mounted_is_shown_once_it_is(tmp_path, ui):
    """The runner's result can reach the timeline screen between its push and its mount (it once crashed the app)."""
    path = demo_copy(tmp_path)
    session = open_session(path)
    timeline = build_timeline(session, session.context(), TimelineOptions())
    pilot = await ui(path)
    screen = TimelineScreen(None, path.name)
    pilot.app.push_screen(screen)
    assert not screen.is_mounted
    screen.set_timeline(timeline)  # before the screen's children exist
    await settle(pilot)
    assert timeline_screen(pilot.app) is screen and screen.timeline is timeline
    assert screen.query_one(TimelineChart).timeline is timeline
    assert "Call" in text_of(screen.query_one(CallFigures))
