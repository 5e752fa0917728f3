"""The pruning preview overlay: what OpenClaw's context pruning would cut from the next request, live as you edit.

    PruningScreen(session, config=config_dict, now_ms=1767350000000)       # or now_ms=lambda: ms, or None: the clock

It shows the cache-TTL gate (with a `force` toggle that previews as if the TTL had expired), totals and a gauge
before/after, every soft-trimmed or hard-cleared tool result with its before/after side by side, the tool-result
context guard, and a settings panel that edits every `contextPruning` setting. Every figure is
`inspector.figures.pruning.preview.build_preview`, run in an exclusive thread worker whenever the settings or `force`
change (the settings panel debounces typing); an invalid setting keeps the last valid preview on screen, and a
preview that cannot be computed (the file was deleted, ...) is said in place of every panel, never left
"computing…". `y` copies the exact settings previewed as an openclaw.json snippet. Nothing is ever written to the
session.

Two scenarios, one at a time, named in a banner and the box title so they cannot be mistaken (`scenario`): NOW,
what OpenClaw does with this file (for a session pruning never touched: nothing, the gate is closed), and, for
such a session, IF ENABLED, the projection after a first cache touch at the last assistant message (`i` switches).
Settings, force and the scenario are remembered per file while the app runs (`widgets.pruning.state`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Footer, Input, Static
from textual.worker import get_current_worker

from inspector.base.clock import SystemClock
from inspector.base.clock import now_ms as clock_now_ms
from inspector.figures.pruning.expiry import ExpiryInfo, expired_tool_results
from inspector.figures.pruning.preview import PreviewCache, PreviewOptions, PrunePreview, build_preview
from inspector.rules.pruning_terms import SCENARIO_IF_ENABLED, SCENARIO_NOW
from inspector.rules.ruleset import RuleSet, rule_set
from inspector.session.session import Session

from ..frames import FrameJobs
from ..inert import one_line
from .diff import PruningDiff
from .gate import PruningGate
from .gauge import PruningGauge, PruningGaugeData
from .guard import PruningGuard
from .messages import PruningMessageList, stage_text
from .scenario import SCENARIO_TITLES, PruningScenarioBanner, scenario_preview
from .settings import DEFAULT_DEBOUNCE, PruningSettingsPanel, edits_from_texts, fields_for
from .snippet import PruningSnippetDialog
from .state import PruningState
from .totals import PruningTotals
from .view import PreviewPanel

STYLES = Path(__file__).resolve().parents[2] / "styles" / "pruning.tcss"

NowMs = float | Callable[[], float] | None
NARROW_BELOW = 110
"""Below this many columns the overlay stacks its parts and scrolls (`styles/pruning.tcss`)."""


class PreviewReady(Message):
    """A preview of request `generation` (`complete`: with tiktoken, when asked) and the expired tool results
    under its settings (`expiry`, keyed by `Entry.index`). A newer one replaces it."""

    def __init__(self, generation: int, preview: PrunePreview, complete: bool, expiry: dict[int, ExpiryInfo] | None = None) -> None:
        super().__init__()
        self.generation = generation
        self.preview = preview
        self.complete = complete
        self.expiry = expiry or {}

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PreviewReady)


class PreviewFailed(Message):
    """The preview of request `generation` failed (`reason`, one line)."""

    def __init__(self, generation: int, reason: str) -> None:
        super().__init__()
        self.generation = generation
        self.reason = reason


class PruningScreen(ModalScreen[None]):
    """The pruning preview of one session (see the module docstring); Esc closes it."""

    CSS_PATH = str(STYLES)
    AUTO_FOCUS = ""  # none (None: the app's): the tool results get the focus once mounted (`_mount_lower`)

    BINDINGS = [
        Binding("escape", "close", "Close", id="pruning.close"),
        Binding("i", "toggle_scenario", "NOW / IF ENABLED", tooltip="Switch between what OpenClaw does now and the projection if pruning were enabled", id="pruning.scenario"),
        Binding("f", "toggle_force", "Force", tooltip="Preview as if the cache TTL had expired", id="pruning.force"),
        Binding("y", "copy_snippet", "Copy snippet", tooltip="Copy the previewed settings as an openclaw.json snippet", id="pruning.copy_snippet"),
        Binding("m", "more", "More text", tooltip="Show four times more of long text in the before/after view", id="pruning.more_text"),
        Binding("s", "focus_settings", "Settings", tooltip="Edit the settings (Tab moves between fields)", id="pruning.settings"),
    ]

    force: reactive[bool] = reactive(False, init=False)
    """Preview as if the TTL had expired (OpenClaw's gate closed or not)."""

    scenario: reactive[str] = reactive(SCENARIO_NOW, init=False)
    """The scenario on screen: `now` (what OpenClaw does) or `if_enabled` (the projection, when the preview has one)."""

    def __init__(
        self,
        session: Session,
        *,
        config: dict[str, Any] | None = None,
        now_ms: NowMs = None,
        context_window: int | None = None,
        leaf_id: str | None = None,
        encoding: str | None = "cl100k_base",
        force: bool = False,
        debounce: float = DEFAULT_DEBOUNCE,
        state: PruningState | None = None,
        rules: RuleSet | None = None,
    ) -> None:
        """Preview `session` (already opened) at leaf `leaf_id` (None: the last entry).

        `config` is the parsed openclaw.json (None or {}: OpenClaw's defaults); the settings panel starts from its
        effective `agents.defaults.contextPruning`. `now_ms` is the gate's "now" in epoch ms: a number (fixed, for
        tests and snapshots), a callable asked before each preview (e.g. an injected clock), or None for the
        system clock. `context_window` overrides the window in tokens like `--context-window`; `encoding` is the
        tiktoken encoding for the token totals (None: skip tiktoken); `debounce` is the settings panel's quiet
        time in seconds before a new preview; `force` starts with the force toggle on. `state` is what this overlay
        remembers for the file (`widgets.pruning.state.remembered_state`): it opens with its settings, force and
        scenario, and keeps it up to date (a fresh state when None). `rules` is the session's rule set (its
        settings, defaults and config edits; None: the default rule set).
        """
        super().__init__()
        self.session = session
        self.rules = rules if rules is not None else rule_set()
        self._cache = PreviewCache()  # messages and tiktoken counts shared by every preview of this session
        self.config = config if isinstance(config, dict) else {}
        self._now_ms = now_ms
        self.context_window = context_window
        self.leaf_id = leaf_id
        self.encoding = encoding
        self.debounce = debounce
        self.state = state if state is not None else PruningState(force=force)
        accepted = {f.key for f in fields_for(self.rules)}
        self.edits: dict[str, Any] = {k: v for k, v in edits_from_texts(self.state.texts).items() if k in accepted}
        self.preview: PrunePreview | None = None
        self.expiry: dict[int, ExpiryInfo] = {}
        self.failure: str | None = None
        self.errors: dict[str, str] = {}
        self.selected: int | None = None
        self._generation = 0
        self._shown_generation = 0
        self._complete = False
        self._dismissed = False
        self._lower_pending: object | None = None
        """The token of the lower panels' drawing `_draw` queued (None: drawn)."""
        self._lower_mounted = False
        """The lower panels are mounted (`_mount_lower`)."""
        self.frames = FrameJobs(self)
        """What is drawn or mounted after the first frame, one frame each: the lower panels, the settings rows, the
        panels of each preview (together, one frame held the UI thread ~100 ms on a big session)."""
        self.set_reactive(PruningScreen.force, self.state.force or force)
        self.set_reactive(PruningScreen.scenario, self.state.scenario)

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        settings = self.rules.pruning_settings.resolve_settings(self.config).settings
        with Vertical(id="pruning-box"):
            yield Static(Text(self._title()), id="pruning-title")
            yield PruningScenarioBanner(id="pruning-scenario")
            with Horizontal(id="pruning-top"):
                with Vertical(id="pruning-gate-box"):
                    yield PruningGate(id="pruning-gate")
                    yield Checkbox("force: preview as if the TTL had expired (f)", self.force, id="pruning-force", compact=True)
                with Vertical(id="pruning-summary"):
                    yield PruningGauge(id="pruning-gauge")
                    yield PruningTotals(id="pruning-totals")
            with Horizontal(id="pruning-bottom"):
                with Vertical(id="pruning-left"):
                    yield PruningSettingsPanel(settings, debounce=self.debounce, values=self.state.texts, id="pruning-settings",
                                               fields=fields_for(self.rules), later=self.frames.add)
                    yield Button("Copy as openclaw.json snippet (y)", id="pruning-copy", compact=True)
                with Vertical(id="pruning-right"):
                    yield Static("", id="pruning-status", markup=False)  # the rest: `_mount_lower`
        yield Footer()

    def _title(self, preview: PrunePreview | None = None) -> str:
        parts = ["Pruning preview", self.session.path.name]
        if preview is not None:
            model = preview.context.model or {}
            parts.append(f"{model.get('provider')}/{model.get('modelId')}" if model else "model unknown")
        parts.append("nothing is written to the session")
        return one_line(" · ".join(parts), 200)

    def on_mount(self) -> None:
        if self.app.animation_level == "none":
            for field in self.query(Input):
                field.cursor_blink = False
        self.set_class(self.app.size.width < NARROW_BELOW, "-narrow")
        self._label_scenario()
        self.request_preview()
        self.frames.add(self._mount_lower)

    async def _mount_lower(self) -> None:
        """The tool results, their before / after and the guard, mounted after the first frame (with it they held
        the UI thread ~100 ms on a big session), then drawn from the preview or the failure already there."""
        if not self._live:
            return
        messages = PruningMessageList(id="pruning-messages")
        await self.query_one("#pruning-right", Vertical).mount_all([messages, PruningDiff(id="pruning-diff"), PruningGuard(id="pruning-guard")])
        self._lower_mounted = True
        if not self._live:
            return
        if self.focused is None:
            messages.focus()
        if self.preview is None and self.failure is not None:
            self.query_one("#pruning-guard", PruningGuard).fail(self.failure)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW_BELOW, "-narrow")

    @property
    def shown(self) -> PrunePreview | None:
        """The preview of the scenario on screen (the projection when `scenario` is `if_enabled` and there is one)."""
        return scenario_preview(self.preview, self.scenario) if self.preview is not None else None

    @property
    def projection_shown(self) -> bool:
        """The IF ENABLED projection is on screen."""
        return self.preview is not None and self.scenario == SCENARIO_IF_ENABLED and self.preview.if_enabled is not None

    def _label_scenario(self) -> None:
        """The box title and the screen's class say which scenario is on screen."""
        projection = self.projection_shown
        self.set_class(projection, "-projection")
        box = self.query_one("#pruning-box", Vertical)
        box.border_title = Text(SCENARIO_TITLES[SCENARIO_IF_ENABLED if projection else SCENARIO_NOW])

    # -- computing ------------------------------------------------------------------------------

    def now_ms(self) -> float:
        """The "now" of the next preview."""
        if self._now_ms is None:
            return clock_now_ms(SystemClock())
        return self._now_ms() if callable(self._now_ms) else self._now_ms

    def preview_options(self) -> PreviewOptions:
        """The options of the next preview: the config with the panel's edits, force, now, window, leaf."""
        return PreviewOptions(
            now_ms=self.now_ms(),
            force=self.force,
            config=self.rules.snippet.with_context_pruning_edits(self.config, self.edits),
            context_window=self.context_window,
            leaf_id=self.leaf_id,
            encoding=self.encoding,
            cache=self._cache,
        )

    def request_preview(self) -> None:
        """Compute a new preview in the background (a newer request supersedes an older one)."""
        if not self._live:
            return
        self._generation += 1
        try:
            self._show_status()
        except NoMatches:  # the overlay's widgets are being removed (Esc): nothing to compute for
            return
        self._compute(self._generation, self.preview_options())

    @work(thread=True, exclusive=True, group="pruning-preview", description="pruning preview")
    def _compute(self, generation: int, options: PreviewOptions) -> None:
        """Build the preview; with tiktoken, first without it (fast), then with it (slow on big sessions)."""
        worker = get_current_worker()
        phases = [replace(options, encoding=None), options] if options.encoding else [options]
        for k, phase in enumerate(phases):
            if worker.is_cancelled:
                return
            try:
                preview = build_preview(self.session, phase, rules=self.rules)
                expiry = expired_tool_results(self.session, preview.context, preview.resolved.settings, preview.gate.now)
            except Exception as exc:
                self.post_message(PreviewFailed(generation, describe_failure(exc)))
                return
            if worker.is_cancelled:
                return
            self.post_message(PreviewReady(generation, preview, k == len(phases) - 1, expiry))

    @property
    def _live(self) -> bool:
        """Still on screen: results that arrive after Esc (the screen and its widgets being removed) are dropped."""
        return self.is_attached and not self._dismissed

    @on(PreviewFailed)
    def _failed(self, message: PreviewFailed) -> None:
        generation, reason = message.generation, message.reason
        if generation != self._generation or not self._live:
            return
        self._shown_generation = generation
        self._complete = True
        self.failure = reason
        try:
            for panel in self.query(PreviewPanel):  # banner, gate, totals, guard
                panel.fail(reason)
            self.query_one("#pruning-gauge", PruningGauge).unavailable = True
            self.set_class(True, "-failed")
            self._show_status()
        except NoMatches:  # removed while the message was on its way
            return

    @on(PreviewReady)
    def _ready(self, message: PreviewReady) -> None:
        generation, preview, complete = message.generation, message.preview, message.complete
        if generation != self._generation or (generation == self._shown_generation and self._complete) or not self._live:
            return
        self.preview = preview
        self.expiry = message.expiry
        self.failure = None
        self._shown_generation = generation
        self._complete = complete
        self.set_class(False, "-failed")
        self.frames.add(self._draw_shown)

    def _draw_shown(self) -> None:
        """`_draw` unless the overlay is closing or a failure came since."""
        if self._live and self.failure is None:
            try:
                self._draw()
            except NoMatches:  # removed while the job was on its way
                return

    def _draw(self) -> None:
        """Every panel from the preview of the scenario on screen: the top ones now, the tool results, their
        before / after and the guard after the next frame (`_draw_lower`; in one frame they held the UI thread
        ~100 ms on a big session)."""
        main, shown = self.preview, self.shown
        if main is None or shown is None:
            return
        self._label_scenario()
        self.query_one("#pruning-title", Static).update(Text(self._title(main)))
        self.query_one("#pruning-scenario", PruningScenarioBanner).show_scenario(main, self.scenario)
        self.query_one("#pruning-gate", PruningGate).show(shown)
        gauge = self.query_one("#pruning-gauge", PruningGauge)
        gauge.unavailable = False
        gauge.data = PruningGaugeData.of(shown)
        self.query_one("#pruning-totals", PruningTotals).show(shown)
        token = self._lower_pending = object()
        self.frames.add(lambda: self._draw_lower(token))

    def _draw_lower(self, token: object) -> None:
        """The lower panels of the preview `_draw` showed (unless a newer `_draw` came since)."""
        shown = self.shown
        if token is not self._lower_pending or not self._live or shown is None:
            return
        self._lower_pending = None
        if not self._lower_mounted:
            return  # `_mount_lower` draws them
        try:
            self.query_one("#pruning-guard", PruningGuard).show(shown)
            self.selected = self.query_one("#pruning-messages", PruningMessageList).show(shown, self.expiry, keep=self.selected)
            self.query_one("#pruning-diff", PruningDiff).show(shown, self.selected)
            self._show_status()
        except NoMatches:  # removed while the callback was on its way
            return

    @property
    def up_to_date(self) -> bool:
        """The preview on screen is the complete result of the latest request, every panel drawn."""
        return (self.preview is not None and self._shown_generation == self._generation and self._complete
                and self._lower_mounted and self._lower_pending is None and not self.frames.pending)

    def _show_status(self) -> None:
        status = self.query_one("#pruning-status", Static)
        busy = self._shown_generation != self._generation
        counting = not busy and not self._complete
        shown = self.shown
        self.set_class(bool(self.errors), "-invalid")
        if self.errors:
            fields = "; ".join(f"{k}: {v}" for k, v in self.errors.items())
            status.update(Text(one_line(f"Invalid setting ({fields}): showing the last valid preview.", 300)))
        elif self.failure is not None and not busy:
            kept = " (the last preview is kept on screen)" if shown is not None else ""
            status.update(Text(one_line(f"Preview failed: {self.failure}{kept}", 300)))
        elif shown is None:
            status.update(Text("computing the preview…"))
        else:
            status.update(Text(stage_text(shown) + (" (updating…)" if busy else " (counting tiktoken…)" if counting else "")))

    # -- events ---------------------------------------------------------------------------------

    @on(PruningSettingsPanel.Changed)
    def _settings_changed(self, event: PruningSettingsPanel.Changed) -> None:
        self.errors = {}
        self.state.texts = self.query_one("#pruning-settings", PruningSettingsPanel).edited_texts()
        if event.edits == self.edits:
            self._show_status()
            return
        self.edits = event.edits
        self.request_preview()

    @on(PruningSettingsPanel.Invalid)
    def _settings_invalid(self, event: PruningSettingsPanel.Invalid) -> None:
        self.errors = event.errors
        self._show_status()

    @on(PruningMessageList.Chosen)
    def _message_chosen(self, event: PruningMessageList.Chosen) -> None:
        if self.preview is None or event.index == self.selected:
            return
        self.selected = event.index
        self.query_one("#pruning-diff", PruningDiff).show(self.preview, event.index)

    @on(Checkbox.Changed, "#pruning-force")
    def _force_box(self, event: Checkbox.Changed) -> None:
        self.force = event.value

    @on(Button.Pressed, "#pruning-copy")
    def _copy_pressed(self) -> None:
        self.action_copy_snippet()

    def watch_force(self, force: bool) -> None:
        self.state.force = force
        if not self._live:
            return
        try:
            box = self.query_one("#pruning-force", Checkbox)
        except NoMatches:  # `f` while Esc removes the overlay's widgets
            return
        if box.value != force:
            box.value = force
        self.request_preview()

    def watch_scenario(self, scenario: str) -> None:
        self.state.scenario = scenario
        if self._live and self.preview is not None:
            try:
                self._draw()
            except NoMatches:
                return

    # -- actions --------------------------------------------------------------------------------

    def action_toggle_force(self) -> None:
        """Preview as if the TTL had expired (or back to the real gate)."""
        if not self._dismissed:
            self.force = not self.force

    def action_toggle_scenario(self) -> None:
        """Show the IF ENABLED projection, or back to NOW (only a session pruning never touched has a projection)."""
        if self.preview is not None and self.preview.if_enabled is None:
            self.notify("This session has a cache-ttl touch for its model: NOW is what OpenClaw does; there is no projection.",
                        severity="information", timeout=3)
            self.scenario = SCENARIO_NOW
            return
        self.scenario = SCENARIO_IF_ENABLED if self.scenario == SCENARIO_NOW else SCENARIO_NOW

    def action_copy_snippet(self) -> None:
        """Copy the settings of the preview on screen as an openclaw.json snippet, and show it."""
        if self.preview is None:
            self.notify("The preview is still being computed.", severity="warning", timeout=2)
            return
        if self.errors:
            self.notify("Copying the settings of the preview on screen (the last valid ones).", severity="warning", timeout=3)
        self.app.push_screen(PruningSnippetDialog(self.preview.resolved.settings, self.rules))

    def action_more(self) -> None:
        """Show more of long text in the before/after view."""
        if self._lower_mounted:
            self.query_one("#pruning-diff", PruningDiff).action_more()

    async def action_focus_settings(self) -> None:
        """Move the focus to the first settings field."""
        await self.query_one("#pruning-settings", PruningSettingsPanel).focus_first()

    def action_close(self) -> None:
        """Close the overlay (its settings, force and scenario stay in `state` for the next opening)."""
        if self._dismissed:
            return
        self._dismissed = True
        self.workers.cancel_group(self, "pruning-preview")
        self.dismiss(None)


def describe_failure(exc: BaseException) -> str:
    """One line for a preview that failed: what happened, in words where it is the file."""
    if isinstance(exc, FileNotFoundError):
        return f"the session file is gone ({exc.filename or exc}): nothing to preview"
    if isinstance(exc, OSError):
        return f"cannot read the session file: {exc.strerror or exc}"
    return f"{type(exc).__name__}: {exc}"
