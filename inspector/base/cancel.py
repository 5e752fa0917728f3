"""Cooperative cancellation and progress of long engine work (the compaction forecast, an estimator's sizes).

    with cancellable(worker.cancelled_event.is_set, progress=post):   # in the UI's thread worker
        plan = plan_compaction(session, ctx, options)                  # raises `Cancelled` at its next checkpoint

The engine's long loops call `checkpoint()` (or iterate through `checked(items)`): outside a `cancellable` block it
costs a context-variable read and does nothing; inside, it raises `Cancelled` once the flag is up, so the work and
its thread end within one step of a loop. `progress(stage, done, total)` hands the block's `progress` callback
what the work is doing (throttled to one call per `PROGRESS_EVERY` seconds per stage). Nothing here knows Textual:
the flag is any callable, the callback any function (the UI's posts a message).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
PROGRESS_EVERY = 0.1
CHECK_EVERY = 16
"""`checked` tests the flag once per this many items (a flag read costs about as much as a small loop step)."""


class Cancelled(Exception):
    """The work was cancelled: its `cancellable` block's flag went up."""


@dataclass(slots=True)
class _Scope:
    is_cancelled: Callable[[], bool]
    on_progress: Callable[[str, int, int], None] | None
    last: dict[str, float] = field(default_factory=dict)


_scope: ContextVar[_Scope | None] = ContextVar("inspector_cancel_scope", default=None)


@contextmanager
def cancellable(is_cancelled: Callable[[], bool], progress: Callable[[str, int, int], None] | None = None) -> Iterator[None]:
    """Run the block's engine work under the flag `is_cancelled` (checked by `checkpoint`), reporting `progress`
    (`(stage, done, total)`) when given. Blocks nest: the innermost one's flag and callback apply."""
    token = _scope.set(_Scope(is_cancelled, progress))
    try:
        yield
    finally:
        _scope.reset(token)


def checkpoint() -> None:
    """Raise `Cancelled` when the enclosing `cancellable` block's flag is up (nothing outside one)."""
    scope = _scope.get()
    if scope is not None and scope.is_cancelled():
        raise Cancelled


def checked(items: Iterable[T], every: int = CHECK_EVERY) -> Iterator[T]:
    """`items`, with a `checkpoint()` before the first and then every `every` items."""
    if _scope.get() is None:
        yield from items
        return
    for i, item in enumerate(items):
        if i % every == 0:
            checkpoint()
        yield item


def progress(stage: str, done: int = 0, total: int = 0) -> None:
    """Report that the work is at `stage` (`done` of `total` steps, 0 of 0: no count), and check the flag. Calls the
    block's callback at most once per `PROGRESS_EVERY` seconds per stage (always on a stage's first report)."""
    scope = _scope.get()
    if scope is None:
        return
    if scope.is_cancelled():
        raise Cancelled
    if scope.on_progress is None:
        return
    now = time.monotonic()
    last = scope.last.get(stage)
    if last is None or now - last >= PROGRESS_EVERY or done == total:
        scope.last[stage] = now
        scope.on_progress(stage, done, total)
