"""What this tool wrote into session files, so `undo` can revert exactly that and nothing else.

One JSON document in the state dir (`journal.json`, the same flock + atomic-replace discipline as the breaker).
Each compaction commit adds a record:

* `mode` `append`: the entry id, its parent, the byte offset and SHA-256 of the line we appended, the file's
  identity (`dev`, `ino`) and size before/after;
* `mode` `truncate`: also the checkpoint (the file as it was just before the rewrite) with its size and SHA-256
  (`checkpoint_size`, `checkpoint_sha256`: `undo` refuses a checkpoint that no longer starts with exactly those
  bytes), the SHA-256 and size of the rewritten content as we renamed it into place, and its new identity;
* `mode` `migrate` (`migrate.py`: a version 1/2 file rewritten as version 3; `entry_id` "migration", no line): the
  checkpoint and the migrated content, as a truncation's.

An append is recorded as `pending` before the line is written and `committed` after its fsync; a pending
record found later is resolved by `recovery.recover_pending` (a torn line of ours is cut off, a complete one is
confirmed). `undo` marks its record `undone`, and gives the file's new identity (its rename) to the older
committed records of that file, so they can be undone in turn. The newest `MAX_RECORDS` records are kept.

Every whole-file rewrite (truncation, undo) also adds a `ReplacedFile` record (`rewrite.py`): where the replaced
file is kept (its checkpoint or backup, a hard link to it), how many of its bytes are already in the new file,
and the new file's size and SHA-256 (to tell, after a crash, whether the rename happened). It is `pending`
before the rename, `open` while the kept file may still receive lines a process writes into the replaced file,
`closed` when it cannot (a copy, or the kept file is gone) and `abandoned` when the rename never happened.
An undo's record is marked `undone` (`mark_undone`'s change) in the same write that journals its outcome, or
when the next run finds the undo's rename done (`recovery.recover_replaced`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Self, TypeVar

from inspector.write.statefile import JsonStateFile, StateLoad, state_dir

JOURNAL_FILE_NAME = "journal.json"
MAX_RECORDS = 500

Status = Literal["pending", "committed", "undone", "abandoned"]


def _norm(path: Path | str) -> str:
    return os.path.realpath(os.path.abspath(path))


_S = TypeVar("_S", bound="_Stored")


class _Stored:
    """A journal record's stored form: its fields as a JSON object, read back leniently."""

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, raw: Any) -> Self | None:
        """A record from the stored form (None when it is not one)."""
        if not isinstance(raw, dict):
            return None
        fields: dict[str, Any] = {k: raw.get(k) for k in cls.__dataclass_fields__ if k in raw}  # type: ignore[attr-defined]
        try:
            return cls(**fields)
        except TypeError:
            return None


def _stored_list(data: dict[str, Any], key: str, kind: type[_S]) -> list[_S]:
    """The well-formed records of `kind` in the journal's list `key` (others are skipped)."""
    raw = data.get(key)
    if not isinstance(raw, list):
        return []
    return [rec for item in raw if (rec := kind.from_json(item)) is not None]


@dataclass
class JournalRecord(_Stored):
    """One write this tool made (or was about to make) to a session file."""

    record_id: str
    path: str
    mode: Literal["append", "truncate", "migrate"]
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
    checkpoint_size: int | None = None
    checkpoint_sha256: str | None = None


ReplacedStatus = Literal["pending", "open", "closed", "abandoned"]


