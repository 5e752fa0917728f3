"""Writing a compaction into a session file the way OpenClaw does, under its lock, never losing a line.

`commit_compaction(path, summary, first_kept_entry_id, tokens_before, details)` appends one `compaction`
entry exactly as OpenClaw's safeguard compaction gets it written (pi's `appendCompaction(..., fromHook=true)`):

* keys `type, id, parentId, timestamp, summary, firstKeptEntryId, tokensBefore, details, fromHook` (absent
  `details`/`fromHook` left out, as `JSON.stringify` drops `undefined`), encoded by `formats.encode`;
* `id`: the first 8 characters of a random UUID, not found anywhere in the file (pi: not an id in the file);
* `timestamp`: `new Date().toISOString()` of the injected clock;
* `parentId`: the leaf *at commit time* (the last entry in the file, re-read under the lock), so entries
  another process appended during the run stay in the kept tail. With `since` (the file as the plan saw it),
  the commit refuses when the file was replaced or the new leaf is not a descendant of the planned one, and
  stops (`CompactedMeanwhile`, "nothing to compact") when a compaction entry was appended since the plan (a
  second run over the same history: the first one's compaction is kept, the second writes nothing).

Append mode writes the whole line with one `os.write` on an `O_APPEND` descriptor, then fsyncs. It refuses a
file whose last line is incomplete (a writer mid-line), a file without a v3 header, and a file it cannot lock
(`lock.LockHeld`). The write is journaled (`journal.py`) as pending before and committed after, for `undo` and
for `recovery.recover_pending` (which cuts off a line of ours torn by a crash, the only partial state possible).

`truncate=True` does what OpenClaw's `truncateAfterCompaction` does after its compaction, in a single atomic
step: the new file (kept lines + the new entry) is written to `<file>.truncate-tmp`, fsynced and renamed over
the original (`rewrite.py`, which carries the lines appended meanwhile and keeps the replaced file reachable).
The checkpoint `<sessionId>.checkpoint.<uuid>.jsonl` is the replaced file itself (a hard link; its first
`checkpoint_size` bytes, whose SHA-256 the journal keeps, are the file as it was). When the truncation would
remove nothing, the entry is simply appended.

The session is read, never mapped: a file truncated in place by another process during the commit is a clear
`SessionWriteError` (lock released), not a SIGBUS.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.js.timeutil import iso_from_ms
from inspector.write.journal import Journal, JournalRecord, new_record_id, normalized_path
from inspector.write.lock import DEFAULT_TIMEOUT_MS, acquire_session_write_lock
from inspector.write.recovery import recover_pending
from inspector.write.rewrite import (
    REWRITE_TMP_SUFFIXES,
    TRUNCATE_TMP_SUFFIX,
    PreparedRewrite,
    remove_stale_temps,
    rewrite_session_file,
)
from inspector.write.sessionfile import (
    Buffer,
    SessionLines,
    SessionWriteError,
    check_file_writable,
    check_writable,
    compaction_entry,
    complete_lines_size,
    encode_compaction,
    file_identity,
    id_in_file,
    last_entry,
    lines_from,
    new_entry_id,
    parse_lines,
    read_exact,
    read_from,
    read_settled,
    resolve_session_path,
)
from inspector.write.truncate import HeartbeatSettings, nearest_kept_ancestor, plan_truncation, render_truncation


@dataclass(frozen=True)
class PlanSnapshot:
    """The session file as the plan saw it (size, leaf, identity)."""

    size: int
    leaf_id: str | None
    dev: int
    ino: int

    @classmethod
    def of(cls, path: Path) -> PlanSnapshot:
        """Take a snapshot of `path` now (reads the whole file: read, never mapped).

        A last line still being written (no `\n` yet) is left out, as the plan's reader leaves it out: the
        snapshot ends at a line boundary, so the line, once complete, is a line appended since the plan.
        """
        fd = os.open(path, os.O_RDONLY)
        try:
            st = os.fstat(fd)
            data = read_exact(fd, st.st_size, path)
        finally:
            os.close(fd)
        size = complete_lines_size(data)
        leaf = last_entry(data, size)
        return cls(size, leaf.id if leaf is not None else None, st.st_dev, st.st_ino)


@dataclass
class WriterHooks:
    """Test seams: called at fixed points of a commit (e.g. to let another process append in between)."""

    after_lock: Callable[[], None] | None = None
    before_write: Callable[[], None] | None = None
    before_rename: Callable[[], None] | None = None


@dataclass(frozen=True)
class CommitResult:
    """What a commit wrote."""

    path: Path
    mode: str
    entry_id: str
    parent_id: str | None
    timestamp: str
    first_kept_entry_id: str
    tokens_before: int | float
    size_before: int
    size_after: int
    offset: int
    line_bytes: int
    checkpoint: Path | None = None
    truncation_reason: str | None = None
    entries_removed: int = 0
    carried_bytes: int = 0
    recovered: tuple[str, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for `compact --json`."""
        return {
            "path": str(self.path),
            "mode": self.mode,
            "entry_id": self.entry_id,
            "parent_id": self.parent_id,
            "timestamp": self.timestamp,
            "first_kept_entry_id": self.first_kept_entry_id,
            "tokens_before": self.tokens_before,
            "size_before": self.size_before,
            "size_after": self.size_after,
            "offset": self.offset,
            "line_bytes": self.line_bytes,
            "checkpoint": str(self.checkpoint) if self.checkpoint else None,
            "truncation_reason": self.truncation_reason,
            "entries_removed": self.entries_removed,
            "carried_bytes": self.carried_bytes,
            "recovered": list(self.recovered),
        }


