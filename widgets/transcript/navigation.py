"""Moving the transcript's cursor: jumps (user messages, compactions, the biggest messages) and search.

`TranscriptNavigator` is a plain object the inspector screen owns. Jumps are instant (row metadata only); a
search reads previews from disk, so it runs in a thread worker that posts `SearchDone` to the screen, which
hands it back with `search_done`. Messages that tell the user something ("not found") go through `notify`.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message
from textual.worker import get_current_worker

from ..inert import one_line
from .estimators import estimator_label
from .model import TranscriptModel
from .search import find_match
from .transcript import Transcript

Notify = Callable[..., None]


class SearchDone(Message):
    """A search of `model` for `query` ended at view position `found` (None: not found)."""

    def __init__(self, model: TranscriptModel, query: str, found: int | None) -> None:
        super().__init__()
        self.model = model
        self.query = query
        self.found = found


class TranscriptNavigator:
    """Jumps and search over the rows a `Transcript` shows."""

    def __init__(self, transcript: Callable[[], Transcript], notify: Notify) -> None:
        self._transcript = transcript
        self._notify = notify
        self._biggest: list[int] | None = None
        self._biggest_rank = -1

    @property
    def transcript(self) -> Transcript:
        return self._transcript()

    def rows_changed(self) -> None:
        """The rows or the estimator changed: the next `next_biggest` ranks again."""
        self._biggest = None

    def jump(self, model: TranscriptModel, predicate: Callable[[int], bool], backwards: bool, what: str) -> None:
        """To the next (previous) shown row matching `predicate(row)`, or say there is none."""
        found = model.find_next(self.transcript.cursor, predicate, backwards=backwards)
        if found is None:
            self._notify(f"no {what} {'before' if backwards else 'after'} this row", severity="warning", timeout=2)
        else:
            self.transcript.move_to(found)

    def next_compaction(self, model: TranscriptModel) -> None:
        """To the next compaction, wrapping around to the first."""
        found = model.find_next(self.transcript.cursor, model.is_compaction)
        if found is None:
            found = model.find_next(-1, model.is_compaction)
        if found is None:
            self._notify("no compaction in this view", severity="warning", timeout=2)
        else:
            self.transcript.move_to(found)

    def next_biggest(self, model: TranscriptModel, estimator: str) -> None:
        """To the next of the largest shown rows under `estimator` (largest first, then around again)."""
        if self._biggest is None:
            self._biggest = model.biggest(estimator)
            self._biggest_rank = -1
        if not self._biggest:
            self._notify("no sizes known under this estimator yet", severity="warning", timeout=2)
            return
        self._biggest_rank = (self._biggest_rank + 1) % len(self._biggest)
        self.transcript.move_to(self._biggest[self._biggest_rank])
        self._notify(f"#{self._biggest_rank + 1} largest ({estimator_label(estimator, model.session)})", timeout=1.5)

    def search(self, model: TranscriptModel, query: str, backwards: bool) -> None:
        """Search from the cursor in a thread worker; `SearchDone` is posted to the transcript's screen."""
        start = self.transcript.cursor
        screen = self.transcript.screen

        def run() -> None:
            worker = get_current_worker()
            found = find_match(model, start, query, backwards=backwards, cancelled=lambda: worker.is_cancelled)
            if not worker.is_cancelled:
                screen.post_message(SearchDone(model, query, found))

        screen.run_worker(run, thread=True, exclusive=True, group="search", description="search")

    def search_done(self, message: SearchDone, current: TranscriptModel | None) -> None:
        """Move to the match (if `current` is still the searched model), or say it was not found."""
        if message.model is not current:
            return
        if message.found is None:
            self._notify(f"not found: {one_line(message.query, 80)}", severity="warning", markup=False)
        else:
            self.transcript.move_to(message.found)
