"""The diagnosis of the open session, computed in thread workers that post messages to the inspector screen.

`DiagnosisRunner.request(session, ctx, overview)` is called whenever the screen shows new figures. It posts
`FillReady` at once (the fill state: cheap, `inspector.figures.diagnosis.fill.context_fill`, so the header's over-the-window
warning never waits) and `TimelineReady` when `inspector.figures.diagnosis.timeline.build_timeline` is done (the chart, the
repeats, the not-in-transcript share, cost and cache), or `TimelineFailed`. One timeline is computed at a time: a
request made meanwhile is kept (the newest only) and runs when the current one ends, and no sooner than
`MIN_INTERVAL` seconds, or `BUSY_FACTOR` times the last computation's duration, after the previous one started, so
a session that is being written keeps the worker busy a fifth of the time at most.

The timeline reads every tool call and result from disk (the repeats): about 1.8 s and 40 MB for a 100 MB session.
Sessions of more than `AUTO_ENTRIES` entries get it on demand only (`demand()`, when the timeline screen opens).
The runner never touches a widget.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from inspector.base.cancel import Cancelled, cancellable
from inspector.figures.diagnosis.fill import FillState, context_fill
from inspector.figures.diagnosis.gateway import recorded_gateway_log
from inspector.figures.diagnosis.timeline import Timeline, TimelineOptions, build_timeline

TIMELINE_ESTIMATORS = {"pi": "pi", "prune": "openclaw_prune", "tiktoken": "tiktoken", "usage": "pi"}
"""The transcript's estimator keys -> the timeline's estimator (recorded usage has no per-message figure: pi's)."""
from inspector.figures.overview import ContextOverview
from inspector.figures.rules_of import rules_of
from inspector.figures.session_figures import WindowOptions
from inspector.model import entries as m
from inspector.session.session import Session, SessionOpenError

MIN_INTERVAL = 1.0
BUSY_FACTOR = 5.0
AUTO_ENTRIES = 50_000


class DiagnosisRunner:
    """Computes the fill state and the timeline of the screen's session in thread workers."""

    class FillReady(Message):
        """The fill state of the context whose overview is `overview` (a newer one replaces an older one queued)."""

        def __init__(self, overview: ContextOverview, fill: FillState) -> None:
            super().__init__()
            self.overview = overview
            self.fill = fill

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, DiagnosisRunner.FillReady)

    class TimelineReady(Message):
        """The timeline of `ctx` (the context's active path)."""

        def __init__(self, ctx: m.SessionContext, timeline: Timeline) -> None:
            super().__init__()
            self.ctx = ctx
            self.timeline = timeline

    class TimelineFailed(Message):
        """The timeline of `ctx` could not be computed (`reason`, one line: the file became unreadable)."""

        def __init__(self, ctx: m.SessionContext, reason: str) -> None:
            super().__init__()
            self.ctx = ctx
            self.reason = reason

    def __init__(
        self, screen: Screen, window_options: Callable[[], WindowOptions],
        gateway_log_source: Callable[[], tuple[Path | None, str | None]] | None = None,
        estimator: Callable[[], str] | None = None,
    ) -> None:
        """`window_options` is read when a computation starts (the config loads after the screen mounts), and so is
        `gateway_log_source`: the Gateway log named (`--gateway-log`, None: the config's or the default place) and
        the session's key (a store session's; None: `sessions.json`'s)."""
        self.screen = screen
        self.window_options = window_options
        self.gateway_log_source = gateway_log_source or (lambda: (None, None))
        self.estimator = estimator or (lambda: "pi")
        """The transcript's estimator key (`pi`, `prune`, `tiktoken`, `usage`): the timeline's follows it."""
        self.running = False
        self.started_at = 0.0
        self.last_duration = 0.0
        self.pending: tuple[Session, m.SessionContext] | None = None
        self.requested_ctx: m.SessionContext | None = None
        self.demanded = False

    def request(self, session: Session, ctx: m.SessionContext, overview: ContextOverview) -> None:
        """New figures are shown for `ctx`: compute its fill now and its timeline when the runner is free."""
        options = self.window_options()
        rules = rules_of(session)
        self.screen.run_worker(
            lambda: self.screen.post_message(
                self.FillReady(overview, context_fill(
                    overview.usage.tokens, overview.window.tokens, overview.guard.level, options.config, rules,
                    basis=overview.usage.basis, agent=options.agent,
                ))
            ),
            thread=True,
            exclusive=True,
            group="diagnosis-fill",
            description="fill",
        )
        if ctx is self.requested_ctx:
            return
        self.requested_ctx = ctx
        self.pending = (session, ctx)
        self._start_pending()

    @staticmethod
    def on_demand_only(session: Session) -> bool:
        """Whether `session` is too large for a timeline computed without being asked for."""
        return len(session.entries) > AUTO_ENTRIES

    def estimator_changed(self, session: Session, ctx: m.SessionContext) -> None:
        """The estimator key switched: compute the timeline of `ctx` again with it."""
        self.requested_ctx = ctx
        self.pending = (session, ctx)
        self._start_pending()

    def demand(self) -> None:
        """The user asked for the timeline: compute it now (and on later changes) even for a large session."""
        self.demanded = True
        self._start_pending()

    def _start_pending(self) -> None:
        if self.running or self.pending is None:
            return
        if not self.demanded and self.on_demand_only(self.pending[0]):
            return
        wait = self.started_at + max(MIN_INTERVAL, BUSY_FACTOR * self.last_duration) - time.monotonic()
        session, ctx = self.pending
        self.pending = None
        self.running = True
        options = TimelineOptions(window=self.window_options(), estimator=TIMELINE_ESTIMATORS.get(self.estimator(), "pi"))
        log = self.gateway_log_source()
        self.screen.run_worker(lambda: self._timeline(session, ctx, options, wait, log), thread=True, group="diagnosis", description="timeline")

    def _timeline(self, session: Session, ctx: m.SessionContext, options: TimelineOptions, wait: float,
                  log: tuple[Path | None, str | None] = (None, None)) -> None:
        cancelled = get_current_worker().cancelled_event
        # The wait is in the worker, so that "no worker running" still means "the timeline is current"; the worker
        # is cancelled when its screen goes or the app quits, and then ends within a step of the engine's loops.
        if wait > 0 and cancelled.wait(wait):
            self.running = False
            return
        self.started_at = time.monotonic()
        explicit, session_key = log
        try:
            with cancellable(cancelled.is_set):
                gateway = recorded_gateway_log(session, options.window.config, session_key, explicit)
                timeline = build_timeline(session, ctx, options if gateway is None else replace(options, gateway=gateway))
        except Cancelled:
            self.running = False
            return
        except (OSError, SessionOpenError) as exc:
            self.screen.post_message(self.TimelineFailed(ctx, f"timeline: {exc}"))
            return
        finally:
            self.last_duration = time.monotonic() - self.started_at
        self.screen.post_message(self.TimelineReady(ctx, timeline))

    def applied(self) -> None:
        """The screen applied a `TimelineReady` / `TimelineFailed`: the next request may run."""
        self.running = False
        self._start_pending()
