"""The side panel of the inspector screen (gauge, "Where it goes", "Message"): a mixin `InspectorScreen` inherits.

Beside the transcript when the terminal is wide; below 110 columns under it, shown on demand (the screen's
`-narrow` and `-side` classes; `-no-side` hides it when wide). `s` shows or hides it, Enter / `m` show the selected
message, `w` where the context goes with the keyboard in the largest messages, `a` / `r` the message's long blocks
or raw line, `z` the message full screen. The tab handler is named `on_tabbed_content_tab_activated`, Textual's
convention, so it is found on the mixin.

The host must be the inspector screen: it provides `model`, `transcript`, `maximized`, `maximize`, `minimize`, the
class methods (`has_class`, `add_class`, ...) and `query_one`.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TabbedContent

from ..breakdown import ContextBreakdown
from ..detail.detail import MessageDetail


class SidePanelViews:
    """Mixin of `InspectorScreen`: showing the side panel, its tabs and the message in it."""

    # Provided by the host screen (see the module docstring).
    model: Any
    transcript: Any
    maximized: Any
    maximize: Any
    minimize: Any
    has_class: Any
    add_class: Any
    remove_class: Any
    toggle_class: Any
    query_one: Any

    def _show_side(self) -> None:
        self.remove_class("-no-side")
        if self.has_class("-narrow"):
            self.add_class("-side")

    def action_toggle_side(self) -> None:
        """Show or hide the side panel: beside the transcript when wide, under it (with the tabs) when narrow."""
        if self.has_class("-narrow"):
            self.toggle_class("-side")
        else:
            self.toggle_class("-no-side")
        self.transcript.focus()

    def action_show_message(self) -> None:
        self._show_side()
        tabs = self.query_one("#tabs", TabbedContent)
        if tabs.active != "tab-message":
            tabs.active = "tab-message"
        else:
            self._show_detail()

    def action_show_context(self) -> None:
        """Show where the context goes, with the keyboard in the largest messages (↑↓, Enter jumps, Esc returns)."""
        self._show_side()
        self.query_one("#tabs", TabbedContent).active = "tab-context"
        self.query_one("#breakdown", ContextBreakdown).focus_largest()

    def action_detail_show_all(self) -> None:
        self.action_show_message()
        self.query_one("#detail", MessageDetail).action_show_all()

    def action_detail_raw(self) -> None:
        self.action_show_message()
        self.query_one("#detail", MessageDetail).action_toggle_raw()

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
            self.transcript.focus()
            return
        self.action_show_message()
        detail = self.query_one("#detail", MessageDetail)
        detail.focus()
        self.maximize(detail, container=False)

    def _watch_maximized(self, previously_maximized: Any, maximized: Any) -> None:
        """Textual's own watcher, restyling only what the change restyles: the screen (Textual's
        `Screen.-maximized-view`) and the two widgets' subtrees (`.-maximized`). Textual's `set_class` on the screen
        restyles every node of it, which blocked `z` for ~100 ms; no rule of this app depends on those classes
        elsewhere."""
        self.set_class(maximized is not None, "-maximized-view", update=False)
        nodes = [self]
        if previously_maximized is not None:
            previously_maximized.remove_class("-maximized", update=False)
            nodes.extend(previously_maximized.walk_children(with_self=True))
        if maximized is not None:
            maximized.add_class("-maximized", update=False)
            nodes.extend(maximized.walk_children(with_self=True))
        self.app.stylesheet.update_nodes(nodes, animate=False)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if event.pane.id == "tab-message":
            self._show_detail()

    def _show_detail(self) -> None:
        row = self.transcript.current_row
        if self.model is not None and row is not None:
            self.query_one("#detail", MessageDetail).show_row(self.model, row)
