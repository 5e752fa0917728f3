""""Copy as openclaw.json snippet": the exact settings previewed, copied and shown for manual copying.

The text is the session rule set's `snippet.settings_snippet(settings)` (config that release accepts). It goes to the clipboard with
`App.copy_to_clipboard` (OSC 52) and is shown in a read-only text area as well, for terminals without OSC 52.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Static, TextArea

from inspector.rules.ruleset import RuleSet, rule_set

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings

HELP = (
    "Copied to the clipboard (if your terminal supports OSC 52; otherwise select the text below). Merge it into "
    "openclaw.json: it sets agents.defaults.contextPruning to exactly the settings previewed."
)


class PruningSnippetDialog(ModalScreen[None]):
    """The `contextPruning` snippet of `settings`: full (default) or only non-default values; Esc closes."""

    DEFAULT_CSS = """
    PruningSnippetDialog {
        align: center middle;
        & #snippet-box { width: 76; max-width: 95%; height: auto; max-height: 90%; border: heavy $accent; background: $panel; padding: 0 1; }
        & #snippet-title { text-style: bold; }
        & #snippet-help { color: $text-muted; }
        & TextArea { height: 22; }
        & #snippet-buttons { height: auto; align-horizontal: right; }
    }
    """

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="snippet.close"),
        Binding("c", "copy", "Copy again", id="snippet.copy"),
        Binding("n", "toggle_minimal", "Non-default only", id="snippet.non_default_only"),
    ]

    def __init__(self, settings: ContextPruningSettings, rules: RuleSet | None = None) -> None:
        """`settings` as the snippet of the session's rule set `rules` (the config its OpenClaw accepts)."""
        super().__init__()
        self.settings = settings
        self.snippet = (rules if rules is not None else rule_set()).snippet
        self.text = self.snippet.settings_snippet(settings)

    def compose(self) -> ComposeResult:
        with Vertical(id="snippet-box"):
            yield Static(Text("openclaw.json snippet"), id="snippet-title")
            yield Static(Text(HELP), id="snippet-help")
            yield Checkbox("only values that differ from OpenClaw's defaults (n)", False, id="snippet-minimal", compact=True)
            yield TextArea(self.text, read_only=True, show_line_numbers=False, id="snippet-text")
            with Horizontal(id="snippet-buttons"):
                yield Button("Copy again (c)", id="snippet-copy", compact=True)
                yield Button("Close (Esc)", id="snippet-close", compact=True)

    def on_mount(self) -> None:
        self._copy()
        self.query_one("#snippet-copy", Button).focus()

    def _copy(self) -> bool:
        try:
            self.app.copy_to_clipboard(self.text)
        except UnicodeEncodeError:  # a lone surrogate in the placeholder: OSC 52 needs UTF-8
            self.notify("Cannot copy this text to the clipboard; select it below.", severity="warning")
            return False
        return True

    @on(Checkbox.Changed, "#snippet-minimal")
    def _minimal_changed(self, event: Checkbox.Changed) -> None:
        self.text = self.snippet.settings_snippet(self.settings, minimal=event.value)
        self.query_one("#snippet-text", TextArea).load_text(self.text)
        self._copy()

    @on(Button.Pressed, "#snippet-copy")
    def action_copy(self) -> None:
        """Copy the snippet again."""
        if self._copy():
            self.notify("openclaw.json snippet copied", timeout=2)

    @on(Button.Pressed, "#snippet-close")
    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)

    def action_toggle_minimal(self) -> None:
        """Switch between every value and only the non-default ones."""
        box = self.query_one("#snippet-minimal", Checkbox)
        box.value = not box.value
