"""`session-inspector [PATH] [--demo] [--context-window N] [--config FILE]`: parse, pick the demo, run the app."""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import InspectorOptions


def build_parser() -> argparse.ArgumentParser:
    """The interactive command's options (the headless commands have their own parsers)."""
    p = argparse.ArgumentParser(
        prog="session-inspector",
        description="Open the interactive inspector on a session file, a directory of sessions, the sessions found "
        "in OpenClaw's and pi's default places, or the bundled demo. Headless commands: `session-inspector --help`.",
    )
    p.add_argument("path", nargs="?", type=Path, default=None, help="session .jsonl file or directory")
    p.add_argument("--demo", action="store_true", help="open the bundled demo session")
    p.add_argument("--context-window", type=int, default=None, metavar="N", help="override the context window (tokens)")
    p.add_argument("--config", type=Path, default=None, help="OpenClaw config file (default: the user's openclaw.json)")
    return p


def parse_args(argv: list[str]) -> InspectorOptions:
    """Options from the command line."""
    args = build_parser().parse_args(argv)
    if args.context_window is not None and args.context_window <= 0:
        build_parser().error("--context-window must be a positive integer")
    return InspectorOptions(path=args.path, demo=args.demo, context_window=args.context_window, config_path=args.config)


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
