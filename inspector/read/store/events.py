"""One session's transcript events, read from a store in one consistent snapshot and decoded.

A row of `transcript_events` holds its event as `event_json` (TEXT) or, for a large event, as a plain zstd frame
in `event_zstd` (level 1, checksummed, no dictionary: OpenClaw's `prepareTranscriptPayload`) whose decoded size is
`event_utf8_bytes`. Decoding checks what OpenClaw's reader checks (bounds, the exact size, UTF-8); an event that
fails becomes a `StoreProblem` naming its `seq` and a placeholder line that no JSON parser accepts, so the
session's reader reports it like a damaged line (its `unparseable` diagnostic then shows the problem, by `seq`).

The index state's `leaf_event_id` counts only where OpenClaw 2026.9.6's Gateway reads it
(`readActiveTranscriptAppendParentId`): when no event of the session has an identity row
(`transcript_event_identities`) and the index is current (a rewrite watermark, `needs_rebuild` 0, `indexed_seq` the
last event's `seq`, no active event of unknown context eligibility), the leaf it names is the parent of the next
message the Gateway appends (`EventsSnapshot.leaf_from_index`); otherwise the Gateway takes it from the events.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from inspector.js.utf16 import js_trim
from inspector.read.store.connection import read_transaction, text

MAX_EVENT_BYTES = 4_194_304
"""OpenClaw's bound on a compressed event and on its decoded size (`MAX_COMPRESSED_EVENT_BYTES`)."""
PLACEHOLDER = b"!damaged store event seq=%d"
"""The mirror line standing in for an event that cannot be decoded (never valid JSON)."""
INDEX_LEAF_SQL = """
SELECT state.leaf_event_id FROM session_transcript_index_state AS state
JOIN transcript_rewrite_watermarks AS rewrite ON rewrite.session_id = state.session_id
WHERE state.session_id = ?1 AND state.needs_rebuild = 0
  AND state.indexed_seq = (SELECT seq FROM transcript_events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1)
  AND NOT EXISTS (SELECT 1 FROM session_transcript_active_events WHERE session_id = ?1 AND context_eligible IS NULL)
  AND NOT EXISTS (
    SELECT 1 FROM transcript_event_identities AS ti
    JOIN transcript_events AS te ON te.session_id = ti.session_id AND te.seq = ti.seq
    WHERE ti.session_id = ?1
  )
"""
"""A row when the Gateway takes the session's append parent from the index state (`readActiveTranscriptAppendParentId`
of 2026.9.6: no event with an identity row, and the index current)."""


@dataclass(frozen=True, slots=True)
class StoreProblem:
    """A damaged event: its `seq`, a diagnostic `kind` and `message`; `skipped` when a placeholder stands in for it."""

    seq: int
    kind: str
    message: str
    severity: str = "error"
    skipped: bool = True

    def to_json(self) -> list[object]:
        return [self.seq, self.kind, self.message, self.severity, self.skipped]

    @classmethod
    def from_json(cls, raw: list[object]) -> StoreProblem:
        seq, kind, message, severity, skipped = raw
        return cls(int(seq), str(kind), str(message), str(severity), bool(skipped))  # type: ignore[call-overload]


@dataclass(slots=True)
class EventsSnapshot:
    """What one read transaction saw of a session: its rewrite generation, index state and the events read."""

    generation: str | None = None
    leaf_event_id: str | None = None
    indexed_seq: int | None = None
    kept: int | None = None
    """Rows at or below the caller's `after_seq` (None when everything was read): a mirror checks its prefix by it."""
    seqs: list[int] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)
    """The events read (empty when they were written to `read_events`'s `out` instead)."""
    written: int = 0
    """Bytes written to `out`."""
    stale: bool = False
    """`read_events` found another generation, or another count of rows up to `after_seq`, than expected: no row read."""
    problems: list[StoreProblem] = field(default_factory=list)
    app_version: str | None = None
    schema_version: int | None = None
    session_key: str | None = None
    leaf_from_index: bool = False
    """The Gateway appends the next message under `leaf_event_id` (`INDEX_LEAF_SQL`); else it reads the events."""
    leaf_found: bool | None = None
    """With `leaf_from_index` and a `leaf_event_id`: whether an event of the session has that id (None: not asked)."""


