"""Per-file figures of a session listing: messages in the context, pi's context-now estimate, compactions, name.

The session browser shows them and `session-inspector ls --json --figures` prints them (`figures` on each
session), from the same `summarize_session` call. Opening a file indexes it, so `SummaryCache` keeps one
summary per path while the file's size and modification time stay the same.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.figures.overview import is_unsupported
from inspector.figures.rules_of import rules_of
from inspector.model import entries as m
from inspector.session.session import SessionOpenError, open_session

UNSUPPORTED = "not an OpenClaw / pi session"


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """What a listing shows about one file; `error` (and nothing else) when it could not be read as a session."""

    messages: int | None = None
    context_tokens: int | None = None
    compactions: int | None = None
    name: str | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """`messages` (in the context), `context_tokens` (the context now: the rules' `context_usage.context_now`), `compactions` (entries),
        `session_name`, `error`."""
        return {
            "messages": self.messages,
            "context_tokens": self.context_tokens,
            "compactions": self.compactions,
            "session_name": self.name,
            "error": self.error,
        }


def summarize_session(path: Path) -> SessionSummary:
    """Open `path` (read only) and summarize its context (a Claude Code / Codex file through its pi-format mirror);
    an unreadable or unknown file gives `error`."""
    from inspector.read.detect import detect_format
    from inspector.read.formats.mirror import TRANSLATORS, sync_foreign

    try:
        fmt = detect_format(path).name
        if fmt in TRANSLATORS:
            path = sync_foreign(path, fmt).path
        session = open_session(path)
    except (SessionOpenError, OSError) as exc:
        return SessionSummary(error=str(exc))
    if is_unsupported(session):
        return SessionSummary(error=UNSUPPORTED)
    ctx = session.context()
    usage = rules_of(session).context_usage.context_now(session, ctx)
    compactions = sum(1 for e in session.entries if e.type == m.COMPACTION)
    return SessionSummary(len(ctx.messages), usage["tokens"], compactions, session.tree.session_name)


class SummaryCache:
    """Summaries keyed by path, valid while the file's size and mtime stay the same (thread-safe enough: one
    writer thread, readers only ever see whole items)."""

    def __init__(self) -> None:
        self._items: dict[str, tuple[tuple[int, int], SessionSummary]] = {}

    @staticmethod
    def _stamp(path: Path) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def get(self, path: Path) -> SessionSummary | None:
        """The cached summary if the file did not change since."""
        item = self._items.get(str(path))
        if item is None or item[0] != self._stamp(path):
            return None
        return item[1]

    def compute(self, path: Path) -> SessionSummary:
        """Open `path` and summarize it (cached)."""
        stamp = self._stamp(path)
        summary = summarize_session(path)
        if stamp is not None:
            self._items[str(path)] = (stamp, summary)
        return summary

    def get_or_compute(self, path: Path) -> SessionSummary:
        """The cached summary, or a fresh one."""
        return self.get(path) or self.compute(path)
