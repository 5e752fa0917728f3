"""What this tool wrote into session files, so `undo` can revert exactly that and nothing else.

One JSON document in the state dir (`journal.json`, the same flock + atomic-replace discipline as the breaker).
Each compaction commit adds a record:

* `mode` `append`: the entry id, its parent, the byte offset and SHA-256 of the line we appended, the file's
  identity (`dev`, `ino`) and size before/after;
* `mode` `truncate`: also the checkpoint copy (the file as it was just before the rewrite), the SHA-256 and
  size of the rewritten file as we renamed it into place, and its new identity.

An append is recorded as `pending` before the line is written and `committed` after its fsync; a pending
record found later is resolved by `writer.recover_pending` (a torn line of ours is cut off, a complete one is
confirmed). `undo` marks its record `undone`, and gives the file's new identity (its rename) to the older
committed records of that file, so they can be undone in turn. The newest `MAX_RECORDS` records are kept.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspector.write.statefile import JsonStateFile, state_dir

JOURNAL_FILE_NAME = "journal.json"
MAX_RECORDS = 500

Status = Literal["pending", "committed", "undone", "abandoned"]


def _norm(path: Path | str) -> str:
    return os.path.realpath(os.path.abspath(path))


@dataclass
class JournalRecord:
    """One write this tool made (or was about to make) to a session file."""

    record_id: str
    path: str
    mode: Literal["append", "truncate"]
    status: Status
    entry_id: str
    parent_id: str | None
    created_at: str
    line_sha256: str
    line_len: int
    size_before: int
    offset: int | None = None
    size_after: int | None = None
    dev: int | None = None
    ino: int | None = None
    checkpoint: str | None = None
    content_sha256: str | None = None
    entries_removed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, raw: Any) -> JournalRecord | None:
        """A record from the stored form (None when it is not one)."""
        if not isinstance(raw, dict):
            return None
        fields: dict[str, Any] = {k: raw.get(k) for k in cls.__dataclass_fields__ if k in raw}
        try:
            return cls(**fields)
        except TypeError:
            return None


@dataclass
class Journal:
    """The write journal (see the module docstring)."""

    file: JsonStateFile = field(default_factory=lambda: JsonStateFile(state_dir() / JOURNAL_FILE_NAME))

    @classmethod
    def at(cls, path: Path) -> Journal:
        """A journal stored at `path` (tests)."""
        return cls(JsonStateFile(path))

    @staticmethod
    def _records(data: dict[str, Any]) -> list[JournalRecord]:
        raw = data.get("records")
        out = []
        if isinstance(raw, list):
            for item in raw:
                rec = JournalRecord.from_json(item)
                if rec is not None:
                    out.append(rec)
        return out

    def records_for(self, path: Path | str) -> list[JournalRecord]:
        """Records of one session file, oldest first."""
        key = _norm(path)
        return [r for r in self._records(self.file.read().data) if r.path == key]

    def last_committed(self, path: Path | str) -> JournalRecord | None:
        """The newest committed record of a file (what `undo` reverts)."""
        recs = [r for r in self.records_for(path) if r.status == "committed"]
        return recs[-1] if recs else None

    def pending(self, path: Path | str) -> list[JournalRecord]:
        """Pending appends of a file (a process died between intent and confirmation)."""
        return [r for r in self.records_for(path) if r.status == "pending"]

    def add(self, record: JournalRecord) -> None:
        """Store a new record."""
        with self.file.locked() as loaded:
            records = self._records(loaded.data) if loaded.problem is None else []
            records.append(record)
            self.file.save({"version": 1, "records": [r.to_json() for r in records[-MAX_RECORDS:]]}, loaded)

    def mark_undone(self, record_id: str, dev: int, ino: int) -> None:
        """Mark a record `undone` after `undo` renamed the file (`dev`, `ino`) into place.

        The older committed records of the same file take the new identity: the replacement was this tool's own,
        so the previous compaction can be undone next (newest first), its content still checked as usual.
        """
        with self.file.locked() as loaded:
            records = self._records(loaded.data) if loaded.problem is None else []
            target = next((r for r in records if r.record_id == record_id), None)
            if target is not None:
                target.status = "undone"
                for r in records:
                    if r.path == target.path and r.status == "committed":
                        r.dev, r.ino = dev, ino
            self.file.save({"version": 1, "records": [r.to_json() for r in records[-MAX_RECORDS:]]}, loaded)

    def update(self, record_id: str, **changes: Any) -> None:
        """Change fields of a stored record."""
        with self.file.locked() as loaded:
            records = self._records(loaded.data) if loaded.problem is None else []
            for r in records:
                if r.record_id == record_id:
                    for k, v in changes.items():
                        setattr(r, k, v)
            self.file.save({"version": 1, "records": [r.to_json() for r in records[-MAX_RECORDS:]]}, loaded)


def new_record_id() -> str:
    """A fresh record id."""
    return uuid.uuid4().hex


def normalized_path(path: Path | str) -> str:
    """The key a file is journaled under (absolute, symlinks resolved)."""
    return _norm(path)
