"""File-name rules of session directories (OpenClaw ``src/config/sessions/artifacts.ts`` and ``paths.ts``, spec §1.1).

* live transcript: ``<sessionId>.jsonl`` (or ``<sessionId>-topic-<topic>.jsonl``);
* archive: ``<file>.jsonl.reset.<ts>`` / ``.deleted.<ts>`` / ``.bak.<ts>`` where ``<ts>`` is an ISO time with ``:``
  replaced by ``-`` (``2026-04-13T10-20-30.123Z``, optionally followed by ``.<32 hex>``), and repair backups
  ``<file>.bak-<pid>-<ms>``;
* checkpoint: ``<sessionId>.checkpoint.<uuid>.jsonl`` (pre-compaction copies);
* imported (OpenClaw 2026.7+): ``<key>.<sessionId>.jsonl.imported-<ms>`` in ``session-sqlite-import-archive/``, the
  JSONL ``openclaw doctor --session-sqlite import`` moved into the agent's SQLite store (an archive, reason
  ``imported``);
* never listed: ``sessions.json`` and its backups/temps, ``*.lock``, temp files (``*.tmp``, ``.truncate-tmp``,
  ``.manual-compaction-tmp``), ``*.trajectory.jsonl``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

SessionKind = Literal["live", "archive", "checkpoint"]
SessionSource = Literal["openclaw", "pi", "dir", "claude-code", "codex"]
ArchiveReason = Literal["reset", "deleted", "bak", "imported", "archived"]
"""`archived`: a session an OpenClaw SQLite store marks archived (`archivedAt`), listed by the browser."""

SESSION_STORE_FILENAME = "sessions.json"

_ARCHIVE_SUFFIX_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.([0-9a-f]{32}))?$")
_REPAIR_BACKUP_RE = re.compile(r"^(?P<file>.+)\.bak-(?P<pid>\d+)-(?P<ms>\d+)$")
_CHECKPOINT_RE = re.compile(
    r"^(?P<session>.+)\.checkpoint\."
    r"(?P<checkpoint>[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$",
    re.I,
)
_IMPORTED_RE = re.compile(r"^(?:[^.]+\.)?(?P<session>[^/]+?)\.jsonl\.imported-(?P<ms>\d{1,16})$")
PI_FILE_RE = re.compile(r"^[^_]+_(?P<session>.+)\.jsonl$")
_TEMP_SUFFIXES = (".tmp", ".truncate-tmp", ".manual-compaction-tmp")
EPOCH = datetime.fromtimestamp(0, tz=UTC)


@dataclass(frozen=True)
class FileName:
    """What a file name says: its kind, session id and, for archives and checkpoints, reason, time and id."""

    kind: SessionKind
    session_id: str | None
    archive_reason: ArchiveReason | None = None
    archived_at: datetime | None = None
    checkpoint_id: str | None = None


def _parse_archive_stamp(raw: str) -> datetime | None:
    match = _ARCHIVE_SUFFIX_RE.match(raw)
    if not match:
        return None
    date_part, time_part = match[1].split("T", 1)
    iso = f"{date_part}T{time_part.replace('-', ':')}".replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(iso)
    except ValueError:
        return None


def _strip_jsonl(name: str) -> str | None:
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else None


def classify_file_name(name: str) -> FileName | None:
    """Classify a file name in a sessions directory; None for anything that is not a transcript.

    Archive checks come first (``hasArchiveSuffix``: the last ``.<reason>.`` followed by a valid stamp), then
    repair backups, then checkpoints, then plain ``.jsonl`` files.
    """
    if name == SESSION_STORE_FILENAME or name.startswith(SESSION_STORE_FILENAME + "."):
        return None
    if name.endswith(".lock") or name.endswith(_TEMP_SUFFIXES):
        return None
    imported = _IMPORTED_RE.match(name)
    if imported:
        return FileName("archive", imported["session"], "imported", ms_to_datetime(int(imported["ms"])))
    for reason in ("reset", "deleted", "bak"):
        marker = f".{reason}."
        index = name.rfind(marker)
        if index < 0:
            continue
        stamp = _parse_archive_stamp(name[index + len(marker) :])
        if stamp is not None:
            base = name[:index]
            return FileName("archive", _strip_jsonl(base) or base, reason, stamp)
    repair = _REPAIR_BACKUP_RE.match(name)
    if repair:
        stamp = ms_to_datetime(int(repair["ms"]))
        base = repair["file"]
        return FileName("archive", _strip_jsonl(base) or base, "bak", stamp)
    checkpoint = _CHECKPOINT_RE.match(name)
    if checkpoint:
        return FileName("checkpoint", checkpoint["session"], checkpoint_id=checkpoint["checkpoint"].lower())
    if name.endswith(".trajectory.jsonl"):
        return None
    stem = _strip_jsonl(name)
    if stem is None or not stem:
        return None
    return FileName("live", stem)


def ms_to_datetime(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None

