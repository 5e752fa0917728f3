"""The transcript's mis-estimate flags, judged in a worker for the rows it draws (`Transcript._judge`).

The judgement is the engine's (`inspector.figures.diagnosis.misestimates.row_misestimates`, the figure the timeline's
mis-estimated list holds): the tokenizer's count of the message (images at the estimator's own figure) against the
estimator's. A batch at a time, so a screen of rows costs a few tokenizer counts whatever the file's size.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from inspector.figures.diagnosis.misestimates import Misestimate, row_misestimates

from .model import TranscriptModel

FLAG_BATCH = 100


class FlagsLoaded(Message):
    """Mis-estimates of `model`'s rows under the estimator `name` (`out`: context position -> mis-estimate or None)."""

    def __init__(self, model: TranscriptModel, name: str, out: dict[int, Misestimate | None]) -> None:
        super().__init__()
        self.model = model
        self.name = name
        self.out = out


def judge_rows(model: TranscriptModel, name: str, positions: list[int], post: Callable[[Message], object],
               is_cancelled: Callable[[], bool]) -> None:
    """Judge the context messages at `positions` under `name`, posting a `FlagsLoaded` per batch of `FLAG_BATCH`."""
    for start in range(0, len(positions), FLAG_BATCH):
        if is_cancelled():
            return
        batch = positions[start : start + FLAG_BATCH]
        rows = [model.ctx.messages[pos] for pos in batch]
        try:
            found = row_misestimates(model.session, rows, name)
        except (OSError, ValueError):  # unreadable lines: no flag (the preview says why)
            found = {}
        post(FlagsLoaded(model, name, {pos: found.get(r.entry_index) for pos, r in zip(batch, rows)}))


class FlagQueue:
    """The rows waiting to be judged (`want`), and those being judged, per estimator name."""

    def __init__(self) -> None:
        self.pending: set[int] = set()
        self.judging: set[tuple[str, int]] = set()

    def want(self, name: str, pos: int) -> bool:
        """Queue row `pos` under `name` unless it is being judged; whether it was queued."""
        if (name, pos) in self.judging:
            return False
        self.pending.add(pos)
        return True

    def take(self, name: str) -> list[int]:
        """The queued rows, now being judged under `name` (sorted)."""
        todo = sorted(p for p in self.pending if (name, p) not in self.judging)
        self.pending.clear()
        self.judging.update((name, p) for p in todo)
        return todo

    def done(self, loaded: FlagsLoaded) -> None:
        """The rows `loaded` judged are no longer in flight."""
        self.judging.difference_update((loaded.name, pos) for pos in loaded.out)
