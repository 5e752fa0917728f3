"""`session-inspector [PATH] [--demo] [--context-window N] [--config FILE] [--gateway-log PATH]`: parse, pick the demo, run the app."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from inspector.host.rules_choice import add_rules_option
from inspector.read.store.locate import add_session_option

from .options import InspectorOptions


def build_parser() -> argparse.ArgumentParser:
    """The interactive command's options (the headless commands have their own parsers)."""
    p = argparse.ArgumentParser(
        prog="session-inspector",
        description="Open the interactive inspector on a session file, a directory of sessions, the sessions found "
        "in OpenClaw's and pi's default places, or the bundled demo. Headless commands: `session-inspector --help`.",
    )
    p.add_argument("path", nargs="?", type=Path, default=None,
                   help="session .jsonl file, directory, or OpenClaw SQLite store (its file or agent dir; see --session)")
    p.add_argument("--demo", action="store_true", help="open the bundled demo session")
    p.add_argument("--context-window", type=int, default=None, metavar="N", help="override the context window (tokens)")
    p.add_argument("--config", type=Path, default=None, help="OpenClaw config file (default: the user's openclaw.json)")
    p.add_argument(
        "--gateway-log", type=Path, default=None, metavar="PATH",
        help="OpenClaw's Gateway log (file or directory; default: the config's logging.file, else /tmp/openclaw/openclaw-*.log)",
    )
    add_rules_option(p)
    add_session_option(p)
    return p


def parse_args(argv: list[str]) -> InspectorOptions:
    """Options from the command line."""
    args = build_parser().parse_args(argv)
    if args.context_window is not None and args.context_window <= 0:
        build_parser().error("--context-window must be a positive integer")
    return InspectorOptions(
        path=args.path, demo=args.demo, context_window=args.context_window, config_path=args.config, rules=args.rules,
        session=args.session, gateway_log=args.gateway_log,
    )


EXIT_NOT_A_TERMINAL = 2
EXIT_TERMINATED = 128 + signal.SIGTERM


def terminal_problem(streams: dict[str, TextIO | None] | None = None) -> str | None:
    """A one-line hint when the interactive inspector cannot run here, else None.

    The app needs a terminal on stdin (keys), stdout and stderr (Textual draws on stderr): redirected to a file or
    a pipe it would draw into it, or spin waiting for keys that never come.
    """
    streams = streams if streams is not None else {"stdin": sys.stdin, "stdout": sys.stdout, "stderr": sys.stderr}
    redirected = [name for name, stream in streams.items() if stream is None or not _isatty(stream)]
    if not redirected:
        return None
    return (
        f"session-inspector: not a terminal ({', '.join(redirected)} redirected): use `session-inspector stats PATH` or "
        "`session-inspector context PATH` (add --json for machine output), or run it in a terminal"
    )


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def exit_on_signals(exit_app: Callable[[int], None]) -> list[signal.Signals]:
    """Make SIGTERM and SIGHUP end the app as `q` does (`exit_app(128 + signum)`), so the terminal is restored:
    alternate screen off, mouse tracking off, the cursor back. Call it on the app's event loop; returns the
    signals handled (none where the loop cannot take signal handlers, e.g. off the main thread)."""
    loop = asyncio.get_running_loop()
    handled = []
    for sig in (signal.SIGTERM, signal.SIGHUP):
        try:
            loop.add_signal_handler(sig, exit_app, 128 + sig)
        except (ValueError, RuntimeError, NotImplementedError):
            continue
        handled.append(sig)
    return handled


def demo_path() -> Path | None:
    """The bundled demo session (`inspector.samples.demo`), if present in this installation."""
    try:
        from inspector.samples.demo import demo_session_path
    except ImportError:
        return None
    try:
        path = Path(demo_session_path())
    except (OSError, ValueError):
        return None
    return path if path.exists() else None
