"""The compaction part of the inspector screen: a mixin `InspectorScreen` inherits (as `DiagnosisViews` is).

`C` opens the compaction forecast (`CompactionView`) in place of the side panel's tabs and draws its plan on the
transcript as row marks; again `C`, Esc (the screen's `action_back`) or the view's own Esc close it and take the
marks away. A live append hands the view the new context (`forecast_follow`). `X` opens the compaction run (a
SQLite-store session's through the Gateway).
Message handlers are named `on_compaction_view_*`, Textual's convention, so they are found on the mixin.

The host must be the inspector screen: it provides `session`, `model`, `path`, `window_options`, `options`,
`transcript`, `query`, `query_one`, `check_for_updates`.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TabbedContent

from .view import CompactionView, apply_forecast_marks, clear_forecast_marks


class CompactionViews:
    """Mixin of `InspectorScreen`: the compaction forecast beside the transcript, and the compaction run."""

    # Provided by the host screen (see the module docstring).
    session: Any
    model: Any
    path: Any
    options: Any
    window_options: Any
    opener: Any
    transcript: Any
    query: Any
    query_one: Any
    check_for_updates: Any

    def not_for_foreign(self, what: str) -> bool:
        """On a Claude Code / Codex session: say plainly that `what` (an OpenClaw feature) does not apply, and True."""
        foreign = self.opener.foreign
        if foreign is None:
            return False
        self.notify(  # type: ignore[attr-defined]
            f"{what} does not apply to {foreign.title} sessions: it is OpenClaw's, and {foreign.title} manages its own "
            "context. This file is only read, never written.",
            title=f"{foreign.title} session", severity="information", markup=False,
        )
        return True

    def action_compaction_forecast(self) -> None:
        """Open the compaction forecast beside the transcript (again: close it)."""
        if self.session is None or self.model is None or self.not_for_foreign("OpenClaw's compaction forecast"):
            return
        if self.query(CompactionView):
            self.close_forecast()
            return
        gateway_log, session_key = self.opener.gateway_log_source()
        view = CompactionView(
            self.session, self.model.ctx, self.window_options, id="forecast", rules=self.opener.rule_choice.rules,
            gateway_log=gateway_log, session_key=session_key,
        )
        self.query_one("#tabs", TabbedContent).display = False
        self.query_one("#right").mount(view)

    def forecast_open(self) -> bool:
        """Whether the compaction forecast is shown."""
        return bool(self.query(CompactionView))

    def close_forecast(self) -> None:
        """Close the forecast: its view goes, the tabs come back, its marks leave the transcript."""
        for view in self.query(CompactionView):
            view.cancel_planning()  # at once: the removal would cancel it only once the view is gone
            view.remove()
        self.query_one("#tabs", TabbedContent).display = True
        if self.model is not None:
            clear_forecast_marks(self.model)
            self.transcript.invalidate()
        self.transcript.focus()

    def on_compaction_view_plan_ready(self, message: CompactionView.PlanReady) -> None:
        """A plan: its marks on the transcript."""
        if self.model is not None and self.query(CompactionView):
            apply_forecast_marks(self.model, message.marks)
            self.transcript.invalidate()

    def on_compaction_view_closed(self, message: CompactionView.Closed) -> None:
        """The view's own Esc."""
        self.close_forecast()

    def forecast_follow(self) -> None:
        """A live append changed the context: an open forecast plans the new one."""
        for view in self.query(CompactionView):
            if self.session is not None and self.model is not None and view.ctx is not self.model.ctx:
                view.follow(self.session, self.model.ctx)

    def action_compact(self) -> None:
        """Open the compaction run (the bundled demo and read-only files are compacted as a copy); a store session's
        goes through the Gateway (`gateway_screen`), its live follow re-reading the store after a compaction."""
        mirror = self.opener.mirror
        if mirror is not None:
            from .gateway_screen import open_gateway_compact_screen

            open_gateway_compact_screen(self, mirror, self.window_options.config, self.options.context_window,  # type: ignore[arg-type]
                                        rules_id=self.opener.rule_choice.id, inspector_options=self.options,
                                        follow=self.check_for_updates)
            return
        from .run_screen import open_compact_screen

        if self.not_for_foreign("Compacting"):
            return
        open_compact_screen(self, self.path, self.window_options.config, self.options.context_window,  # type: ignore[arg-type]
                            rules_id=self.opener.rule_choice.id, inspector_options=self.options)
