"""The pruning preview overlay: what OpenClaw's context pruning would cut from the next request, live as you edit.

    PruningScreen(session, config=config_dict, now_ms=1767350000000)       # or now_ms=lambda: ms, or None: the clock

It shows the cache-TTL gate (with a `force` toggle that previews as if the TTL had expired), totals and a gauge
before/after, every soft-trimmed or hard-cleared tool result with its before/after side by side, the tool-result
context guard, and a settings panel that edits every `contextPruning` setting. Every figure is
`inspector.pruning.preview.build_preview`, run in an exclusive thread worker whenever the settings or `force`
change (the settings panel debounces typing); an invalid setting keeps the last valid preview on screen.
`y` copies the exact settings previewed as an openclaw.json snippet. Nothing is ever written to the session.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Footer, Input, Static
from textual.worker import get_current_worker

from inspector.clock import SystemClock
from inspector.clock import now_ms as clock_now_ms
from inspector.pruning.preview import PreviewCache, PreviewOptions, PrunePreview, build_preview
from inspector.pruning.settings import resolve_settings
from inspector.pruning.snippet import with_context_pruning_edits
from inspector.session import Session
from inspector.textsafe import one_line

from .diff import PruningDiff
from .gate import PruningGate
from .gauge import PruningGauge, PruningGaugeData
from .guard import PruningGuard
from .messages import PruningMessageList, stage_text
from .settings import DEFAULT_DEBOUNCE, PruningSettingsPanel
from .snippet import PruningSnippetDialog
from .totals import PruningTotals

STYLES = Path(__file__).resolve().parents[2] / "styles" / "pruning.tcss"

NowMs = float | Callable[[], float] | None


class PreviewReady(Message):
    """A preview of request `generation` (`complete`: with tiktoken, when asked). A newer one replaces it."""

    def __init__(self, generation: int, preview: PrunePreview, complete: bool) -> None:
        super().__init__()
        self.generation = generation
        self.preview = preview
        self.complete = complete

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

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("f", "toggle_force", "Force", tooltip="Preview as if the cache TTL had expired"),
        Binding("y", "copy_snippet", "Copy snippet", tooltip="Copy the previewed settings as an openclaw.json snippet"),
        Binding("m", "more", "More text", tooltip="Show four times more of long text in the before/after view"),
        Binding("s", "focus_settings", "Settings", tooltip="Edit the settings (Tab moves between fields)"),
    ]

    force: reactive[bool] = reactive(False, init=False)
    """Preview as if the TTL had expired (OpenClaw's gate closed or not)."""

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
    ) -> None:
        """Preview `session` (already opened) at leaf `leaf_id` (None: the last entry).

        `config` is the parsed openclaw.json (None or {}: OpenClaw's defaults); the settings panel starts from its
        effective `agents.defaults.contextPruning`. `now_ms` is the gate's "now" in epoch ms: a number (fixed, for
        tests and snapshots), a callable asked before each preview (e.g. an injected clock), or None for the
        system clock. `context_window` overrides the window in tokens like `--context-window`; `encoding` is the
        tiktoken encoding for the token totals (None: skip tiktoken); `debounce` is the settings panel's quiet
        time in seconds before a new preview; `force` starts with the force toggle on.
        """
        super().__init__()
        self.session = session
        self._cache = PreviewCache()  # messages and tiktoken counts shared by every preview of this session
        self.config = config if isinstance(config, dict) else {}
        self._now_ms = now_ms
        self.context_window = context_window
        self.leaf_id = leaf_id
        self.encoding = encoding
        self.debounce = debounce
        self.edits: dict[str, Any] = {}
        self.preview: PrunePreview | None = None
        self.errors: dict[str, str] = {}
        self.selected: int | None = None
        self._generation = 0
        self._shown_generation = 0
        self._complete = False
        self.set_reactive(PruningScreen.force, force)

    # -- layout ---------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        settings = resolve_settings(self.config).settings
        with Vertical(id="pruning-box"):
            yield Static(Text(self._title()), id="pruning-title")
            with Horizontal(id="pruning-top"):
                with Vertical(id="pruning-gate-box"):
                    yield PruningGate(id="pruning-gate")
                    yield Checkbox("force: preview as if the TTL had expired (f)", self.force, id="pruning-force", compact=True)
                with Vertical(id="pruning-summary"):
                    yield PruningGauge(id="pruning-gauge")
                    yield PruningTotals(id="pruning-totals")
            with Horizontal(id="pruning-bottom"):
                with Vertical(id="pruning-left"):
                    yield PruningSettingsPanel(settings, debounce=self.debounce, id="pruning-settings")
                    yield Button("Copy as openclaw.json snippet (y)", id="pruning-copy", compact=True)
                with Vertical(id="pruning-right"):
                    yield Static("", id="pruning-status", markup=False)
                    yield PruningMessageList(id="pruning-messages")
                    yield PruningDiff(id="pruning-diff")
                    yield PruningGuard(id="pruning-guard")
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
        self.query_one("#pruning-messages", PruningMessageList).focus()
        self.request_preview()

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
            config=with_context_pruning_edits(self.config, self.edits),
            context_window=self.context_window,
            leaf_id=self.leaf_id,
            encoding=self.encoding,
            cache=self._cache,
        )

    def request_preview(self) -> None:
        """Compute a new preview in the background (a newer request supersedes an older one)."""
        self._generation += 1
        self._show_status()
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
                preview = build_preview(self.session, phase)
            except (KeyError, ValueError, OSError) as exc:
                self.post_message(PreviewFailed(generation, f"{type(exc).__name__}: {exc}"))
                return
            if worker.is_cancelled:
                return
            self.post_message(PreviewReady(generation, preview, k == len(phases) - 1))

    @on(PreviewFailed)
    def _failed(self, message: PreviewFailed) -> None:
        generation, reason = message.generation, message.reason
        if generation == self._generation and self.is_attached:
            self._shown_generation = generation
            self._complete = True
            self.query_one("#pruning-status", Static).update(Text(one_line(f"preview failed: {reason}", 300)))
            self.set_class(True, "-failed")

    @on(PreviewReady)
    def _ready(self, message: PreviewReady) -> None:
        generation, preview, complete = message.generation, message.preview, message.complete
        if generation != self._generation or (generation == self._shown_generation and self._complete) or not self.is_attached:
            return
        self.preview = preview
        self._shown_generation = generation
        self._complete = complete
        self.set_class(False, "-failed")
        self.query_one("#pruning-title", Static).update(Text(self._title(preview)))
        self.query_one("#pruning-gate", PruningGate).show(preview)
        self.query_one("#pruning-gauge", PruningGauge).data = PruningGaugeData.of(preview)
        self.query_one("#pruning-totals", PruningTotals).show(preview)
        self.query_one("#pruning-guard", PruningGuard).show(preview)
        self.selected = self.query_one("#pruning-messages", PruningMessageList).show(preview, keep=self.selected)
        self.query_one("#pruning-diff", PruningDiff).show(preview, self.selected)
        self._show_status()

    @property
    def up_to_date(self) -> bool:
        """The preview on screen is the complete result of the latest request."""
        return self.preview is not None and self._shown_generation == self._generation and self._complete

    def _show_status(self) -> None:
        status = self.query_one("#pruning-status", Static)
        busy = self._shown_generation != self._generation
        counting = not busy and not self._complete
        self.set_class(bool(self.errors), "-invalid")
        if self.errors:
            shown = "; ".join(f"{k}: {v}" for k, v in self.errors.items())
            status.update(Text(one_line(f"Invalid setting ({shown}): showing the last valid preview.", 300)))
        elif self.preview is None:
            status.update(Text("computing the preview…"))
        else:
            status.update(Text(stage_text(self.preview) + (" (updating…)" if busy else " (counting tiktoken…)" if counting else "")))

    # -- events ---------------------------------------------------------------------------------

    @on(PruningSettingsPanel.Changed)
    def _settings_changed(self, event: PruningSettingsPanel.Changed) -> None:
        self.errors = {}
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
        box = self.query_one("#pruning-force", Checkbox)
        if box.value != force:
            box.value = force
        self.request_preview()

    # -- actions --------------------------------------------------------------------------------

    def action_toggle_force(self) -> None:
        """Preview as if the TTL had expired (or back to the real gate)."""
        self.force = not self.force

    def action_copy_snippet(self) -> None:
        """Copy the settings of the preview on screen as an openclaw.json snippet, and show it."""
        if self.preview is None:
            self.notify("The preview is still being computed.", severity="warning", timeout=2)
            return
        if self.errors:
            self.notify("Copying the settings of the preview on screen (the last valid ones).", severity="warning", timeout=3)
        self.app.push_screen(PruningSnippetDialog(self.preview.resolved.settings))

    def action_more(self) -> None:
        """Show more of long text in the before/after view."""
        self.query_one("#pruning-diff", PruningDiff).action_more()

    def action_focus_settings(self) -> None:
        """Move the focus to the first settings field."""
        self.query_one("#pruning-settings", PruningSettingsPanel).focus_first()

    def action_close(self) -> None:
        """Close the overlay."""
        self.dismiss(None)
