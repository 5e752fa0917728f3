"""The compaction forecast view: the plan drawn on the transcript, its stages, triggers, gauge and live settings.

    view = CompactionView(session, ctx, WindowOptions(config=config), debounce=0.25)

The view is a side panel; the plan itself is drawn on the transcript through the row-marks overlay: the view
posts `PlanReady` (the plan and its marks from `inspector.figures.forecast.marks.plan_marks`), and the screen puts the
marks on its `TranscriptModel` with `apply_forecast_marks` (`clear_forecast_marks` when the view closes). Every
plan runs in an exclusive thread worker (`inspector.figures.forecast.plan.plan_compaction`, seconds on a 100 MB
session), so the UI never waits; a newer request supersedes an older one. The settings panel re-plans as you
type (debounced); an invalid field keeps the last plan. `follow(session, ctx)` re-plans on a new context (the
screen calls it when the live file grows). Esc posts `Closed`. Nothing is ever written to the session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static
from textual.worker import get_current_worker

from inspector.base.cancel import Cancelled, cancellable
from inspector.base.textsafe import one_line
from inspector.figures.diagnosis.gateway import forecast_comparison, last_entry_ms, recorded_gateway_log
from inspector.figures.forecast.marks import FORECAST_KINDS, plan_marks
from inspector.figures.forecast.plan import CompactionPlan, PlanOptions, plan_compaction
from inspector.figures.marks import MarkKind, RowMark
from inspector.figures.session_figures import WindowOptions, window_for
from inspector.model import entries as m
from inspector.rules.ruleset import RuleSet, rule_set
from inspector.session.session import Session
from inspector.write.preflight import Check

from .plan_settings import DEFAULT_DEBOUNCE, PlanSettingsPanel, format_fractions
from .plan_text import checks_text, gateway_text, gauge_text, stages_text, status_text, triggers_text


def apply_forecast_marks(model: Any, marks: dict[MarkKind, list[RowMark]]) -> None:
    """Put a forecast's marks on a `TranscriptModel` (every forecast kind replaced)."""
    for kind in FORECAST_KINDS:
        model.set_marks(kind, marks.get(kind, []))


def clear_forecast_marks(model: Any) -> None:
    """Remove every forecast mark from a `TranscriptModel` (other kinds, such as cache expiry, stay)."""
    for kind in FORECAST_KINDS:
        model.set_marks(kind, [])


class PlanGauge(Widget):
    """The context against the window, with the reserve line (`┃`) and the early thresholds (`╎`)."""

    DEFAULT_CSS = "PlanGauge { height: 3; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.plan: CompactionPlan | None = None

    def show(self, plan: CompactionPlan) -> None:
        """Draw `plan`'s figures."""
        self.plan = plan
        self.refresh()

    def render(self) -> RenderableType:
        if self.plan is None:
            return Text("")
        return gauge_text(self.plan, self.size.width)


