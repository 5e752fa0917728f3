"""The calls as a table: the timeline screen's fallback when the terminal is too small for the chart.

One row per `CallPoint` (the figures `timeline` prints); moving the row cursor selects the call, Enter asks to show
it in the transcript, as on the chart. A `DataTable` measures every cell of the rows added since the last idle moment
on the UI thread (thousands of calls: about a second), so the rows are added `CHUNK` at a time, one chunk per timer
tick: the screen stays responsive while a long table fills, and the cursor lands on its call once that row exists.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from inspector.figures.diagnosis.calls import CallPoint
from inspector.figures.diagnosis.timeline import Timeline

from .texts import tokens, usd

COLUMNS = ("#", "line", "prompt", "transcr.", "not in tr.", "cost", "mark")
CHUNK = 200
"""Rows added per timer tick (each tick's measuring stays well under 100 ms)."""


class CallsTable(DataTable):
    """The calls of a `Timeline`, one row each, with the jump rank and compaction marks."""

    BINDINGS = [
        Binding("enter", "open_call", "Show in transcript", tooltip="Show the selected call's message in the transcript", id="calls.show_in_transcript"),
        Binding("x", "open_cause", "Cause", tooltip="Show the largest message that caused the selected jump", id="calls.cause"),
    ]

    class CallSelected(Message):
        """The row cursor moved to call `index`."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    class OpenRequested(Message):
        """Enter (`cause` False) or `x` (`cause` True) on call `index`."""

        def __init__(self, index: int, cause: bool) -> None:
            super().__init__()
            self.index = index
            self.cause = cause

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self._calls: Sequence[CallPoint] = ()
        self._ranks: dict[int, int] = {}
        self._compactions: set[int] = set()
        self._cursor = 0
        self._generation = 0

    @property
    def filling(self) -> bool:
        """Whether rows of the last `show` are still to be added."""
        return self.row_count < len(self._calls)

    def on_mount(self) -> None:
        for name in COLUMNS:
            self.add_column(name, key=name)

    def show(self, timeline: Timeline, cursor: int) -> None:
        """Fill the table with the calls of `timeline` (`CHUNK` rows per timer tick), the cursor on call `cursor`."""
        self.clear()
        self._generation += 1
        self._calls = timeline.calls
        self._ranks = {j.call_index: rank for rank, j in enumerate(timeline.jumps, 1)}
        self._compactions = {mk.before_call for mk in timeline.walk.markers if mk.kind == "compaction"}
        self._cursor = max(0, min(cursor, len(self._calls) - 1))
        self._add_chunk(self._generation)

    def _add_chunk(self, generation: int) -> None:
        if generation != self._generation:
            return  # a newer `show` took over
        start = self.row_count
        for c in self._calls[start:start + CHUNK]:
            mark = ("│" if c.index in self._compactions else "") + (f"J{self._ranks[c.index]}" if c.index in self._ranks else "")
            self.add_row(
                Text(str(c.index), justify="right"),
                Text(str(c.line), justify="right"),
                Text(tokens(c.prompt_tokens), justify="right"),
                Text(tokens(c.transcript_estimate), justify="right"),
                Text(tokens(c.not_in_transcript), justify="right"),
                Text(usd(c.cost.total), justify="right"),
                Text(mark),
            )
        if start <= self._cursor < self.row_count:
            self.move_cursor(row=self._cursor)
        if self.filling:
            self.set_timer(0.001, lambda: self._add_chunk(generation))

    @on(DataTable.RowHighlighted)
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.CallSelected(event.cursor_row))

    def action_open_call(self) -> None:
        if self.row_count:
            self.post_message(self.OpenRequested(self.cursor_row, cause=False))

    def action_open_cause(self) -> None:
        if self.row_count:
            self.post_message(self.OpenRequested(self.cursor_row, cause=True))
