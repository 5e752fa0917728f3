"""Issue 14, in the terminal: small terminals, the demo said as such, the age out of the preview, the index column's
meaning, the column header under search and filter, pruning settings kept, the largest messages by keyboard.

Every test drives the real app with Textual's pilot and reads what is on screen (the compositor's strips: exactly
the cells a terminal would get), never widget internals alone.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from test_ui_support import basic_builder, settle, write_session
from textual.widgets import OptionList, TabbedContent

from inspector.figures.marks import MarkKind
from widgets.breakdown import ContextBreakdown
from widgets.detail.detail import MessageDetail
from widgets.detail.render import DetailStyles, render_detail
from widgets.notice_bar import NoticeBar
from widgets.pruning.screen import PruningScreen
from widgets.pruning.settings import PruningSettingsPanel
from widgets.screens.inspector import NARROW_BELOW, InspectorScreen
from widgets.session_header import SessionHeader
from widgets.transcript.columns import TranscriptColumns


def screen_lines(app) -> list[str]:
    """The text of every line on screen, as the terminal would show it."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def widget_lines(widget) -> list[str]:
    """The text of every line of one widget."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


def rendered_text(renderable, width: int) -> str:
    """A renderable as plain text at `width` columns (the whole of it, not just what is scrolled into view)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def inspector(app) -> InspectorScreen:
    screen = app.screen
    assert isinstance(screen, InspectorScreen), type(screen)
    return screen


async def demo(ui, size):
    pilot = await ui(None, size=size, demo=True)
    screen = inspector(pilot.app)
    assert screen.model is not None and screen.figures is not None
    return pilot, screen


def transcript_rows(screen: InspectorScreen) -> list[str]:
    t = screen.transcript
    return [t.render_line(y).text for y in range(t.scrollable_content_region.height)]


# ------------------------------------------------------------------------------------------------- small terminals


@pytest.mark.anyio
@pytest.mark.parametrize("size", [(80, 24), (100, 30)])
async def test_small_terminal_keeps_the_numbers_and_enter_shows_the_message(ui, size):
    """At 80×24 and 100×30 the demo shows every row's size and the context so far, the column titles for them, and
    the gauge's figures; Enter opens the message under the transcript, Esc closes it again."""
    pilot, screen = await demo(ui, size)
    assert screen.has_class("-narrow") and size[0] < NARROW_BELOW
    header = widget_lines(screen.query_one(TranscriptColumns))[0]
    assert "tok" in header and header.rstrip().endswith("context") and "sizes: pi chars/4" in header
    model = screen.model
    rows = [r for r in transcript_rows(screen) if r.strip()]
    assert len(rows) >= 10
    for row in rows:  # every row ends with its size and the context so far, both whole numbers
        size_cell, context_cell = row.split()[-2:]
        assert size_cell.replace(",", "").isdigit() and context_cell.replace(",", "").isdigit(), row
    last = model.cumulative_at("pi", model.message_count - 1)
    assert f"{last:,}" in rows[-1]
    on_screen = "\n".join(screen_lines(pilot.app))
    o = screen.figures.overview
    assert f"Context now {o.usage.tokens:,} / {o.window.tokens:,} tok" in on_screen
    assert f"{o.fill * 100:.1f}%" in on_screen and f"guard {o.guard.level.upper()}" in on_screen
    assert "Largest messages" not in on_screen  # the tabs open on demand only

    await pilot.press("up", "enter")
    await settle(pilot)
    assert screen.has_class("-side") and screen.query_one("#tabs", TabbedContent).active == "tab-message"
    detail = screen.query_one(MessageDetail)
    assert detail.data is not None and detail.data.entry.index == model.entry(screen.transcript.current_row).index
    assert detail.size.height >= 5 and detail.region.width >= size[0] - 2
    on_screen = "\n".join(screen_lines(pilot.app))
    assert "size" in on_screen and "pi chars/4" in on_screen  # the message detail's own figures
    assert screen.transcript.region.height >= 4  # the cursor row stays in sight above
    await pilot.press("escape")
    await settle(pilot)
    assert not screen.has_class("-side") and isinstance(pilot.app.screen, InspectorScreen)


