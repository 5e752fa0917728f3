"""The timeline chart: tokens over calls, drawn with `textual-plot`'s `PlotWidget`.

Lines: the recorded prompt of each call (`input + cacheRead + cacheWrite`), pi's chars/4 estimate of the transcript
sent before it, and the gap between them (not in the transcript, derived). Horizontal lines: the window, pi's
compaction threshold (`window - reserveTokens`, the reserve line) and the early-warning thresholds, each also a
labelled tick on the token axis. Vertical lines: compactions. The largest jumps carry their rank (1-9, then `▲`).
A cursor (`◆` on both lines, `▼` above) marks the selected call: left / right / home / end / page keys move it,
`[` / `]` go to the previous / next larger jump, a click selects the nearest call, Enter asks to show the call in
the transcript and `x` the largest message that caused its jump. Up / down pan, `+` / `-` zoom, `r` resets.

Every point is a `CallPoint` of the engine's `Timeline`; nothing is computed here but screen positions. A series
with more points in view than the plot has braille dots across is drawn decimated (`decimated`: each dot column's
lowest and highest point, in order), which draws the same dots: thousands of calls render in milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from textual import events, on
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual_hires_canvas import Canvas
from textual_plot import HiResMode, NumericAxisFormatter, PlotWidget
from textual_plot.plot_widget import LinePlot

from inspector.figures.diagnosis.timeline import Timeline

JUMP_DIGITS = 9
CURSOR_MARK_AT = 0.985  # the ▼ over the selected call, just under the top of the plot
PAGE = 10
THRESHOLD_TICK_LABELS = {"window": "win", "compaction": "cmp"}
DOTS_PER_CELL = 2  # braille: two dot columns per terminal cell


def decimated(xs: np.ndarray, ys: np.ndarray, x_min: float, x_max: float, columns: int) -> tuple[np.ndarray, np.ndarray]:
    """The points of a line (`xs` increasing) to draw over `columns` dot columns between `x_min` and `x_max`: as
    they are when there are at most twice as many in view, else per column the lowest and the highest point (first
    the one that comes first), plus the nearest point outside each edge (the line leaves the plot there)."""
    lo = max(0, int(np.searchsorted(xs, x_min, side="left")) - 1)
    hi = min(len(xs), int(np.searchsorted(xs, x_max, side="right")) + 1)
    if hi - lo <= 2 * columns or columns <= 0:
        return xs, ys
    vx, vy = xs[lo:hi], ys[lo:hi]
    width = (x_max - x_min) / columns
    bucket = np.clip(((vx - x_min) / width).astype(np.int64), -1, columns)
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    ends = np.r_[starts[1:], len(vx)]
    out_x: list[float] = []
    out_y: list[float] = []
    for s, e in zip(starts.tolist(), ends.tolist()):
        seg = vy[s:e]
        i, j = s + int(np.argmin(seg)), s + int(np.argmax(seg))
        for k in sorted({i, j}):
            out_x.append(float(vx[k]))
            out_y.append(float(vy[k]))
    return np.asarray(out_x), np.asarray(out_y)


class ThresholdAxis(NumericAxisFormatter):
    """Token-axis labels: `win 200k`, `cmp 180k`, `50% 100k` at the threshold ticks, `50k` elsewhere."""

    def __init__(self, labels: dict[float, str]) -> None:
        super().__init__()
        self.labels = labels

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [self.labels.get(t) or short_tokens(t) for t in ticks]


class CallAxis(NumericAxisFormatter):
    """Call-axis ticks: whole call numbers only."""

    def get_ticks(self, min_: float, max_: float, max_ticks: int = 8) -> list[float]:
        ticks = [t for t in super().get_ticks(min_, max_, max_ticks) if float(t).is_integer()]
        return ticks or [float(round((min_ + max_) / 2))]

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [str(round(t)) for t in ticks]


def short_tokens(value: float) -> str:
    """A tick label of at most 5 characters: `0`, `950`, `12k`, `122.5k`→`122k`, `1.2M`."""
    if abs(value) < 1000:
        return f"{value:.0f}"
    if abs(value) < 1_000_000:
        return f"{value / 1000:.3g}k" if abs(value) < 10_000 else f"{value / 1000:.0f}k"
    return f"{value / 1_000_000:.2g}M"


@dataclass(frozen=True, slots=True)
class ChartLine:
    """A horizontal threshold line: its engine name and kind, tokens, and the tick label."""

    name: str
    kind: str
    tokens: int
    label: str


def threshold_label(kind: str, fraction: float, tokens: int) -> str:
    """The tick label of a threshold: `win 200k`, `cmp 180k`, `50% 100k`."""
    prefix = THRESHOLD_TICK_LABELS.get(kind) or f"{fraction * 100:.0f}%"
    return f"{prefix} {short_tokens(tokens)}"


class TimelineChart(PlotWidget):
    """Tokens over the calls of a `Timeline`, with a cursor on one call."""

    COMPONENT_CLASSES = PlotWidget.COMPONENT_CLASSES | {
        "timeline--prompt",
        "timeline--transcript",
        "timeline--overhead",
        "timeline--error",
        "timeline--window",
        "timeline--reserve",
        "timeline--early",
        "timeline--compaction",
        "timeline--jump",
        "timeline--cursor",
    }

    DEFAULT_CSS = """
    TimelineChart {
        & > .timeline--prompt { color: $primary; }
        & > .timeline--transcript { color: $success; }
        & > .timeline--overhead { color: $text-muted; }
        & > .timeline--error { color: $warning-darken-2; }
        & > .timeline--window { color: $error; }
        & > .timeline--reserve { color: $warning; }
        & > .timeline--early { color: $text-warning; }
        & > .timeline--compaction { color: $accent; }
        & > .timeline--jump { color: $text-error; text-style: bold; }
        & > .timeline--cursor { color: $foreground; text-style: bold; }
    }
    """

    BINDINGS = [
        Binding("left", "previous_call", "Previous call", tooltip="Move the cursor to the previous call", id="chart.previous_call"),
        Binding("right", "next_call", "Next call", tooltip="Move the cursor to the next call", id="chart.next_call"),
        Binding("home", "first_call", "First call", show=False, tooltip="The first call", id="chart.first_call"),
        Binding("end", "last_call", "Last call", show=False, tooltip="The last call", id="chart.last_call"),
        Binding("pageup", "page_back", "Back 10", show=False, tooltip="Ten calls back", id="chart.back_10"),
        Binding("pagedown", "page_forward", "Forward 10", show=False, tooltip="Ten calls forward", id="chart.forward_10"),
        Binding("right_square_bracket", "next_jump", "Next jump", tooltip="The next of the largest jumps, by rank", id="chart.next_jump"),
        Binding("left_square_bracket", "previous_jump", "Previous jump", show=False, tooltip="The previous of the largest jumps", id="chart.previous_jump"),
        Binding("enter", "open_call", "Show in transcript", tooltip="Show the selected call's message in the transcript", id="chart.show_in_transcript"),
        Binding("x", "open_cause", "Cause", tooltip="Show the largest message that caused the selected jump", id="chart.cause"),
    ]

    margin_left = reactive(11)
    cursor: reactive[int] = reactive(0)
    """The selected call (its index in `Timeline.calls`)."""

    class CallSelected(Message):
        """The cursor moved to call `index`."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class OpenRequested(Message):
        """Enter on call `index` (`cause` False) or `x` on it (`cause` True: its jump's largest cause)."""

        def __init__(self, index: int, cause: bool) -> None:
            super().__init__()
            self.index = index
            self.cause = cause

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes, allow_pan_and_zoom=True)
        self.timeline: Timeline | None = None
        self.jump_rank: dict[int, int] = {}
        self.lines: list[ChartLine] = []

    def set_compact(self, compact: bool) -> None:
        """Thinner margins for a short terminal (the call-axis label is left out)."""
        self.margin_top = 1 if compact else 2
        self.margin_bottom = 2 if compact else 3

    # -- data -------------------------------------------------------------------------------------

    def show(self, timeline: Timeline, cursor: int | None = None) -> None:
        """Draw `timeline`, with the cursor on call `cursor` (default: the largest jump, else the last call)."""
        self.timeline = timeline
        self.jump_rank = {j.call_index: rank for rank, j in enumerate(timeline.jumps, 1)}
        self.lines = [
            ChartLine(t.name, t.kind, t.tokens, threshold_label(t.kind, t.fraction, t.tokens)) for t in timeline.thresholds
        ]
        n = len(timeline.calls)
        if cursor is None:
            cursor = timeline.jumps[0].call_index if timeline.jumps else n - 1
        self.set_reactive(TimelineChart.cursor, max(0, min(cursor, n - 1)))
        self.redraw()
        if n:
            self.post_message(self.CallSelected(self.cursor))

    def watch_cursor(self, old: int, new: int) -> None:
        if old != new and self.timeline is not None and self.timeline.calls:
            self.redraw()
            self.post_message(self.CallSelected(new))

    def _render_plot(self) -> None:
        """`PlotWidget`'s drawing with the canvas refreshed once at the end, not once per dot (~2,000 refreshes were a
        third of the chart's first draw)."""
        canvas = next(iter(self.query("#plot").results(Canvas)), None)
        if canvas is None:
            super()._render_plot()
            return
        with canvas.batch_refresh():
            super()._render_plot()

    def _render_line_plot(self, dataset: LinePlot) -> None:
        """`PlotWidget`'s line drawing, on the points `decimated` keeps for the plot's width and x range."""
        columns = max(1, self.size.width - 2) * DOTS_PER_CELL
        xs, ys = decimated(np.asarray(dataset.x, dtype=float), np.asarray(dataset.y, dtype=float), self._x_min, self._x_max, columns)
        super()._render_line_plot(dataset if len(xs) == len(dataset.x) else replace(dataset, x=xs, y=ys))

    def _style(self, name: str) -> str:
        return str(self.get_component_rich_style(name))

    def redraw(self) -> None:
        """Clear the plot and draw every series, line and mark again (on data, cursor or theme changes)."""
        timeline = self.timeline
        self.clear()
        if timeline is None or not timeline.calls:
            return
        calls = timeline.calls
        xs = [c.index for c in calls]
        x0, x1 = -0.5, len(calls) - 0.5
        top = max([self.lines[-1].tokens if self.lines else 0, *(c.prompt_tokens for c in calls)]) * 1.06 or 1
        self.set_xlimits(x0, x1)
        self.set_ylimits(0, top)
        self.set_x_formatter(CallAxis())
        labels: dict[float, str] = {0.0: "0"}
        for line in self.lines:
            style = {"window": "timeline--window", "compaction": "timeline--reserve"}.get(line.kind, "timeline--early")
            self.plot([x0, x1], [line.tokens, line.tokens], line_style=self._style(style), hires_mode=HiResMode.BRAILLE)
            labels[float(line.tokens)] = line.label
        self.set_yticks(sorted(labels))
        self.set_y_formatter(ThresholdAxis(labels))
        for path_marker in timeline.walk.markers:
            if path_marker.kind == "compaction" and path_marker.before_call is not None:
                self.add_v_line(path_marker.before_call - 0.5, line_style=self._style("timeline--compaction"))
        overhead = [c.not_in_transcript if c.overhead_tokens is None else c.overhead_tokens for c in calls]
        self.plot(xs, overhead, line_style=self._style("timeline--overhead"), hires_mode=HiResMode.BRAILLE)
        if any(c.estimator_error_tokens for c in calls):
            errors = [c.estimator_error_tokens or 0 for c in calls]
            self.plot(xs, errors, line_style=self._style("timeline--error"), hires_mode=HiResMode.BRAILLE)
        self.plot(xs, [c.transcript_estimate for c in calls], line_style=self._style("timeline--transcript"), hires_mode=HiResMode.BRAILLE)
        self.plot(xs, [c.prompt_tokens for c in calls], line_style=self._style("timeline--prompt"), hires_mode=HiResMode.BRAILLE)
        jump_style = self._style("timeline--jump")
        for call_index, rank in self.jump_rank.items():
            marker = str(rank) if rank <= JUMP_DIGITS else "▲"
            self.scatter([call_index], [calls[call_index].prompt_tokens], marker=marker, marker_style=jump_style)
        c = calls[self.cursor]
        cursor_style = self._style("timeline--cursor")
        self.scatter([c.index, c.index], [c.prompt_tokens, c.transcript_estimate], marker="◆", marker_style=cursor_style)
        if self.get_pixel_from_coordinate(c.index, top * CURSOR_MARK_AT)[1] < self.get_pixel_from_coordinate(c.index, c.prompt_tokens)[1]:
            self.scatter([c.index], [top * CURSOR_MARK_AT], marker="▼", marker_style=cursor_style)
        self.set_xlabel("call # (path order)")
        self.set_ylabel("tokens")

    def draw_now(self) -> None:
        """Draw the plot on its canvas now, not in the next frame's `render` (a caller gives the drawing a frame of its
        own: with the rest of that frame it held the UI thread over 100 ms on a big session)."""
        if self.size:
            self.render()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.timeline is not None:
            self.redraw()

    # -- cursor -------------------------------------------------------------------------------------

    def _count(self) -> int:
        return len(self.timeline.calls) if self.timeline is not None else 0

    def move_cursor(self, index: int) -> None:
        """Put the cursor on call `index` (clamped)."""
        n = self._count()
        if n:
            self.cursor = max(0, min(index, n - 1))

    def action_previous_call(self) -> None:
        self.move_cursor(self.cursor - 1)

    def action_next_call(self) -> None:
        self.move_cursor(self.cursor + 1)

    def action_first_call(self) -> None:
        self.move_cursor(0)

    def action_last_call(self) -> None:
        self.move_cursor(self._count() - 1)

    def action_page_back(self) -> None:
        self.move_cursor(self.cursor - PAGE)

    def action_page_forward(self) -> None:
        self.move_cursor(self.cursor + PAGE)

    def _jump_by_rank(self, delta: int) -> None:
        if self.timeline is None or not self.timeline.jumps:
            self.notify("no jumps: the prompt never grew between two calls", severity="warning", timeout=2)
            return
        jumps = self.timeline.jumps
        rank = self.jump_rank.get(self.cursor)
        position = (rank - 1 + delta) % len(jumps) if rank is not None else (0 if delta > 0 else len(jumps) - 1)
        self.move_cursor(jumps[position].call_index)

    def action_next_jump(self) -> None:
        self._jump_by_rank(1)

    def action_previous_jump(self) -> None:
        self._jump_by_rank(-1)

    def action_open_call(self) -> None:
        if self._count():
            self.post_message(self.OpenRequested(self.cursor, cause=False))

    def action_open_cause(self) -> None:
        if self._count():
            self.post_message(self.OpenRequested(self.cursor, cause=True))

    @on(events.Click)
    def _clicked(self, event: events.Click) -> None:
        """Select the call nearest to the clicked column."""
        if not self._count():
            return
        canvas = self.query_one("#plot", Canvas)
        offset = event.screen_offset - self.screen.get_offset(canvas)
        if not (0 <= offset.x < canvas.size.width):
            return
        x, _ = self.get_coordinate_from_pixel(offset.x, max(0, offset.y))
        self.focus()
        self.move_cursor(round(x))