class CompactedMeanwhile(SessionWriteError):
    """A compaction entry was appended since the plan (another run): this one writes nothing."""


def checkpoint_path_for(path: Path) -> Path:
    """OpenClaw's checkpoint name: `<name without ext>.checkpoint.<uuid><ext or .jsonl>` beside the file."""
    stem, ext = os.path.splitext(path.name)
    return path.with_name(f"{stem}.checkpoint.{uuid.uuid4()}{ext or '.jsonl'}")


def _check_not_shorter(data: Buffer, since: PlanSnapshot, path: Path) -> None:
    if len(data) < since.size:
        raise SessionWriteError(
            f"{path}: the file changed during the compaction: it is shorter than when the compaction was planned "
            "(another program truncated or rewrote it); nothing written"
        )


def _check_since(data: Buffer, since: PlanSnapshot, path: Path) -> None:
    _check_not_shorter(data, since, path)
    leaf = last_entry(data)
    if leaf is None:
        raise SessionWriteError(f"{path}: no entries; nothing written")
    new_ids = {line.id: line for line in lines_from(data, since.size) if line.is_entry}
    current: Any = leaf.id
    seen: set[Any] = set()
    while current in new_ids and current not in seen:
        seen.add(current)
        if new_ids[current].type == "compaction":
            raise CompactedMeanwhile(
                f"nothing to compact: compaction {current} was written into {path} since this one was planned "
                "(another compact run or OpenClaw compacted the same history); nothing written"
            )
        current = new_ids[current].parent_id
    if current != since.leaf_id:
        raise SessionWriteError(
            f"{path}: the session moved to another branch while the summary was made (the current leaf does not "
            f"descend from {since.leaf_id}); nothing written. Plan again."
        )


def _leaf_id(data: Buffer, path: Path) -> str:
    leaf = last_entry(data)
    if leaf is None:
        raise SessionWriteError(f"{path}: the session has no entries to compact; nothing written")
    if not isinstance(leaf.id, str):
        raise SessionWriteError(f"{path}: the last entry has no id, so a compaction would have no parent; nothing written")
    return leaf.id


