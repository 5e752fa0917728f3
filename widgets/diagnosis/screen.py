"""The timeline screen (`l`, or `R` for its repeats panel): where the context ran away, what repeats, and what the
transcript does not show.

Over the chart (`TimelineChart`, or the `CallsTable` in a terminal too small for it, filled only then) the `TimelineSummary` gives
the session's cost and cache-hit ratio, the cache writes TTL expiries caused, the not-in-transcript share, the fill
and the thresholds crossed. Beside it, the selected call's figures (`CallFigures`) and the ranked repeats
(`RepeatsPanel`). The screen dismisses with a `DiagnosisJump` (a call, the largest cause of a jump, or each
occurrence of a repeat) for the inspector screen to show in the transcript, or None (Esc).

The `Timeline` comes from the inspector screen's `DiagnosisRunner` (a thread worker): this screen is handed the
latest one, or shows "computing…" until `set_timeline` is called.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from inspector.base.textsafe import one_line
from inspector.figures.diagnosis.timeline import Timeline

from ..commands import PaletteCommand, binding_commands, help_rows
from .call_panel import CallFigures
from .calls_table import CallsTable
from .chart import TimelineChart
from .occurrences import DiagnosisJump
from .repeats import RepeatsPanel, repeat_label
from .summary import TimelineSummary

STYLES = Path(__file__).resolve().parents[2] / "styles" / "diagnosis.tcss"
TINY_WIDTH = 72
TINY_HEIGHT = 20
COMPACT_WIDTH = 110
COMPACT_HEIGHT = 32
HELP_INTRO = (
    "One point per LLM call on the active path (an assistant message with recorded usage). The chart draws the recorded "
    "prompt (input + cacheRead + cacheWrite), pi's chars/4 estimate of the transcript sent before the call, and the gap "
    "between them: what the transcript does not show (system prompt, tool schemas, injected context; derived, so it also "
    "carries the estimator's error). Horizontal lines: the window, pi's compaction threshold (window − reserveTokens) and "
    "the early warnings, labelled on the token axis. Vertical lines: compactions. Digits: the largest jumps by rank.\n"
    "The guard is about the window's size; the fill is how much of it the session uses. Cost is the recorded usage.cost, "
    "else the bundled pi-ai price table. Repeats: the same file read again unchanged, the same command, the same tool "
    "error, a call re-issued after it failed, ranked by the tokens the repetitions added; Enter shows the first "
    "occurrence in the transcript and n / N the others."
)
FOCUS_CHART = "chart"
FOCUS_REPEATS = "repeats"
STAGE_CHART = "chart"
STAGE_REPEATS = "repeats"
STAGES = (STAGE_CHART, STAGE_REPEATS)
"""What a timeline shows after the summary, one frame each, in this order (`TimelineScreen._show_stage`)."""


class TimelineScreen(Screen[DiagnosisJump | None]):
    """The diagnosis of one session (see the module docstring)."""

    CSS_PATH = str(STYLES)

    BINDINGS = [
        Binding("escape", "close", "Back", tooltip="Back to the transcript", id="timeline.back"),
        Binding("l", "close", "Back", show=False, tooltip="Back to the transcript", id="timeline.close"),
        Binding("R", "focus_repeats", "Repeats", tooltip="The repeats panel (Enter: each occurrence in the transcript)", id="timeline.focus_repeats"),
        Binding("g", "focus_chart", "Chart", tooltip="The chart (left / right: calls, Enter: show in the transcript)", id="timeline.focus_chart"),
        Binding("question_mark", "help", "Help", tooltip="Keys of the timeline", id="timeline.help"),
    ]

    def __init__(self, timeline: Timeline | None, file_name: str, *, focus: str = FOCUS_CHART, status: str = "computing the timeline…") -> None:
        """`timeline` None: show `status` until `set_timeline`; `focus` is `chart` or `repeats`."""
        super().__init__()
        self.timeline: Timeline | None = None
        self.file_name = file_name
        self.initial_focus = focus
        self.status = status
        self.cursor: int | None = None
        self._pending = timeline
        self._table_shows: Timeline | None = None

    def compose(self) -> ComposeResult:
        yield TimelineSummary(f"Timeline · {one_line(self.file_name, 60)}", id="timeline-summary")
        with Horizontal(id="timeline-main"):
            with Vertical(id="timeline-left"):
                yield Static("", id="timeline-legend")
                yield TimelineChart(id="timeline-chart")
                yield CallsTable(id="timeline-table")
            with VerticalScroll(id="timeline-side"):
                yield CallFigures("", id="timeline-call")
        yield Static("Repeats, ranked by the tokens they cost · Enter: each occurrence in the transcript, then n / N", id="timeline-repeats-title")
        yield RepeatsPanel(id="timeline-repeats")
        yield Footer()

    def on_mount(self) -> None:
        self._apply_size(self.size.width, self.size.height)
        pending, self._pending = self._pending, None
        if pending is not None:
            self._show_timeline(pending)
        else:
            self.query_one("#timeline-summary", TimelineSummary).show(None, self.status)
        self._focus_initial()

    def _focus_initial(self) -> None:
        if self.initial_focus == FOCUS_REPEATS:
            self.action_focus_repeats()
        else:
            self.action_focus_chart()

    # -- data -------------------------------------------------------------------------------------

    def set_timeline(self, timeline: Timeline) -> None:
        """Show `timeline` (a newer one keeps the selected call where it can); before the screen is mounted it is
        kept and shown by `on_mount` (a timeline can arrive while the screen is still being composed)."""
        if not self.is_mounted:
            self._pending = timeline
            return
        self._show_timeline(timeline)

    def _show_timeline(self, timeline: Timeline) -> None:
        """The summary now, the chart (or table) and the repeats each after the next frame (`_show_stage`): drawn in
        one frame with the screen's first one they held the UI thread ~120 ms."""
        self.timeline = timeline
        self.query_one("#timeline-summary", TimelineSummary).show(timeline)
        self._update_legend()  # before the chart is drawn: the legend's height sizes the chart
        self._table_shows = None
        self.call_after_refresh(self._show_stage, timeline, STAGES[0])

    def _show_stage(self, timeline: Timeline, stage: str) -> None:
        """Show `stage` of `timeline` (unless a newer timeline is shown), then queue the next stage after a frame."""
        if self.timeline is not timeline or not self.is_attached:
            return
        if stage == STAGE_CHART:
            cursor = self.cursor if self.cursor is not None and self.cursor < len(timeline.calls) else None
            chart = self.query_one("#timeline-chart", TimelineChart)
            chart.show(timeline, cursor)
            chart.draw_now()
            if self.has_class("-tiny"):
                self._fill_table()
        elif stage == STAGE_REPEATS:
            self.query_one("#timeline-repeats", RepeatsPanel).show(timeline.repeats)
            if not timeline.calls:
                self.query_one("#timeline-call", CallFigures).update(
                    Text("No call on the active path has recorded usage: nothing to chart.", style="italic")
                )
        following = STAGES.index(stage) + 1
        if following < len(STAGES):
            self.call_after_refresh(self._show_stage, timeline, STAGES[following])

    def _fill_table(self) -> None:
        """The calls table (shown in a tiny terminal only) gets the calls of the timeline shown, unless it has them."""
        if self.timeline is not None and self._table_shows is not self.timeline:
            self._table_shows = self.timeline
            self.query_one("#timeline-table", CallsTable).show(self.timeline, self.query_one("#timeline-chart", TimelineChart).cursor)

    def _update_legend(self) -> None:
        chart = self.query_one("#timeline-chart", TimelineChart)
        if self.timeline is not None:
            self.query_one("#timeline-legend", Static).update(chart_legend(chart, short=self.has_class("-compact")))

    def show_failure(self, reason: str) -> None:
        """The timeline could not be computed: say why instead of "computing…"."""
        if not self.is_mounted:
            self.status = reason
            return
        if self.timeline is None:
            self.query_one("#timeline-summary", TimelineSummary).show(None, reason)

    def _select(self, index: int) -> None:
        if self.timeline is None or not (0 <= index < len(self.timeline.calls)):
            return
        self.cursor = index
        self.query_one("#timeline-call", CallFigures).show_call(self.timeline, index, notes=not self.has_class("-compact"))

    @on(TimelineChart.CallSelected)
    def _chart_selected(self, event: TimelineChart.CallSelected) -> None:
        chart = self.query_one("#timeline-chart", TimelineChart)
        if event.index != chart.cursor:
            return  # overtaken by a later move
        self._select(event.index)
        table = self.query_one("#timeline-table", CallsTable)
        if table.row_count and table.cursor_row != event.index:
            table.move_cursor(row=event.index)

    @on(CallsTable.CallSelected)
    def _table_selected(self, event: CallsTable.CallSelected) -> None:
        table = self.query_one("#timeline-table", CallsTable)
        if not self.has_class("-tiny") or event.index != table.cursor_row:
            return  # the hidden table follows the chart; a stale highlight (while filling) is dropped
        self._select(event.index)
        chart = self.query_one("#timeline-chart", TimelineChart)
        if chart.cursor != event.index:
            chart.move_cursor(event.index)

    @on(TimelineChart.OpenRequested)
    @on(CallsTable.OpenRequested)
    def _open(self, event: TimelineChart.OpenRequested | CallsTable.OpenRequested) -> None:
        timeline = self.timeline
        if timeline is None:
            return
        call = timeline.calls[event.index]
        if not event.cause:
            self.dismiss(DiagnosisJump((call.line,), (call.entry_id,), f"call {call.index} (line {call.line})"))
            return
        jump = next((j for j in timeline.jumps if j.call_index == event.index), None)
        if jump is None or not jump.causes:
            self.notify("this call is not one of the largest jumps (] goes to the next one)", severity="warning", timeout=3)
            return
        cause = jump.causes[0]
        self.dismiss(DiagnosisJump((cause.line,), (cause.entry_id,), f"largest cause of the jump at call {call.index} (line {cause.line})"))

    @on(RepeatsPanel.Chosen)
    def _repeat_chosen(self, event: RepeatsPanel.Chosen) -> None:
        if self.timeline is None:
            return
        rep = self.timeline.repeats[event.index]
        self.dismiss(DiagnosisJump(tuple(rep.lines), tuple(rep.entry_ids), repeat_label(rep)))

    # -- layout -----------------------------------------------------------------------------------

    def on_resize(self, event: events.Resize) -> None:
        self._apply_size(event.size.width, event.size.height)

    def _apply_size(self, width: int, height: int) -> None:
        compact = width < COMPACT_WIDTH or height < COMPACT_HEIGHT
        if compact != self.has_class("-compact"):
            self.set_class(compact, "-compact")
            self.query_one("#timeline-summary", TimelineSummary).compact = compact
            self.query_one("#timeline-chart", TimelineChart).set_compact(compact)
            self._update_legend()
            if self.cursor is not None:
                self._select(self.cursor)
        tiny = width < TINY_WIDTH or height < TINY_HEIGHT
        if tiny != self.has_class("-tiny"):
            self.set_class(tiny, "-tiny")
            table = self.query_one("#timeline-table", CallsTable)
            if tiny:
                self._fill_table()
            if tiny and self.cursor is not None and table.row_count:
                table.move_cursor(row=self.cursor)
            if self.focused is not self.query_one("#timeline-repeats"):
                self.action_focus_chart()

    # -- actions ----------------------------------------------------------------------------------

    def action_close(self) -> None:
        self.dismiss(None)

    def action_focus_repeats(self) -> None:
        self.query_one("#timeline-repeats", RepeatsPanel).focus()

    def action_focus_chart(self) -> None:
        target = "#timeline-table" if self.has_class("-tiny") else "#timeline-chart"
        self.query_one(target).focus()

    def action_help(self) -> None:
        from ..screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.help_rows(), f"Timeline · {one_line(self.file_name, 60)}", HELP_INTRO, estimators=False))

    def help_rows(self) -> list[tuple[str, str, str]]:
        """(key, description, tooltip) of the screen's and the chart's keys."""
        rows = help_rows(self, self.BINDINGS, TimelineChart.BINDINGS)
        rows.append(("click", "Select a call", "Click a point of the chart"))
        rows.append(("up / down, + / -, r", "Pan, zoom, reset", "Pan and zoom the chart (mouse: drag, wheel)"))
        return rows

    def palette_commands(self) -> list[PaletteCommand]:
        """Every action of this screen and of its chart for the command palette."""
        chart = self.query_one("#timeline-chart", TimelineChart)
        return binding_commands(self, self.BINDINGS) + binding_commands(chart, TimelineChart.BINDINGS)


LEGEND = (
    ("timeline--prompt", "⣿ ", "prompt (recorded)", "prompt"),
    ("timeline--transcript", "⣿ ", "transcript (estimate)", "transcript"),
    ("timeline--overhead", "⣿ ", "overhead: outside the transcript (derived)", "overhead"),
    ("timeline--error", "⣿ ", "estimator error (by the tokenizer)", "est. error"),
    ("timeline--window", "⠒ ", "window", "window"),
    ("timeline--reserve", "⠒ ", "compaction threshold", "compact at"),
    ("timeline--early", "⠒ ", "early warnings", "early"),
    ("timeline--compaction", "│ ", "compaction", "compaction"),
    ("timeline--jump", "1-9 ", "largest jumps", "jumps"),
    ("timeline--cursor", "◆ ", "selected", "selected"),
)


def chart_legend(chart: TimelineChart, short: bool = False) -> Text:
    """What each line and mark of `chart` is, in the chart's own styles (`short`: one narrow line)."""
    s = chart.get_component_rich_style
    legend = Text(no_wrap=short, overflow="ellipsis")
    for style, mark, label, short_label in LEGEND:
        legend.append(mark, s(style))
        legend.append((short_label + " ") if short else (label + "  "))
    return legend

