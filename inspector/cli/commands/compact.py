"""``session-inspector compact PATH``: compact a session as OpenClaw's safeguard does, and write it safely.

The run itself is `inspector.write.runner.run_compaction`; this module only asks, renders its events
(a `rich.progress` display on stderr when stderr is a terminal, plain lines otherwise) and prints the result
on stdout. Keys are never printed: errors and summaries are scrubbed by the summarizers, and no option value is
echoed. Every event line is made inert (a server's escape sequences are shown, not obeyed) and cut to
`MAX_EVENT_LINE_CHARS`, so one event costs the display a bounded time whatever a server sent.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text

from inspector.base.textsafe import cut, make_inert
from inspector.base.window_arg import context_window_arg
from inspector.cli.commands._common import EXIT_ERROR, console, note_rules_config, print_json, rule_choice
from inspector.figures.forecast.plan import PlanOptions
from inspector.write.breaker import CircuitBreaker
from inspector.write.events import RunEvent
from inspector.write.runner import DEFAULT_TIMEOUT_S, RunOptions, RunResult, run_compaction
from inspector.write.summarizers import SUMMARIZER_NAMES, ProviderConfigError, make_summarizer

DESCRIPTION = """\
Compact PATH as OpenClaw 2026.4's safeguard compaction does (pi 0.66.1 preparation): the history-share
summary, token-share parts and chunks with the rolling summary, the merge, the split-turn prefix, then the
assembly (recent turns verbatim, tool failures, <read-files>/<modified-files>, the 16000-character cap).
The entry is appended under OpenClaw's session lock (--truncate: the file is also rewritten as OpenClaw's
truncateAfterCompaction does; the checkpoint is the replaced file, kept). `session-inspector undo PATH`
reverts it. A compaction another run appended since the plan: nothing to compact (exit 1). Lines a crashed
rewrite left in a replaced file are carried over first and reported ("recovered").

Summarizers: rules (default: offline, deterministic, no key), openai (any OpenAI-compatible server),
anthropic (the Messages API). Model, base URL and key come from the flags, the environment
(OPENAI_API_KEY / ANTHROPIC_API_KEY, OPENAI_BASE_URL / ANTHROPIC_BASE_URL) or openclaw.json; a server on
127.0.0.1 needs no key. LLM calls go through the circuit breaker (`session-inspector breaker`).

Before any summary call: the file's version (only version 3 files are compacted; a dry run reports an older one and
goes on; --migrate first rewrites a version 1/2 file as pi does when it opens it, undoable), OpenClaw's session lock, the summarizer's server reachable. After summarizing: whether the summary keeps
its sections within the 16000-character cap (where OpenClaw 2026.4.12 would lose or cut it, the appended sections are
cut instead, each cut said in the entry: the "budget" check), and OpenClaw's quality guard. A dry run lists every
check ("Checks:"; --json: "checks"); a failed one is a warning before "Write it?" and after the result.
Without --yes the entry is shown and confirmed on a terminal; without a terminal, --yes is required.
A "Summary unavailable" fallback is written only with --accept-fallback.
Exit codes: 0 written (or --dry-run done), 1 nothing written (declined, cancelled or Ctrl+C, fallback refused,
compacted meanwhile), 2 error.

