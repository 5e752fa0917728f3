"""The session browser's table: one row per discovered file, sortable by any column, filterable by text.

A virtual table (Textual's line API): only the lines on screen are drawn, each from a row's cells built once and kept
until its figures change, so 5,000 files list, scroll and sort at once (a `DataTable` measures every cell of every
row when rows are added: seconds for 5,000 files). Figures come from the file's glance first (`inspector.host.listing`:
header and tail) and its full summary later (`inspector.figures.file_summary`); `…` marks a figure still being read.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from inspector.figures.file_summary import SessionSummary
from inspector.host.discovery import SessionFile
from inspector.host.listing import SessionGlance

from ..inert import one_line
from ..transcript.previews import compact_number, human_bytes

COLUMNS: tuple[tuple[str, str], ...] = (
    ("agent", "agent"),
    ("session", "session"),
    ("updated", "updated"),
    ("size", "size"),
    ("messages", "msgs"),
    ("context", "context"),
    ("compactions", "compact."),
    ("kind", "kind"),
)
FIGURE_COLUMNS = frozenset({"messages", "context", "compactions", "session"})
"""Columns whose values arrive after the list is shown (a sort on them is redone as they arrive)."""
_WIDTHS = {"agent": 16, "updated": 10, "size": 8, "messages": 7, "context": 8, "compactions": 8, "kind": 12}
_RIGHT = frozenset({"size", "messages", "context", "compactions"})
_SESSION_MIN = 20
PENDING = "…"


def relative_time(when: datetime, now: datetime) -> str:
    """`42s ago`, `5m ago`, `3h ago`, `6d ago`, else the date."""
    seconds = (now - when).total_seconds()
    if seconds < 0:
        return when.strftime("%Y-%m-%d %H:%M")
    if seconds < 60:
        return f"{int(seconds)}s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)}m ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h ago"
    if seconds < 30 * 86400:
        return f"{int(seconds // 86400)}d ago"
    return when.strftime("%Y-%m-%d")


@dataclass(frozen=True)
class BrowserRow:
    """One file with its glance and its full summary (each None until read)."""

    file: SessionFile
    summary: SessionSummary | None
    glance: SessionGlance | None = None

    @property
    def key(self) -> str:
        """The file's path as a string (the row's identity)."""
        return str(self.file.path)

    @property
    def agent(self) -> str:
        return self.file.agent_id or (self.file.cwd_slug.strip("-") if self.file.cwd_slug else self.file.source)

    @property
    def name(self) -> str | None:
        """The session name: the summary's, else the glance's when it could tell."""
        if self.summary is not None and not self.summary.error:
            return self.summary.name
        g = self.glance
        return g.session_name if g is not None and g.known("session_name") else None

    @property
    def title(self) -> str:
        name = self.name
        ident = self.file.session_key or self.file.session_id or self.file.path.name
        return f"{name} · {ident}" if name else ident

    @property
    def kind(self) -> str:
        f = self.file
        if f.kind == "archive":
            return f"archive:{f.archive_reason}"
        if f.kind == "checkpoint":
            return "checkpoint"
        return "live"

    @property
    def context_tokens(self) -> int | None:
        """pi's context-now estimate: the summary's, else the glance's (the same figure, read from the tail)."""
        s = self.summary
        if s is not None and not s.error:
            return s.context_tokens
        g = self.glance
        return g.context_tokens if g is not None and g.known("context_tokens") else None

    @property
    def compactions(self) -> int | None:
        s = self.summary
        if s is not None and not s.error:
            return s.compactions
        g = self.glance
        return g.compactions if g is not None and g.known("compactions") else None

    def sort_value(self, column: str) -> Any:
        """A comparable value for `column` (unknown numbers sort first)."""
        s = self.summary
        if column == "agent":
            return self.agent.lower()
        if column == "session":
            return self.title.lower()
        if column == "updated":
            return self.file.sort_time
        if column == "size":
            return self.file.size
        if column == "messages":
            return s.messages if s and s.messages is not None else -1
        if column == "context":
            value = self.context_tokens
            return value if value is not None else -1
        if column == "compactions":
            value = self.compactions
            return value if value is not None else -1
        if column == "kind":
            return self.kind
        raise KeyError(column)

    def search_text(self) -> str:
        return f"{self.agent} {self.title} {self.file.path} {self.kind}".lower()

    def cells(self, now: datetime) -> dict[str, str]:
        """The text of each column (inert, one line)."""
        s = self.summary
        if s is not None and s.error:
            msgs, ctx, comp = "—", one_line(s.error, 30), ""
        else:
            msgs = f"{s.messages:,}" if s is not None and s.messages is not None else PENDING
            tokens = self.context_tokens
            ctx = compact_number(tokens) if tokens is not None else PENDING
            compactions = self.compactions
            comp = str(compactions) if compactions is not None else PENDING
        return {
            "agent": one_line(self.agent, 24),
            "session": one_line(self.title, 60),
            "updated": relative_time(self.file.sort_time, now),
            "size": human_bytes(self.file.size),
            "messages": msgs,
            "context": ctx,
            "compactions": comp,
            "kind": one_line(self.kind, 40),
        }


