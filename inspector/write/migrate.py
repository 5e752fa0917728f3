"""`compact --migrate`: a version 1 or 2 session file rewritten as pi does when it opens one, safely and with undo.

pi 0.66.1's `SessionManager` (`migrateToCurrentVersion`, spec §1.6) brings an older file to version 3 when it opens
it and rewrites it whole (`writeFileSync`, not atomic):

* v1 → v2: every entry but the `session` header gets a fresh 8-hex `id` and a `parentId` chaining it to the entry
  before it; a compaction's `firstKeptEntryIndex` (an index into the parsed lines, the header counted as 0) becomes
  `firstKeptEntryId` (the id of the entry it names, when that entry was given one already) and is deleted;
* v2 → v3: a message whose `role` is `hookMessage` gets `custom`;
* every `session` line's `version` is set (2, then 3); new keys go last, as JavaScript adds them; every other field,
  known or not, is kept; pi writes the parsed lines back (`JSON.stringify` each), a line JSON.parse rejects and blank
  lines left out.

`migrate_session(path)` does the same through this tool's write path instead: under OpenClaw's session lock, the file
as it was kept as a checkpoint (a hard link: `<name>.checkpoint.<uuid>.jsonl`), the new content written to
`<file>.migrate-tmp`, fsynced and renamed over it, lines appended meanwhile migrated and carried, the rewrite
journaled (`rewrite.rewrite_session_file`) with a `migrate` record that `undo` reverts (the checkpoint's bytes put
back, refused when anything was appended since). A file pi would not migrate (no valid header) is refused.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.js.jsjson import js_stringify
from inspector.js.timeutil import iso_from_ms
from inspector.write.journal import Journal, JournalRecord, new_record_id, normalized_path
from inspector.write.lock import DEFAULT_TIMEOUT_MS, acquire_session_write_lock
from inspector.write.recovery import recover_pending
from inspector.write.rewrite import (
    MIGRATE_TMP_SUFFIX,
    REWRITE_TMP_SUFFIXES,
    PreparedRewrite,
    remove_stale_temps,
    rewrite_session_file,
)
from inspector.write.sessionfile import (
    CURRENT_VERSION,
    Buffer,
    SessionWriteError,
    check_file_writable,
    parse_lines,
    resolve_session_path,
)
from inspector.write.writer import checkpoint_path_for

MIGRATION_ENTRY_ID = "migration"
"""The `entry_id` of a migration's journal record (it adds no entry)."""


@dataclass(frozen=True)
class MigrationResult:
    """What `migrate_session` did: the version it found, the checkpoint of the file as it was, how many entries got
    ids, how many roles were renamed, how many lines pi would drop were left out, and the sizes."""

    path: Path
    from_version: int
    checkpoint: Path
    ids_added: int
    roles_renamed: int
    lines_dropped: int
    size_before: int
    size_after: int
    recovered: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"path": str(self.path), "from_version": self.from_version, "to_version": CURRENT_VERSION, "checkpoint": str(self.checkpoint),
                "ids_added": self.ids_added, "roles_renamed": self.roles_renamed, "lines_dropped": self.lines_dropped,
                "size_before": self.size_before, "size_after": self.size_after, "recovered": list(self.recovered)}


class Migrator:
    """pi's `migrateToCurrentVersion` over parsed lines, its state kept so that lines appended during the rewrite
    continue the chain (see the module docstring)."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.entries: list[Any] = []
        """Every parsed line so far, the header first (what `firstKeptEntryIndex` indexes)."""
        self.prev_id: str | None = None
        self.used: set[str] = set()
        self.ids_added = 0
        self.roles_renamed = 0
        self.lines_dropped = 0

    def _new_id(self) -> str:
        while True:
            candidate = str(uuid.uuid4())[:8]
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate

    def migrate_one(self, entry: dict[str, Any]) -> dict[str, Any]:
        """One parsed line, migrated (the same object, changed in place as pi changes it)."""
        self.entries.append(entry)
        if self.version < 2:
            if entry.get("type") == "session":
                entry["version"] = 2
            else:
                entry["id"] = self._new_id()
                entry["parentId"] = self.prev_id
                self.prev_id = entry["id"]
                self.ids_added += 1
                if entry.get("type") == "compaction" and "firstKeptEntryIndex" in entry:
                    self._first_kept(entry)
        if entry.get("type") == "session":
            entry["version"] = CURRENT_VERSION
        elif entry.get("type") == "message" and isinstance(entry.get("message"), dict) and entry["message"].get("role") == "hookMessage":
            entry["message"]["role"] = "custom"
            self.roles_renamed += 1
        return entry

    def _first_kept(self, entry: dict[str, Any]) -> None:
        index = entry["firstKeptEntryIndex"]
        if isinstance(index, (int, float)) and not isinstance(index, bool):
            target = self.entries[int(index)] if float(index).is_integer() and 0 <= index < len(self.entries) else None
            if isinstance(target, dict) and target.get("type") != "session" and "id" in target:
                entry["firstKeptEntryId"] = target["id"]
            del entry["firstKeptEntryIndex"]

    def lines(self, data: Buffer) -> list[bytes]:
        """The migrated lines of `data` (complete lines), JSON.stringify'd; blank and unparsable lines left out."""
        out = []
        for line in parse_lines(data):
            if not line.raw.strip():
                continue
            if not line.parsed:
                self.lines_dropped += 1
                continue
            value = line.value if not line.is_object else line.obj
            if not isinstance(value, dict):
                raise SessionWriteError(f"line at byte {line.start} is JSON but no object: pi could not migrate this file; nothing changed")
            out.append(js_stringify(self.migrate_one(dict(value))).encode("utf-8"))
        return out


