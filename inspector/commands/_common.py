"""Shared pieces of the headless commands: session options, opening a file, printing JSON and text."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import orjson
from rich.console import Console

from ..figures import WindowOptions
from ..session import Session, SessionOpenError, open_session
from ..window import context_window_arg

EXIT_ERROR = 2


def add_session_options(p: argparse.ArgumentParser, *, leaf: bool = False) -> None:
    """PATH and the options every session command takes: `--json`, `--config`, `--context-window`, `--encoding`."""
    p.add_argument("path", type=Path, help="session .jsonl file")
    if leaf:
        p.add_argument("--leaf", default=None, metavar="ID", help="build the context from this entry instead of the last one")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON (stable field names)")
    p.add_argument("--config", type=Path, default=None, help="OpenClaw config file (default: the user's openclaw.json)")
    p.add_argument(
        "--context-window", type=context_window_arg, default=None, metavar="N", help="override the context window (tokens, 1..2^31-1)"
    )
    p.add_argument(
        "--encoding",
        default="cl100k_base",
        help="tiktoken encoding for the real-tokenizer column (default cl100k_base, bundled offline)",
    )
    p.add_argument("--no-tiktoken", action="store_true", help="skip the tiktoken count (faster on huge files)")


def window_options(args: argparse.Namespace) -> tuple[WindowOptions, str | None]:
    """The OpenClaw config (never fatal: a broken file is reported) and the `--context-window` override."""
    from ..config import load_openclaw_config

    loaded = load_openclaw_config(args.config)
    return WindowOptions(config=loaded.data, override=args.context_window), loaded.error


def encoding_of(args: argparse.Namespace) -> str | None:
    return None if getattr(args, "no_tiktoken", False) else args.encoding


def open_or_fail(path: Path) -> Session | None:
    """Open a session; on failure print one clear line to stderr and return None."""
    try:
        return open_session(path)
    except SessionOpenError as exc:
        print(f"session-inspector: {exc}", file=sys.stderr)
        return None


def dumps_json(data: Any) -> bytes:
    """Indented JSON; text with lone surrogates (a soft trim can cut a pair, as OpenClaw does) is escaped."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(data, indent=2, ensure_ascii=True).encode("ascii")


def open_context(args: argparse.Namespace):
    """Open `args.path` and build the context of `args.leaf`; on failure print one line and return None.

    Returns `(session, ctx, window_options, config_error)`.
    """
    session = open_or_fail(args.path)
    if session is None:
        return None
    try:
        ctx = session.context(args.leaf)
    except KeyError:
        print(f"session-inspector: no entry with id {args.leaf!r} in {args.path}", file=sys.stderr)
        return None
    opts, config_error = window_options(args)
    return session, ctx, opts, config_error


def print_json(data: Any) -> None:
    sys.stdout.buffer.write(dumps_json(data))
    sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()


def console() -> Console:
    """A console that never interprets markup or emoji codes in what it prints (transcripts are untrusted)."""
    return Console(markup=False, emoji=False, highlight=False, soft_wrap=False)