def commit_compaction(
    path: Path | str,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int | float,
    details: Any = None,
    *,
    from_hook: bool | None = True,
    truncate: bool = False,
    heartbeat: HeartbeatSettings | None = None,
    since: PlanSnapshot | None = None,
    clock: Clock | None = None,
    lock_timeout_ms: int = DEFAULT_TIMEOUT_MS,
    journal: Journal | None = None,
    hooks: WriterHooks | None = None,
) -> CommitResult:
    """Append the compaction entry (and with `truncate`, rewrite the file as OpenClaw's truncation does)."""
    path = resolve_session_path(path)
    clock = clock or SystemClock()
    journal = journal or Journal()
    hooks = hooks or WriterHooks()
    if not isinstance(summary, str) or not isinstance(first_kept_entry_id, str) or not first_kept_entry_id:
        raise SessionWriteError("a compaction needs a summary and a firstKeptEntryId; nothing written")
    with acquire_session_write_lock(path, timeout_ms=lock_timeout_ms, clock=clock):
        if hooks.after_lock:
            hooks.after_lock()
        check_file_writable(path, "nothing written")
        recovered = tuple(recover_pending(path, journal)) + tuple(
            f"removed {t.name} left by an interrupted rewrite" for t in remove_stale_temps(path, REWRITE_TMP_SUFFIXES)
        )
        if since is not None and file_identity(path) != (since.dev, since.ino):
            raise SessionWriteError(
                f"{path}: the file was replaced since the compaction was planned (rewritten by another tool?); nothing written"
            )
        timestamp = iso_from_ms(now_ms(clock))

        def make_entry(data: Buffer, entry_id: str | None) -> tuple[dict[str, Any], bytes]:
            if since is not None:
                _check_not_shorter(data, since, path)  # before the content checks: a cut file says what happened
            check_writable(data, path)
            if since is not None:
                _check_since(data, since, path)
            parent = _leaf_id(data, path)
            eid = entry_id if entry_id and not id_in_file(data, entry_id) else new_entry_id(data)
            entry = compaction_entry(eid, parent, timestamp, summary, first_kept_entry_id, tokens_before, details, from_hook)
            return entry, encode_compaction(entry)

        if truncate:
            result = _commit_truncate(path, make_entry, heartbeat, journal, hooks, recovered)
            if result is not None:
                return result
        return _commit_append(path, make_entry, journal, hooks, recovered, truncate)


def _pending_record(
    path: Path, mode: Literal["append", "truncate"], entry: dict[str, Any], line: bytes, size_before: int, **extra: Any
) -> JournalRecord:
    """The journal's `pending` record of the write about to add `entry` (serialized as `line`) to `path`."""
    return JournalRecord(
        record_id=new_record_id(),
        path=normalized_path(path),
        mode=mode,
        status="pending",
        entry_id=entry["id"],
        parent_id=entry["parentId"],
        created_at=entry["timestamp"],
        line_sha256=hashlib.sha256(line).hexdigest(),
        line_len=len(line),
        size_before=size_before,
        **extra,
    )


def _commit_append(
    path: Path,
    make_entry: Callable[[Buffer, str | None], tuple[dict[str, Any], bytes]],
    journal: Journal,
    hooks: WriterHooks,
    recovered: tuple[str, ...],
    truncate_requested: bool,
    truncation_reason: str | None = None,
) -> CommitResult:
    entry_id: str | None = None
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    fd_read = os.open(path, os.O_RDONLY)
    try:
        if hooks.before_write:
            hooks.before_write()
        for _ in range(200):
            data = read_settled(fd_read, path)  # the file as it is now (read: never mapped)
            entry, line = make_entry(data, entry_id)
            entry_id = entry["id"]
            if os.fstat(fd).st_size == len(data):
                break
            # someone appended since we looked: look again, so that our parent is the real leaf
        else:
            raise SessionWriteError(f"{path}: the file keeps growing; could not find a quiet moment to append; nothing written")
        size_before = len(data)
        del data
        record = _pending_record(path, "append", entry, line, size_before)
        journal.add(record)
        n = os.write(fd, line)
        if n != len(line):
            # a short write on a regular file (disk full): take our partial bytes back out when nothing follows
            with contextlib.suppress(OSError):
                if os.fstat(fd).st_size == size_before + n:
                    os.truncate(path, size_before)
            journal.update(record.record_id, status="abandoned")
            raise SessionWriteError(f"{path}: only {n} of {len(line)} bytes could be written; the partial line was removed")
        os.fsync(fd)
        st = os.fstat(fd)
        size_after, dev, ino = st.st_size, st.st_dev, st.st_ino
    finally:
        os.close(fd_read)
        os.close(fd)
    offset = _find_line(path, line, size_before)
    journal.update(record.record_id, status="committed", offset=offset, size_after=offset + len(line), dev=dev, ino=ino)
    reason = truncation_reason if truncate_requested else None
    return CommitResult(
        path=path,
        mode="append",
        entry_id=entry["id"],
        parent_id=entry["parentId"],
        timestamp=entry["timestamp"],
        first_kept_entry_id=entry["firstKeptEntryId"],
        tokens_before=entry["tokensBefore"],
        size_before=size_before,
        size_after=size_after,
        offset=offset,
        line_bytes=len(line),
        truncation_reason=reason,
        recovered=recovered,
    )


