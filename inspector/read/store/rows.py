"""The sessions a store holds: one `StoreSession` per transcript (`session_windows` row, or events without one).

A session key's row (`session_nodes`: `label`, `display_name`, `archived_at` columns and the `SessionEntry` in
`entry_json`: token counters, `compactionCount`, ...) describes the key's current session; an older session of the
same key (a reset, a rollover) shares its label and archive time but not its counters.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.read.store.connection import StoreError, read_transaction, table_names, text

TOKEN_FIELDS = (("input", "inputTokens"), ("output", "outputTokens"), ("total", "totalTokens"), ("context", "contextTokens"))
"""The `SessionEntry` token counters (best effort, provider-dependent), by the name they get here."""


@dataclass(slots=True)
class StoreSession:
    """One session of a store: its id and key, names, times (ms since the epoch), counters and event count."""

    store: Path
    session_id: str
    session_key: str | None = None
    agent_id: str | None = None
    label: str | None = None
    display_name: str | None = None
    updated_at: int | None = None
    archived_at: int | None = None
    current: bool = False
    """Whether this is its key's current session (the counters are the current session's)."""
    events: int = 0
    tokens: dict[str, int | None] = field(default_factory=dict)
    compaction_count: int | None = None

    @property
    def name(self) -> str | None:
        """What OpenClaw shows for it: the label, else the display name."""
        return self.label or self.display_name

    def to_json(self) -> dict[str, Any]:
        return {
            "store": str(self.store),
            "agent_id": self.agent_id,
            "session_id": self.session_id,
            "session_key": self.session_key,
            "label": self.label,
            "display_name": self.display_name,
            "updated_at": self.updated_at,
            "archived_at": self.archived_at,
            "current": self.current,
            "events": self.events,
            "tokens": self.tokens,
            "compaction_count": self.compaction_count,
        }


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _entry(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    return obj if isinstance(obj, dict) else {}


def list_sessions(conn: sqlite3.Connection, store: Path) -> list[StoreSession]:
    """Every session of the store, most recently updated first (one read transaction)."""
    with read_transaction(conn, store):
        tables = table_names(conn)
        if "transcript_events" not in tables or "session_windows" not in tables:
            raise StoreError(f"{store}: not an OpenClaw agent store (no transcript_events / session_windows table)")
        meta = conn.execute("SELECT agent_id FROM schema_meta WHERE role='agent' ORDER BY meta_key LIMIT 1").fetchone() if "schema_meta" in tables else None
        agent_id = text(meta[0]) if meta is not None else None
        nodes: dict[str, tuple[Any, ...]] = {}
        if "session_nodes" in tables:
            for row in conn.execute("SELECT session_key, current_session_id, entry_json, label, display_name, archived_at FROM session_nodes"):
                nodes[text(row[0]) or ""] = row
        counts = {
            text(sid) or "": n for sid, n in conn.execute("SELECT session_id, count(*) FROM transcript_events GROUP BY session_id")
        }
        out: list[StoreSession] = []
        seen: set[str] = set()
        for sid_raw, key_raw, display, updated in conn.execute(
            "SELECT session_id, session_key, display_name, updated_at FROM session_windows"
        ):
            sid, key = text(sid_raw) or "", text(key_raw)
            seen.add(sid)
            session = StoreSession(store, sid, key, agent_id, display_name=text(display), updated_at=_int(updated), events=counts.get(sid, 0))
            node = nodes.get(key or "")
            if node is not None:
                entry = _entry(node[2])
                session.current = text(node[1]) == sid
                session.label = text(node[3]) or _str(entry.get("label"))
                session.display_name = session.display_name or text(node[4]) or _str(entry.get("displayName"))
                session.archived_at = _int(node[5]) if node[5] is not None else _int(entry.get("archivedAt"))
                if session.current:
                    session.tokens = {name: _int(entry.get(field_name)) for name, field_name in TOKEN_FIELDS}
                    session.compaction_count = _int(entry.get("compactionCount"))
            out.append(session)
        for sid, n in counts.items():
            if sid not in seen:
                out.append(StoreSession(store, sid, None, agent_id, events=n))
    out.sort(key=lambda s: (s.updated_at or 0, s.session_id), reverse=True)
    return out


def pick_session(sessions: list[StoreSession], wanted: str | None) -> StoreSession | None:
    """`wanted` by session id, else by session key (the key's current session, else its newest); without `wanted`,
    the most recently updated session. None when nothing matches."""
    if not sessions:
        return None
    if wanted is None:
        return sessions[0]
    for s in sessions:
        if s.session_id == wanted:
            return s
    keyed = [s for s in sessions if s.session_key == wanted]
    current = [s for s in keyed if s.current]
    return (current or keyed)[0] if keyed else None
