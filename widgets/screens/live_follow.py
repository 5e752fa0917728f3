"""Live follow for the inspector screen: poll `Session.refresh()`, add appended rows, follow or count them.

A mixin of `InspectorScreen` (kept apart so each file reads in one sitting). The poll runs `Session.refresh()` in
a thread worker (only new bytes are read; a truncated or replaced file is re-indexed by the engine). New rows
extend the transcript model in place; when the cursor was on the last row the view follows, otherwise the "N new
entries" indicator counts them. On very large sessions only the header and gauge are recomputed per refresh;
the breakdown and diagnostics (linear in the session's size) follow in the background once the writer pauses.
"""

from __future__ import annotations

import time
from dataclasses import replace

from textual import work

from inspector import model as m
from inspector.session import Session, SessionOpenError

from ..heap import freeze_long_lived
from ..transcript.new_entries import NewEntriesIndicator
from ..notice_bar import NoticeBar
from ..session_figures import SessionFigures, compute_figures, expired_markers
from ..session_header import SessionHeader
from ..transcript.model import TranscriptModel

FULL_FIGURES_BELOW = 20_000  # sessions up to this many entries get breakdown + diagnostics on every refresh
FULL_FIGURES_IDLE = 2.0  # larger ones: header and gauge on every refresh; breakdown and diagnostics in the
FULL_FIGURES_EVERY = 60.0  # background once the writer pauses for 2 s, or at least every 60 s while it streams


class LiveFollow:
    """Polling and applying appended entries (mixed into `InspectorScreen`, whose state it uses)."""

    _refreshing = False
    _full_figures_at = 0.0
    _last_append_at = 0.0

    def check_for_updates(self) -> None:
        """Read what was appended to the file (also called by the poll timer)."""
        if self.session is None or self._refreshing or self.model is None:
            return
        self._refreshing = True
        model = self.model
        small = len(self.session.entries) <= FULL_FIGURES_BELOW
        self._refresh(self.session, model, self.estimator, self.show_off_path, model.filter_roles, model.filter_tools,
                      None if small else self.figures)

    @work(thread=True, group="refresh", description="refresh")
    def _refresh(self, session: Session, old_model: TranscriptModel, estimator: str, off_path: bool, roles, tools,
                 previous: SessionFigures | None) -> None:
        old_ctx = old_model.ctx
        try:
            result = session.refresh()
        except (OSError, SessionOpenError) as exc:
            self.app.call_from_thread(self._refresh_failed, str(exc))
            return
        if not result.new_entries and not result.reset:
            self.app.call_from_thread(self._refresh_idle, result.notice, self._live_text(session))
            return
        ctx = session.context()  # cheap when the engine could extend the old context
        if result.reset or not ctx.continues(old_ctx):
            previous = None
        model = TranscriptModel(session, ctx, show_off_path=off_path, previous=None if result.reset else old_model)
        if roles or tools:
            model.set_filters(roles, tools)
        model.prepare(estimator)
        # Cache-TTL expiry moves with the clock: recomputed with the full figures, kept in between (new rows are fresh).
        model.expired = old_model.expired if previous is not None else expired_markers(session, ctx, self._window_options, self.options.clock)
        figures = compute_figures(session, ctx, self._window_options, estimator, self._live_text(session), previous)
        if result.reset:
            freeze_long_lived()
        self.app.call_from_thread(self._refreshed, result.reset, result.notice, model, figures, previous is None)

    def _refresh_failed(self, reason: str) -> None:
        self._refreshing = False
        self.query_one("#notice", NoticeBar).show(reason, "error")

    def _refresh_idle(self, notice: str | None, live: str) -> None:
        self._refreshing = False
        now = time.monotonic()
        stale = self._last_append_at > self._full_figures_at
        if stale and self.session is not None and self.model is not None and (
            now - self._last_append_at >= FULL_FIGURES_IDLE or now - self._full_figures_at >= FULL_FIGURES_EVERY
        ):
            self._full_figures_at = now
            self._compute_full_figures(self.session, self.model.ctx, self.estimator)
        if notice:
            self.query_one("#notice", NoticeBar).show(notice, "error")
        header = self.query_one("#header", SessionHeader)
        if header.data is not None and header.data.live != live:
            header.data = replace(header.data, live=live)

    def _refreshed(self, reset: bool, notice: str | None, model: TranscriptModel, figures: SessionFigures, full: bool) -> None:
        self._refreshing = False
        if full:
            self._full_figures_at = time.monotonic()
        else:
            self._last_append_at = time.monotonic()
        transcript = self.transcript
        old = self.model
        following = transcript.at_bottom
        old_len = len(old) if old is not None else 0
        self.model = model
        self._biggest = None
        if reset:
            transcript.set_model(model, cursor=len(model) - 1 if following else min(transcript.cursor, len(model) - 1))
            self.query_one("#notice", NoticeBar).show(notice or "file changed on disk; re-indexed", "info")
            self.notify(notice or "re-indexed", title="Session file replaced", markup=False)
        elif old is not None and (old.extends(model.ctx) or (old.show_off_path and model.show_off_path)):
            transcript.extend_model(model)
        else:
            transcript.set_model(model, keep_cursor_row=transcript.current_row)
        added = len(model) - old_len
        indicator = self.query_one("#new-entries", NewEntriesIndicator)
        if following:
            transcript.action_last()
            indicator.count = 0
        elif added > 0 and not reset:
            indicator.count += added
        self._apply_figures(figures)

    @work(thread=True, exclusive=True, group="figures", description="figures")
    def _compute_full_figures(self, session: Session, ctx: m.SessionContext, estimator: str) -> None:
        """Breakdown and diagnostics of a large live session, off the refresh path (they are linear in its size)."""
        figures = compute_figures(session, ctx, self._window_options, estimator, self._live_text(session))
        self.app.call_from_thread(self._full_figures_ready, ctx, figures)

    def _full_figures_ready(self, ctx: m.SessionContext, figures: SessionFigures) -> None:
        if self.model is not None and self.model.ctx is ctx:
            self._apply_figures(figures)