_decompressor = None


def _zstd_decompress(blob: bytes, size: int) -> bytes:
    global _decompressor
    if _decompressor is None:
        import zstandard

        _decompressor = zstandard.ZstdDecompressor()
    return _decompressor.decompress(blob, max_output_size=size)


def decode_event(seq: int, event_json: bytes | None, event_zstd: bytes | None, utf8_bytes: int | None) -> tuple[bytes, StoreProblem | None]:
    """The event's bytes as one JSONL line (no newline), or a placeholder and the problem."""
    if event_json is not None:
        if not isinstance(event_json, (bytes, bytearray, memoryview)):
            return PLACEHOLDER % seq, StoreProblem(seq, "store_event_type", f"seq {seq}: event_json is not text ({type(event_json).__name__}); skipped")
        data = bytes(event_json)
        if b"\n" in data:
            return PLACEHOLDER % seq, StoreProblem(seq, "store_event_newline", f"seq {seq}: event_json holds a raw newline; skipped")
        if utf8_bytes is not None and utf8_bytes != len(data):
            problem = StoreProblem(
                seq, "store_event_size", f"seq {seq}: event_utf8_bytes says {utf8_bytes:,} bytes, event_json holds {len(data):,}",
                "warning", skipped=False,
            )
            return data, problem
        return data, None
    if event_zstd is None:
        return PLACEHOLDER % seq, StoreProblem(seq, "store_event_missing", f"seq {seq}: neither event_json nor event_zstd; skipped")
    blob = bytes(event_zstd)
    if not blob or len(blob) > MAX_EVENT_BYTES or type(utf8_bytes) is not int or not 1 <= utf8_bytes <= MAX_EVENT_BYTES:
        return PLACEHOLDER % seq, StoreProblem(
            seq, "store_event_bounds", f"seq {seq}: compressed event out of bounds ({len(blob):,} bytes, event_utf8_bytes {utf8_bytes!r}); skipped"
        )
    try:
        data = _zstd_decompress(blob, utf8_bytes)
    except Exception as exc:  # zstandard.ZstdError and anything a damaged frame provokes
        return PLACEHOLDER % seq, StoreProblem(seq, "store_event_zstd", f"seq {seq}: zstd frame cannot be decoded ({exc}); skipped")
    if len(data) != utf8_bytes:
        return PLACEHOLDER % seq, StoreProblem(
            seq, "store_event_size", f"seq {seq}: decoded {len(data):,} bytes, event_utf8_bytes says {utf8_bytes:,}; skipped"
        )
    try:
        data.isascii() or data.decode("utf-8")  # ASCII is UTF-8: checked without building the string
    except UnicodeDecodeError:
        return PLACEHOLDER % seq, StoreProblem(seq, "store_event_utf8", f"seq {seq}: decoded event is not UTF-8; skipped")
    if b"\n" in data:
        return PLACEHOLDER % seq, StoreProblem(seq, "store_event_newline", f"seq {seq}: decoded event holds a raw newline; skipped")
    return data, None


def _index_leaf(conn: sqlite3.Connection, sid: str, snap: EventsSnapshot) -> None:
    """Whether the Gateway takes the append parent from the index state and, if it names one, whether it exists."""
    try:
        row = conn.execute(INDEX_LEAF_SQL, (sid,)).fetchone()
    except sqlite3.OperationalError:  # a store without the transcript index tables: the Gateway reads the events
        return
    if row is None:
        return
    snap.leaf_from_index = True
    if snap.leaf_event_id is not None:
        rows = conn.execute("SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id=?", (sid,))
        snap.leaf_found = snap.leaf_event_id in _event_ids(rows)


def _event_ids(rows: Iterable[tuple[int, bytes | None, bytes | None, int | None]]) -> Iterable[str]:
    """The ids of the events (an event's string `id`, trimmed, as OpenClaw's `readTranscriptEventIdentity` reads it)."""
    for seq, event_json, event_zstd, utf8_bytes in rows:
        data, problem = decode_event(seq, event_json, event_zstd, utf8_bytes)
        if problem is not None and problem.skipped:
            continue
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError:
            continue
        event_id = event.get("id") if isinstance(event, dict) else None
        if isinstance(event_id, str) and js_trim(event_id):
            yield js_trim(event_id)


