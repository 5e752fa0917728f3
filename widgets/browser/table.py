"""The session browser's table: one row per discovered file, sortable by any column, filterable by text."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

from inspector.discovery import SessionFile
from inspector.summary import SessionSummary

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
    """One file and its (possibly not yet computed) summary."""

    file: SessionFile
    summary: SessionSummary | None

    @property
    def agent(self) -> str:
        return self.file.agent_id or (self.file.cwd_slug.strip("-") if self.file.cwd_slug else self.file.source)

    @property
    def title(self) -> str:
        s = self.summary
        name = s.name if s and s.name else None
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
            return s.context_tokens if s and s.context_tokens is not None else -1
        if column == "compactions":
            return s.compactions if s and s.compactions is not None else -1
        if column == "kind":
            return self.kind
        raise KeyError(column)

    def search_text(self) -> str:
        return f"{self.agent} {self.title} {self.file.path} {self.kind}".lower()


class SessionTable(DataTable):
    """A `DataTable` of `BrowserRow`s; `show()` redraws it keeping the cursor on the same file."""

    DEFAULT_CSS = """
    SessionTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, id=id)
        self.rows_shown: list[BrowserRow] = []

    def on_mount(self) -> None:
        for key, label in COLUMNS:
            self.add_column(label, key=key)

    def show(self, rows: list[BrowserRow], now: datetime, sort_column: str, reverse: bool, text_filter: str,
             header_label: Callable[[str, str], str] | None = None) -> None:
        """Redraw with `rows` filtered by `text_filter` and sorted by `sort_column`."""
        current = self.current_path
        needle = text_filter.lower().strip()
        shown = [r for r in rows if not needle or all(part in r.search_text() for part in needle.split())]
        shown.sort(key=lambda r: (r.sort_value(sort_column), str(r.file.path)), reverse=reverse)
        self.rows_shown = shown
        self.clear()
        for r in shown:
            s = r.summary
            if s is None:
                msgs = ctx = comp = Text("…")
            elif s.error:
                msgs, ctx, comp = Text("—"), Text(one_line(s.error, 30)), Text("")
            else:
                msgs, ctx, comp = Text(f"{s.messages:,}"), Text(compact_number(s.context_tokens)), Text(str(s.compactions))
            for t, justify in ((msgs, "right"), (comp, "right")):
                t.justify = justify  # type: ignore[assignment]
            ctx.justify = "right"
            self.add_row(
                Text(one_line(r.agent, 24)),
                Text(one_line(r.title, 60)),
                Text(relative_time(r.file.sort_time, now)),
                Text(human_bytes(r.file.size), justify="right"),
                msgs,
                ctx,
                comp,
                Text(one_line(r.kind, 40)),
                key=str(r.file.path),
            )
        for key, label in COLUMNS:
            column = self.columns.get(key)  # type: ignore[call-overload]
            if column is not None:
                arrow = (" ▼" if reverse else " ▲") if key == sort_column else ""
                column.label = Text(label + arrow)
        if current is not None:
            for i, r in enumerate(shown):
                if str(r.file.path) == current:
                    self.move_cursor(row=i, animate=False)
                    break

    @property
    def current_path(self) -> str | None:
        """Path of the highlighted row."""
        if not self.rows_shown or self.cursor_row >= len(self.rows_shown) or self.cursor_row < 0:
            return None
        return str(self.rows_shown[self.cursor_row].file.path)
