"""The compaction run in the app: pick the summarizer → summarize and preview → write → result, undo, reopen.

`CompactRunScreen(path, ...)` reaches the engine the `compact` command reaches, with the same options:

* setup: the summarizer picker (`SummarizerForm`: rules, or a model through the OpenAI or Anthropic SDK, its provider,
  model and base URL from `openclaw.json`, the environment, or typed), the plan (what is summarized, what is kept)
  and the circuit breaker of this session and provider (`r` resets it). The bundled demo or a read-only file is
  copied to a temp dir first, and the screen says so; the app removes the copy when it quits.
* Enter: a thread worker runs `run_compaction` with `dry_run=True` (the command's confirmation flow) and posts every
  event as a `RunEventPosted` message (progress ones replace each other through `can_replace`; streamed text is
  gathered into one pending tail and posted as one `RunEventPosted` at a time, so a server streaming a million tiny
  pieces cannot fill the app's message queue). The stage table and the streamed text show as it runs; Esc or ctrl+c
  cancels at any moment (nothing is written).
* preview: before/after (what is summarized, what is kept, the summary exactly as it would be written). Enter writes
  that summary as is (`inspector.write.shown.commit_shown`: no second model call; a file changed meanwhile is
  refused); Esc goes back to the setup.
* done: the result at the top (tokens before, and after from the session re-opened after the write), `u` undoes it
  (`undo_last_compaction`), `o` opens the compacted file in a new inspector screen.

A run that wrote nothing says why at the top, and Enter tries again. Summaries, model output and errors are
untrusted: `Text` and `make_inert`, never markup. API keys never show (the form only says where one was found).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from inspector.figures.forecast.plan import CompactionPlan, PlanOptions, plan_compaction
from inspector.figures.sizes import estimate_sizes
from inspector.session.session import open_session
from inspector.write.breaker import CircuitBreaker
from inspector.write.calls import RetryPolicy
from inspector.write.events import RunEvent, TextStreamed
from inspector.write.runner import RunOptions, RunResult, run_compaction
from inspector.write.shown import commit_shown
from inspector.write.summarizers import CancelToken, ProviderConfigError, Summarizer
from inspector.write.undo import undo_last_compaction
from widgets.compaction.progress_state import STREAM_TAIL_CHARS, RunProgress, render_breaker, render_progress
from widgets.compaction.run_text import before_after_text, headline_text, plan_text
from widgets.compaction.summarizer_form import SummarizerChoice, SummarizerForm

STYLES = Path(__file__).resolve().parents[2] / "styles" / "compaction.tcss"
SCRATCH_PREFIX = "session-inspector-"
BREAKER_REFRESH_S = 1.0
"""How often an open circuit's cooldown countdown is redrawn."""


def writable_target(path: Path, packaged: Path | None = None) -> tuple[Path, str | None]:
    """The file to compact: `path`, or a temp copy (with a note) when it is the bundled demo or read-only; the copy's
    temp dir is removed when the process exits (quitting the app leaves nothing in /tmp)."""
    is_demo = packaged is not None and path.resolve() == packaged.resolve()
    if not is_demo and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        return path, None
    folder = Path(tempfile.mkdtemp(prefix=SCRATCH_PREFIX))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)  # also when the process ends without quitting the app
    copy = folder / path.name
    shutil.copy2(path, copy)
    why = "the bundled demo" if is_demo else "read-only"
    return copy, f"{path.name} is {why}: compacting a copy, {copy} (removed when the app quits)"


class RunEventPosted(Message):
    """One runner event, posted from the worker thread."""

    def __init__(self, event: RunEvent) -> None:
        super().__init__()
        self.event = event

    def can_replace(self, message: Message) -> bool:
        """A progress event replaces an unhandled older one of the same stage."""
        return (isinstance(message, RunEventPosted) and self.event.kind == "stage_progress" and message.event.kind == "stage_progress"
                and getattr(message.event, "stage", None) == getattr(self.event, "stage", None))


class RunFinished(Message):
    """The worker returned the run's result (the dry run's, or the write's with the context's tokens after it)."""

    def __init__(self, result: RunResult, after_tokens: int | None = None) -> None:
        super().__init__()
        self.result = result
        self.after_tokens = after_tokens


