"""Find session transcripts on disk: OpenClaw agent session dirs, pi's session tree, or any directory.

File names are classified by `names` (OpenClaw's live/archive/checkpoint rules, spec §1.1); a ``sessionFile`` in
``sessions.json`` (`store`) may name any file, relative to the sessions dir or absolute.

pi stores sessions under ``<agentDir>/sessions/--<cwd slug>--/<timestamp>_<sessionId>.jsonl`` where ``agentDir`` is
``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent``.

:func:`discover_sessions` returns a :class:`Discovery` (``sessions`` plus ``warnings``); it never raises for
unreadable directories or a broken ``sessions.json``: those become warnings.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

from inspector.host.discovery.files import Discovery, SessionFile
from inspector.host.discovery.names import PI_FILE_RE, SESSION_STORE_FILENAME, FileName, SessionSource, classify_file_name
from inspector.host.discovery.sessions_json import apply_index, load_session_store, store_targets
from inspector.host.discovery.stores import IMPORT_ARCHIVE_DIR, STORE_FILENAME, list_store, store_of, stores_of_state_dir
from inspector.host.openclaw_config import legacy_state_dirs, openclaw_state_dir
from inspector.host.pi_home import pi_agent_dir
from inspector.read.detect import detect_format


def _stat_session(
    path: Path, name: FileName, source: SessionSource, warnings: list[str], entry: os.DirEntry[str] | None = None
) -> SessionFile | None:
    try:
        st = entry.stat() if entry is not None else path.stat()
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


def _real_path_of(entry: os.DirEntry[str], real_dir: str) -> str:
    """The entry's real path: its name in the directory's real path, unless it is a symlink."""
    try:
        if not entry.is_symlink():
            return os.path.join(real_dir, entry.name)
    except OSError:
        pass
    return os.path.realpath(entry.path)


def _agent_id_of(sessions_dir: Path) -> str | None:
    parts = sessions_dir.parts
    if len(parts) >= 3 and parts[-1] == "sessions" and parts[-3] == "agents":
        return parts[-2]
    return None


def scan_openclaw_sessions_dir(sessions_dir: Path, warnings: list[str]) -> list[SessionFile]:
    """All transcripts of one OpenClaw sessions dir, joined with its ``sessions.json`` index."""
    agent_id = _agent_id_of(sessions_dir)
    store = load_session_store(sessions_dir / SESSION_STORE_FILENAME, warnings)
    by_path = store_targets(store, sessions_dir, agent_id)
    found: list[SessionFile] = []
    seen: set[str] = set()
    real_dir = os.path.realpath(sessions_dir)
    for entry, _name, session in _transcripts(sessions_dir, real_dir, "openclaw", warnings):
        session.agent_id = agent_id
        key = os.path.join(real_dir, entry.name)
        seen.add(key)
        indexed = by_path.get(key)
        if indexed is not None:
            apply_index(session, *indexed)
        found.append(session)

    # sessionFile overrides may point at files whose names do not look like transcripts, or outside the dir.
    for target, (key, item) in by_path.items():
        if target in seen or not os.path.isfile(target):
            continue
        override = _stat_session(Path(target), FileName("live", None), "openclaw", warnings)
        if override is None:
            continue
        override.agent_id = agent_id
        apply_index(override, key, item)
        found.append(override)
    return found


def _walk(root: Path, warnings: list[str]) -> Iterator[Path]:
    """Directories under ``root`` (itself included), sorted, not following symlinks; unreadable ones warned."""

    def on_error(exc: OSError) -> None:
        warnings.append(f"{exc.filename}: cannot list directory: {exc.strerror or exc}")

    for current, dirs, _files in os.walk(root, onerror=on_error):
        dirs.sort()
        yield Path(current)


def _is_pi_slug(name: str) -> bool:
    return len(name) > 4 and name.startswith("--") and name.endswith("--")


def _transcripts(
    directory: Path, real_dir: str, source: SessionSource, warnings: list[str]
) -> Iterator[tuple[os.DirEntry[str], FileName, SessionFile]]:
    """The transcript files of one directory (by name; unreadable ones warned and left out), each with its
    classified name and its `SessionFile` (real path set)."""
    for entry in _list_dir(directory, warnings):
        if not _is_file(entry):
            continue
        name = classify_file_name(entry.name)
        if name is None:
            continue
        session = _stat_session(Path(entry.path), name, source, warnings, entry)
        if session is None:
            continue
        session.real_path = _real_path_of(entry, real_dir)
        yield entry, name, session


def _scan_plain_dir(directory: Path, warnings: list[str], source: SessionSource) -> list[SessionFile]:
    found: list[SessionFile] = []
    slug = directory.name if _is_pi_slug(directory.name) else None
    for entry, name, session in _transcripts(directory, os.path.realpath(directory), "pi" if slug else source, warnings):
        if slug:
            session.cwd_slug = slug
            if name.kind == "live":
                pi_match = PI_FILE_RE.match(entry.name)
                session.session_id = pi_match["session"] if pi_match else name.session_id
        found.append(session)
    return found


def _is_openclaw_sessions_dir(directory: Path) -> bool:
    return (directory / SESSION_STORE_FILENAME).is_file() or _agent_id_of(directory) is not None


def scan_tree(root: Path, warnings: list[str], source: SessionSource = "dir", stores: list[Path] | None = None) -> list[SessionFile]:
    """Every transcript below ``root``: OpenClaw sessions dirs (with ``sessions.json`` or an
    ``agents/<id>/sessions`` path) get the OpenClaw treatment, ``--slug--`` dirs are pi's, the rest are plain.
    ``stores``: collects the OpenClaw SQLite stores (``openclaw-agent.sqlite``) found on the way."""
    found: list[SessionFile] = []
    for directory in _walk(root, warnings):
        if stores is not None and (directory / STORE_FILENAME).is_file():
            stores.append(directory / STORE_FILENAME)
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
        return any((entry / "sessions").is_dir() or (entry / "agent" / STORE_FILENAME).is_file() for entry in agents.iterdir())
    except OSError:
        return False


def scan_openclaw_state_dir(state_dir: Path, warnings: list[str]) -> list[SessionFile]:
    """Transcripts of every agent under ``<stateDir>/agents/*/sessions``, and the JSONL archived by an import into
    the agent's SQLite store (``agents/*/session-sqlite-import-archive``)."""
    found: list[SessionFile] = []
    for agent in _list_dir(state_dir / "agents", warnings):
        sessions_dir = Path(agent.path) / "sessions"
        if sessions_dir.is_dir():
            found.extend(scan_openclaw_sessions_dir(sessions_dir, warnings))
        archive_dir = Path(agent.path) / IMPORT_ARCHIVE_DIR
        if archive_dir.is_dir():
            for _entry, _name, session in _transcripts(archive_dir, os.path.realpath(archive_dir), "openclaw", warnings):
                session.agent_id = agent.name
                found.append(session)
    return found


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
    formats: bool = True,
) -> Discovery:
    """Find transcripts, newest first.

    Without ``root``: ``<stateDir>/agents/*/sessions/`` of OpenClaw's state dir (and of the legacy
    ``~/.clawdbot`` when it exists too), plus pi's ``<agentDir>/sessions/**``, Claude Code's projects and Codex's
    rollouts (`other_agents`). With ``root``: an OpenClaw state
    dir gives its agents' session dirs only; any other directory is scanned recursively (OpenClaw sessions dirs
    inside it still use their ``sessions.json``). ``home`` replaces ``$HOME``. Duplicates (one real file reached
    twice) are listed once. ``formats=False`` leaves ``format`` None instead of reading each file's first lines.
    OpenClaw's SQLite stores (``agents/*/agent/openclaw-agent.sqlite`` of a state dir, any found below ``root``, or
    ``root`` itself) are listed with their sessions in ``stores`` (read only).
    """
    result = Discovery()
    warnings = result.warnings
    stores: list[Path] = []
    if root is not None:
        root = Path(root)
        if not root.exists():
            warnings.append(f"{root}: no such directory")
        elif _is_regular(root) and store_of(root) is not None:
            stores.append(root)
        elif _is_regular(root):
            single = _stat_session(root, classify_file_name(root.name) or FileName("live", root.stem), "dir", warnings)
            result.sessions.extend([single] if single is not None else [])
        elif not root.is_dir():
            warnings.append(f"{root}: neither a directory nor a regular file")
        elif _is_openclaw_state_dir(root):
            result.sessions.extend(scan_openclaw_state_dir(root, warnings))
            stores.extend(stores_of_state_dir(root))
        else:
            result.sessions.extend(scan_tree(root, warnings, stores=stores))
    else:
        for state_dir in _openclaw_state_roots(env, home):
            result.sessions.extend(scan_openclaw_state_dir(state_dir, warnings))
            stores.extend(stores_of_state_dir(state_dir))
        pi_sessions = pi_agent_dir(env, home) / "sessions"
        if pi_sessions.is_dir():
            result.sessions.extend(scan_tree(pi_sessions, warnings, source="pi"))
        from inspector.host.discovery.other_agents import scan_claude_code, scan_codex

        result.sessions.extend(scan_claude_code(env, home, warnings))
        result.sessions.extend(scan_codex(env, home, warnings))
    seen: set[str] = set()
    for store in stores:
        real = os.path.realpath(store)
        if real not in seen:
            seen.add(real)
            listing = list_store(store)
            result.stores.append(listing)
            if listing.error:
                warnings.append(listing.error)
    result.sessions = _dedupe(result.sessions)
    result.sessions.sort(key=lambda s: (s.sort_time, str(s.path)), reverse=True)
    if formats:
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
        real = session.real_path or os.path.realpath(session.path)
        kept = by_real.get(real)
        if kept is None or (kept.session_key is None and session.session_key is not None):
            by_real[real] = session
    return list(by_real.values())
