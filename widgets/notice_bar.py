"""A one-line bar above the transcript for things the reader must know: damaged lines, a re-index, a file
that disappeared, a writer in the middle of a line. Hidden when there is nothing to say."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from .inert import one_line


class NoticeBar(Widget):
    """Shows `message` with a severity class (`-error`, `-warning`, `-info`); hidden when empty."""

    DEFAULT_CSS = """
    NoticeBar {
        height: 1;
        padding: 0 1;
        display: none;
        background: $warning-muted;
        color: $text;
        &.-shown { display: block; }
        &.-error { background: $error-muted; }
        &.-info { background: $primary-muted; }
    }
    """

    message: reactive[str] = reactive("")
    """The notice (plain text; made inert)."""

    severity: reactive[str] = reactive("warning")
    """`error`, `warning` or `info`."""

    def watch_message(self, message: str) -> None:
        self.set_class(bool(message), "-shown")

    def watch_severity(self, severity: str) -> None:
        self.set_class(severity == "error", "-error")
        self.set_class(severity == "info", "-info")

    def show(self, message: str, severity: str = "warning") -> None:
        """Show a notice."""
        self.severity = severity
        self.message = message

    def render(self) -> Text:
        return Text(one_line(self.message, max(10, self.content_region.width)), no_wrap=True)
