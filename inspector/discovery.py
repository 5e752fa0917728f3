"""Find session transcripts on disk: OpenClaw agent session dirs, pi's session tree, or any directory.

File-name rules follow OpenClaw ``src/config/sessions/artifacts.ts`` and ``paths.ts`` (spec §1.1):

* live transcript: ``<sessionId>.jsonl`` (or ``<sessionId>-topic-<topic>.jsonl``), or whatever ``sessionFile`` in
  ``sessions.json`` names (relative to the sessions dir, or absolute);
* archive: ``<file>.jsonl.reset.<ts>`` / ``.deleted.<ts>`` / ``.bak.<ts>`` where ``<ts>`` is an ISO time with ``:``
  replaced by ``-`` (``2026-04-13T10-20-30.123Z``, optionally followed by ``.<32 hex>``), and repair backups
  ``<file>.bak-<pid>-<ms>``;
* checkpoint: ``<sessionId>.checkpoint.<uuid>.jsonl`` (pre-compaction copies);
* never listed: ``sessions.json`` and its backups/temps, ``*.lock``, temp files (``*.tmp``, ``.truncate-tmp``,
  ``.manual-compaction-tmp``), ``*.trajectory.jsonl``.

pi stores sessions under ``<agentDir>/sessions/--<cwd slug>--/<timestamp>_<sessionId>.jsonl`` where ``agentDir`` is
``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``.

:func:`discover_sessions` returns a :class:`Discovery` (``sessions`` plus ``warnings``); it never raises for
unreadable directories or a broken ``sessions.json``: those become warnings.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import json5

from inspector.config import legacy_state_dirs, openclaw_state_dir
from inspector.formats.detect import detect_format
from inspector.safeio import read_regular_file

SessionKind = Literal["live", "archive", "checkpoint"]
SessionSource = Literal["openclaw", "pi", "dir"]
ArchiveReason = Literal["reset", "deleted", "bak"]

SESSION_STORE_FILENAME = "sessions.json"

_ARCHIVE_SUFFIX_RE = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z)(?:\.([0-9a-f]{32}))?$")
_REPAIR_BACKUP_RE = re.compile(r"^(?P<file>.+)\.bak-(?P<pid>\d+)-(?P<ms>\d+)$")
_CHECKPOINT_RE = re.compile(
    r"^(?P<session>.+)\.checkpoint\."
    r"(?P<checkpoint>[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$",
    re.I,
)
_PI_FILE_RE = re.compile(r"^[^_]+_(?P<session>.+)\.jsonl$")
_TEMP_SUFFIXES = (".tmp", ".truncate-tmp", ".manual-compaction-tmp")
_EPOCH = datetime.fromtimestamp(0, tz=UTC)


@dataclass
class SessionFile:
    """One transcript file found on disk.

    ``kind`` is ``"live"``, ``"archive"`` (``archive_reason`` ``reset``/``deleted``/``bak``, ``archived_at`` from the
    name) or ``"checkpoint"`` (``checkpoint_id`` set). ``agent_id`` is set for OpenClaw dirs
    (``.../agents/<agentId>/sessions``), ``cwd_slug`` for pi dirs (``--home-me-project--``). ``session_key`` and
    ``updated_at`` come from ``sessions.json`` when an entry points at this file. ``mtime`` and ``updated_at`` are
    timezone-aware UTC datetimes.
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
    """Result of :func:`discover_sessions`: files sorted newest first, and non-fatal problems met on the way."""

    sessions: list[SessionFile] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def live(self) -> list[SessionFile]:
        """Only live transcripts."""
        return [s for s in self.sessions if s.kind == "live"]

    @property
    def others(self) -> list[SessionFile]:
        """Archives and checkpoints."""
        return [s for s in self.sessions if s.kind != "live"]


@dataclass(frozen=True)
class _Name:
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


