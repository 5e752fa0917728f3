"""Search, filter and jumps of the inspector screen: a mixin `InspectorScreen` inherits (as `DiagnosisViews` is).

`/` opens the search bar, `n` / `N` step to the next / previous match (or through a repeat's occurrences, when the
timeline handed some over), `f` opens the filter, `u` / `U`, `c`, `b` jump. The moves themselves are the screen's
`TranscriptNavigator`'s. Message handlers are named `on_search_bar_*` / `on_search_done`, Textual's convention, so
they are found on the mixin.

The host must be the inspector screen: it provides `model`, `estimator`, `search_query`, `occurrences`, `navigator`,
`transcript`, `step_occurrence` (`DiagnosisViews`), `_update_columns`, `query_one`, `app`.
"""

from __future__ import annotations

from typing import Any

from ..screens.filter import FilterScreen
from .navigation import SearchDone
from .search_bar import SearchBar


class TranscriptViews:
    """Mixin of `InspectorScreen`: the search bar and the search, the filter screen, the jumps."""

    # Provided by the host screen (see the module docstring).
    model: Any
    estimator: str
    search_query: str
    occurrences: Any
    navigator: Any
    transcript: Any
    step_occurrence: Any
    _update_columns: Any
    query_one: Any
    app: Any

    # -- search --------------------------------------------------------------------------------------------

    def action_search(self) -> None:
        self.query_one("#search", SearchBar).open()

    def on_search_bar_search_requested(self, event: SearchBar.SearchRequested) -> None:
        self.occurrences = None
        self.search_query = event.query
        self.transcript.set_search(event.query or None)
        self._update_columns()
        self.transcript.focus()
        self.query_one("#search", SearchBar).remove_class("-shown")
        if event.query:
            self._start_search(backwards=False)

    def on_search_bar_closed(self) -> None:
        self.transcript.focus()

    def action_search_next(self) -> None:
        if not self.step_occurrence(1):
            self._start_search(backwards=False)

    def action_search_previous(self) -> None:
        if not self.step_occurrence(-1):
            self._start_search(backwards=True)

    def _start_search(self, backwards: bool) -> None:
        if not self.search_query or self.model is None:
            if not self.search_query:
                self.action_search()
            return
        self.navigator.search(self.model, self.search_query, backwards)

    def on_search_done(self, message: SearchDone) -> None:
        self.navigator.search_done(message, self.model)

    # -- filter --------------------------------------------------------------------------------------------

    def action_filter(self) -> None:
        model = self.model
        if model is None:
            return

        def apply(result: tuple[list[str], list[str]] | None) -> None:
            if result is None or self.model is None:
                return
            roles, tools = result
            row = self.transcript.current_row
            self.model.set_filters(roles or None, tools or None)
            self.navigator.rows_changed()
            self.transcript.invalidate()
            if row is not None:
                self.transcript.move_to(self.model.nearest_view_index(row))
            self._update_columns()

        self.app.push_screen(FilterScreen(model.roles(), model.tools(), model.filter_roles, model.filter_tools), apply)

    # -- jumps ---------------------------------------------------------------------------------------------

    def action_next_user(self) -> None:
        if self.model is not None:
            self.navigator.jump(self.model, self.model.is_user, False, "user message")

    def action_previous_user(self) -> None:
        if self.model is not None:
            self.navigator.jump(self.model, self.model.is_user, True, "user message")

    def action_next_compaction(self) -> None:
        if self.model is not None:
            self.navigator.next_compaction(self.model)

    def action_next_biggest(self) -> None:
        if self.model is not None:
            self.navigator.next_biggest(self.model, self.estimator)