class PlanShown(Message):
    """The plan of the file to compact, and the model in force at its leaf (the summarizers' default)."""

    def __init__(self, plan: CompactionPlan | None, session_model: tuple[str | None, str | None] | None, error: str | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.session_model = session_model
        self.error = error


class CompactRunScreen(Screen[None]):
    """Pick, preview, write, watch, undo, reopen (see the module docstring)."""

    CSS_PATH = str(STYLES)
    AUTO_FOCUS = None  # Enter starts with the defaults; Tab reaches the summarizer picker

    BINDINGS = [
        Binding("enter", "start", "Preview / write", tooltip="Summarize and preview; in the preview, write it", id="compaction_run.start"),
        Binding("escape", "cancel_or_close", "Cancel / back / close", tooltip="Cancel the run (nothing written), leave the preview, or close",
                id="compaction_run.cancel_or_close"),
        Binding("ctrl+c", "cancel_or_close", "Cancel", show=False, priority=True, id="compaction_run.cancel"),
        Binding("u", "undo", "Undo", tooltip="Undo the compaction just written", id="compaction_run.undo"),
        Binding("o", "open_compacted", "Open", tooltip="Open the compacted file in the inspector", id="compaction_run.open"),
        Binding("r", "reset_breaker", "Reset breaker", tooltip="Reset this session's circuit for the provider", id="compaction_run.reset_breaker"),
    ]

    def __init__(self, path: Path, *, plan_options: PlanOptions | None = None, choice: SummarizerChoice | None = None,
                 truncate: bool = False, packaged: Path | None = None, breaker: CircuitBreaker | None = None,
                 rules_id: str | None = None, env: dict[str, str] | None = None, retry_policy: RetryPolicy | None = None,
                 inspector_options: Any = None) -> None:
        """Compact `path` (a copy when it is `packaged`, the demo, or read-only) with `plan_options` (the config and
        the window override), under the rule set `rules_id`. `choice` is the summarizer shown first; `env` where keys
        and URLs are read (None: the process's); `breaker` the circuits (None: no breaker); `retry_policy` the calls'
        retries (default: OpenClaw's). `inspector_options` (`widgets.options.InspectorOptions`) open the compacted
        file (`o`)."""
        super().__init__()
        self.source = Path(path)
        self.target, self.copy_note = writable_target(self.source, packaged)
        self.plan_options = plan_options or PlanOptions()
        self.choice = choice or SummarizerChoice()
        self.truncate = truncate
        self.breaker = breaker
        self.rules_id = rules_id
        self.env = env
        self.retry_policy = retry_policy or RetryPolicy()
        self.inspector_options = inspector_options
        self.summarizer: Summarizer | None = None
        self.plan: CompactionPlan | None = None
        self.cancel = CancelToken()
        self.progress = RunProgress()
        self.phase = "setup"
        self.result: RunResult | None = None
        self.after_tokens: int | None = None
        self.note: str | None = None
        self._stream_lock = threading.Lock()
        self._stream_tail: TextStreamed | None = None
        self._cooling = False

    def compose(self) -> ComposeResult:
        yield Static(id="run-headline")
        yield Static(id="run-breaker")
        with VerticalScroll(id="run-body"):
            yield SummarizerForm(config=self.plan_options.config, env=self.env, initial=self.choice, id="run-form")
            yield Static(Text("planning…", style="dim"), id="run-plan")
            yield Static(id="run-progress")
            yield Static(id="run-preview")
        yield Footer()

    def on_mount(self) -> None:
        if self.target != self.source:
            scratch = getattr(self.app, "scratch_dirs", None)
            if isinstance(scratch, list):
                scratch.append(self.target.parent)
        self._show()
        self._plan()
        self.set_interval(BREAKER_REFRESH_S, self._tick_breaker)

    # -- the plan -----------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="compaction-run-plan", description="compaction plan")
    def _plan(self) -> None:
        try:
            session = open_session(self.target, self.rules_id)
            ctx = session.context()
            plan = plan_compaction(session, ctx, self.plan_options)
        except Exception as exc:
            self.post_message(PlanShown(None, None, f"{type(exc).__name__}: {exc}"))
            return
        model = ctx.model or {}
        provider, model_id = model.get("provider"), model.get("modelId")
        self.post_message(PlanShown(plan, (provider if isinstance(provider, str) else None, model_id if isinstance(model_id, str) else None)))

    @on(PlanShown)
    def _plan_shown(self, message: PlanShown) -> None:
        self.plan = message.plan
        if message.plan is None:
            self.query_one("#run-plan", Static).update(Text(f"planning failed: {message.error}", style="bold red"))
            return
        form = self.query_one(SummarizerForm)
        form.session_model = message.session_model
        form.refresh_choice()
        self.query_one("#run-plan", Static).update(plan_text(message.plan))

    @on(SummarizerForm.Changed)
    def _choice_changed(self, message: SummarizerForm.Changed) -> None:
        self.choice = message.choice
        if self.phase in ("setup", "failed"):
            self._show_breaker()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        """Enter in a field of the form starts the run, as Enter elsewhere does."""
        event.stop()
        self.action_start()

    # -- drawing ------------------------------------------------------------------------------------

    def _show(self) -> None:
        """The headline, the parts of this phase, the progress."""
        self.query_one("#run-headline", Static).update(headline_text(
            self.phase, file=str(self.target), result=self.result, after_tokens=self.after_tokens, truncate=self.truncate,
            note=self.note if self.note is not None else self.copy_note))
        setup = self.phase in ("setup", "failed")
        self.query_one("#run-form").display = setup
        self.query_one("#run-plan").display = setup
        preview = self.query_one("#run-preview", Static)
        shown = self.phase in ("preview", "writing", "done") and self.plan is not None and self.result is not None
        preview.display = shown
        if shown:
            assert self.plan is not None and self.result is not None
            preview.update(before_after_text(self.plan, self.result))
        self._show_progress()
        self._show_breaker()

    def _show_progress(self) -> None:
        progress = self.query_one("#run-progress", Static)
        progress.display = bool(self.progress.rows)
        progress.update(render_progress(self.progress, self.size.width or None, outcome=False, streamed=self.phase == "running"))

    def on_resize(self) -> None:
        self._show_progress()

    def _provider(self) -> str | None:
        """The provider of the summarizer in use, or of the one chosen (None: no network, or the choice is unusable)."""
        if self.summarizer is not None and self.phase not in ("setup", "failed"):
            return self.summarizer.provider if self.summarizer.uses_network else None
        try:
            cfg = self.query_one(SummarizerForm).resolve()
        except ProviderConfigError:
            return None
        return cfg.provider if cfg is not None else None

    def _show_breaker(self) -> None:
        provider = self._provider()
        status = self.breaker.status(self.target, provider) if provider is not None and self.breaker is not None else None
        self._cooling = bool(status is not None and status.cooldown_remaining_ms)
        self.query_one("#run-breaker", Static).update(render_breaker(status, provider or self.choice.name))

    def _tick_breaker(self) -> None:
        """Redraw the breaker panel while its circuit counts a cooldown down."""
        if self._cooling:
            self._show_breaker()

    # -- running ------------------------------------------------------------------------------------

    def action_start(self) -> None:
        """Setup: summarize and preview (nothing written). Preview: write what is shown."""
        if self.phase in ("setup", "failed") and self.plan is not None:
            try:
                self.summarizer = self.query_one(SummarizerForm).make()
            except (ProviderConfigError, ValueError) as exc:
                self.note = f"cannot use this summarizer: {exc}"
                self._show()
                return
            self.phase, self.result, self.note = "running", None, None
            self.set_focus(None)  # the form hides: Enter and Esc are the screen's again
            self.cancel, self.progress = CancelToken(), RunProgress()
            self._show()
            self._run(self.summarizer)
        elif self.phase == "preview":
            self.phase = "writing"
            self._show()
            self._write()

    def _options(self, summarizer: Summarizer) -> RunOptions:
        """The run's options: the compact command's, from this screen's choices."""
        return RunOptions(summarizer=summarizer, plan=self.plan_options, truncate=self.truncate, dry_run=True, breaker=self.breaker,
                          retry_policy=self.retry_policy, rules_id=self.rules_id)

    @work(thread=True, exclusive=True, group="compaction-run", description="compaction run")
    def _run(self, summarizer: Summarizer) -> None:
        result = run_compaction(self.target, self._options(summarizer), self._post_event, self.cancel)
        self.post_message(RunFinished(result))

    @work(thread=True, exclusive=True, group="compaction-run", description="compaction write")
    def _write(self) -> None:
        assert self.result is not None and self.summarizer is not None
        result = commit_shown(self.target, self.result, self._options(self.summarizer))
        after = None
        if result.status == "committed":
            ctx = open_session(self.target, self.rules_id).context()
            after = sum(estimate_sizes(ctx.messages, "pi"))
        self.post_message(RunFinished(result, after))

    def _post_event(self, event: RunEvent) -> None:
        """Post a runner event (from the worker thread); streamed text joins the tail not yet shown, if any."""
        if isinstance(event, TextStreamed):
            with self._stream_lock:
                pending = self._stream_tail
                text = (pending.text if pending is not None else "") + event.text[-STREAM_TAIL_CHARS:]
                self._stream_tail = TextStreamed(at_ms=event.at_ms, stage=event.stage, text=text[-STREAM_TAIL_CHARS:], call=event.call)
                if pending is not None:
                    return  # its message is on its way, and will carry this text too
            self.post_message(RunEventPosted(event))  # a marker: the handler takes the pending tail
            return
        self.post_message(RunEventPosted(event))

    def on_run_event_posted(self, message: RunEventPosted) -> None:
        event = message.event
        if isinstance(event, TextStreamed):
            with self._stream_lock:
                tail, self._stream_tail = self._stream_tail, None
            if tail is None:
                return
            event = tail
        self.progress.apply(event)
        self._show_progress()
        if message.event.kind == "breaker_changed":
            self._show_breaker()

    def on_run_finished(self, message: RunFinished) -> None:
        r = self.result = message.result
        if r.status == "dry_run":
            self.phase = "preview"
        elif r.status == "committed":
            self.phase, self.after_tokens = "done", message.after_tokens
        else:
            self.phase = "failed"
        self._show()

    # -- after the run ------------------------------------------------------------------------------

    def action_cancel_or_close(self) -> None:
        """Cancel a running compaction (nothing is written), leave the preview, or close the screen."""
        if self.phase == "running":
            self.cancel.cancel()
        elif self.phase == "preview":
            self.phase, self.result = "setup", None
            self._show()
        elif self.phase != "writing":
            self.dismiss(None)

    def action_undo(self) -> None:
        """Undo the compaction this screen wrote."""
        if self.phase != "done":
            return
        try:
            undo = undo_last_compaction(self.target)
        except Exception as exc:
            self.note = f"undo failed: {exc}"
        else:
            self.phase, self.result, self.note = "undone", None, f"undone: compaction {undo.entry_id} removed"
        self._show()

    def action_open_compacted(self) -> None:
        """Open the compacted file in a new inspector screen (Esc there comes back below this one)."""
        if self.phase != "done" or self.inspector_options is None:
            return
        from widgets.screens.inspector import InspectorScreen

        options = replace(self.inspector_options, path=self.target, session=None, demo=False)
        self.dismiss(None)
        self.app.push_screen(InspectorScreen(self.target, options))

    def action_reset_breaker(self) -> None:
        """Reset this session's circuit for the summarizer's provider."""
        provider = self._provider()
        if self.breaker is not None and provider is not None and self.phase != "running":
            self.breaker.reset(self.target, provider)
            self._show_breaker()

    @property
    def outcome(self) -> str | None:
        """The last run's outcome: `dry_run` (the preview), `committed`, `nothing_written`, `failed`, or None."""
        return self.result.status if self.result is not None else None


def open_compact_screen(screen: Screen[Any], path: Path, config: dict[str, Any] | None, context_window: int | None,
                        rules_id: str | None = None, inspector_options: Any = None) -> None:
    """Push the run screen for `path` from `screen` (the demo is found with `widgets.launch.demo_path`)."""
    from widgets.launch import demo_path

    try:
        breaker: CircuitBreaker | None = CircuitBreaker()
    except OSError:
        breaker = None
    env = dict(inspector_options.env) if inspector_options is not None else None
    screen.app.push_screen(CompactRunScreen(path, plan_options=PlanOptions(config=config, context_window=context_window),
                                            packaged=demo_path(), breaker=breaker, rules_id=rules_id, env=env,
                                            inspector_options=inspector_options))