def classify_file_name(name: str) -> _Name | None:
    """Classify a file name in a sessions directory; None for anything that is not a transcript.

    Archive checks come first (``hasArchiveSuffix``: the last ``.<reason>.`` followed by a valid stamp), then
    repair backups, then checkpoints, then plain ``.jsonl`` files.
    """
    if name == SESSION_STORE_FILENAME or name.startswith(SESSION_STORE_FILENAME + "."):
        return None
    if name.endswith(".lock") or name.endswith(_TEMP_SUFFIXES):
        return None
    for reason in ("reset", "deleted", "bak"):
        marker = f".{reason}."
        index = name.rfind(marker)
        if index < 0:
            continue
        stamp = _parse_archive_stamp(name[index + len(marker) :])
        if stamp is not None:
            base = name[:index]
            return _Name("archive", _strip_jsonl(base) or base, reason, stamp)
    repair = _REPAIR_BACKUP_RE.match(name)
    if repair:
        stamp = _ms_to_datetime(int(repair["ms"]))
        base = repair["file"]
        return _Name("archive", _strip_jsonl(base) or base, "bak", stamp)
    checkpoint = _CHECKPOINT_RE.match(name)
    if checkpoint:
        return _Name("checkpoint", checkpoint["session"], checkpoint_id=checkpoint["checkpoint"].lower())
    if name.endswith(".trajectory.jsonl"):
        return None
    stem = _strip_jsonl(name)
    if stem is None or not stem:
        return None
    return _Name("live", stem)


def _ms_to_datetime(value: Any) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


MAX_SESSION_STORE_BYTES = 256 * 1024 * 1024


def _load_session_store(path: Path, warnings: list[str]) -> dict[str, Any]:
    try:
        text = read_regular_file(path, MAX_SESSION_STORE_BYTES).decode("utf-8-sig")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        warnings.append(f"{path}: cannot read session index: {exc}")
        return {}
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except RecursionError:
        warnings.append(f"{path}: session index is nested too deeply to read; ignored")
        return {}
    except ValueError as exc:
        if len(text) > 4 * 1024 * 1024:  # JSON5 in pure Python would take minutes
            warnings.append(f"{path}: session index is not valid JSON; ignored")
            return {}
        try:
            data = json5.loads(text)
        except (ValueError, RecursionError):
            where = f"line {exc.lineno}: {exc.msg}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            warnings.append(f"{path}: session index is not valid JSON ({where}); ignored")
            return {}
    if not isinstance(data, dict):
        warnings.append(f"{path}: session index is not a JSON object; ignored")
        return {}
    return data


def _is_within(child: Path, parent: Path) -> bool:
    try:
        child.relative_to(parent)
    except ValueError:
        return False
    return True


def _resolve_session_file(sessions_dir: Path, candidate: str, agent_id: str | None) -> Path | None:
    """Where a ``sessionFile`` value points (``resolvePathWithinSessionsDir``), or None if OpenClaw would reject it.

    Relative paths must stay inside the sessions dir. Absolute paths inside it are accepted; absolute paths
    from another state root (``.../agents/<id>/sessions/<file>``) are re-rooted here when that file exists, or
    kept as they are when the agent id matches this dir's.
    """
    trimmed = candidate.strip()
    if not trimmed:
        return None
    base = Path(os.path.realpath(sessions_dir))
    raw = Path(trimmed)
    if not raw.is_absolute():
        resolved = Path(os.path.normpath(base / raw))
        return resolved if _is_within(resolved, base) and resolved != base else None
    real = Path(os.path.realpath(raw))
    if _is_within(real, base) and real != base:
        return real
    parts = Path(os.path.normpath(raw)).parts
    if "sessions" not in parts:
        return None
    index = len(parts) - 1 - parts[::-1].index("sessions")
    if index < 2 or parts[index - 2] != "agents":
        return None
    tail = parts[index + 1 :]
    if not tail:
        return None
    rerooted = Path(os.path.normpath(base.joinpath(*tail)))
    if _is_within(rerooted, base) and rerooted.exists():
        return rerooted
    if agent_id and len(tail) == 1 and parts[index - 1].lower() == agent_id.lower():
        return Path(os.path.normpath(raw))
    return None


def _stat_session(path: Path, name: _Name, source: SessionSource, warnings: list[str]) -> SessionFile | None:
    try:
        st = path.stat()
    except OSError as exc:
        warnings.append(f"{path}: cannot stat: {exc.strerror or exc}")
        return None
    return SessionFile(
        path=path,
        kind=name.kind,
        source=source,
        size=st.st_size,
        mtime=datetime.fromtimestamp(st.st_mtime, tz=UTC),
        session_id=name.session_id,
        archive_reason=name.archive_reason,
        archived_at=name.archived_at,
        checkpoint_id=name.checkpoint_id,
    )