@pytest.mark.anyio
async def test_share_bar_goes_before_the_sizes(ui):
    """The share bar shows only while the preview keeps room: dropped at 80 columns, back at 100, sizes always."""
    pilot, screen = await demo(ui, (80, 24))
    assert "share" not in widget_lines(screen.query_one(TranscriptColumns))[0]
    await pilot.resize_terminal(100, 30)
    await settle(pilot)
    assert "share" in widget_lines(screen.query_one(TranscriptColumns))[0]
    await pilot.resize_terminal(140, 40)
    await settle(pilot)
    assert not screen.has_class("-narrow")
    right = screen.query_one("#right")  # the side panel beside the transcript again
    assert right.display and right.region.x >= screen.transcript.region.right and right.region.width > 30


@pytest.mark.anyio
async def test_s_toggles_the_side_panel(ui):
    pilot, screen = await demo(ui, (140, 40))
    right = screen.query_one("#right")
    assert right.display and right.region.width > 30
    wide = screen.transcript.region.width
    await pilot.press("s")
    await settle(pilot)
    assert not right.display and screen.transcript.region.width > wide
    await pilot.press("s")
    await settle(pilot)
    assert right.display
    await pilot.resize_terminal(80, 24)
    await settle(pilot)
    await pilot.press("s")
    await settle(pilot)
    assert screen.has_class("-side") and screen.query_one("#tabs").display


# ------------------------------------------------------------------------------------------------- demo notice


@pytest.mark.anyio
async def test_demo_opened_because_nothing_was_found_says_so(ui, tmp_path):
    """No path and no sessions in the default places: the demo opens, and the header, the title and the notice bar
    say that it is the demo and why."""
    pilot = await ui(None, home=tmp_path / "empty-home")
    app = pilot.app
    screen = inspector(app)
    assert screen.demo and "no sessions found" in screen.demo
    assert "DEMO" in app.title and "no sessions found" in app.sub_title
    header = widget_lines(screen.query_one(SessionHeader))
    assert header[0].lstrip().startswith("DEMO demo-session.jsonl")
    notice = screen.query_one(NoticeBar)
    assert notice.display and "no sessions found" in notice.message and "session-inspector PATH" in notice.message


@pytest.mark.anyio
async def test_demo_asked_for_is_labelled_but_not_explained(ui):
    pilot, screen = await demo(ui, (120, 36))
    assert "DEMO" in pilot.app.title
    assert widget_lines(screen.query_one(SessionHeader))[0].lstrip().startswith("DEMO ")
    assert not screen.query_one(NoticeBar).message


@pytest.mark.anyio
async def test_a_real_session_is_not_called_a_demo(ui, tmp_path):
    pilot = await ui(write_session(tmp_path, "s.jsonl", basic_builder()))
    assert "DEMO" not in pilot.app.title
    assert "DEMO" not in widget_lines(inspector(pilot.app).query_one(SessionHeader))[0]


# ------------------------------------------------------------------------------------------------- rows


@pytest.mark.anyio
async def test_expired_results_keep_the_mark_and_the_age_moves_to_the_detail(ui):
    """Expired tool results start with `~` and their preview starts at once (no "325d 6h old ·"); the age, the expiry
    time and what it is counted from are in the message detail."""
    pilot, screen = await demo(ui, (120, 36))
    model = screen.model
    expired = model.marks.entries(MarkKind.CACHE_EXPIRED)
    positions = [p for p in range(len(model)) if model.entry(model.view[p]).index in expired]
    assert len(positions) > 5
    t = screen.transcript
    for p in positions[-3:]:
        t.move_to(p)
        await settle(pilot)
        text = t.render_line(p - round(t.scroll_y)).text
        assert text.startswith("~") and " old · " not in text and not re.search(r"\d+d \d+h", text), text
    await pilot.press("enter")
    await settle(pilot)
    detail = screen.query_one(MessageDetail)
    info = model.marks.first(detail.data.entry.index, MarkKind.CACHE_EXPIRED).payload
    shown = rendered_text(render_detail(detail.data, DetailStyles()), 100)  # what the pane draws, all of it
    assert "cache TTL" in shown and "~ expired" in shown and "result age" in shown
    assert "counted from" in shown and ("last assistant message" in shown or "cache-ttl touch" in shown)
    from inspector.base.durations import format_duration_ms

    assert format_duration_ms(info.expired_for_ms) in shown and format_duration_ms(info.age_ms) in shown


