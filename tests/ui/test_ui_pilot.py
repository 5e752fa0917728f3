"""Behaviour of the inspector UI, driven with Textual's pilot (fixed size, fixed clock, no timers unless asked)."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from test_ui_support import HOSTILE, SIZE, basic_builder, compaction_builder, make_app, settle, write_session

from inspector.figures.marks import MarkKind
from inspector.session.session import open_session
from widgets.breakdown import ContextBreakdown
from widgets.detail.detail import MessageDetail
from widgets.gauge import ContextGauge
from widgets.notice_bar import NoticeBar
from widgets.screens.diagnostics import DiagnosticsScreen
from widgets.screens.error import ErrorScreen
from widgets.screens.inspector import InspectorScreen
from widgets.transcript.columns import TranscriptColumns
from widgets.transcript.new_entries import NewEntriesIndicator
from widgets.transcript.transcript import Transcript


def row_text(transcript: Transcript, position: int) -> str:
    """The text of the transcript row at view position `position` (scrolling it into view)."""
    transcript.move_to(position)
    y = position - round(transcript.scroll_y)
    return transcript.render_line(y).text


def inspector(app) -> InspectorScreen:
    screen = app.screen
    assert isinstance(screen, InspectorScreen), type(screen)
    return screen


@pytest.mark.anyio
async def test_opens_on_last_row_and_cursor_moves(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    n = len(open_session(path).context().messages)
    pilot = await ui(path)
    app = pilot.app
    t = inspector(app).transcript
    assert len(t.model) == n
    assert t.cursor == n - 1 and t.at_bottom
    await pilot.press("up", "up")
    assert t.cursor == n - 3
    await pilot.press("home")
    assert t.cursor == 0
    await pilot.press("down")
    assert t.cursor == 1
    await pilot.press("end")
    assert t.cursor == n - 1


@pytest.mark.anyio
async def test_estimator_switch_changes_the_numbers(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    session = open_session(path)
    ctx = session.context()
    tool_pos = next(i for i, r in enumerate(ctx.messages) if r.role == "toolResult")
    est = ctx.messages[tool_pos].estimates
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    assert f"{est['pi']:,}" in row_text(t, tool_pos)
    await pilot.press("e")
    await settle(pilot)
    assert t.estimator == "prune" and screen.query_one(TranscriptColumns).estimator == "prune"
    assert f"{est['openclaw_prune']:,}" in row_text(t, tool_pos)
    assert est["openclaw_prune"] != est["pi"]
    await pilot.press("e")
    await settle(pilot)
    assert t.estimator == "tiktoken"
    counted = t.model.tiktoken.get(tool_pos)
    assert counted is not None and counted > 0
    assert f"{counted:,}" in row_text(t, tool_pos)
    await pilot.press("e")
    await settle(pilot)
    assert t.estimator == "usage"
    # a toolResult has no recorded usage of its own: an en dash
    assert "–" in row_text(t, tool_pos)


@pytest.mark.anyio
async def test_filter_by_role_and_tool(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    model = screen.model
    users = sum(1 for r in range(model.row_count) if model.role_of(r) == "user")
    await pilot.press("f")
    await pilot.pause()
    roles = model.roles()
    for _ in range(roles.index("user")):
        await pilot.press("down")
    await pilot.press("space", "enter")
    await settle(pilot)
    assert len(screen.model) == users
    assert all(screen.model.role_of(r) == "user" for r in screen.model.view)
    assert "filter: user" in screen.query_one(TranscriptColumns).status
    # the tool filter: only rows involving `read`
    screen.model.set_filters(None, ["read"])
    screen.transcript.invalidate()
    assert {screen.model.tools_of(r) for r in screen.model.view} == {("read",)}
    assert len(screen.model) == 2


@pytest.mark.anyio
async def test_off_path_toggle_shows_the_delivery_mirror(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    session = open_session(path)
    mirror = next(e for e in session.entries if e.model == "delivery-mirror")
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    assert screen.model.row_of_entry(mirror.index) is None
    await pilot.press("o")
    await settle(pilot)
    row = screen.model.row_of_entry(mirror.index)
    assert row is not None and screen.model.row_count == len(session.entries)
    assert not screen.model.info(row).on_path
    assert row_text(screen.transcript, row).startswith("○")
    branch_row = screen.model.row_of_entry(session.entries[mirror.index].index - 1)
    assert any(row_text(screen.transcript, r).startswith("├") for r in range(max(0, (branch_row or 0) - 2), row))
    await pilot.press("o")
    await settle(pilot)
    assert screen.model.row_of_entry(mirror.index) is None


@pytest.mark.anyio
async def test_search_moves_to_the_match(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    await pilot.press("home", "slash")
    await pilot.press(*"NEEDLE in the")
    await pilot.press("enter")
    await settle(pilot)
    t = screen.transcript
    entry = screen.model.entry(t.current_row)
    assert entry.role == "toolResult" and entry.tool_name == "read"
    await pilot.press("n")
    await settle(pilot)
    assert screen.model.entry(t.current_row).tool_name == "read", "only one match: n wraps to it"
    screen.search_query = "no such text anywhere"
    before = t.cursor
    await pilot.press("n")
    await settle(pilot)
    assert t.cursor == before


@pytest.mark.anyio
async def test_jumps_user_compaction_biggest(tmp_path, ui):
    path = write_session(tmp_path, "c.jsonl", compaction_builder())
    session = open_session(path)
    ctx = session.context()
    sizes = [r.estimates["pi"] for r in ctx.messages]
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    await pilot.press("home", "u")
    assert screen.model.role_of(t.current_row) == "user"
    first_user = t.cursor
    await pilot.press("u")
    assert t.cursor > first_user and screen.model.role_of(t.current_row) == "user"
    await pilot.press("U")
    assert t.cursor == first_user
    await pilot.press("end", "c")
    assert screen.model.entry(t.current_row).type == "compaction" and t.cursor == 0
    await pilot.press("b")
    assert sizes[t.current_row] == max(sizes)
    await pilot.press("b")
    assert sizes[t.current_row] == sorted(sizes, reverse=True)[1]


@pytest.mark.anyio
async def test_breakdown_jump_moves_the_transcript(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    breakdown = screen.query_one(ContextBreakdown)
    largest = breakdown.data.largest[0]
    screen.post_message(ContextBreakdown.JumpRequested(largest.index))
    await settle(pilot)
    assert screen.transcript.current_row == largest.index


@pytest.mark.anyio
async def test_detail_shows_blocks_and_keeps_hostile_text_inert(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    await pilot.press("up")  # the hostile user message
    await pilot.press("enter")
    await settle(pilot)
    detail = screen.query_one(MessageDetail)
    assert detail.data is not None and detail.data.message["content"] == HOSTILE
    shown = "\n".join(line.text for line in detail.query_one("#detail-body").render_lines(detail.query_one("#detail-body").region.reset_offset))
    assert "[bold]markup[/bold]" in shown and "[link=http://evil.example]" in shown
    assert "\\x1b[31m" in shown and "\\x07" in shown
    assert "\x1b" not in shown and "\x07" not in shown
    await pilot.press("r")
    await settle(pilot)
    assert detail.raw
    t.move_to(next(i for i in range(len(t.model)) if t.model.entry(i).role == "assistant" and "thinking" in t.model.entry(i).block_kinds))
    await settle(pilot)
    assert detail.data.entry.block_kinds[0] == "thinking"


def append_lines(path, builder_lines: list[str]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        for line in builder_lines:
            f.write(line + "\n")


def more_lines(seed: int = 7, turns: int = 3) -> tuple[str, list[str]]:
    """The basic session's text and lines appended to it afterwards by the same writer."""
    b = basic_builder(seed)
    base = b.text()
    for i in range(turns):
        b.user(f"follow-up question {i}")
        b.assistant(f"answer {i}")
    return base, b.text()[len(base):].splitlines()


