"""An estimator's sizes and breakdown, made in the inspector screen's thread worker and cancellable.

`prepared_estimator(session, model, estimator, top, is_cancelled)` computes what switching the transcript to
`estimator` needs (`TranscriptModel.prepare`, the breakdown's top rows) under the worker's cancel flag
(`inspector.base.cancel`): a newer switch or leaving the screen ends it at the engine's next checkpoint, and it
returns None instead of the `EstimatorReady` message to post.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from inspector.base.cancel import Cancelled, cancellable, checkpoint
from inspector.figures.breakdown import Breakdown, context_breakdown
from inspector.session.session import Session

from .estimators import breakdown_estimator
from .model import TranscriptModel


class EstimatorReady(Message):
    """Sizes and the breakdown under `estimator` are computed for `model`."""

    def __init__(self, model: TranscriptModel, estimator: str, breakdown: Breakdown, note: str | None) -> None:
        super().__init__()
        self.model = model
        self.estimator = estimator
        self.breakdown = breakdown
        self.note = note


def prepared_estimator(session: Session, model: TranscriptModel, estimator: str, top: int,
                       is_cancelled: Callable[[], bool]) -> EstimatorReady | None:
    """The message saying `model` is ready under `estimator` (its `top` largest in the breakdown); None when
    `is_cancelled` went up meanwhile."""
    try:
        with cancellable(is_cancelled):
            model.prepare(estimator)
            checkpoint()
            name, note = breakdown_estimator(estimator)
            breakdown = context_breakdown(session, model.ctx, name, top=top)
            checkpoint()
    except Cancelled:
        return None
    return EstimatorReady(model, estimator, breakdown, note)
