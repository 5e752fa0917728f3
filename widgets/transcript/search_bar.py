"""The search input (`/`): Enter searches forward from the cursor, Escape closes it."""

from __future__ import annotations

from textual import on
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class SearchBar(Input):
    """An `Input` docked under the transcript, hidden until `/`."""

    DEFAULT_CSS = """
    SearchBar {
        dock: bottom;
        display: none;
        border: tall $accent;
        &.-shown { display: block; }
    }
    """

    BINDINGS = [Binding("escape", "close", "Close search", show=False, id="search.close")]

    class SearchRequested(Message):
        """Search for `query` (empty: clear the search)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Closed(Message):
        """The search bar was closed."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(placeholder="search messages (Enter: next match, Esc: close)", id=id)

    def open(self) -> None:
        """Show and focus the bar."""
        self.add_class("-shown")
        self.focus()

    def action_close(self) -> None:
        self.remove_class("-shown")
        self.post_message(self.Closed())

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.SearchRequested(event.value.strip()))
