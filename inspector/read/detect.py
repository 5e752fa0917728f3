"""Recognize what kind of transcript a file is, from its first lines (no full parse).

OpenClaw / pi files start with a `{"type":"session",...}` header (v2/v3) or hold entries with `id`/`parentId`
(v1). Claude Code lines carry `uuid`/`parentUuid`/`sessionId` (or are `file-history-snapshot` / `summary`
metadata); Codex CLI rollout lines are `{"timestamp", "type", "payload"}` with `type` one of `session_meta`,
`response_item`, `event_msg`, `turn_context`, `compacted`, and the oldest rollouts' lines bare response items
(`{"type": "message", "role", "content"}`, no envelope) (see the shared spec `other-formats.md`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

OPENCLAW = "openclaw"
CLAUDE_CODE = "claude-code"
CODEX = "codex"
UNKNOWN = "unknown"

SUPPORTED = frozenset({OPENCLAW})

_LABELS = {
    OPENCLAW: "an OpenClaw / pi session transcript",
    CLAUDE_CODE: "a Claude Code session transcript",
    CODEX: "a Codex CLI session transcript",
    UNKNOWN: "not a recognized session transcript",
}
_CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_CLAUDE_META_TYPES = frozenset({"file-history-snapshot", "summary", "queue-operation"})
_CODEX_BARE_ITEMS = frozenset({"message", "reasoning", "function_call", "function_call_output", "local_shell_call"})
"""Lines of the oldest Codex rollouts: bare response items, without the `{timestamp, type, payload}` envelope."""
_HEAD_BYTES = 256 * 1024
_HEAD_LINES = 20


@dataclass(frozen=True)
class FileFormat:
    """The transcript family of a file: `name` (`openclaw`, `claude-code`, `codex`, `unknown`)."""

    name: str

    @property
    def supported(self) -> bool:
        """True for the formats the commands read (OpenClaw / pi)."""
        return self.name in SUPPORTED

    @property
    def label(self) -> str:
        """What the file is, for a human: "a Claude Code session transcript"."""
        return _LABELS[self.name]

    def unsupported_message(self) -> str:
        """One line saying what the file is and that it is not supported yet."""
        return f"{self.label}: not supported yet (only OpenClaw / pi sessions are)"


def classify_line(obj: object) -> str | None:
    """The format one parsed JSONL line belongs to, or None when the line says nothing."""
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if kind in _CODEX_BARE_ITEMS and "message" not in obj and "parentId" not in obj and ("role" in obj or "call_id" in obj or kind == "reasoning"):
        return CODEX  # a pi `message` entry has its message under "message" (and a parentId from v2 on)
    if "record_type" in obj and "type" not in obj:
        return CODEX
    if kind == "session" or ("id" in obj and "parentId" in obj) or kind in ("message", "compaction", "model_change"):
        return OPENCLAW
    if kind in _CODEX_TYPES and "payload" in obj:
        return CODEX
    if "parentUuid" in obj or ("uuid" in obj and "sessionId" in obj) or kind in _CLAUDE_META_TYPES:
        return CLAUDE_CODE
    return None


def classify_lines(lines: list[bytes]) -> FileFormat:
    """The format of a file whose first lines are `lines` (the first line that says something decides)."""
    votes: list[str] = []
    for raw in lines[:_HEAD_LINES]:
        raw = raw.strip()
        if not raw:
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        kind = classify_line(obj)
        if kind is not None:
            votes.append(kind)
            if kind == OPENCLAW:
                break
    if not votes:
        return FileFormat(UNKNOWN)
    if OPENCLAW in votes:
        return FileFormat(OPENCLAW)
    return FileFormat(votes[0])


def detect_format(path: Path | str) -> FileFormat:
    """The format of the file at `path` from its first lines (a regular file; unreadable files say `unknown`)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return FileFormat(UNKNOWN)
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return FileFormat(UNKNOWN)
        head = b""
        result = FileFormat(UNKNOWN)
        for size in (16 * 1024, _HEAD_BYTES):  # most files tell in their first line: read little first
            more = os.read(fd, size - len(head))
            head += more
            lines = head.split(b"\n")
            complete = len(head) < size
            if not complete and len(lines) > 1:
                lines = lines[:-1]  # the last one may be cut
            result = classify_lines(lines)
            if result.name != UNKNOWN or complete:
                break
        return result
    except OSError:
        return FileFormat(UNKNOWN)
    finally:
        os.close(fd)
