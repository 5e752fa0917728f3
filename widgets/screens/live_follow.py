"""Live following of an open session: a watcher object the inspector screen owns, talking to it in messages.

`LiveFollower.poll(view)` runs `Session.refresh()` in a thread worker (only new bytes are read; a truncated or
replaced file is re-indexed by the engine; rows whose usage a Claude Code / Codex mirror revised are computed again)
and posts to its screen: `Refreshed` (a new transcript model and
figures), `Idle` (nothing new: the live text; replaces an older `Idle`), `Failed` (the file became unreadable)
and `FiguresReady` (breakdown and diagnostics of a large session, computed off the refresh path). The screen
applies them in `@on` handlers; the follower never touches a widget.

On very large sessions only the overview (header, gauge) is recomputed per refresh; the breakdown and
diagnostics (linear in the session's size) follow in the background once the writer pauses. Cache-TTL expiry
marks move with the clock: they are recomputed with the full figures and kept in between (new rows are fresh).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message
from textual.screen import Screen

from inspector.base.clock import Clock, now_ms
from inspector.figures.marks import MarkKind, cache_expiry_marks
from inspector.figures.overview import SessionFigures
from inspector.figures.session_figures import WindowOptions, session_figures
from inspector.model import entries as m
from inspector.read.store.connection import StoreError
from inspector.session.session import Session, SessionOpenError

from ..heap import freeze_long_lived
from ..transcript.estimators import breakdown_estimator
from ..transcript.model import TranscriptModel

FULL_FIGURES_BELOW = 20_000  # sessions up to this many entries get breakdown + diagnostics on every refresh
FULL_FIGURES_IDLE = 2.0  # larger ones: header and gauge on every refresh; breakdown and diagnostics in the
FULL_FIGURES_EVERY = 60.0  # background once the writer pauses for 2 s, or at least every 60 s while it streams

@dataclass(frozen=True, slots=True)
class FollowView:
    """What the screen shows now, handed to `LiveFollower.poll` (so the follower needs no access to the screen)."""

    session: Session
    model: TranscriptModel
    estimator: str
    figures: SessionFigures | None


class LiveFollower:
    """Polls a session for appended entries and posts what it found to `screen` as messages."""

    class Refreshed(Message):
        """New entries (or a re-index, `reset`): the new transcript `model` and `figures` (`full`: breakdown and
        diagnostics recomputed, not reused)."""

        def __init__(self, reset: bool, notice: str | None, model: TranscriptModel, figures: SessionFigures, full: bool) -> None:
            super().__init__()
            self.reset = reset
            self.notice = notice
            self.model = model
            self.figures = figures
            self.full = full

    class Idle(Message):
        """Nothing was appended; `live` is the header's live text, `notice` a problem to show (or None)."""

        def __init__(self, notice: str | None, live: str) -> None:
            super().__init__()
            self.notice = notice
            self.live = live

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, LiveFollower.Idle)

    class Failed(Message):
        """The file could not be read any more (`reason`, one line)."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class FiguresReady(Message):
        """Breakdown and diagnostics of `ctx` computed in the background (large sessions)."""

        def __init__(self, ctx: m.SessionContext, figures: SessionFigures) -> None:
            super().__init__()
            self.ctx = ctx
            self.figures = figures

    def __init__(
        self,
        screen: Screen,
        window_options: Callable[[], WindowOptions],
        clock: Clock,
        live_text: Callable[[Session], str],
        sync: Callable[[], str | None] | None = None,
    ) -> None:
        """`window_options` and `live_text` are read when a refresh runs (the config loads after the screen mounts).
        `sync`: run before each refresh (a store session's mirror brought up to date); its notice, when the refresh
        re-reads, says why."""
        self.sync = sync
        self.screen = screen
        self.window_options = window_options
        self.clock = clock
        self.live_text = live_text
        self.refreshing = False
        self.full_figures_at = 0.0
        self.last_append_at = 0.0

    def opened(self) -> None:
        """The session's first full figures were just shown."""
        self.full_figures_at = time.monotonic()

    def poll(self, view: FollowView) -> None:
        """Read what was appended (thread worker); ignored while the previous poll is still being applied."""
        if self.refreshing:
            return
        self.refreshing = True
        small = len(view.session.entries) <= FULL_FIGURES_BELOW
        self.screen.run_worker(
            lambda: self._refresh(view, None if small else view.figures),
            thread=True,
            group="refresh",
            description="refresh",
        )

    def _refresh(self, view: FollowView, previous: SessionFigures | None) -> None:
        session, old_model = view.session, view.model
        try:
            why = self.sync() if self.sync is not None else None
            result = session.refresh()
        except (OSError, SessionOpenError, StoreError) as exc:
            self.screen.post_message(self.Failed(str(exc)))
            return
        if result.reset and why:
            result.notice = why
        if not result.new_entries and not result.reset and not result.revised:
            self.screen.post_message(self.Idle(result.notice, self.live_text(session)))
            return
        ctx = session.context()  # cheap when the engine could extend the old context
        if result.reset or not ctx.continues(old_model.ctx, result.revised):
            previous = None
        model = TranscriptModel(
            session, ctx, show_off_path=old_model.show_off_path, previous=None if result.reset else old_model, revised=result.revised
        )
        if old_model.filter_roles or old_model.filter_tools:
            model.set_filters(old_model.filter_roles, old_model.filter_tools)
        model.prepare(view.estimator)
        window_options = self.window_options()
        model.marks = old_model.marks
        if previous is None:
            model.set_marks(MarkKind.CACHE_EXPIRED, cache_expiry_marks(session, ctx, window_options.config, now_ms(self.clock)))
        figures = session_figures(session, ctx, window_options, breakdown_estimator(view.estimator)[0], previous=previous)
        if result.reset:
            freeze_long_lived()
        self.screen.post_message(self.Refreshed(result.reset, result.notice, model, figures, previous is None))

    def applied(self, message: Refreshed | Idle | Failed) -> None:
        """The screen applied a poll's result: the next poll may run."""
        self.refreshing = False
        if isinstance(message, LiveFollower.Refreshed):
            if message.full:
                self.full_figures_at = time.monotonic()
            else:
                self.last_append_at = time.monotonic()

    def maybe_full_figures(self, session: Session, ctx: m.SessionContext, estimator: str) -> None:
        """After an idle poll: recompute breakdown and diagnostics once the writer paused (or every 60 s)."""
        now = time.monotonic()
        stale = self.last_append_at > self.full_figures_at
        if stale and (now - self.last_append_at >= FULL_FIGURES_IDLE or now - self.full_figures_at >= FULL_FIGURES_EVERY):
            self.full_figures_at = now
            self.screen.run_worker(
                lambda: self._full_figures(session, ctx, estimator),
                thread=True,
                exclusive=True,
                group="figures",
                description="figures",
            )

    def _full_figures(self, session: Session, ctx: m.SessionContext, estimator: str) -> None:
        figures = session_figures(session, ctx, self.window_options(), breakdown_estimator(estimator)[0])
        self.screen.post_message(self.FiguresReady(ctx, figures))
