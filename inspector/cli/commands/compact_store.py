"""``session-inspector compact STORE [--session KEY]``: a session of an OpenClaw 2026.9 SQLite store is compacted by
its Gateway (`sessions.compact`, as `openclaw sessions compact KEY`), never written here.

`compact.run` hands a store here (`_common.open_store_source` set `args.store`); `--session` picks the session.
The Gateway is found as the `openclaw` CLI finds it (`inspector.host.gateway.target`); the token or password is
sent, never shown. Without a reachable Gateway: exit 2, "no Gateway is running at URL: start it with
`openclaw gateway run`". `--dry-run` tells what would be sent and whether the Gateway is reachable (exit 0, or 2
when it is not); otherwise a confirmation on a terminal as for files (`--yes` skips it; without a terminal
`--yes` is required). The result is shown like a file compaction's; `--json` adds `"via": "gateway"`.
The options of our own summarizers do not apply: the Gateway compacts with its own model and settings.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from inspector.base.textsafe import make_inert
from inspector.cli.commands._common import EXIT_ERROR, console, print_json, warn
from inspector.host.gateway.compact import METHOD, StoreCompaction, compact_store_session, probe_gateway
from inspector.host.gateway.request import NotCompactable, gateway_session
from inspector.host.gateway.target import GatewayConfigError

EXIT_NOTHING = 1
OWN_OPTIONS = ("summarizer", "model", "base_url", "provider", "instructions", "truncate", "accept_fallback", "context_window",
               "keep_recent_tokens")
"""`compact` options that configure our own compaction: the Gateway's has its own (openclaw.json)."""
CONNECT_TIMEOUT_S = 15.0


def _err(message: str) -> None:
    print(f"session-inspector: {make_inert(message, keep_newlines=False)}", file=sys.stderr)


def _own_options_given(args: argparse.Namespace) -> list[str]:
    parser_defaults = {"summarizer": "rules", "truncate": False, "accept_fallback": False}
    return [f"--{name.replace('_', '-')}" for name in OWN_OPTIONS if getattr(args, name, None) != parser_defaults.get(name)]


def run_on_store(args: argparse.Namespace) -> int:
    """Compact the `--session` (default: the newest) of `args.store` through the Gateway; exit 0 compacted (or a dry run with the
    Gateway reachable), 1 nothing written (declined, the Gateway compacted nothing), 2 error."""
    from inspector.host.discovery.stores import choose_session
    from inspector.read.store.connection import StoreError

    store: Path = args.store
    try:
        session = choose_session(store, getattr(args, "session", None))
    except StoreError as exc:
        _err(str(exc))
        return EXIT_ERROR
    given = _own_options_given(args)
    if given:
        _err(f"{', '.join(given)}: not for a store session; its Gateway compacts with its own model and settings (openclaw.json)")
        return EXIT_ERROR
    try:
        where = gateway_session(store, session)
    except NotCompactable as exc:
        _err(str(exc))
        return EXIT_ERROR
    from inspector.host.openclaw_config import load_openclaw_config

    loaded = load_openclaw_config(args.config)
    if loaded.error:
        warn(loaded.error)
    try:
        run = where.compaction(loaded.data)
    except GatewayConfigError as exc:
        _err(str(exc))
        return EXIT_ERROR
    if args.dry_run:
        probe_gateway(run, CONNECT_TIMEOUT_S)
        return _print(run, args)
    interactive = sys.stdin.isatty() and sys.stderr.isatty()
    if not args.yes:
        if not interactive:
            _err("compact asks the Gateway to write the session: pass --yes (or --dry-run to only see what would be sent) "
                 "when not on a terminal")
            return EXIT_ERROR
        if not _confirm(run):
            _err("not sent")
            return EXIT_NOTHING
    compact_store_session(run, CONNECT_TIMEOUT_S, args.timeout if args.timeout and args.timeout > 0 else None)
    return _print(run, args)


def _confirm(run: StoreCompaction) -> bool:
    err = Console(file=sys.stderr, markup=False, emoji=False, highlight=False)
    err.print(Text("The Gateway will compact this session:", style="bold"))
    err.print(Text(make_inert(f"session {run.session_key} of {run.store}; {METHOD} {json.dumps(run.params)} to {run.target.url} "
                              f"({run.target.url_source}; auth {run.target.auth_kind}). The Gateway's model writes the summary.",
                              keep_newlines=False)))
    err.print(Text("Send it? [y/N] "), end="")
    try:
        answer = input()
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")


def _exit_code(run: StoreCompaction) -> int:
    if run.status == "dry_run":
        return 0 if run.reachable and not run.error else EXIT_ERROR
    return 0 if run.status == "committed" else EXIT_NOTHING if run.status == "nothing_written" else EXIT_ERROR


def _print(run: StoreCompaction, args: argparse.Namespace) -> int:
    code = _exit_code(run)
    problem = run.problem
    if problem:
        _err(problem)
    if args.json:
        print_json(run.to_json(), rules=False)
        return code
    out = console()
    shown = lambda text: Text(make_inert(text, keep_newlines=False))
    if run.status == "committed":
        entry = run.entry or {}
        out.print(shown(f"Compacted {run.store} session {run.session_key} through the Gateway at {run.target.url}: "
                        f"entry {entry.get('id', 'not found in the store')}, first kept {run.first_kept_entry_id}"))
        after = f"{run.tokens_after:,}" if isinstance(run.tokens_after, (int, float)) else "unknown"
        before = f"{run.tokens_before:,}" if isinstance(run.tokens_before, (int, float)) else "unknown"
        out.print(shown(f"tokens before {before}  after ~{after}  summary {run.summary_chars or 0:,} chars  "
                        f"(Gateway {run.hello.server_version if run.hello else 'unknown'})"))
        if run.reason:
            out.print(shown(run.reason), style="yellow")
    elif run.status == "dry_run":
        out.print(Text("Dry run: nothing sent. What compact would send:", style="bold"))
        out.print(shown(f"{METHOD} {json.dumps(run.params)} to {run.target.url} ({run.target.url_source}; auth {run.target.auth_kind})"))
        if run.reachable:
            out.print(shown(f"The Gateway is reachable (OpenClaw {run.hello.server_version if run.hello else 'unknown'})"))
        else:
            out.print(shown(f"The Gateway cannot be used: {run.reason}"))
    elif run.status == "nothing_written":
        out.print(shown(f"Nothing written: {run.reason}"))
    return code