@pytest.mark.anyio
async def test_index_column_says_context_index_or_file_line(ui, tmp_path):
    pilot = await ui(write_session(tmp_path, "s.jsonl", basic_builder()))
    screen = inspector(pilot.app)
    columns = screen.query_one(TranscriptColumns)
    assert widget_lines(columns)[0].split()[0] == "ctx"
    await pilot.press("o")
    await settle(pilot)
    assert widget_lines(columns)[0].split()[0] == "line"
    await pilot.press("home")
    await settle(pilot)
    first = screen.transcript.render_line(0).text.split()[0]
    assert first == str(screen.model.entry(screen.model.view[0]).line)  # the header is line 1: entries start at 2
    await pilot.press("o")
    await settle(pilot)
    assert widget_lines(columns)[0].split()[0] == "ctx"


@pytest.mark.anyio
async def test_column_header_is_whole_during_search_and_filter(ui):
    """A filter and a search go on a line of their own under the titles; the titles of the sizes stay whole."""
    pilot, screen = await demo(ui, (120, 36))
    columns = screen.query_one(TranscriptColumns)
    before = widget_lines(columns)[0]
    screen.model.set_filters(["toolResult"], ["exec", "read"])
    screen.transcript.invalidate()
    screen._update_columns()
    await pilot.press("slash", *"redis", "enter")
    await settle(pilot)
    lines = widget_lines(columns)
    assert len(lines) in (2, 3) and lines[0] == before
    assert "tok" in lines[0] and lines[0].rstrip().endswith("context") and "sizes: pi chars/4" in lines[0]
    status = " ".join(line.strip() for line in lines[1:])
    assert "filter: exec, read, toolResult (15 of 69 rows)" in status and "search: redis" in status
    row = screen.transcript.render_line(0).text
    assert len(row.rstrip()) <= columns.size.width  # rows and titles share the width


# ------------------------------------------------------------------------------------------------- keyboard


@pytest.mark.anyio
async def test_largest_messages_by_keyboard(ui, tmp_path):
    """`w` puts the keyboard in the largest messages; ↓ and Enter jump to the second largest; Tab reaches the list
    too."""
    pilot = await ui(write_session(tmp_path, "s.jsonl", basic_builder()))
    screen = inspector(pilot.app)
    largest = screen.query_one(ContextBreakdown).data.largest
    await pilot.press("w")
    await settle(pilot)
    options = screen.query_one("#breakdown-largest", OptionList)
    assert screen.focused is options and options.highlighted == 0
    await pilot.press("down", "enter")
    await settle(pilot)
    assert screen.focused is screen.transcript and screen.transcript.current_row == largest[1].index
    for _ in range(12):
        await pilot.press("tab")
        if screen.focused is options:
            break
    assert screen.focused is options
    await pilot.press("escape")
    await settle(pilot)
    assert screen.focused is screen.transcript and isinstance(pilot.app.screen, InspectorScreen)


@pytest.mark.anyio
async def test_pruning_settings_survive_closing_the_overlay(ui, tmp_path):
    """Edits, force and the scenario shown stay for the open file when the overlay is closed and opened again."""
    from test_ui_pruning import settle as settle_pruning

    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    await pilot.press("p")
    overlay = await settle_pruning(pilot)
    panel = overlay.query_one(PruningSettingsPanel)
    overlay.query_one("#setting-softTrim-maxChars").focus()
    panel.set_value("softTrim.maxChars", "1234")
    overlay = await settle_pruning(pilot)
    assert overlay.edits == {"softTrim.maxChars": 1234}
    overlay.query_one("#pruning-messages").focus()
    await pilot.press("f")
    overlay = await settle_pruning(pilot)
    assert overlay.force
    await pilot.press("escape")
    await settle(pilot)
    assert isinstance(pilot.app.screen, InspectorScreen)
    await pilot.press("p")
    again = await settle_pruning(pilot)
    assert again is not overlay and isinstance(again, PruningScreen)
    assert again.edits == {"softTrim.maxChars": 1234} and again.force
    assert again.query_one(PruningSettingsPanel).current("softTrim.maxChars") == "1234"
    assert again.query_one("#row-setting-softTrim-maxChars").has_class("-edited")
    assert again.preview.resolved.settings.soft_trim.max_chars == 1234
    assert again.preview.applied and (again.preview.gate.forced or again.preview.gate.open)


def test_layout_drops_the_bar_before_the_sizes():
    from widgets.transcript.layout import row_layout

    assert not row_layout(78, 156).show_bar and row_layout(78, 156).preview_cells >= 36
    assert row_layout(98, 156).show_bar and row_layout(98, 156).preview_cells >= 36
    for width in range(30, 200):
        layout = row_layout(width, 156)
        assert layout.preview_cells >= 4
        if layout.show_bar:
            assert layout.preview_cells >= 36