def file_version(data: Buffer) -> int | None:
    """The version pi reads from a file (`version` of its header, 1 when absent); None when pi would find no valid
    header (the first parsed line is no `session` object with a string `id`)."""
    first = next((line for line in parse_lines(data) if line.parsed), None)
    header = first.obj if first is not None else None
    if not isinstance(header, dict) or header.get("type") != "session" or not isinstance(header.get("id"), str):
        return None
    version = header.get("version")
    return int(version) if isinstance(version, (int, float)) and not isinstance(version, bool) and version == int(version) else 1


def migrated_bytes(data: Buffer) -> tuple[bytes, Migrator]:
    """The whole file as pi's migration writes it (the checkpoint-free core of `migrate_session`; tests compare it
    with pi's own)."""
    version = file_version(data)
    if version is None:
        raise SessionWriteError("no valid session header (pi would start the file afresh): nothing changed")
    migrator = Migrator(version)
    return b"\n".join(migrator.lines(data)) + b"\n", migrator


def migrate_session(
    path: Path | str, *, journal: Journal | None = None, clock: Clock | None = None, lock_timeout_ms: int = DEFAULT_TIMEOUT_MS,
    before_rename: Callable[[], None] | None = None,
) -> MigrationResult:
    """Migrate `path` to version 3 (see the module docstring); a version 3 file is refused (nothing to do)."""
    path = resolve_session_path(path)
    journal = journal or Journal()
    clock = clock or SystemClock()
    with acquire_session_write_lock(path, timeout_ms=lock_timeout_ms, clock=clock):
        check_file_writable(path, "nothing changed")
        recovered = tuple(recover_pending(path, journal)) + tuple(
            f"removed {t.name} left by an interrupted rewrite" for t in remove_stale_temps(path, REWRITE_TMP_SUFFIXES)
        )
        state: dict[str, Any] = {}

        def build(snapshot: Buffer) -> tuple[bytes, Callable[[bytes], bytes]]:
            version = file_version(snapshot)
            if version is None:
                raise SessionWriteError(f"{path}: no valid session header (pi would start the file afresh); nothing changed")
            if version >= CURRENT_VERSION:
                raise SessionWriteError(f"{path}: already version {version}; nothing to migrate")
            if snapshot and not snapshot.endswith(b"\n"):
                raise SessionWriteError(f"{path}: the last line is incomplete (a write in progress?); nothing changed")
            content, migrator = migrated_bytes(snapshot)
            state.update(version=version, migrator=migrator)

            def carry(extra: bytes) -> bytes:
                lines = migrator.lines(extra)
                return b"\n".join(lines) + b"\n" if lines else b""

            return content, carry

        checkpoint = checkpoint_path_for(path)

        def companion(prepared: PreparedRewrite) -> JournalRecord:
            state["record"] = JournalRecord(
                record_id=new_record_id(), path=normalized_path(path), mode="migrate", status="pending", entry_id=MIGRATION_ENTRY_ID,
                parent_id=None, created_at=iso_from_ms(now_ms(clock)), line_sha256="", line_len=0, size_before=prepared.snapshot_size,
                offset=0, size_after=len(prepared.content), checkpoint=str(checkpoint),
                content_sha256=hashlib.sha256(prepared.content).hexdigest(), checkpoint_size=prepared.snapshot_size,
                checkpoint_sha256=prepared.snapshot_sha256,
            )
            return state["record"]

        outcome = rewrite_session_file(path, build, tmp_suffix=MIGRATE_TMP_SUFFIX, keep_as=checkpoint, journal=journal,
                                       purpose=lambda: f"migration of a version {state['version']} file to version {CURRENT_VERSION}",
                                       companion=companion, before_rename=before_rename)
    m: Migrator = state["migrator"]
    return MigrationResult(path, state["version"], checkpoint, m.ids_added, m.roles_renamed, m.lines_dropped, outcome.snapshot_size,
                           outcome.written_size + outcome.carried_bytes, recovered + outcome.notes)