A session of an OpenClaw 2026.9 SQLite store (PATH the store, --session KEY) is never written here: its Gateway
compacts it (sessions.compact, as `openclaw sessions compact KEY`), found and authenticated as the openclaw CLI
does (openclaw.json gateway.*, OPENCLAW_GATEWAY_URL/PORT/TOKEN/PASSWORD); the new entry is read back from the store.
--dry-run tells what would be sent and whether the Gateway is reachable (exit 2 when not).
"""

EXIT_NOTHING = 1
MAX_EVENT_LINE_CHARS = 1000


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``compact`` subcommand."""
    p = subparsers.add_parser("compact", help="compact a session (OpenClaw's safeguard compaction) and write it safely",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", type=Path, help="session .jsonl file")
    p.add_argument("--summarizer", choices=SUMMARIZER_NAMES, default="rules", help="who writes the summary (default rules)")
    p.add_argument("--model", default=None, help="model id for an LLM summarizer")
    p.add_argument("--base-url", default=None, metavar="URL", help="server URL for an LLM summarizer")
    p.add_argument("--provider", default=None, metavar="ID", help="provider id in openclaw.json (default: openai / anthropic)")
    p.add_argument("--instructions", default=None, metavar="TEXT", help="custom instructions (as /compact TEXT)")
    p.add_argument("--truncate", action="store_true", help="also rewrite the file after a checkpoint copy (OpenClaw's truncateAfterCompaction)")
    p.add_argument("--migrate", action="store_true", help="a version 1 or 2 file: first rewrite it as version 3 as pi does when it opens it "
                   "(under the lock, after a checkpoint; `undo` reverts it)")
    p.add_argument("--dry-run", action="store_true", help="run the summarizers, write nothing, print the entry that would be written")
    p.add_argument("--yes", action="store_true", help="write without asking")
    p.add_argument("--accept-fallback", action="store_true", help='write even OpenClaw\'s "Summary unavailable" fallback summary')
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S", help="safety timeout of the whole run (default 900 s)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--config", type=Path, default=None, help="OpenClaw config file (default: the user's openclaw.json)")
    p.add_argument("--context-window", type=context_window_arg, default=None, metavar="N", help="override the context window (tokens)")
    p.add_argument("--keep-recent-tokens", type=int, default=None, metavar="N", help="override keepRecentTokens")
    p.add_argument("--lock-timeout", type=float, default=10.0, metavar="S", help="wait this long for the session lock (default 10)")
    p.set_defaults(func=run)
    return p


def _err(message: str) -> None:
    print(f"session-inspector: {make_inert(message, keep_newlines=False)}", file=sys.stderr)


def _shown(text: str) -> str:
    """One line of untrusted text as the terminal gets it: cut, then inert."""
    return make_inert(cut(text, MAX_EVENT_LINE_CHARS), keep_newlines=False)


class EventRenderer:
    """Renders runner events on stderr: a `rich.progress` display on a terminal, one plain line each otherwise.
    `show_end` False leaves out the events that end a run (`nothing_written`, `failed`, `committed`): the command
    prints its result on stdout, once."""

    END_KINDS = frozenset({"nothing_written", "failed", "committed"})

    def __init__(self, tty: bool, stream: Any = None, *, show_end: bool = True) -> None:
        self.tty = tty
        self.show_end = show_end
        self.console = Console(file=stream or sys.stderr, markup=False, emoji=False, highlight=False, force_terminal=tty or None)
        self.progress: Progress | None = None
        self.tasks: dict[str, TaskID] = {}
        if tty:
            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                                     TimeElapsedColumn(), console=self.console, transient=False)
            self.progress.start()

    def __call__(self, event: RunEvent) -> None:
        """Render one event."""
        d = event.to_json()
        kind = d["kind"]
        if kind == "text_streamed" or (not self.show_end and kind in self.END_KINDS):
            return
        if self.progress is not None:
            self._progress(d)
            return
        self.console.print(Text(self._line(d)))

    def _line(self, d: dict[str, Any]) -> str:
        return _shown(self._text(d))

    def _text(self, d: dict[str, Any]) -> str:
        k = d["kind"]
        if k == "stage_started":
            return f"[{d['index']}/{d['total']}] {d['stage']}: {d['label']}"
        if k == "stage_progress":
            eta = f", ETA {d['eta_ms'] / 1000:.1f}s" if d.get("eta_ms") else ""
            return f"  {d['stage']}: {d['done']}/{d['total']} calls, {d['tokens_in']:,} tokens in, {d['tokens_out']:,} out{eta}"
        if k == "stage_finished":
            return f"  {d['stage']} {d['status']} in {d['elapsed_ms']} ms" + (f" ({d['detail']})" if d["detail"] else "")
        if k == "retry_scheduled":
            return f"  retry {d['attempt']}/{d['max_attempts']} in {d['delay_ms']} ms: {d['error']}"
        if k == "fallback_used":
            return f"  fallback {d['fallback']}: {d['reason']}"
        if k == "breaker_changed":
            return f"  circuit {d['provider']}: {d['old']} -> {d['new']} ({d['failures']} failures)"
        if k == "committed":
            return f"committed {d['entry_id']} ({d['mode']})"
        if k == "nothing_written":
            return f"nothing written: {d['reason']}"
        if k == "failed":
            return f"failed at {d['stage']}: {d['message']}"
        return k

    def _progress(self, d: dict[str, Any]) -> None:
        assert self.progress is not None
        k = d["kind"]
        if k == "stage_started":
            self.tasks[d["stage"]] = self.progress.add_task(_shown(f"{d['stage']}: {d['label']}"), total=max(1, d["calls"]))
        elif k == "stage_progress" and d["stage"] in self.tasks:
            self.progress.update(self.tasks[d["stage"]], completed=d["done"], total=d["total"])
        elif k == "stage_finished" and d["stage"] in self.tasks:
            task = self.tasks[d["stage"]]
            total = self.progress.tasks[task].total or 1
            self.progress.update(task, completed=total, description=_shown(f"{d['stage']}: {d['status']}"))
        else:
            self.progress.console.print(Text(self._line(d)))

    def stop(self) -> None:
        """End the live display."""
        if self.progress is not None:
            self.progress.stop()


def _confirm(result: RunResult, truncate: bool) -> bool:
    entry = result.entry or {}
    err = Console(file=sys.stderr, markup=False, emoji=False, highlight=False)
    err.print(Text("The entry that will be written:", style="bold"))
    err.print(Text(f"summarizer {result.summarizer}; firstKeptEntryId {entry.get('firstKeptEntryId')}; tokensBefore {entry.get('tokensBefore')}; "
                   f"{'truncate (checkpoint copy first)' if truncate else 'append'}"))
    err.print(Text(make_inert(str(entry.get("summary", "")))))
    if result.migration is not None:
        err.print(Text(_migrated_line(result), style="yellow"))
    for warning in result.warnings:
        err.print(Text(_shown(f"warning: {warning}"), style="yellow"))
    err.print(Text("Write it? [y/N] "), end="")
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _session_model(path: Path) -> tuple[str | None, str | None] | None:
    """The provider and model in force at the session's leaf (the LLM summarizers' default where a key exists)."""
    from inspector.session.session import SessionOpenError, open_session

    try:
        model = open_session(path).context().model or {}
    except (SessionOpenError, OSError, KeyError):
        return None
    provider, model_id = model.get("provider"), model.get("modelId")
    return (provider if isinstance(provider, str) else None, model_id if isinstance(model_id, str) else None)


def run(args: argparse.Namespace) -> int:
    """Compact, render, print; see DESCRIPTION for the exit codes."""
    from inspector.write.faults import install_from_env

    install_from_env()
    if getattr(args, "store", None) is not None:  # a session of an OpenClaw SQLite store: only its Gateway writes it
        from inspector.cli.commands.compact_store import run_on_store

        return run_on_store(args)
    if not args.path.is_file():
        _err(f"{args.path}: no such session file")
        return EXIT_ERROR
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    if not (args.yes or args.dry_run) and not interactive:
        _err("compact writes the session file: pass --yes (or --dry-run to only see the result) when not on a terminal")
        return EXIT_ERROR
    from inspector.host.openclaw_config import load_openclaw_config

    loaded = load_openclaw_config(args.config)
    note_rules_config(loaded.data)
    try:
        summarizer = make_summarizer(args.summarizer, provider=args.provider, model=args.model, base_url=args.base_url, config=loaded.data,
                                     session_model=_session_model(args.path) if args.summarizer != "rules" else None)
    except (ProviderConfigError, ValueError) as exc:
        _err(str(exc))
        return EXIT_ERROR
    try:
        breaker = CircuitBreaker()
    except OSError as exc:
        _err(f"cannot use the breaker state: {exc.strerror or exc}")
        return EXIT_ERROR
    options = RunOptions(
        summarizer=summarizer,
        plan=PlanOptions(config=loaded.data, context_window=args.context_window, keep_recent_tokens=args.keep_recent_tokens),
        instructions=args.instructions,
        truncate=args.truncate,
        dry_run=args.dry_run or not args.yes,
        accept_fallback=args.accept_fallback,
        timeout_s=args.timeout,
        breaker=breaker,
        lock_timeout_ms=int(max(0.0, args.lock_timeout) * 1000),
        rules_id=rule_choice().id,
        refuse_unwritable=not args.dry_run,
        migrate=args.migrate,
    )
    renderer = EventRenderer(sys.stderr.isatty(), show_end=False)
    before = _file_state(args.path)
    try:
        result = run_compaction(args.path, options, renderer)
        if result.status == "dry_run" and not args.dry_run:
            renderer.stop()
            if not _confirm(result, args.truncate):
                _err("not written")
                return EXIT_NOTHING
            # Write exactly what was shown: the summary is committed as is, no second summarizer run.
            result = _commit_shown(args.path, result, options, renderer)
    except KeyboardInterrupt:
        renderer.stop()
        if _file_state(args.path) == before:
            _err("cancelled (Ctrl+C): nothing written")
            return EXIT_NOTHING
        _err(f"interrupted (Ctrl+C) while writing: the file changed; check it, `session-inspector undo {shlex.quote(str(args.path))}` reverts a written compaction")
        return EXIT_ERROR
    finally:
        renderer.stop()
    return _print(result, args)


def _migrated_line(result: RunResult) -> str:
    m = result.migration
    assert m is not None
    return make_inert(f"migrated from version {m.from_version} to version 3 first (as pi does on open: {m.ids_added} ids added, "
                      f"{m.roles_renamed} roles renamed, {m.lines_dropped} unreadable lines left out); checkpoint: {m.checkpoint}; "
                      f"`session-inspector undo {shlex.quote(str(m.path))}` reverts it after any compaction", keep_newlines=False)


def _file_state(path: Path) -> tuple[int, int] | None:
    """The session file's size and modification time (None: gone), to tell whether an interrupted run wrote."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _commit_shown(path: Path, shown: RunResult, options: RunOptions, renderer: EventRenderer) -> RunResult:
    from inspector.write.shown import commit_shown

    return commit_shown(path, shown, options)


def _print(result: RunResult, args: argparse.Namespace) -> int:
    code = 0 if result.status in ("committed", "dry_run") else (EXIT_NOTHING if result.status == "nothing_written" else EXIT_ERROR)
    if args.json:
        print_json(result.to_json())
        return code
    out = console()
    if result.status == "dry_run":
        out.print(Text("Checks:", style="bold"))
        for check in result.checks:
            out.print(Text(_shown(f"  {'ok    ' if check.ok else 'FAILED'} {check.name}: {check.detail}"), style="" if check.ok else "yellow"))
    else:
        for warning in result.warnings:
            out.print(Text(_shown(f"warning: {warning}"), style="yellow"))
    if result.migration is not None:
        out.print(Text(_migrated_line(result), style="yellow"))
    for note in result.to_json()["recovered"]:
        out.print(Text(make_inert(f"recovered: {note}", keep_newlines=False), style="yellow"))
    if result.status == "committed" and result.commit is not None:
        c = result.commit
        out.print(Text(f"Compacted {c.path}: entry {c.entry_id} ({c.mode}), first kept {c.first_kept_entry_id}"))
        out.print(Text(f"tokens before {result.tokens_before:,}  after ~{result.tokens_after or 0:,}  "
                       f"retries {result.retries}  fallbacks {', '.join(result.fallbacks) or 'none'}"))
        if c.checkpoint:
            out.print(Text(f"checkpoint: {c.checkpoint}", style="dim"))
        out.print(Text(make_inert(f"undo with: session-inspector undo {shlex.quote(str(c.path))}", keep_newlines=False), style="dim"))
    elif result.status == "dry_run":
        out.print(Text("Dry run: nothing written. The entry that would be written:", style="bold"))
        print_json(result.entry, rules=False)
    else:
        out.print(Text(_shown(f"Nothing written ({result.status}): {result.reason}")))
    return code