def _find_line(path: Path, line: bytes, expected: int) -> int:
    """Where our line landed (normally `expected`; later if an unlocked writer slipped a line in first)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        if os.pread(fd, len(line), expected) == line:
            return expected
        pos = read_from(fd, 0).find(line, expected)
    finally:
        os.close(fd)
    return pos if pos >= 0 else expected


def _commit_truncate(
    path: Path,
    make_entry: Callable[[Buffer, str | None], tuple[dict[str, Any], bytes]],
    heartbeat: HeartbeatSettings | None,
    journal: Journal,
    hooks: WriterHooks,
    recovered: tuple[str, ...],
) -> CommitResult | None:
    state: dict[str, Any] = {"entry_id": None}

    def build(snapshot: Buffer) -> tuple[bytes, Callable[[bytes], bytes]]:
        entry, line = make_entry(snapshot, state["entry_id"])
        state["entry_id"] = entry["id"]
        combined = SessionLines(snapshot, extra=line)
        plan = plan_truncation(combined, heartbeat)
        if not plan.applies:
            raise _NothingToTruncate(plan.reason or "no entries to remove")
        content = render_truncation(combined, plan)
        state.update(entry=entry, line=line, plan=plan, snapshot_size=len(snapshot), content=content)

        def carry(extra: bytes) -> bytes:
            out = []
            for raw in parse_lines(extra):
                if raw.is_entry and raw.parent_id in plan.removed_ids:
                    out.append(raw.with_parent(nearest_kept_ancestor(combined, raw.parent_id, plan.removed_ids)))
                else:
                    out.append(raw.raw)
            text = b"\n".join(out)
            return text + b"\n" if extra.endswith(b"\n") else text

        return content, carry

    checkpoint = checkpoint_path_for(path)

    def companion(prepared: PreparedRewrite) -> JournalRecord:
        entry, line, content = state["entry"], state["line"], prepared.content
        state["record"] = _pending_record(
            path,
            "truncate",
            entry,
            line,
            prepared.snapshot_size,
            offset=len(content) - len(line),
            size_after=len(content),
            checkpoint=str(checkpoint),
            content_sha256=hashlib.sha256(content).hexdigest(),
            entries_removed=len(state["plan"].removed),
            checkpoint_size=prepared.snapshot_size,
            checkpoint_sha256=prepared.snapshot_sha256,
        )
        return state["record"]

    try:
        outcome = rewrite_session_file(path, build, tmp_suffix=TRUNCATE_TMP_SUFFIX, keep_as=checkpoint, journal=journal,
                                       purpose=lambda: f"truncation with compaction {state['entry_id']}", companion=companion,
                                       before_rename=hooks.before_rename)
    except _NothingToTruncate as why:
        return _commit_append(path, make_entry, journal, hooks, recovered, True, str(why))
    except BaseException:
        if "record" in state and not _renamed(path, state["record"]):
            journal.update(state["record"].record_id, status="abandoned")
        raise
    entry, line, plan = state["entry"], state["line"], state["plan"]
    content_end = outcome.written_size
    return CommitResult(
        path=path,
        mode="truncate",
        entry_id=entry["id"],
        parent_id=entry["parentId"],
        timestamp=entry["timestamp"],
        first_kept_entry_id=entry["firstKeptEntryId"],
        tokens_before=entry["tokensBefore"],
        size_before=outcome.snapshot_size,
        size_after=content_end + outcome.carried_bytes,
        offset=content_end - len(line),
        line_bytes=len(line),
        checkpoint=checkpoint,
        entries_removed=len(plan.removed),
        carried_bytes=outcome.carried_bytes,
        recovered=recovered + outcome.notes,
    )


def _renamed(path: Path, rec: JournalRecord) -> bool:
    """Whether the truncation of `rec` is in place (its content starts the file)."""
    try:
        with open(path, "rb") as f:
            head = f.read(rec.size_after or 0)
    except OSError:
        return False
    return hashlib.sha256(head).hexdigest() == rec.content_sha256


class _NothingToTruncate(Exception):
    pass


__all__ = [
    "CommitResult",
    "CompactedMeanwhile",
    "PlanSnapshot",
    "SessionWriteError",
    "WriterHooks",
    "checkpoint_path_for",
    "commit_compaction",
]
