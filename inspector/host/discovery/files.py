"""What discovery finds: `SessionFile` (one transcript on disk) and `Discovery` (all of them, plus warnings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.host.discovery.names import ArchiveReason, SessionKind, SessionSource

if TYPE_CHECKING:
    from inspector.host.discovery.stores import StoreListing


@dataclass
class SessionFile:
    """One transcript file found on disk.

    ``kind`` is ``"live"``, ``"archive"`` (``archive_reason`` ``reset``/``deleted``/``bak``, ``archived_at`` from the
    name) or ``"checkpoint"`` (``checkpoint_id`` set). ``agent_id`` is set for OpenClaw dirs
    (``.../agents/<agentId>/sessions``), ``cwd_slug`` for pi dirs (``--home-me-project--``). ``session_key`` and
    ``updated_at`` come from ``sessions.json`` when an entry points at this file. ``mtime`` and ``updated_at`` are
    timezone-aware UTC datetimes. ``format`` is the file's family (``detect_format``), None when discovery was
    asked not to look inside files (the caller reads them anyway, as ``ls`` does through ``inspector.host.listing``).
    """

    path: Path
    kind: SessionKind
    source: SessionSource
    size: int
    mtime: datetime
    session_id: str | None = None
    session_key: str | None = None
    updated_at: datetime | None = None
    agent_id: str | None = None
    cwd_slug: str | None = None
    archive_reason: ArchiveReason | None = None
    archived_at: datetime | None = None
    checkpoint_id: str | None = None
    format: str | None = None
    real_path: str | None = field(default=None, repr=False, compare=False)
    """The file's real path when discovery knows it without asking the filesystem (not part of `to_json`)."""

    @property
    def sort_time(self) -> datetime:
        """The best "last active" time: ``updated_at`` from ``sessions.json``, else the file's mtime."""
        return self.updated_at or self.mtime

    def to_json(self) -> dict[str, Any]:
        """Stable snake_case dict for ``--json`` output; times as ISO 8601 UTC strings ending in ``Z``."""
        return {
            "path": str(self.path),
            "kind": self.kind,
            "source": self.source,
            "session_id": self.session_id,
            "session_key": self.session_key,
            "agent_id": self.agent_id,
            "cwd_slug": self.cwd_slug,
            "archive_reason": self.archive_reason,
            "archived_at": _iso(self.archived_at),
            "checkpoint_id": self.checkpoint_id,
            "updated_at": _iso(self.updated_at),
            "mtime": _iso(self.mtime),
            "size": self.size,
            "format": self.format,
        }


def _iso(moment: datetime | None) -> str | None:
    """``2026-04-13T10:20:30.123Z`` (milliseconds kept only when non-zero), as JavaScript's toISOString writes."""
    if moment is None:
        return None
    utc = moment.astimezone(UTC)
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    millis = utc.microsecond // 1000
    return f"{text}.{millis:03d}Z" if utc.microsecond else f"{text}Z"


@dataclass
class Discovery:
    """Result of :func:`discover_sessions`: files sorted newest first, OpenClaw's SQLite stores (2026.7+) with their
    sessions, and non-fatal problems met on the way."""

    sessions: list[SessionFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    stores: list[StoreListing] = field(default_factory=list)

    @property
    def live(self) -> list[SessionFile]:
        """Only live transcripts."""
        return [s for s in self.sessions if s.kind == "live"]

    @property
    def others(self) -> list[SessionFile]:
        """Archives and checkpoints."""
        return [s for s in self.sessions if s.kind != "live"]