@pytest.mark.anyio
async def test_live_append_arrives_and_follows(tmp_path, ui):
    base, extra = more_lines()
    path = tmp_path / "live.jsonl"
    path.write_text(base, encoding="utf-8")
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    n = len(t.model)
    append_lines(path, extra)
    screen.check_for_updates()
    await settle(pilot)
    assert len(t.model) == n + len(extra)
    assert t.at_bottom and t.cursor == len(t.model) - 1
    assert "answer 2" in row_text(t, t.cursor)
    assert screen.query_one(NewEntriesIndicator).count == 0


@pytest.mark.anyio
async def test_new_entries_indicator_when_scrolled_up(tmp_path, ui):
    base, extra = more_lines()
    path = tmp_path / "live.jsonl"
    path.write_text(base, encoding="utf-8")
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    await pilot.press("home")
    append_lines(path, extra)
    screen.check_for_updates()
    await settle(pilot)
    indicator = screen.query_one(NewEntriesIndicator)
    assert t.cursor == 0
    assert indicator.count == len(extra) and indicator.has_class("-shown")
    await pilot.press("end")
    await settle(pilot)
    assert indicator.count == 0 and t.at_bottom


@pytest.mark.anyio
async def test_poll_timer_picks_up_appends_within_250ms(tmp_path, ui):
    base, extra = more_lines(turns=1)
    path = tmp_path / "live.jsonl"
    path.write_text(base, encoding="utf-8")
    pilot = await ui(path, poll_interval=0.05)
    app = pilot.app
    t = inspector(app).transcript
    n = len(t.model)
    append_lines(path, extra)
    start = time.monotonic()
    while len(t.model) == n and time.monotonic() - start < 3:
        await asyncio.sleep(0.01)
    assert len(t.model) == n + len(extra)
    assert time.monotonic() - start < 1.0  # 0.25 s budget, slack for a loaded CI machine