def read_events(
    conn: sqlite3.Connection,
    store: Path | str,
    session_id: str,
    after_seq: int | None = None,
    out: BinaryIO | None = None,
    expect: tuple[str | None, int] | None = None,
) -> EventsSnapshot:
    """The session's events past `after_seq` (all when None), in seq order, with the generation, the index state,
    the session's key and the store's schema, all from one read transaction.

    `out`: write each event there as a line (its bytes and a newline) instead of keeping it in `lines`. `expect`:
    the generation and the count of rows up to `after_seq` the caller holds; when the store says otherwise, no row
    is read (`stale`)."""
    snap = EventsSnapshot()
    sid = session_id
    with read_transaction(conn, store):
        if not read_state(conn, sid, snap, after_seq, expect):
            return snap
        take_rows(event_rows(conn, sid, after_seq), snap, out)
    return snap


def read_state(conn: sqlite3.Connection, sid: str, snap: EventsSnapshot, after_seq: int | None, expect: tuple[str | None, int] | None) -> bool:
    """Fill `snap` with the session's generation, index state, key and the store's schema (inside the caller's read
    transaction); False when `expect` says the caller's rows up to `after_seq` are stale (`snap.stale`)."""
    row = conn.execute("SELECT generation FROM transcript_rewrite_watermarks WHERE session_id=?", (sid,)).fetchone()
    snap.generation = text(row[0]) if row is not None else None
    row = conn.execute("SELECT indexed_seq, leaf_event_id FROM session_transcript_index_state WHERE session_id=?", (sid,)).fetchone()
    if row is not None:
        snap.indexed_seq = row[0] if isinstance(row[0], int) else None
        snap.leaf_event_id = text(row[1])
        _index_leaf(conn, sid, snap)
    row = conn.execute("SELECT session_key FROM session_windows WHERE session_id=?", (sid,)).fetchone()
    snap.session_key = text(row[0]) if row is not None else None
    row = conn.execute("SELECT schema_version, app_version FROM schema_meta WHERE role='agent' ORDER BY meta_key LIMIT 1").fetchone()
    if row is not None:
        snap.schema_version = row[0] if isinstance(row[0], int) else None
        snap.app_version = text(row[1])
    if after_seq is not None:
        snap.kept = conn.execute("SELECT count(*) FROM transcript_events WHERE session_id=? AND seq<=?", (sid, after_seq)).fetchone()[0]
        if expect is not None and expect != (snap.generation, snap.kept):
            snap.stale = True
            return False
    return True


def event_rows(conn: sqlite3.Connection, sid: str, after_seq: int | None) -> sqlite3.Cursor:
    """`(seq, event_json, event_zstd, event_utf8_bytes)` of the session's rows past `after_seq` (all when None), in
    seq order (inside the caller's read transaction)."""
    return conn.execute(
        "SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id=? AND seq>? ORDER BY seq",
        (sid, -(2**63) if after_seq is None else after_seq),
    )


def take_rows(rows: Iterable[tuple[Any, ...]], snap: EventsSnapshot, out: BinaryIO | None) -> None:
    """Decode `rows` (`event_rows`) into `snap`: their seqs and problems, each event written to `out` as a line (its
    bytes and a newline; `snap.written` grows) or, without `out`, kept in `snap.lines`."""
    seqs, problems = snap.seqs, snap.problems
    keep = snap.lines.append if out is None else None
    write = out.write if out is not None else None
    written = 0
    for seq, event_json, event_zstd, utf8_bytes in rows:
        if event_zstd is None and type(event_json) is bytes and b"\n" not in event_json and (utf8_bytes is None or utf8_bytes == len(event_json)):
            data = event_json  # the common row, checked inline
        else:
            data, problem = decode_event(seq, event_json, event_zstd, utf8_bytes)
            if problem is not None:
                problems.append(problem)
        seqs.append(seq)
        if write is not None:
            written += write(data) + write(b"\n")
        else:
            keep(data)  # type: ignore[misc]
    snap.written += written