class CompactionView(Vertical):
    """The forecast's side panel (see the module docstring)."""

    DEFAULT_CSS = """
    CompactionView {
        height: 1fr;
        border-top: hkey $border-blurred;
        & > #plan-title { height: 1; color: $text-accent; text-style: bold; }
        & > #plan-status { height: auto; }
        & > #plan-error { height: auto; color: $text-error; display: none; }
        & > #plan-error.-shown { display: block; }
        & > #plan-details { height: 1fr; }
        & #plan-triggers { height: auto; margin-bottom: 1; }
        & #plan-stages { height: auto; }
    }
    """

    BINDINGS = [Binding("escape", "close", "Close forecast", tooltip="Leave the compaction forecast (its marks go too)", id="compaction.forecast_close")]

    class PlanReady(Message):
        """The plan of request `generation`, its row marks, and the context it was made from."""

        def __init__(self, generation: int, plan: CompactionPlan, marks: dict[MarkKind, list[RowMark]], ctx: m.SessionContext,
                     gateway: dict[str, Any] | None = None) -> None:
            super().__init__()
            self.generation = generation
            self.plan = plan
            self.marks = marks
            self.ctx = ctx
            self.gateway = gateway
            """OpenClaw's log beside the forecast (`figures.diagnosis.gateway.forecast_comparison`), None: no log."""

    class PlanProgress(Message):
        """The plan of request `generation` is at `stage` (the engine's `inspector.base.cancel.progress`)."""

        def __init__(self, generation: int, stage: str) -> None:
            super().__init__()
            self.generation = generation
            self.stage = stage

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, CompactionView.PlanProgress)

    class PlanFailed(Message):
        """The plan of request `generation` failed (`reason`, one line)."""

        def __init__(self, generation: int, reason: str) -> None:
            super().__init__()
            self.generation = generation
            self.reason = reason

    class ChecksReady(Message):
        """The summary checks of the plan of request `generation` (`inspector.write.runner.forecast_checks`)."""

        def __init__(self, generation: int, checks: list[Check]) -> None:
            super().__init__()
            self.generation = generation
            self.checks = checks

    class Closed(Message):
        """The user left the view (Esc): the screen removes it and its marks."""

    def __init__(self, session: Session, ctx: m.SessionContext, window_options: WindowOptions, *,
                 debounce: float = DEFAULT_DEBOUNCE, id: str | None = None, rules: RuleSet | None = None,
                 gateway_log: Path | None = None, session_key: str | None = None) -> None:
        """Forecast `ctx` of `session` under OpenClaw's config and window override (`window_options`), by the
        session's rule set `rules` (its settings and default thresholds; None: the default rule set). OpenClaw's
        Gateway log is set beside it: the one named (`gateway_log`, `--gateway-log`; None: the config's or the
        default place, when it recorded anything of the session), its events matched by `session_key` (a store
        session's; None: `sessions.json`'s)."""
        super().__init__(id=id)
        self.gateway_log = gateway_log
        self.session_key = session_key
        self.session = session
        self.rules = rules if rules is not None else rule_set()
        self.ctx = ctx
        self.window_options = window_options
        self.debounce = debounce
        self.edits: dict[str, Any] = {}
        self.plan: CompactionPlan | None = None
        self.errors: dict[str, str] = {}
        self._generation = 0
        self._shown_generation = 0

    def initial_fields(self) -> dict[str, str]:
        """The settings panel's starting texts: the effective settings, the window, the default thresholds."""
        config = self.window_options.config
        settings = self.rules.compaction_settings.resolve_settings(config)
        window = window_for(self.rules, self.ctx, self.window_options)
        return {
            "keepRecentTokens": str(settings.keep_recent_tokens),
            "reserveTokens": str(settings.reserve_tokens),
            "contextWindow": str(window.tokens),
            "earlyThresholds": format_fractions(self.rules.triggers.DEFAULT_EARLY_THRESHOLDS),
        }

    def compose(self) -> ComposeResult:
        yield Static(Text("Compaction forecast (read-only) · Esc"), id="plan-title")
        yield Static(Text("planning…"), id="plan-status")
        yield Static("", id="plan-error", markup=False)
        yield PlanGauge(id="plan-gauge")
        with VerticalScroll(id="plan-details"):
            yield Static(Text(""), id="plan-triggers")
            yield Static(Text(""), id="plan-stages")
            yield PlanSettingsPanel(self.initial_fields(), debounce=self.debounce, id="plan-settings")

    def on_mount(self) -> None:
        if self.app.animation_level == "none":
            for field in self.query("Input"):
                field.cursor_blink = False
        self.request_plan()

    # -- planning -------------------------------------------------------------------------------

    def plan_options(self) -> PlanOptions:
        """The options of the next plan: the config, the window override or edit, and the settings edits."""
        e = self.edits
        return PlanOptions(
            config=self.window_options.config,
            context_window=e.get("contextWindow", self.window_options.override),
            keep_recent_tokens=e.get("keepRecentTokens"),
            reserve_tokens=e.get("reserveTokens"),
            early_thresholds=e.get("earlyThresholds", self.rules.triggers.DEFAULT_EARLY_THRESHOLDS),
        )

    def follow(self, session: Session, ctx: m.SessionContext) -> None:
        """Re-plan on a new context (the live file grew or was re-indexed)."""
        self.session = session
        self.ctx = ctx
        self.request_plan()

    def request_plan(self) -> None:
        """Plan in the background (a newer request supersedes an older one)."""
        self._generation += 1
        self._compute(self._generation, self.session, self.ctx, self.plan_options())

    @work(thread=True, exclusive=True, group="compaction-plan", description="compaction forecast")
    def _compute(self, generation: int, session: Session, ctx: m.SessionContext, options: PlanOptions) -> None:
        """Plan in this thread; a newer request, Esc or the view's removal cancels the worker, and the engine's next
        checkpoint ends the planning (`inspector.base.cancel`): the thread is free at once."""
        worker = get_current_worker()

        def stage(name: str, done: int, total: int) -> None:
            self.post_message(self.PlanProgress(generation, name))

        try:
            with cancellable(worker.cancelled_event.is_set, stage):
                plan = plan_compaction(session, ctx, options, self.rules)
                marks = plan_marks(plan, ctx)
                gateway = recorded_gateway_log(session, options.config, self.session_key, self.gateway_log)
                beside = None if gateway is None else forecast_comparison(gateway, plan.triggers.to_json(), last_entry_ms(session))
        except Cancelled:
            return
        except Exception as exc:
            if not worker.is_cancelled:
                self.post_message(self.PlanFailed(generation, one_line(f"{type(exc).__name__}: {exc}", 200)))
            return
        if worker.is_cancelled:
            return
        self.post_message(self.PlanReady(generation, plan, marks, ctx, beside))
        from inspector.write.runner import forecast_checks

        try:  # after the plan is shown: the checks summarize the session (the offline rules summary)
            checks = forecast_checks(session, ctx, plan, options, self.rules)
        except Exception as exc:
            checks = [Check("checks", False, one_line(f"{type(exc).__name__}: {exc}", 200))]
        if not worker.is_cancelled:
            self.post_message(self.ChecksReady(generation, checks))

    @on(PlanReady)
    def _plan_ready(self, message: PlanReady) -> None:
        if message.generation < self._shown_generation:
            message.stop()
            return
        self._shown_generation = message.generation
        self.plan = message.plan
        self.query_one("#plan-status", Static).update(status_text(message.plan))
        self.query_one("#plan-gauge", PlanGauge).show(message.plan)
        triggers = triggers_text(message.plan, self.rules.triggers.THRESHOLD_LABEL)
        if message.gateway is not None:
            triggers = Text.assemble(triggers, "\n", gateway_text(message.gateway))
        self.query_one("#plan-triggers", Static).update(triggers)
        self.query_one("#plan-stages", Static).update(stages_text(message.plan))
        self._show_error()

    @on(PlanProgress)
    def _plan_progress(self, message: PlanProgress) -> None:
        message.stop()
        if message.generation == self._generation and self._shown_generation < message.generation and self.plan is None:
            self.query_one("#plan-status", Static).update(Text(f"planning… {message.stage} · Esc cancels"))

    def cancel_planning(self) -> None:
        """Cancel the planning under way (its thread stops at the engine's next checkpoint)."""
        self.workers.cancel_group(self, "compaction-plan")
    @on(ChecksReady)
    def _checks_ready(self, message: ChecksReady) -> None:
        message.stop()
        if message.generation != self._shown_generation or self.plan is None:
            return
        warnings = checks_text(message.checks)
        stages = stages_text(self.plan)
        self.query_one("#plan-stages", Static).update(Text.assemble(stages, "\n\n", warnings) if warnings else stages)

    @on(PlanFailed)
    def _plan_failed(self, message: PlanFailed) -> None:
        message.stop()
        if message.generation >= self._shown_generation:
            self._show_error(f"planning failed: {message.reason}")

    @on(PlanSettingsPanel.Changed)
    def _settings_changed(self, message: PlanSettingsPanel.Changed) -> None:
        message.stop()
        self.edits = message.edits
        self.errors = {}
        self._show_error()
        self.request_plan()

    @on(PlanSettingsPanel.Invalid)
    def _settings_invalid(self, message: PlanSettingsPanel.Invalid) -> None:
        message.stop()
        self.errors = message.errors
        self._show_error("invalid setting: showing the last valid plan")

    def _show_error(self, text: str | None = None) -> None:
        error = self.query_one("#plan-error", Static)
        error.update(Text(text or ""))
        error.set_class(bool(text), "-shown")

    def action_close(self) -> None:
        """Leave the view."""
        self.post_message(self.Closed())