@pytest.mark.anyio
async def test_partial_line_waits_for_its_newline(tmp_path, ui):
    base, extra = more_lines(turns=1)
    path = tmp_path / "live.jsonl"
    path.write_text(base, encoding="utf-8")
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    n = len(t.model)
    with open(path, "a", encoding="utf-8") as f:
        f.write(extra[0][:25])
    screen.check_for_updates()
    await settle(pilot)
    assert len(t.model) == n
    assert "mid-line" in screen.query_one("#header").data.live
    with open(path, "a", encoding="utf-8") as f:
        f.write(extra[0][25:] + "\n")
    screen.check_for_updates()
    await settle(pilot)
    assert len(t.model) == n + 1


@pytest.mark.anyio
async def test_replaced_file_is_reindexed_with_a_notice(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    other = compaction_builder().text()
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    tmp = tmp_path / "new.jsonl"
    tmp.write_text(other, encoding="utf-8")
    os.replace(tmp, path)
    screen.check_for_updates()
    await settle(pilot)
    notice = screen.query_one(NoticeBar)
    assert "re-indexed" in notice.message and notice.has_class("-shown")
    assert screen.model.ctx.messages[0].role == "compactionSummary"


@pytest.mark.anyio
async def test_missing_file_is_an_error_screen(tmp_path, ui):
    pilot = await ui(tmp_path / "nope.jsonl")
    app = pilot.app
    assert isinstance(app.screen, ErrorScreen) and app.screen.info.kind == "missing"


@pytest.mark.anyio
async def test_unsupported_format_is_an_error_screen(tmp_path, ui):
    path = tmp_path / "other.jsonl"
    path.write_text('{"hello":"world"}\n', encoding="utf-8")
    pilot = await ui(path)
    app = pilot.app
    assert isinstance(app.screen, ErrorScreen) and app.screen.info.kind == "unsupported"


@pytest.mark.anyio
async def test_permission_denied_is_an_error_screen(tmp_path, ui):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root can read a mode-000 file")
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    path.chmod(0)
    try:
        pilot = await ui(path)
        assert isinstance(pilot.app.screen, ErrorScreen) and pilot.app.screen.info.kind == "permission"
    finally:
        path.chmod(0o600)


@pytest.mark.anyio
async def test_damaged_lines_are_listed_and_the_rest_shows(tmp_path, ui):
    b = basic_builder()
    lines = b.text().splitlines()
    lines.insert(4, '{"type":"message","id":"broken"')
    lines.insert(9, "not json at all")
    path = tmp_path / "damaged.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    intact = len(open_session(write_session(tmp_path, "intact.jsonl", basic_builder())).context().messages)
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    notice = screen.query_one(NoticeBar)
    assert "2 damaged line(s)" in notice.message and "line 5, 10" in notice.message
    assert len(screen.model) > 0 and len(screen.model) <= intact
    await pilot.press("d")
    await settle(pilot)
    assert isinstance(app.screen, DiagnosticsScreen)
    assert [d.line for d in app.screen.diagnostics if d.kind == "unparseable"] == [5, 10]


@pytest.mark.anyio
async def test_gauge_follows_the_guard(tmp_path):
    path = write_session(tmp_path, "s.jsonl", basic_builder())

    for window, level in ((200_000, "ok"), (20_000, "warn"), (8_000, "block")):
        app = make_app(path, context_window=window)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            gauge = inspector(app).query_one(ContextGauge)
            assert gauge.data.window.tokens == window and gauge.data.guard.level == level
            assert gauge.has_class("-warn") == (level == "warn") and gauge.has_class("-block") == (level == "block")


@pytest.mark.anyio
async def test_command_palette_runs_screen_actions(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    titles = [title for title, _help, _cb in screen.palette_commands()]
    for needed in ("Estimator", "Off-path", "Search", "Filter", "Next user", "Compaction", "Biggest", "Help"):
        assert needed in titles
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*"Estimator: OpenClaw")
    await pilot.pause(0.5)
    await pilot.press("enter")
    await settle(pilot)
    assert screen.transcript.estimator == "prune"


@pytest.mark.anyio
async def test_help_lists_the_keys(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    await pilot.press("question_mark")
    await settle(pilot)
    from widgets.screens.help import HelpScreen

    assert isinstance(app.screen, HelpScreen)
    keys = {k for k, _d, _t in app.screen.key_rows}
    assert {"e", "o", "/", "f", "u", "c", "b", "?"} <= keys
    await pilot.press("escape")
    assert isinstance(app.screen, InspectorScreen)


@pytest.mark.anyio
async def test_mouse_click_selects_a_row_and_double_click_opens_it(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = inspector(app)
    t = screen.transcript
    await pilot.click("#transcript", offset=(20, 3))
    await settle(pilot)
    assert t.cursor == round(t.scroll_y) + 3
    await pilot.click("#transcript", offset=(20, 4), times=2)
    await settle(pilot)
    assert t.cursor == round(t.scroll_y) + 4
    from textual.widgets import TabbedContent

    assert screen.query_one("#tabs", TabbedContent).active == "tab-message"
    assert screen.query_one(MessageDetail).data.entry.index == screen.model.entry(t.current_row).index


@pytest.mark.anyio
async def test_expired_tool_results_are_marked_with_their_age_and_p_opens_pruning(tmp_path, ui):
    """Tool results older than the cache TTL (5 min by default) at the fixed clock carry `~` (their age is in the
    detail pane, not in the preview); `p` opens the pruning preview on the same session."""
    from widgets.pruning.screen import PruningScreen

    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path, size=(200, 40))
    app = pilot.app
    screen = inspector(app)
    model = screen.transcript.model
    tool_rows = [p for p in range(len(model)) if model.role_of(model.view[p]) == "toolResult"]
    expired = model.marks.entries(MarkKind.CACHE_EXPIRED)
    assert tool_rows and expired == {model.entry(model.view[p]).index for p in tool_rows}
    text = row_text(screen.transcript, tool_rows[0])
    assert text.startswith("~") and " old · " not in text
    assert not row_text(screen.transcript, 0).startswith("~")
    await pilot.press("p")
    await settle(pilot)
    assert isinstance(app.screen, PruningScreen)


@pytest.mark.anyio
async def test_big_file_shows_its_tail_while_indexing(tmp_path, monkeypatch, ui):
    """A big file's last entries appear at once (read from the end); the full index then replaces them."""
    import threading

    import widgets.screens.opening as opening
    from inspector.session.session import Session

    path = write_session(tmp_path, "s.jsonl", basic_builder())
    release = threading.Event()

    class SlowSession(Session):
        def load(self):
            assert release.wait(20)
            return super().load()

    monkeypatch.setattr(opening, "TAIL_FIRST_MIN_BYTES", 0)
    monkeypatch.setattr(opening, "TAIL_FIRST_ENTRIES", 4)
    monkeypatch.setattr(opening, "Session", SlowSession)
    pilot = await ui(path, settle=False)
    app = pilot.app
    screen = inspector(app)
    for _ in range(200):
        await pilot.pause(0.02)
        if screen.transcript.model is not None:
            break
    shown = screen.transcript.model
    assert shown is not None and shown.session.provisional and screen.session is None
    assert "last 4 entries" in screen.query_one("#notice").message
    release.set()
    await settle(pilot)
    assert screen.session is not None and not screen.transcript.model.session.provisional
    assert len(screen.transcript.model) == len(open_session(path).context().messages)
    assert screen.query_one("#notice").message == ""
