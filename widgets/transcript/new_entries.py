"""The "N new entries" indicator shown when entries arrive while the reader is not at the bottom."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


class NewEntriesIndicator(Widget):
    """Counts rows that arrived below the view; clicking it (or End) jumps to them."""

    DEFAULT_CSS = """
    NewEntriesIndicator {
        dock: bottom;
        height: 1;
        width: auto;
        padding: 0 2;
        margin: 0 0 0 2;
        background: $accent;
        color: $text;
        text-style: bold;
        display: none;
        &.-shown { display: block; }
    }
    """

    count: reactive[int] = reactive(0)
    """New rows not seen yet (0 hides the indicator)."""

    class Clicked(Message):
        """The indicator was clicked: jump to the newest row."""

    def watch_count(self, count: int) -> None:
        self.set_class(count > 0, "-shown")

    def render(self) -> Text:
        noun = "entry" if self.count == 1 else "entries"
        return Text(f"▼ {self.count:,} new {noun} · End to follow")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked())
