"""Hand-built OpenClaw 2026.9 agent stores for tests (no node needed), and helpers shared by the store tests.

`STORE_SCHEMA` is the real schema of the tables the inspector reads, copied from the `sqlite_master` of a store
`openclaw doctor --session-sqlite import` (2026.9.6, agent schema 23) built; the FTS index, the triggers and the
tables nothing here reads are left out. `build_store` fills it the way the import does: one `session_windows` row
and one `session_nodes` row per key, the events from `seq` 0 (the header) in file order, events of at least 1 KiB
that compress well stored as a zstd frame (level 1, checksummed) with a `navigation_json` satisfying the table's
CHECK, the index state and the rewrite generation.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import zstandard

SCHEMA_VERSION = 23
APP_VERSION = "2026.9.6"
NAVIGATION = json.dumps({
    "version": 1, "report": {"kind": "canonical"}, "navigation": {}, "reset": {}, "model": {},
    "modelBytes": 0, "modelWithoutCheckpointBytes": 0, "withoutCustomDataBytes": 0,
})
"""A `navigation_json` the CHECK of `transcript_events` accepts (a compressed row must have one)."""

STORE_SCHEMA = """\
CREATE TABLE schema_meta (
  meta_key TEXT NOT NULL PRIMARY KEY,
  role TEXT NOT NULL,
  schema_version INTEGER NOT NULL,
  agent_id TEXT,
  app_version TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY,
  current_session_id TEXT NOT NULL,
  entry_json TEXT NOT NULL,
  legacy_acp_migration_json TEXT,
  entry_valid INTEGER NOT NULL DEFAULT 0 CHECK (entry_valid IN (-1, 0, 1)),
  updated_at INTEGER NOT NULL,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  created_at INTEGER,
  created_via TEXT CHECK (created_via IS NULL OR created_via IN ('operator', 'spawn', 'channel', 'cron', 'talk', 'run', 'plugin', 'internal')),
  created_actor_type TEXT CHECK (created_actor_type IS NULL OR created_actor_type IN ('human', 'agent', 'system')),
  created_actor_id TEXT,
  owner_actor_type TEXT,
  owner_actor_id TEXT,
  owner_assigned_by_type TEXT,
  owner_assigned_by_id TEXT,
  owner_assigned_at INTEGER,
  project_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  fork_source_session_key TEXT,
  fork_source_session_id TEXT,
  fork_source_entry_id TEXT,
  label TEXT,
  display_name TEXT,
  category TEXT,
  icon TEXT,
  pinned_at INTEGER,
  archived_at INTEGER,
  last_read_at INTEGER,
  last_interaction_at INTEGER,
  last_activity_at INTEGER
) STRICT;

CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  previous_session_id TEXT,
  reason TEXT CHECK (reason IS NULL OR reason IN ('initial', 'reset', 'rollover', 'fork', 'rewind', 'switch', 'recovery', 'compaction')),
  session_scope TEXT NOT NULL DEFAULT 'conversation' CHECK (session_scope IN ('conversation', 'shared-main', 'group', 'channel')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  transcript_updated_at INTEGER DEFAULT NULL,
  transcript_observed_at INTEGER DEFAULT NULL,
  session_entry_provenance INTEGER NOT NULL DEFAULT 0 CHECK (session_entry_provenance IN (0, 1)),
  acp_owned INTEGER NOT NULL DEFAULT 0 CHECK (acp_owned IN (0, 1)),
  plugin_owner_id TEXT,
  hook_external_content_source TEXT CHECK (hook_external_content_source IS NULL OR hook_external_content_source IN ('gmail', 'webhook')),
  started_at INTEGER,
  ended_at INTEGER,
  status TEXT CHECK (status IS NULL OR status IN ('running', 'done', 'failed', 'killed', 'timeout')),
  chat_type TEXT CHECK (chat_type IS NULL OR chat_type IN ('direct', 'group', 'channel')),
  channel TEXT,
  account_id TEXT,
  primary_conversation_id TEXT,
  model_provider TEXT,
  model TEXT,
  agent_harness_id TEXT,
  parent_session_key TEXT,
  spawned_by TEXT,
  display_name TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE,
  FOREIGN KEY (primary_conversation_id) REFERENCES conversations(conversation_id) ON DELETE SET NULL
) STRICT;

CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE,
  CHECK (
    (event_json IS NOT NULL AND event_zstd IS NULL)
    OR (
      event_json IS NULL AND event_zstd IS NOT NULL
      AND event_utf8_bytes IS NOT NULL
      AND event_utf8_bytes BETWEEN 1 AND 4194304
      AND length(event_zstd) BETWEEN 1 AND 4194304
      AND navigation_json IS NOT NULL
    )
  ),
  CHECK (
    navigation_json IS NULL OR CASE WHEN json_valid(navigation_json) THEN coalesce(
      octet_length(navigation_json) <= 16384
      AND json_type(navigation_json, '$.version') = 'integer'
      AND json_extract(navigation_json, '$.version') = 1
      AND json_type(navigation_json, '$.report') = 'object'
      AND json_extract(navigation_json, '$.report.kind') IN ('canonical', 'leaf', 'link', 'ignored')
      AND json_type(navigation_json, '$.navigation') = 'object'
      AND json_type(navigation_json, '$.reset') = 'object'
      AND json_type(navigation_json, '$.model') = 'object'
      AND json_type(navigation_json, '$.modelBytes') = 'integer'
      AND json_extract(navigation_json, '$.modelBytes') BETWEEN 0 AND 4194304
      AND json_type(navigation_json, '$.modelWithoutCheckpointBytes') = 'integer'
      AND json_extract(navigation_json, '$.modelWithoutCheckpointBytes') BETWEEN 0 AND 4194304
      AND json_type(navigation_json, '$.withoutCustomDataBytes') = 'integer'
      AND json_extract(navigation_json, '$.withoutCustomDataBytes') BETWEEN 0 AND 4194304,
      0) ELSE 0 END
  )
) STRICT;

CREATE TABLE transcript_event_identities (
  session_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_type TEXT,
  parent_id TEXT,
  message_idempotency_key TEXT,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, event_id),
  FOREIGN KEY (session_id, seq) REFERENCES transcript_events(session_id, seq) ON DELETE CASCADE
) STRICT;

CREATE TABLE session_transcript_active_events (
  session_id TEXT NOT NULL,
  active_position INTEGER NOT NULL CHECK (active_position >= 0),
  event_seq INTEGER NOT NULL,
  message_position INTEGER CHECK (message_position IS NULL OR message_position >= 0),
  context_eligible INTEGER,
  PRIMARY KEY (session_id, active_position),
  FOREIGN KEY (session_id, event_seq) REFERENCES transcript_events(session_id, seq) ON DELETE CASCADE
) STRICT;

