"""The compaction run in the app: confirm → staged progress (with the circuit breaker) → result and undo.

`CompactRunScreen(path, options)` first shows exactly what will be written (summarizer, first kept entry,
tokens before, append vs truncate, and the file: the bundled demo or a read-only file is copied to a temp
dir first, and the screen says so). Enter starts the run: a thread worker calls
`inspector.write.runner.run_compaction` and posts every event as a `RunEventPosted` message (progress
ones replace each other through `can_replace`; streamed text is gathered into one pending tail and posted as one
`RunEventPosted` at a time, so a server streaming a million tiny pieces cannot fill the app's message queue);
Esc or ctrl+c cancels at any moment (nothing is written). The
result shows tokens before/after (the new context, from the session re-opened after the write), and `u` undoes
it with `undo_last_compaction`.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from inspector.base.textsafe import make_inert
from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.figures.sizes import estimate_sizes
from inspector.session.session import open_session
from inspector.write.breaker import CircuitBreaker
from inspector.write.events import RunEvent, TextStreamed
from inspector.write.runner import RunOptions, RunResult, run_compaction
from inspector.write.summarizers import CancelToken, RulesSummarizer, Summarizer
from inspector.write.undo import undo_last_compaction
from widgets.compaction.progress_state import STREAM_TAIL_CHARS, RunProgress, render_breaker, render_progress


def writable_target(path: Path, packaged: Path | None = None) -> tuple[Path, str | None]:
    """The file to compact: `path`, or a temp copy (with a note) when it is the bundled demo or read-only; the copy's
    temp dir is removed when the process exits (quitting the app leaves nothing in /tmp)."""
    is_demo = packaged is not None and path.resolve() == packaged.resolve()
    if not is_demo and os.access(path, os.W_OK) and os.access(path.parent, os.W_OK):
        return path, None
    folder = Path(tempfile.mkdtemp(prefix="session-inspector-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    copy = folder / path.name
    shutil.copy2(path, copy)
    why = "the bundled demo" if is_demo else "read-only"
    return copy, f"{path.name} is {why}: compacting a copy, {copy}"


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
    """The worker returned the run's result."""

    def __init__(self, result: RunResult) -> None:
        super().__init__()
        self.result = result


