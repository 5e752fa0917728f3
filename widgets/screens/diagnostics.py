"""Every diagnostic of the open session (damaged lines first), with line numbers (a store session's: the event's
seq); Enter jumps to the line."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from inspector.model import entries as m

from ..inert import make_inert

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class DiagnosticsScreen(ModalScreen[int | None]):
    """A table of diagnostics; dismisses with the chosen line number (or None)."""

    DEFAULT_CSS = """
    DiagnosticsScreen {
        align: center middle;
        & #diagnostics-box { width: 95%; height: 85%; border: heavy $warning; background: $panel; padding: 0 1; }
        & #diagnostics-title { text-style: bold; color: $text-warning; }
        & DataTable { height: 1fr; }
    }
    """

    BINDINGS = [Binding("escape,q,d", "close", "Close", id="diagnostics.close")]

    def __init__(self, diagnostics: list[m.Diagnostic], seq_of: Callable[[int | None], int | None] | None = None) -> None:
        """`seq_of`: the session is a store session's mirror; a diagnostic's line is shown as its event's seq."""
        super().__init__()
        self.diagnostics = sorted(diagnostics, key=lambda d: (SEVERITY_ORDER.get(d.severity, 3), d.line or 0))
        self.seq_of = seq_of

    def compose(self) -> ComposeResult:
        errors = sum(d.severity == "error" for d in self.diagnostics)
        with Vertical(id="diagnostics-box"):
            yield Static(Text(f"Diagnostics · {len(self.diagnostics)} ({errors} errors) · Enter: go to line · Esc: close"), id="diagnostics-title")
            yield DataTable(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("line" if self.seq_of is None else "seq", "severity", "kind", "message")
        for i, d in enumerate(self.diagnostics):
            where = d.line if self.seq_of is None else self.seq_of(d.line)
            table.add_row(
                str(where) if where is not None else "",
                Text(make_inert(d.severity)),
                Text(make_inert(d.kind)),
                Text(make_inert(d.message)),
                key=str(i),
            )
        if not self.diagnostics:
            table.add_row("", "", "", Text("No problems found."))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is None or not self.diagnostics:
            return
        d = self.diagnostics[int(event.row_key.value)]
        self.dismiss(d.line)

    def action_close(self) -> None:
        self.dismiss(None)
