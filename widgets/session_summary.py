"""Per-file figures for the session browser (messages, context now, compactions), from the engine.

Opening a file indexes it, so summaries are computed in a thread worker and cached by (size, mtime): a file
that did not change is not read again when the directory changes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from inspector import model as m
from inspector.figures import last_context_usage
from inspector.session import SessionOpenError, open_session

from .session_figures import is_unsupported


@dataclass(frozen=True)
class SessionSummary:
    """What the browser shows about one file; `error` when it could not be read as a session."""

    messages: int | None = None
    context_tokens: int | None = None
    compactions: int | None = None
    name: str | None = None
    error: str | None = None


class SummaryCache:
    """Summaries keyed by path, valid while the file's size and mtime stay the same."""

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
        summary = summarize(path)
        if stamp is not None:
            self._items[str(path)] = (stamp, summary)
        return summary


def summarize(path: Path) -> SessionSummary:
    """Messages in the context, pi's context-tokens estimate, compaction entries, and the session name."""
    try:
        session = open_session(path)
    except SessionOpenError as exc:
        return SessionSummary(error=str(exc))
    except OSError as exc:
        return SessionSummary(error=str(exc))
    if is_unsupported(session):
        return SessionSummary(error="not an OpenClaw / pi session")
    ctx = session.context()
    usage = last_context_usage(session, ctx)
    compactions = sum(1 for e in session.entries if e.type == m.COMPACTION)
    return SessionSummary(len(ctx.messages), usage["tokens"], compactions, session.tree.session_name)