@dataclass
class ReplacedFile(_Stored):
    """A session file a rewrite replaced, kept reachable so that lines written into it late are not lost."""

    record_id: str
    path: str
    purpose: str
    kept: str
    replaced_dev: int
    replaced_ino: int
    carried_upto: int
    new_size: int
    new_sha256: str
    status: ReplacedStatus
    created_at: str
    undo_of: str | None = None
    """For an undo: the compaction record it reverts (marked `undone` when a crash hid whether it did)."""



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
        return _stored_list(data, "records", JournalRecord)

    @staticmethod
    def _replaced(data: dict[str, Any]) -> list[ReplacedFile]:
        return _stored_list(data, "replaced", ReplacedFile)

    def _save(self, loaded: StateLoad, records: list[JournalRecord], replaced: list[ReplacedFile]) -> None:
        self.file.save(
            {"version": 1, "records": [r.to_json() for r in records[-MAX_RECORDS:]], "replaced": [r.to_json() for r in replaced[-MAX_RECORDS:]]},
            loaded,
        )

    def _change(self, change: Callable[[list[JournalRecord], list[ReplacedFile]], None]) -> None:
        with self.file.locked() as loaded:
            ok = loaded.problem is None
            records = self._records(loaded.data) if ok else []
            replaced = self._replaced(loaded.data) if ok else []
            change(records, replaced)
            self._save(loaded, records, replaced)

    def records_for(self, path: Path | str) -> list[JournalRecord]:
        """Records of one session file, oldest first."""
        key = _norm(path)
        return [r for r in self._records(self.file.read().data) if r.path == key]

    def record(self, record_id: str) -> JournalRecord | None:
        """The compaction record with this id (None when unknown)."""
        return next((r for r in self._records(self.file.read().data) if r.record_id == record_id), None)

    def last_committed(self, path: Path | str) -> JournalRecord | None:
        """The newest committed record of a file (what `undo` reverts)."""
        recs = [r for r in self.records_for(path) if r.status == "committed"]
        return recs[-1] if recs else None

    def pending(self, path: Path | str) -> list[JournalRecord]:
        """Pending appends of a file (a process died between intent and confirmation)."""
        return [r for r in self.records_for(path) if r.status == "pending"]

    def replaced_for(self, path: Path | str) -> list[ReplacedFile]:
        """Files rewrites of `path` replaced that may still hold lines to carry over (`pending` or `open`), oldest first."""
        key = _norm(path)
        return [r for r in self._replaced(self.file.read().data) if r.path == key and r.status in ("pending", "open")]

    def needs_recovery(self, path: Path | str) -> bool:
        """True when a crash left something of `path` to resolve, or a replaced file is still watched."""
        data = self.file.read().data
        key = _norm(path)
        return any(r.path == key and r.status == "pending" for r in self._records(data)) or any(
            r.path == key and r.status in ("pending", "open") for r in self._replaced(data)
        )

    def add(self, record: JournalRecord) -> None:
        """Store a new record."""
        self._change(lambda records, replaced: records.append(record))

    def mark_undone(self, record_id: str, dev: int, ino: int) -> None:
        """Mark a record `undone` after `undo` renamed the file (`dev`, `ino`) into place.

        The older committed records of the same file take the new identity: the replacement was this tool's own,
        so the previous compaction can be undone next (newest first), its content still checked as usual.
        """
        self._change(lambda records, replaced: _mark_undone(records, record_id, dev, ino))

    def update(self, record_id: str, **changes: Any) -> None:
        """Change fields of a stored record."""
        self._change(lambda records, replaced: _set(records, record_id, changes))

    def add_replaced(self, record: ReplacedFile, with_record: JournalRecord | None = None) -> None:
        """Store a new replaced-file record (and `with_record`, the compaction it writes, in the same write)."""

        def change(records: list[JournalRecord], replaced: list[ReplacedFile]) -> None:
            replaced.append(record)
            if with_record is not None:
                records.append(with_record)

        self._change(change)

    def update_replaced(
        self,
        record_id: str,
        *,
        record_changes: dict[str, dict[str, Any]] | None = None,
        undone: tuple[str, int, int] | None = None,
        **changes: Any,
    ) -> None:
        """Change fields of a stored replaced-file record and, in the same write, of the compaction records in
        `record_changes` (record id -> fields) and, for an undo, mark its compaction undone (`undone`: record id,
        dev, ino of the file renamed into place, as `mark_undone`): a rewrite's outcome is journaled at once."""

        def change(records: list[JournalRecord], replaced: list[ReplacedFile]) -> None:
            _set(replaced, record_id, changes)
            for rid, fields in (record_changes or {}).items():
                _set(records, rid, fields)
            if undone is not None:
                _mark_undone(records, *undone)

        self._change(change)


def _set(items: list[Any], record_id: str, changes: dict[str, Any]) -> None:
    for r in items:
        if r.record_id == record_id:
            for k, v in changes.items():
                setattr(r, k, v)


def _mark_undone(records: list[JournalRecord], record_id: str, dev: int, ino: int) -> None:
    target = next((r for r in records if r.record_id == record_id), None)
    if target is not None:
        target.status = "undone"
        for r in records:
            if r.path == target.path and r.status == "committed":
                r.dev, r.ino = dev, ino


def new_record_id() -> str:
    """A fresh record id."""
    return uuid.uuid4().hex


def normalized_path(path: Path | str) -> str:
    """The key a file is journaled under (absolute, symlinks resolved)."""
    return _norm(path)