def _list_dir(directory: Path, warnings: list[str]) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as it:
            return sorted(it, key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        warnings.append(f"{directory}: cannot list directory: {exc.strerror or exc}")
        return []


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False


def _agent_id_of(sessions_dir: Path) -> str | None:
    parts = sessions_dir.parts
    if len(parts) >= 3 and parts[-1] == "sessions" and parts[-3] == "agents":
        return parts[-2]
    return None


def scan_openclaw_sessions_dir(sessions_dir: Path, warnings: list[str]) -> list[SessionFile]:
    """All transcripts of one OpenClaw sessions dir, joined with its ``sessions.json`` index."""
    agent_id = _agent_id_of(sessions_dir)
    store = _load_session_store(sessions_dir / SESSION_STORE_FILENAME, warnings)
    by_path: dict[Path, tuple[str, dict[str, Any]]] = {}
    for key, entry in store.items():
        if not isinstance(entry, dict):
            continue
        session_id = entry.get("sessionId")
        target: Path | None = None
        session_file = entry.get("sessionFile")
        if isinstance(session_file, str) and session_file.strip():
            target = _resolve_session_file(sessions_dir, session_file, agent_id)
        if target is None and isinstance(session_id, str) and session_id.strip():
            target = Path(os.path.realpath(sessions_dir)) / f"{session_id.strip()}.jsonl"
        if target is None:
            continue
        previous = by_path.get(target)
        if previous is None or (_ms_to_datetime(entry.get("updatedAt")) or _EPOCH) > (
            _ms_to_datetime(previous[1].get("updatedAt")) or _EPOCH
        ):
            by_path[target] = (key, entry)

    found: list[SessionFile] = []
    seen: set[Path] = set()
    real_dir = Path(os.path.realpath(sessions_dir))
    for entry in _list_dir(sessions_dir, warnings):
        if not _is_file(entry):
            continue
        name = classify_file_name(entry.name)
        if name is None:
            continue
        path = Path(entry.path)
        session = _stat_session(path, name, "openclaw", warnings)
        if session is None:
            continue
        session.agent_id = agent_id
        seen.add(real_dir / entry.name)
        indexed = by_path.get(real_dir / entry.name)
        if indexed is not None:
            _apply_index(session, *indexed)
        found.append(session)

    # sessionFile overrides may point at files whose names do not look like transcripts, or outside the dir.
    for target, (key, entry) in by_path.items():
        if target in seen or not target.is_file():
            continue
        session = _stat_session(target, _Name("live", None), "openclaw", warnings)
        if session is None:
            continue
        session.agent_id = agent_id
        _apply_index(session, key, entry)
        found.append(session)
    return found


def _apply_index(session: SessionFile, key: str, entry: dict[str, Any]) -> None:
    session.session_key = key
    session_id = entry.get("sessionId")
    if isinstance(session_id, str) and session_id.strip():
        session.session_id = session_id.strip()
    session.updated_at = _ms_to_datetime(entry.get("updatedAt"))
    if session.kind != "live":
        session.kind = "live"
        session.archive_reason = None
        session.archived_at = None
        session.checkpoint_id = None


def _walk(root: Path, warnings: list[str]) -> Iterator[Path]:
    """Directories under ``root`` (itself included), sorted, not following symlinks; unreadable ones warned."""

    def on_error(exc: OSError) -> None:
        warnings.append(f"{exc.filename}: cannot list directory: {exc.strerror or exc}")

    for current, dirs, _files in os.walk(root, onerror=on_error):
        dirs.sort()
        yield Path(current)


def _is_pi_slug(name: str) -> bool:
    return len(name) > 4 and name.startswith("--") and name.endswith("--")


def _scan_plain_dir(directory: Path, warnings: list[str], source: SessionSource) -> list[SessionFile]:
    found: list[SessionFile] = []
    slug = directory.name if _is_pi_slug(directory.name) else None
    for entry in _list_dir(directory, warnings):
        if not _is_file(entry):
            continue
        name = classify_file_name(entry.name)
        if name is None:
            continue
        session = _stat_session(Path(entry.path), name, "pi" if slug else source, warnings)
        if session is None:
            continue
        if slug:
            session.cwd_slug = slug
            if name.kind == "live":
                pi_match = _PI_FILE_RE.match(entry.name)
                session.session_id = pi_match["session"] if pi_match else name.session_id
        found.append(session)
    return found


def _is_openclaw_sessions_dir(directory: Path) -> bool:
    return (directory / SESSION_STORE_FILENAME).is_file() or _agent_id_of(directory) is not None


def scan_tree(root: Path, warnings: list[str], source: SessionSource = "dir") -> list[SessionFile]:
    """Every transcript below ``root``: OpenClaw sessions dirs (with ``sessions.json`` or an
    ``agents/<id>/sessions`` path) get the OpenClaw treatment, ``--slug--`` dirs are pi's, the rest are plain."""
    found: list[SessionFile] = []
    for directory in _walk(root, warnings):
        if _is_openclaw_sessions_dir(directory):
            found.extend(scan_openclaw_sessions_dir(directory, warnings))
        else:
            found.extend(_scan_plain_dir(directory, warnings, source))
    return found


def _is_openclaw_state_dir(directory: Path) -> bool:
    """A state dir (``openclaw.json`` or ``agents/*/sessions`` inside): only its session dirs are transcripts;
    the rest (workspace, cron run logs, ...) may hold unrelated ``.jsonl`` files."""
    agents = directory / "agents"
    if not agents.is_dir():
        return False
    if (directory / "openclaw.json").is_file() or (directory / "clawdbot.json").is_file():
        return True
    try:
        return any((entry / "sessions").is_dir() for entry in agents.iterdir())
    except OSError:
        return False


def scan_openclaw_state_dir(state_dir: Path, warnings: list[str]) -> list[SessionFile]:
    """Transcripts of every agent under ``<stateDir>/agents/*/sessions``."""
    found: list[SessionFile] = []
    for agent in _list_dir(state_dir / "agents", warnings):
        sessions_dir = Path(agent.path) / "sessions"
        if sessions_dir.is_dir():
            found.extend(scan_openclaw_sessions_dir(sessions_dir, warnings))
    return found


def pi_agent_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """pi's agent dir (``getAgentDir``): ``$PI_CODING_AGENT_DIR`` (``~`` expanded) or ``<home>/.pi/agent``."""
    env = os.environ if env is None else env
    os_home = Path(home) if home is not None else Path(env.get("HOME") or Path.home())
    override = env.get("PI_CODING_AGENT_DIR")
    if override:
        if override == "~":
            return os_home
        if override.startswith("~/"):
            return os_home / override[2:]
        return Path(override)
    return os_home / ".pi" / "agent"


def _openclaw_state_roots(env: Mapping[str, str], home: Path | None) -> list[Path]:
    roots = [openclaw_state_dir(env, home)]
    for legacy in legacy_state_dirs(env, home):
        if legacy.is_dir():
            roots.append(legacy)
    unique: list[Path] = []
    seen: set[str] = set()
    for root in roots:
        real = os.path.realpath(root)
        if real not in seen:
            seen.add(real)
            unique.append(root)
    return unique


def discover_sessions(
    root: Path | None = None,
    *,
    home: Path | None = None,
    env: Mapping[str, str] = os.environ,
) -> Discovery:
    """Find transcripts, newest first.

    Without ``root``: ``<stateDir>/agents/*/sessions/`` of OpenClaw's state dir (and of the legacy
    ``~/.clawdbot`` when it exists too), plus pi's ``<agentDir>/sessions/**``. With ``root``: an OpenClaw state
    dir gives its agents' session dirs only; any other directory is scanned recursively (OpenClaw sessions dirs
    inside it still use their ``sessions.json``). ``home`` replaces ``$HOME``. Duplicates (one real file reached
    twice) are listed once.
    """
    result = Discovery()
    warnings = result.warnings
    if root is not None:
        root = Path(root)
        if not root.exists():
            warnings.append(f"{root}: no such directory")
        elif _is_regular(root):
            single = _stat_session(root, classify_file_name(root.name) or _Name("live", root.stem), "dir", warnings)
            result.sessions.extend([single] if single is not None else [])
        elif not root.is_dir():
            warnings.append(f"{root}: neither a directory nor a regular file")
        elif _is_openclaw_state_dir(root):
            result.sessions.extend(scan_openclaw_state_dir(root, warnings))
        else:
            result.sessions.extend(scan_tree(root, warnings))
    else:
        for state_dir in _openclaw_state_roots(env, home):
            result.sessions.extend(scan_openclaw_state_dir(state_dir, warnings))
        pi_sessions = pi_agent_dir(env, home) / "sessions"
        if pi_sessions.is_dir():
            result.sessions.extend(scan_tree(pi_sessions, warnings, source="pi"))
    result.sessions = _dedupe(result.sessions)
    result.sessions.sort(key=lambda s: (s.sort_time, str(s.path)), reverse=True)
    for session in result.sessions:
        session.format = detect_format(session.path).name
    return result


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _dedupe(sessions: list[SessionFile]) -> list[SessionFile]:
    """One entry per real file; a ``sessionFile`` override may list a file a second time from another dir."""
    by_real: dict[str, SessionFile] = {}
    for session in sessions:
        real = os.path.realpath(session.path)
        kept = by_real.get(real)
        if kept is None or (kept.session_key is None and session.session_key is not None):
            by_real[real] = session
    return list(by_real.values())
