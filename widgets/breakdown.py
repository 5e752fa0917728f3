"""Where the context goes: totals by tool and by role, and the largest messages with jump-to.

The figures are an `inspector.figures.breakdown.Breakdown` (`context_breakdown(session, ctx, estimator, top)`, the object
`stats --json` prints as `context.breakdown`); this widget only lays it out. Choosing one of the largest messages
asks the screen to move the transcript there. Above the tables, what the transcript does not show (derived, from
the timeline: `widgets.diagnosis.overhead_panel`) is its own share.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from inspector.figures.breakdown import Breakdown
from inspector.figures.diagnosis.timeline import Timeline

from .diagnosis.overhead_panel import OverheadPanel
from .inert import one_line
from .transcript.previews import compact_number, role_icon

SHARE_CELLS = 8


def share_bar(share: float, cells: int = SHARE_CELLS) -> str:
    """A bar of `cells` cells for a share in [0, 1]."""
    filled = round(max(0.0, min(1.0, share)) * cells)
    if share > 0 and filled == 0:
        filled = 1
    return "█" * filled + "·" * (cells - filled)


class ContextBreakdown(VerticalScroll):
    """Tables by tool and by role, then an `OptionList` of the largest messages (Enter jumps there)."""

    DEFAULT_CSS = """
    ContextBreakdown {
        padding: 0 1;
        & > #breakdown-tables { height: auto; }
        & > #breakdown-largest { height: auto; max-height: 14; border: none; padding: 0; background: transparent; }
        & > .breakdown-title { color: $text-accent; text-style: bold; margin-top: 1; }
    }
    """

    class JumpRequested(Message):
        """The user chose one of the largest messages: move to context message `context_index`."""

        def __init__(self, context_index: int) -> None:
            super().__init__()
            self.context_index = context_index

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.data: Breakdown | None = None
        self.unit = "tok"

    def compose(self) -> ComposeResult:
        yield OverheadPanel(id="breakdown-overhead")
        yield Static("", id="breakdown-tables")
        yield Static("Largest messages (w or Tab, ↑↓, Enter to jump)", classes="breakdown-title")
        yield OptionList(id="breakdown-largest")

    def show(self, data: Breakdown, unit: str, note: str | None = None) -> None:
        """Show a `context_breakdown` result; `unit` labels the sizes, `note` explains a substituted estimator."""
        self.data = data
        self.unit = unit
        total = data.total
        grid = Table.grid(padding=(0, 1))
        grid.add_column()
        title = Text(f"By tool · {data.estimator.field} · total {total:,} {unit}", style="bold")
        parts: list[Any] = [title]
        if note:
            parts.append(Text(note, style="italic"))
        tools = Table(box=None, padding=(0, 1), show_edge=False, expand=False, header_style="bold")
        tools.add_column("tool", no_wrap=True, max_width=16, overflow="ellipsis")
        tools.add_column("calls", justify="right")
        tools.add_column(unit, justify="right", no_wrap=True)
        tools.add_column("share", no_wrap=True)
        for t in data.by_tool:
            tools.add_row(
                Text(one_line(t.name, 16)), str(t.calls or t.results), compact_number(t.size),
                Text(f"{share_bar(t.share)} {t.share * 100:4.1f}%"),
            )
        if not data.by_tool:
            tools.add_row(Text("(no tool calls)"), "", "", "")
        roles = Table(box=None, padding=(0, 1), show_edge=False, expand=False, header_style="bold")
        roles.add_column("role", no_wrap=True, max_width=16, overflow="ellipsis")
        roles.add_column("msgs", justify="right")
        roles.add_column(unit, justify="right", no_wrap=True)
        roles.add_column("share", no_wrap=True)
        for r in data.by_role:
            roles.add_row(
                Text(f"{role_icon(r.name)} {one_line(r.name, 14)}"), str(r.messages), compact_number(r.size),
                Text(f"{share_bar(r.share)} {r.share * 100:4.1f}%"),
            )
        for p in parts:
            grid.add_row(p)
        grid.add_row(tools)
        grid.add_row(Text(""))
        grid.add_row(Text("By role", style="bold"))
        grid.add_row(roles)
        self.query_one("#breakdown-tables", Static).update(grid)
        options = self.query_one("#breakdown-largest", OptionList)
        options.clear_options()
        for item in data.largest:
            label = item.tool_name or item.role
            options.add_option(
                Option(
                    Text(f"#{item.index:<6} {role_icon(item.role)} {one_line(label, 16):<16} {compact_number(item.size):>8} {unit}"),
                    id=f"ctx-{item.index}",
                )
            )

    def show_overhead(self, timeline: Timeline) -> None:
        """Show what the transcript does not show (derived from `timeline`'s calls) above the tables."""
        self.query_one("#breakdown-overhead", OverheadPanel).show(timeline)

    def focus_largest(self) -> None:
        """Put the keyboard in the largest messages (first one highlighted): ↑↓ move, Enter jumps."""
        options = self.query_one("#breakdown-largest", OptionList)
        if options.option_count and options.highlighted is None:
            options.highlighted = 0
        options.focus()
        options.scroll_visible(animate=False)

    @on(OptionList.OptionSelected, "#breakdown-largest")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id.startswith("ctx-"):
            self.post_message(self.JumpRequested(int(event.option.id[4:])))