class CompactRunScreen(Screen[None]):
    """Confirm, run, watch, undo (see the module docstring)."""

    BINDINGS = [
        Binding("enter", "start", "Compact", tooltip="Run the compaction and write it", id="compaction_run.start"),
        Binding("escape", "cancel_or_close", "Cancel / close", tooltip="Cancel the run (nothing written) or close", id="compaction_run.cancel_or_close"),
        Binding("ctrl+c", "cancel_or_close", "Cancel", show=False, priority=True, id="compaction_run.cancel"),
        Binding("u", "undo", "Undo", tooltip="Undo the compaction just written", id="compaction_run.undo"),
        Binding("r", "reset_breaker", "Reset breaker", show=False, tooltip="Reset this session's circuit", id="compaction_run.reset_breaker"),
    ]

    DEFAULT_CSS = """
    CompactRunScreen #run-confirm { padding: 1 2; }
    CompactRunScreen #run-breaker { padding: 0 2; }
    CompactRunScreen #run-progress { padding: 0 2; }
    CompactRunScreen #run-result { padding: 1 2; }
    """

    def __init__(self, path: Path, *, plan_options: PlanOptions | None = None, summarizer: Summarizer | None = None,
                 truncate: bool = False, packaged: Path | None = None, breaker: CircuitBreaker | None = None) -> None:
        super().__init__()
        self.source = Path(path)
        self.target, self.copy_note = writable_target(self.source, packaged)
        self.plan_options = plan_options or PlanOptions()
        self.summarizer: Summarizer = summarizer or RulesSummarizer()
        self.truncate = truncate
        self.breaker = breaker
        self.cancel = CancelToken()
        self.progress = RunProgress()
        self.phase = "confirm"
        self.result: RunResult | None = None
        self._stream_lock = threading.Lock()
        self._stream_tail: TextStreamed | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(id="run-confirm")
            yield Static(id="run-breaker")
            yield Static(id="run-progress")
            yield Static(id="run-result")
        yield Footer()

    def on_mount(self) -> None:
        session = open_session(self.target)
        plan = plan_compaction(session, session.context(), self.plan_options)
        text = Text()
        text.append("Compact this session?\n", style="bold")
        if self.copy_note:
            text.append(make_inert(self.copy_note, keep_newlines=False) + "\n", style="yellow")
        rows = [
            ("file", str(self.target)),
            ("summarizer", f"{self.summarizer.name}" + (f" ({self.summarizer.model})" if self.summarizer.model else "")),
            ("first kept entry", str(plan.first_kept_entry_id)),
            ("tokens before", f"{plan.tokens_before:,}" if plan.tokens_before is not None else "-"),
            ("write", "truncate (checkpoint copy, then rewrite)" if self.truncate else "append one compaction entry (undo: u)"),
            ("model calls", str(plan.llm_calls) if not plan.boundary_only else "0 (boundary summary)"),
        ]
        if plan.nothing_to_plan is not None:
            rows.append(("note", f"nothing to compact: {plan.nothing_to_plan.reason}"))
        for k, v in rows:
            text.append(f"  {k:<17}", style="dim")
            text.append(make_inert(v, keep_newlines=False) + "\n")
        text.append("\nenter: compact   esc: close", style="dim")
        self.query_one("#run-confirm", Static).update(text)
        self._show_breaker()

    def _show_breaker(self) -> None:
        status = None
        if self.summarizer.uses_network and self.breaker is not None:
            status = self.breaker.status(self.target, self.summarizer.provider)
        self.query_one("#run-breaker", Static).update(render_breaker(status, self.summarizer.provider))

    def action_start(self) -> None:
        """Start the run (once)."""
        if self.phase != "confirm":
            return
        self.phase = "running"
        self._run()

    @work(thread=True, exclusive=True, group="compaction-run")
    def _run(self) -> None:
        options = RunOptions(summarizer=self.summarizer, plan=self.plan_options, truncate=self.truncate, breaker=self.breaker)
        result = run_compaction(self.target, options, self._post_event, self.cancel)
        self.post_message(RunFinished(result))

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
        self.query_one("#run-progress", Static).update(render_progress(self.progress))
        if message.event.kind == "breaker_changed":
            self._show_breaker()

    def on_run_finished(self, message: RunFinished) -> None:
        self.result = message.result
        self.phase = "done"
        self._show_breaker()
        r = message.result
        text = Text()
        if r.status == "committed":
            after = self._context_tokens_after()
            text.append(f"committed: tokens before {r.tokens_before:,} → after ~{after:,}\n", style="bold green")
            text.append("u: undo   esc: close", style="dim")
        else:
            text.append(make_inert(f"nothing written ({r.status}): {r.reason}", keep_newlines=False), style="bold red")
        self.query_one("#run-result", Static).update(text)

    def _context_tokens_after(self) -> int:
        """The new context's estimate, from the session re-opened after the write (pi chars/4 per message)."""
        session = open_session(self.target)
        ctx = session.context()
        return sum(estimate_sizes(ctx.messages, "pi"))

    def action_cancel_or_close(self) -> None:
        """Cancel a running compaction (nothing is written), or close the screen."""
        if self.phase == "running":
            self.cancel.cancel()
            return
        self.dismiss(None)

    def action_undo(self) -> None:
        """Undo the compaction this screen wrote."""
        if self.result is None or self.result.status != "committed":
            return
        try:
            undo = undo_last_compaction(self.target)
        except Exception as exc:
            self.query_one("#run-result", Static).update(Text(make_inert(f"undo failed: {exc}", keep_newlines=False), style="bold red"))
            return
        self.result = None
        self.query_one("#run-result", Static).update(Text(f"undone: compaction {undo.entry_id} removed", style="bold"))

    def action_reset_breaker(self) -> None:
        """Reset this session's circuit for the summarizer's provider."""
        if self.breaker is not None:
            self.breaker.reset(self.target, self.summarizer.provider)
            self._show_breaker()

    @property
    def outcome(self) -> Any:
        """The run's outcome as the progress view shows it (`committed`, `nothing_written`, `failed`, or None)."""
        return self.progress.outcome


def open_compact_screen(screen: Screen[Any], path: Path, config: dict[str, Any] | None, context_window: int | None) -> None:
    """Push the run screen for `path` from `screen` (the demo is found with `widgets.launch.demo_path`)."""
    from widgets.launch import demo_path

    try:
        breaker: CircuitBreaker | None = CircuitBreaker()
    except OSError:
        breaker = None
    screen.app.push_screen(CompactRunScreen(path, plan_options=PlanOptions(config=config, context_window=context_window),
                                            packaged=demo_path(), breaker=breaker))
