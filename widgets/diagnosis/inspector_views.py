"""The diagnosis part of the inspector screen: a mixin `InspectorScreen` inherits (kept here so the screen's own
module stays about the transcript).

It owns the screen's `DiagnosisRunner`, applies what it posts (the fill state to the header and gauge, the timeline's
not-in-transcript share to the gauge and breakdown, the timeline to an open timeline screen), opens the timeline
screen (`l`, `R`) and shows what it dismisses with: a call, a jump's cause, or each occurrence of a repeat in turn
(`n` / `N` through `step_occurrence`). Message handlers are named `on_diagnosis_runner_*`, Textual's convention,
so they are found on the mixin.

The host must be the inspector screen: it provides `session`, `model`, `figures`, `show_off_path`, `path`,
`window_options`, `opener` (its `gateway_log_source`), `_build_view` (the every-entry view, with a target entry) and `_move_to_row`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from inspector.figures.overview import SessionFigures

from ..breakdown import ContextBreakdown
from ..gauge import ContextGauge
from ..session_header import SessionHeader
from .occurrences import DiagnosisJump, Occurrences, entry_index_at_line
from .runner import TIMELINE_ESTIMATORS, DiagnosisRunner

if TYPE_CHECKING:
    from inspector.figures.diagnosis.timeline import Timeline

    from .screen import TimelineScreen


class DiagnosisViews:
    """Mixin of `InspectorScreen`: the diagnosis runner, its messages, the timeline screen and jumps from it."""

    diagnosis: DiagnosisRunner
    timeline: Timeline | None
    occurrences: Occurrences | None
    _timeline_screen: TimelineScreen | None

    # Provided by the host screen (see the module docstring).
    session: Any
    model: Any
    figures: SessionFigures | None
    show_off_path: bool
    estimator: str
    path: Any
    window_options: Any
    opener: Any
    query_one: Any
    notify: Any
    app: Any

    def init_diagnosis(self) -> None:
        """Set up the runner and the state (called from the host's `__init__`)."""
        self.diagnosis = DiagnosisRunner(self, lambda: self.window_options, self.opener.gateway_log_source, lambda: self.estimator)  # type: ignore[arg-type]
        self.timeline = None
        self.occurrences = None
        self._timeline_screen = None

    def request_diagnosis(self, figures: SessionFigures) -> None:
        """New figures are shown: ask for the fill and the timeline of the context shown."""
        if self.session is not None and self.model is not None:
            self.diagnosis.request(self.session, self.model.ctx, figures.overview)

    # -- messages from `DiagnosisRunner` -----------------------------------------------------------------

    def on_diagnosis_runner_fill_ready(self, message: DiagnosisRunner.FillReady) -> None:
        """The fill state: the header's warning and the gauge's."""
        if self.figures is None or self.figures.overview is not message.overview:
            return
        header = self.query_one("#header", SessionHeader)
        if header.data is not None:
            header.data = replace(header.data, fill=message.fill)
        self.query_one("#gauge", ContextGauge).fill_state = message.fill

    def on_diagnosis_runner_timeline_ready(self, message: DiagnosisRunner.TimelineReady) -> None:
        """The timeline: the not-in-transcript share in gauge and breakdown, and the open timeline screen."""
        self.diagnosis.applied()
        if self.model is None or message.ctx is not self.model.ctx:
            return
        self.timeline = message.timeline
        self.query_one("#gauge", ContextGauge).overhead = message.timeline.overhead
        self.query_one("#breakdown", ContextBreakdown).show_overhead(message.timeline)
        if self._timeline_screen is not None:
            self._timeline_screen.set_timeline(message.timeline)

    def on_diagnosis_runner_timeline_failed(self, message: DiagnosisRunner.TimelineFailed) -> None:
        """The timeline could not be computed: the open timeline screen says why."""
        self.diagnosis.applied()
        if self._timeline_screen is not None:
            self._timeline_screen.show_failure(message.reason)

    # -- the timeline screen and jumps from it ------------------------------------------------------------

    def action_timeline(self, focus: str = "chart") -> None:
        """Open the timeline screen (`focus` `chart` or `repeats`); what it dismisses with is shown here."""
        if self.session is None:
            return
        from .screen import TimelineScreen

        timeline = self.timeline
        wanted = TIMELINE_ESTIMATORS.get(self.estimator, "pi")
        if timeline is not None and timeline.attribution.estimator != wanted and self.model is not None:
            timeline = None  # the estimator key switched since: computed again with it
            self.diagnosis.estimator_changed(self.session, self.model.ctx)
        screen = TimelineScreen(timeline, self.path.name, focus=focus)
        self._timeline_screen = screen
        self.app.push_screen(screen, self._diagnosis_jump)
        self.diagnosis.demand()

    def _diagnosis_jump(self, jump: DiagnosisJump | None) -> None:
        self._timeline_screen = None
        if jump is None or not jump.lines:
            return
        self.occurrences = Occurrences(jump)
        self._show_occurrence(0)

    def step_occurrence(self, delta: int) -> bool:
        """`n` / `N` while a repeat's occurrences are being stepped through (False: no such stepping now)."""
        if self.occurrences is None:
            return False
        self._show_occurrence(delta)
        return True

    def _show_occurrence(self, delta: int) -> None:
        occurrences = self.occurrences
        if occurrences is None:
            return
        line = occurrences.step(delta)
        if line is not None:
            self.jump_to_line(line)
            self.notify(occurrences.describe(), timeout=4, markup=False)

    def jump_to_line(self, line: int) -> None:
        """Show the entry on physical line `line` in the transcript; one outside the context (summarized by the
        compaction in force) is shown in the every-entry view."""
        session, model = self.session, self.model
        if session is None or model is None:
            return
        entry_index = entry_index_at_line(session.entries, line)
        if entry_index is None:
            self.notify(f"line {line} holds no entry any more", severity="warning", markup=False)
            return
        row = model.row_of_entry(entry_index)
        if row is None and not self.show_off_path:
            self.show_off_path = True
            self.notify("Not in the context now (summarized by a compaction): showing every entry in file order (o: back).", markup=False)
            self._build_view(session, model, True, entry_index, self.estimator)  # type: ignore[attr-defined]
            return
        self._move_to_row(row)  # type: ignore[attr-defined]