def _fit(text: str, width: int, right: bool) -> str:
    """`text` cut or padded to exactly `width` cells."""
    if cell_len(text) > width:
        return set_cell_size(text, width)
    pad = " " * (width - cell_len(text))
    return pad + text if right else text + pad


class SessionTable(ScrollView, can_focus=True):
    """A virtual table of `BrowserRow`s: `show()` sorts and filters, only the lines on screen are drawn."""

    DEFAULT_CSS = """
    SessionTable { height: 1fr; background: $surface; }
    SessionTable > .session-table--header { background: $panel; color: $text; text-style: bold; }
    SessionTable > .session-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground;
                                            text-style: bold; }
    SessionTable:blur > .session-table--cursor { background: $block-cursor-blurred-background;
                                                 color: $block-cursor-blurred-foreground; text-style: none; }
    SessionTable > .session-table--odd { background: $surface-lighten-1; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"session-table--header", "session-table--cursor", "session-table--odd"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False, id="session_list.cursor_up"),
        Binding("down", "cursor(1)", "Down", show=False, id="session_list.cursor_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="session_list.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="session_list.page_down"),
        Binding("home", "edge(-1)", "First", show=False, id="session_list.first"),
        Binding("end", "edge(1)", "Last", show=False, id="session_list.last"),
    ]

    class HeaderSelected(Message):
        """A column header was clicked: `column_key`."""

        def __init__(self, column_key: str) -> None:
            super().__init__()
            self.column_key = column_key

    class RowSelected(Message):
        """The highlighted row was clicked again: open it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows_shown: list[BrowserRow] = []
        self.cursor_row = 0
        self.sort_column = "updated"
        self.reverse = True
        self.now: datetime | None = None
        self._lines: dict[str, str] = {}  # path -> the row's text at `_lines_width`
        self._lines_width = -1
        self._index: dict[str, int] = {}

    # -- content ----------------------------------------------------------------------------------

    def show(self, rows: list[BrowserRow], now: datetime, sort_column: str, reverse: bool, text_filter: str) -> None:
        """Show `rows` filtered by `text_filter` and sorted by `sort_column`, keeping the cursor on the same file."""
        current = self.current_path
        needle = text_filter.lower().strip()
        shown = [r for r in rows if not needle or all(part in r.search_text() for part in needle.split())]
        shown.sort(key=lambda r: (r.sort_value(sort_column), r.key), reverse=reverse)
        self.rows_shown = shown
        self._index = {r.key: i for i, r in enumerate(shown)}
        self._lines.clear()
        self.now, self.sort_column, self.reverse = now, sort_column, reverse
        self.cursor_row = self._index.get(current, 0) if current is not None else 0
        self.cursor_row = max(0, min(self.cursor_row, len(shown) - 1))
        self._resize()
        self._keep_cursor_visible()
        self.refresh()

    def update_rows(self, rows: dict[str, BrowserRow]) -> None:
        """New figures for some rows (by path), redrawn in place without re-sorting."""
        for key, row in rows.items():
            index = self._index.get(key)
            if index is not None:
                self.rows_shown[index] = row
                self._lines.pop(key, None)
        self.refresh()

    @property
    def row_count(self) -> int:
        """Rows shown (after the filter)."""
        return len(self.rows_shown)

    @property
    def current_path(self) -> str | None:
        """Path of the highlighted row."""
        if not self.rows_shown or not 0 <= self.cursor_row < len(self.rows_shown):
            return None
        return str(self.rows_shown[self.cursor_row].file.path)

    def visible_rows(self) -> list[BrowserRow]:
        """The rows on screen now (safe to call from a worker thread: a list slice)."""
        top = int(self.scroll_offset.y)
        return self.rows_shown[top : top + max(1, self.size.height - 1)]

    def move_cursor(self, *, row: int, animate: bool = False) -> None:
        """Highlight row `row` and scroll it into view."""
        if not self.rows_shown:
            return
        self.cursor_row = max(0, min(row, len(self.rows_shown) - 1))
        self._keep_cursor_visible(animate)
        self.refresh()

    # -- layout and drawing -----------------------------------------------------------------------

    def _widths(self) -> dict[str, int]:
        fixed = sum(_WIDTHS.values()) + len(COLUMNS) - 1
        widths = dict(_WIDTHS)
        widths["session"] = max(_SESSION_MIN, self.size.width - fixed - 1)
        return widths

    def _resize(self) -> None:
        widths = self._widths()
        self.virtual_size = Size(sum(widths.values()) + len(COLUMNS), len(self.rows_shown) + 1)

    def on_resize(self) -> None:
        self._resize()

    def _line(self, cells: dict[str, str], widths: dict[str, int]) -> str:
        return " ".join(_fit(cells[key], widths[key], key in _RIGHT) for key, _ in COLUMNS) + " "

    def _header_cells(self) -> dict[str, str]:
        arrow = " ▼" if self.reverse else " ▲"
        return {key: label + (arrow if key == self.sort_column else "") for key, label in COLUMNS}

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if width != self._lines_width:
            self._lines.clear()
            self._lines_width = width
        if y == 0:
            text = self._line(self._header_cells(), self._widths())
            style = self.get_component_rich_style("session-table--header")
        else:
            index = scroll_y + y - 1
            if index >= len(self.rows_shown):
                return Strip.blank(width, self.rich_style)
            row = self.rows_shown[index]
            key = str(row.file.path)
            text = self._lines.get(key)  # type: ignore[assignment]
            if text is None:
                text = self._lines[key] = self._line(row.cells(self.now or row.file.sort_time), self._widths())
            if index == self.cursor_row:
                style = self.get_component_rich_style("session-table--cursor")
            elif index % 2:
                style = self.get_component_rich_style("session-table--odd")
            else:
                style = self.rich_style
        strip = Strip([Segment(text, style)], cell_len(text))
        return strip.crop_extend(scroll_x, scroll_x + width, style if isinstance(style, Style) else None)

    # -- keys and mouse ---------------------------------------------------------------------------

    def _keep_cursor_visible(self, animate: bool = False) -> None:
        rows_on_screen = max(1, self.size.height - 1)
        top = int(self.scroll_offset.y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=animate, immediate=True)
        elif self.cursor_row >= top + rows_on_screen:
            self.scroll_to(y=self.cursor_row - rows_on_screen + 1, animate=animate, immediate=True)

    def action_cursor(self, step: int) -> None:
        self.move_cursor(row=self.cursor_row + step)

    def action_page(self, step: int) -> None:
        self.move_cursor(row=self.cursor_row + step * max(1, self.size.height - 2))

    def action_edge(self, step: int) -> None:
        self.move_cursor(row=0 if step < 0 else len(self.rows_shown) - 1)

    def on_click(self, event: Click) -> None:
        if event.y == 0:
            x = event.x + int(self.scroll_offset.x)
            start = 0
            for key, _label in COLUMNS:
                end = start + self._widths()[key]
                if start <= x < end + 1:
                    self.post_message(self.HeaderSelected(key))
                    return
                start = end + 1
            return
        index = int(self.scroll_offset.y) + event.y - 1
        if 0 <= index < len(self.rows_shown):
            if index == self.cursor_row:
                self.post_message(self.RowSelected())
            else:
                self.move_cursor(row=index)
