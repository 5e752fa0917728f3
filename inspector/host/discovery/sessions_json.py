"""OpenClaw's session store (``sessions.json``): read it leniently and map its entries onto transcript files.

A ``sessionFile`` value is resolved as OpenClaw's ``resolvePathWithinSessionsDir`` does; an entry without one points
at ``<sessionId>.jsonl``. A store that is unreadable, not JSON/JSON5 or not an object becomes a warning, never an error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import json5

from inspector.base.safeio import read_regular_file
from inspector.host.discovery.files import SessionFile
from inspector.host.discovery.names import EPOCH, ms_to_datetime

MAX_SESSION_STORE_BYTES = 256 * 1024 * 1024


def load_session_store(path: Path, warnings: list[str]) -> dict[str, Any]:
    """The store's object (JSON, else JSON5 as OpenClaw reads it); {} with a warning when it cannot be used."""
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


def resolve_session_file(
    sessions_dir: Path, candidate: str, agent_id: str | None, real_dir: str | None = None
) -> Path | None:
    """Where a ``sessionFile`` value points (``resolvePathWithinSessionsDir``), or None if OpenClaw would reject it.

    Relative paths must stay inside the sessions dir. Absolute paths inside it are accepted; absolute paths
    from another state root (``.../agents/<id>/sessions/<file>``) are re-rooted here when that file exists, or
    kept as they are when the agent id matches this dir's.
    """
    trimmed = candidate.strip()
    if not trimmed:
        return None
    base = Path(real_dir if real_dir is not None else os.path.realpath(sessions_dir))
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



def store_targets(store: dict[str, Any], sessions_dir: Path, agent_id: str | None) -> dict[str, tuple[str, dict[str, Any]]]:
    """The file each store entry points at (real path as a string) -> (key, entry); the latest `updatedAt` wins."""
    by_path: dict[str, tuple[str, dict[str, Any]]] = {}
    real_dir = os.path.realpath(sessions_dir)
    for key, entry in store.items():
        if not isinstance(entry, dict):
            continue
        session_id = entry.get("sessionId")
        target: str | None = None
        session_file = entry.get("sessionFile")
        if isinstance(session_file, str) and session_file.strip():
            resolved = resolve_session_file(sessions_dir, session_file, agent_id, real_dir)
            target = str(resolved) if resolved is not None else None
        if target is None and isinstance(session_id, str) and session_id.strip():
            target = os.path.join(real_dir, f"{session_id.strip()}.jsonl")
        if target is None:
            continue
        previous = by_path.get(target)
        if previous is None or (ms_to_datetime(entry.get("updatedAt")) or EPOCH) > (
            ms_to_datetime(previous[1].get("updatedAt")) or EPOCH
        ):
            by_path[target] = (key, entry)
    return by_path


def apply_index(session: SessionFile, key: str, entry: dict[str, Any]) -> None:
    session.session_key = key
    session_id = entry.get("sessionId")
    if isinstance(session_id, str) and session_id.strip():
        session.session_id = session_id.strip()
    session.updated_at = ms_to_datetime(entry.get("updatedAt"))
    if session.kind != "live":
        session.kind = "live"
        session.archive_reason = None
        session.archived_at = None
        session.checkpoint_id = None