CREATE TABLE session_transcript_index_state (
  session_id TEXT NOT NULL PRIMARY KEY,
  indexed_seq INTEGER NOT NULL,
  leaf_event_id TEXT,
  needs_rebuild INTEGER NOT NULL DEFAULT 0,
  active_event_count INTEGER NOT NULL DEFAULT 0,
  active_message_count INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;

CREATE TABLE transcript_rewrite_watermarks (
  session_id TEXT NOT NULL PRIMARY KEY,
  generation TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  FOREIGN KEY (session_id) REFERENCES "session_windows"(session_id) ON DELETE CASCADE
) STRICT;

CREATE INDEX idx_agent_session_nodes_updated_at
  ON session_nodes(updated_at DESC, session_key);

CREATE INDEX idx_agent_session_nodes_last_interaction_at
  ON session_nodes(last_interaction_at DESC, session_key);

CREATE INDEX idx_agent_session_nodes_label
  ON session_nodes(label, session_key)
  WHERE label IS NOT NULL;

CREATE INDEX idx_agent_session_nodes_parent_session_key
  ON session_nodes(parent_session_key, session_key);

CREATE INDEX idx_agent_session_nodes_spawned_by
  ON session_nodes(spawned_by, session_key);

CREATE INDEX idx_agent_session_nodes_status
  ON session_nodes(status, session_key)
  WHERE status IS NOT NULL;

CREATE INDEX idx_agent_session_nodes_archived_at
  ON session_nodes(archived_at, session_key)
  WHERE archived_at IS NOT NULL;

CREATE INDEX idx_agent_session_nodes_active
  ON session_nodes(session_key)
  WHERE archived_at IS NULL;

CREATE INDEX idx_agent_session_nodes_current_session_id
  ON session_nodes(current_session_id);

CREATE INDEX idx_agent_session_nodes_entry_valid_pending
  ON session_nodes(session_key)
  WHERE entry_valid = 0;

CREATE INDEX idx_agent_session_nodes_entry_not_valid
  ON session_nodes(session_key)
  WHERE entry_valid != 1;

CREATE INDEX idx_agent_session_windows_updated_at
  ON session_windows(updated_at DESC, session_id);

CREATE INDEX idx_agent_session_windows_session_key
  ON session_windows(session_key, updated_at DESC, session_id);

CREATE INDEX idx_agent_session_windows_created_at
  ON session_windows(created_at DESC, session_id);

CREATE INDEX idx_agent_session_windows_conversation
  ON session_windows(primary_conversation_id, updated_at DESC, session_id)
  WHERE primary_conversation_id IS NOT NULL;

CREATE UNIQUE INDEX idx_agent_transcript_message_idempotency
  ON transcript_event_identities(session_id, message_idempotency_key)
  WHERE message_idempotency_key IS NOT NULL;

CREATE INDEX idx_agent_transcript_event_identity_sequence
  ON transcript_event_identities(session_id, seq);

CREATE INDEX idx_agent_transcript_event_parent
  ON transcript_event_identities(session_id, parent_id)
  WHERE parent_id IS NOT NULL;

CREATE INDEX idx_agent_transcript_event_sequence
  ON transcript_event_identities(session_id, event_type, seq DESC);

CREATE UNIQUE INDEX idx_agent_transcript_active_event_seq
  ON session_transcript_active_events(session_id, event_seq);

CREATE UNIQUE INDEX idx_agent_transcript_active_messages
  ON session_transcript_active_events(session_id, message_position)
  WHERE message_position IS NOT NULL;

CREATE INDEX idx_agent_transcript_context_pending
  ON session_transcript_active_events(session_id)
  WHERE context_eligible IS NULL;
"""


def store_path(home: Path, agent: str = "main") -> Path:
    """`<home>/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite` (its folder created)."""
    path = home / ".openclaw" / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def compress(data: bytes) -> bytes:
    """A zstd frame as OpenClaw writes one (level 1, with a checksum and the content size)."""
    return zstandard.ZstdCompressor(level=1, write_checksum=True, write_content_size=True).compress(data)


def event_row(seq: int, line: bytes, *, compress_from: int | None = 1024) -> tuple[Any, ...]:
    """`(seq, event_json, event_zstd, event_utf8_bytes, navigation_json)` of one event, compressed as OpenClaw does
    when at least `compress_from` bytes and the frame saves a tenth (None: never)."""
    if compress_from is not None and len(line) >= compress_from and b"\\u" not in line:
        frame = compress(line)
        if len(frame) <= len(line) - max(64, -(-len(line) // 10)) and not line.startswith(b'{"type":"session"'):
            return (seq, None, frame, len(line), NAVIGATION)
    return (seq, line.decode("utf-8"), None, len(line), None)


def _octet_length(value: Any) -> int | None:
    if value is None:
        return None
    return len(value.encode("utf-8", "surrogatepass")) if isinstance(value, str) else len(value) if isinstance(value, bytes) else len(str(value))


def writer(path: Path) -> sqlite3.Connection:
    """A connection that writes the store as the Gateway would (autocommit; `octet_length`, which the CHECKs use, defined
    for SQLite libraries older than 3.43)."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=10)
    conn.create_function("octet_length", 1, _octet_length, deterministic=True)
    return conn


def create_store(path: Path, *, journal: str = "wal", agent: str = "main", app_version: str = APP_VERSION) -> sqlite3.Connection:
    """An empty store with the real schema (`journal`: `wal` as OpenClaw's, or `delete`); the connection stays open."""
    conn = writer(path)
    conn.execute(f"PRAGMA journal_mode={journal}")
    conn.executescript(STORE_SCHEMA)
    conn.execute(
        "INSERT INTO schema_meta VALUES ('primary', 'agent', ?, ?, ?, 1, 1)", (SCHEMA_VERSION, agent, app_version)
    )
    return conn


def add_session(
    conn: sqlite3.Connection,
    key: str,
    lines: list[bytes],
    *,
    session_id: str | None = None,
    updated_at: int = 1_760_000_000_000,
    entry: dict[str, Any] | None = None,
    label: str | None = None,
    display_name: str | None = None,
    archived_at: int | None = None,
    compress_from: int | None = 1024,
) -> str:
    """Add a session (its key's current one) with `lines` as its events from seq 0; returns its id (the header's
    when `lines` start with one)."""
    if session_id is None:
        try:
            session_id = json.loads(lines[0])["id"]
        except (IndexError, ValueError, KeyError, TypeError):
            session_id = str(uuid.uuid4())
    node = {"sessionId": session_id, "updatedAt": updated_at, **(entry or {})}
    conn.execute("BEGIN")
    conn.execute(
        "INSERT OR REPLACE INTO session_nodes (session_key, current_session_id, entry_json, updated_at, label, display_name, archived_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (key, session_id, json.dumps(node), updated_at, label, display_name, archived_at),
    )
    conn.execute(
        "INSERT INTO session_windows (session_id, session_key, created_at, updated_at, display_name) VALUES (?, ?, ?, ?, ?)",
        (session_id, key, updated_at, updated_at, display_name),
    )
    conn.executemany(
        "INSERT INTO transcript_events (session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, 0)",
        ((session_id, *event_row(seq, line, compress_from=compress_from)) for seq, line in enumerate(lines)),
    )
    _add_identities(conn, session_id, 0, lines)
    conn.execute(
        "INSERT INTO session_transcript_index_state (session_id, indexed_seq, leaf_event_id, updated_at) VALUES (?, ?, ?, 0)",
        (session_id, len(lines) - 1, _last_id(lines)),
    )
    conn.execute("INSERT INTO transcript_rewrite_watermarks VALUES (?, ?, 0)", (session_id, uuid.uuid4().hex))
    conn.execute("COMMIT")
    return session_id


def _add_identities(conn: sqlite3.Connection, session_id: str, first_seq: int, lines: list[bytes]) -> None:
    """The `transcript_event_identities` rows of events with an id, as the Gateway writes them (the first event of an id)."""
    rows = []
    for seq, line in enumerate(lines, first_seq):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        event_id = event.get("id") if isinstance(event, dict) else None
        if isinstance(event_id, str) and event_id.strip():
            parent = event.get("parentId")
            kind = event.get("type")
            rows.append((session_id, event_id.strip(), seq, kind if isinstance(kind, str) else None, parent if isinstance(parent, str) else None))
    conn.executemany(
        "INSERT OR IGNORE INTO transcript_event_identities (session_id, event_id, seq, event_type, parent_id, created_at) VALUES (?, ?, ?, ?, ?, 0)",
        rows,
    )


def _last_id(lines: list[bytes]) -> str | None:
    for line in reversed(lines):
        try:
            got = json.loads(line).get("id")
        except (ValueError, AttributeError):
            continue
        if isinstance(got, str):
            return got
    return None


def append_events(conn: sqlite3.Connection, session_id: str, lines: list[bytes], *, compress_from: int | None = 1024) -> None:
    """Append events after the session's last seq, as the Gateway does (one transaction)."""
    conn.execute("BEGIN IMMEDIATE")
    (last,) = conn.execute("SELECT coalesce(max(seq), -1) FROM transcript_events WHERE session_id=?", (session_id,)).fetchone()
    conn.executemany(
        "INSERT INTO transcript_events (session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, 0)",
        ((session_id, *event_row(last + 1 + i, line, compress_from=compress_from)) for i, line in enumerate(lines)),
    )
    _add_identities(conn, session_id, last + 1, lines)
    conn.execute("UPDATE session_transcript_index_state SET indexed_seq=? WHERE session_id=?", (last + len(lines), session_id))
    conn.execute("COMMIT")


def rewrite_session(conn: sqlite3.Connection, session_id: str, lines: list[bytes]) -> None:
    """Replace the session's events (a rewrite: new generation), as a Gateway compaction rewrite does."""
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("DELETE FROM transcript_events WHERE session_id=?", (session_id,))
    conn.execute("DELETE FROM transcript_event_identities WHERE session_id=?", (session_id,))
    conn.executemany(
        "INSERT INTO transcript_events (session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, 0)",
        ((session_id, *event_row(seq, line)) for seq, line in enumerate(lines)),
    )
    _add_identities(conn, session_id, 0, lines)
    conn.execute("UPDATE transcript_rewrite_watermarks SET generation=? WHERE session_id=?", (uuid.uuid4().hex, session_id))
    conn.execute("COMMIT")


def build_store(home: Path, sessions: dict[str, Path | list[bytes]], *, journal: str = "wal", **kw: Any) -> tuple[Path, dict[str, str]]:
    """A store under `home` holding `sessions` (key -> JSONL file or its lines), the later keys updated later;
    returns the store's path and each key's session id."""
    path = store_path(home)
    conn = create_store(path, journal=journal)
    ids = {}
    for n, (key, source) in enumerate(sessions.items()):
        lines = source if isinstance(source, list) else jsonl_lines(source)
        ids[key] = add_session(conn, key, lines, updated_at=1_760_000_000_000 + n, **kw)
    conn.close()
    return path, ids


def jsonl_lines(path: Path) -> list[bytes]:
    """A JSONL file's non-empty lines."""
    return [line for line in Path(path).read_bytes().split(b"\n") if line]


def dump_session(store: Path, session_id: str, out: Path) -> Path:
    """The session's events as a JSONL file, read with plain sqlite3 and zstandard (apart from the inspector's reader):
    what the store holds, e.g. after an import normalised it."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    conn.text_factory = bytes
    rows = conn.execute(
        "SELECT event_json, event_zstd FROM transcript_events WHERE session_id=? ORDER BY seq", (session_id,)
    ).fetchall()
    conn.close()
    plain = zstandard.ZstdDecompressor()
    out.write_bytes(b"".join((text if text is not None else plain.decompress(blob)) + b"\n" for text, blob in rows))
    return out
