"""OpenClaw 2026.7+'s agent stores on disk: which store a PATH names, the stores of a state dir, what each holds,
and which of its sessions a command opens (`open_store_session`: `--session ID_OR_KEY`, else the newest).

A store is `<stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite`; a PATH may name the file itself, the agent
dir (`agents/<id>`) or its `agent/` dir. The JSONL the import archived (`agents/<id>/session-sqlite-import-archive/
<key>.<sessionId>.jsonl.imported-<ms>`) is listed as archives by the file-name rules (`names`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.read.store.connection import StoreError, connect
from inspector.read.store.events import EventsSnapshot
from inspector.read.store.locate import STORE_FILENAME, is_sqlite_file, store_of  # noqa: F401  (store_of re-exported)
from inspector.read.store.mirror import Mirror, sync_mirror
from inspector.read.store.rows import StoreSession, list_sessions, pick_session

IMPORT_ARCHIVE_DIR = "session-sqlite-import-archive"
"""Where `openclaw doctor --session-sqlite import` moves the JSONL it imported (beside the agent's `sessions/`)."""
KNOWN_KEYS_SHOWN = 5


class StoreSessionError(StoreError):
    """`--session` names no session of the store (or the store holds none); the message lists a few known ones."""


def stores_of_state_dir(state_dir: Path) -> list[Path]:
    """`<stateDir>/agents/*/agent/openclaw-agent.sqlite`, sorted."""
    agents = state_dir / "agents"
    try:
        names = sorted(os.listdir(agents))
    except OSError:
        return []
    return [store for name in names if (store := agents / name / "agent" / STORE_FILENAME).is_file()]


@dataclass
class StoreListing:
    """One store and its sessions (most recently updated first), or why it could not be read."""

    path: Path
    sessions: list[StoreSession] = field(default_factory=list)
    error: str | None = None

    @property
    def agent_id(self) -> str | None:
        for s in self.sessions:
            if s.agent_id:
                return s.agent_id
        parts = self.path.parts
        return parts[-3] if len(parts) >= 4 and parts[-2] == "agent" and parts[-4] == "agents" else None

    def to_json(self) -> dict[str, Any]:
        return {
            "store": str(self.path),
            "agent_id": self.agent_id,
            "error": self.error,
            "sessions": [s.to_json() for s in self.sessions],
        }


def list_store(path: Path) -> StoreListing:
    """The sessions of the store at `path` (never raises: a store that cannot be read says why)."""
    listing = StoreListing(path)
    try:
        conn = connect(path)
        try:
            listing.sessions = list_sessions(conn, path)
        finally:
            conn.close()
    except StoreError as exc:
        listing.error = str(exc)
    return listing


def choose_session(store: Path, wanted: str | None) -> StoreSession:
    """The session `--session` names (by id or key), else the most recently updated one; `StoreSessionError` when
    none matches (with a few known keys)."""
    conn = connect(store)
    try:
        sessions = list_sessions(conn, store)
    finally:
        conn.close()
    chosen = pick_session(sessions, wanted)
    if chosen is not None:
        return chosen
    if not sessions:
        raise StoreSessionError(f"{store}: the store holds no session")
    known = [s.session_key or s.session_id for s in sessions[:KNOWN_KEYS_SHOWN]]
    more = f" (and {len(sessions) - KNOWN_KEYS_SHOWN} more)" if len(sessions) > KNOWN_KEYS_SHOWN else ""
    raise StoreSessionError(f"{store}: no session {wanted!r}; known: {', '.join(known)}{more}")


def open_store_session(store: Path, wanted: str | None, index: bool = False, explicit_rules: str | None = None) -> Mirror:
    """Choose the session (`choose_session`) and bring its JSONL mirror up to date (`sync_mirror`).

    `index`: a big session whose mirror is written whole is indexed in the same pass (`session.store_index`), under
    the rules `choose_rules` gives it (`explicit_rules`: `--rules`), and the next `open_session` of the mirror gets
    that index."""
    chosen = choose_session(store, wanted)
    rewrite = None
    if index:
        from inspector.session.store_index import IndexingRewrite

        rewrite = IndexingRewrite(lambda snap: _index_rules(snap, explicit_rules))
    mirror = sync_mirror(store, chosen.session_id, rewrite=rewrite)
    if rewrite is not None and rewrite.session is not None:
        from inspector.session.session import preload

        preload(rewrite.session)
    if mirror.session_key is None:
        mirror.session_key = chosen.session_key
    return mirror


def _index_rules(snap: EventsSnapshot, explicit: str | None) -> str | None:
    """The rules a store session is read with (`choose_rules`), from what the read found of the store's writer."""
    from inspector.host.rules_choice import choose_rules
    from inspector.rules.ruleset import UnknownRulesError

    try:
        return choose_rules(explicit, store=snap).id
    except UnknownRulesError:
        return None
