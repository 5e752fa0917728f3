"""Whether a PATH names an OpenClaw SQLite store, told without opening it as a database (no `sqlite3` imported: a
command on a JSONL file pays nothing for stores): the store's file name, SQLite's magic header, `store_of`, and
`--session`, the option that picks a store's session."""

from __future__ import annotations

import argparse
from pathlib import Path

STORE_FILENAME = "openclaw-agent.sqlite"
"""The store's file name in `<stateDir>/agents/<agentId>/agent/`."""
SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite_file(path: Path | str) -> bool:
    """Whether `path` is a regular file starting with SQLite's magic header."""
    try:
        with open(path, "rb") as f:
            return f.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except (OSError, ValueError):
        return False


def store_of(path: Path | str) -> Path | None:
    """The store `path` names: a SQLite file, or an agent dir (`agents/<id>`, `agents/<id>/agent`) holding one."""
    path = Path(path)
    try:
        if path.is_file():
            return path if is_sqlite_file(path) else None
        if path.is_dir():
            for candidate in (path / STORE_FILENAME, path / "agent" / STORE_FILENAME):
                if candidate.is_file():
                    return candidate
    except OSError:
        return None
    return None


def add_session_option(p: argparse.ArgumentParser) -> None:
    """`--session ID_OR_KEY`: which session of an OpenClaw SQLite store PATH names (default: the most recently
    updated); every command that takes a PATH and the app have it."""
    if any("--session" in action.option_strings for action in p._actions):
        return
    p.add_argument(
        "--session", default=None, metavar="ID_OR_KEY",
        help="when PATH is an OpenClaw SQLite store (or an agent dir holding one): the session, by id or key "
        "(default: the most recently updated)",
    )
