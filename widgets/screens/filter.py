"""Filter the transcript by role and by tool (selections apply when the screen closes)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import SelectionList, Static

from ..inert import one_line
from ..transcript.previews import role_icon


class FilterScreen(ModalScreen[tuple[list[str], list[str]] | None]):
    """Two selection lists (roles, tools). Space toggles, Enter/Esc applies, `c` clears."""

    DEFAULT_CSS = """
    FilterScreen {
        align: center middle;
        & #filter-box { width: 80; height: auto; max-height: 80%; border: heavy $accent; background: $panel; padding: 0 1; }
        & #filter-lists { height: auto; }
        & SelectionList { width: 1fr; height: auto; max-height: 20; }
        & .filter-title { text-style: bold; }
    }
    """

    BINDINGS = [
        Binding("escape", "apply", "Apply", id="filter.close"),
        Binding("enter", "apply", "Apply", priority=True, show=False, id="filter.apply"),
        Binding("c", "clear", "Clear filters", id="filter.clear"),
    ]

    def __init__(self, roles: list[str], tools: list[str], selected_roles: frozenset[str] | None, selected_tools: frozenset[str] | None) -> None:
        super().__init__()
        self.roles = roles
        self.tools = tools
        self.selected_roles = selected_roles or frozenset()
        self.selected_tools = selected_tools or frozenset()

    def compose(self) -> ComposeResult:
        with Vertical(id="filter-box"):
            yield Static("Show only… (Space: toggle · Tab: other list · Enter/Esc: apply · c: clear)", classes="filter-title")
            with Horizontal(id="filter-lists"):
                yield SelectionList[str](
                    *[(Text(f"{role_icon(r)} {one_line(r, 30)}"), r, r in self.selected_roles) for r in self.roles],
                    id="filter-roles",
                )
                yield SelectionList[str](
                    *[(Text(one_line(t, 30)), t, t in self.selected_tools) for t in self.tools],
                    id="filter-tools",
                )

    def on_mount(self) -> None:
        self.query_one("#filter-roles", SelectionList).border_title = "roles"
        self.query_one("#filter-tools", SelectionList).border_title = "tools"
        self.query_one("#filter-roles").focus()

    def action_apply(self) -> None:
        roles = list(self.query_one("#filter-roles", SelectionList).selected)
        tools = list(self.query_one("#filter-tools", SelectionList).selected)
        self.dismiss((roles, tools))

    def action_clear(self) -> None:
        self.dismiss(([], []))
