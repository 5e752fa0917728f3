"""`undo`: revert the last compaction this tool wrote into a session file, and nothing else.

Called again, it reverts the one before (newest first): the journal gives the older records the identity of
the file undo renamed into place (`Journal.mark_undone`). A symlinked path reverts its target, and a file this
user cannot write is refused before anything is copied (`sessionfile.check_file_writable`).

Under the session lock, using the write journal (`journal.py`):

* append mode: the file must still hold our exact line (same bytes, found by offset or by content). The file is
  rewritten without it; entries appended after it whose `parentId` is our entry are re-parented onto its parent
  (the leaf it was appended to), re-serialized with their key order kept; every other line stays byte for byte.
* truncate mode: the file must still start with exactly the content we renamed into place (SHA-256 of its
  first `size_after` bytes), and the checkpoint must still start with exactly the file as it was (the journal's
  `checkpoint_size` and `checkpoint_sha256`; a truncated, edited or replaced checkpoint is refused). The file is
  replaced by those checkpoint bytes plus everything appended since (lines whose parent is our entry
  re-parented onto its parent).

* migrate mode (`migrate.py`): the file must be exactly what the migration renamed into place (nothing appended
  since: those lines would be version 3 lines in an older file), and the checkpoint as it was; its bytes are put back.

All first finish what crashed writes left (`recovery.recover_pending`: lines written late into a replaced file
are carried over and reported in `recovered`), then rewrite through `rewrite.py`: `<file>.undo-tmp`, fsync,
rename, lines appended during the undo carried over, and the file as it was before the undo kept as
`<file>.bak-<pid>-<ms>` (OpenClaw's repair-backup name; a hard link to the replaced file). Anything that does
not match what the journal says refuses with a clear message and changes nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.write.journal import Journal, JournalRecord
from inspector.write.lock import DEFAULT_TIMEOUT_MS, acquire_session_write_lock
from inspector.write.recovery import recover_pending
from inspector.write.rewrite import REWRITE_TMP_SUFFIXES, UNDO_TMP_SUFFIX, remove_stale_temps, rewrite_session_file
from inspector.write.sessionfile import (
    Buffer,
    RawLine,
    SessionWriteError,
    check_file_writable,
    ends_with_newline,
    file_identity,
    parse_lines,
    read_file,
    resolve_session_path,
    unterminated_line_error,
)


@dataclass(frozen=True)
class UndoResult:
    """What `undo` did."""

    path: Path
    mode: str
    entry_id: str
    backup: Path
    size_before: int
    size_after: int
    reparented: int
    restored_from: Path | None = None
    recovered: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for `undo --json`."""
        return {
            "path": str(self.path),
            "mode": self.mode,
            "entry_id": self.entry_id,
            "backup": str(self.backup),
            "size_before": self.size_before,
            "size_after": self.size_after,
            "reparented": self.reparented,
            "restored_from": str(self.restored_from) if self.restored_from else None,
            "recovered": list(self.recovered),
        }


def backup_path_for(path: Path) -> Path:
    """OpenClaw's repair backup name: `<file>.bak-<pid>-<ms>`."""
    return path.with_name(f"{path.name}.bak-{os.getpid()}-{now_ms(SystemClock())}")


def _reparent(lines: list[RawLine], entry_id: str, parent_id: str | None, counter: list[int]) -> list[bytes]:
    out = []
    for line in lines:
        if line.is_entry and line.parent_id == entry_id:
            out.append(line.with_parent(parent_id))
            counter[0] += 1
        else:
            out.append(line.raw)
    return out


def _join(parts: list[bytes], trailing: bool) -> bytes:
    if not parts:
        return b""
    body = b"\n".join(parts)
    return body + b"\n" if trailing else body


def _carry_for(rec: JournalRecord, counter: list[int]) -> Callable[[bytes], bytes]:
    def carry(extra: bytes) -> bytes:
        return _join(_reparent(parse_lines(extra), rec.entry_id, rec.parent_id, counter), extra.endswith(b"\n"))

    return carry


def _require_complete(path: Path, snapshot: Buffer) -> None:
    if not ends_with_newline(snapshot):
        raise unterminated_line_error(snapshot, path, "nothing changed")


def _locate_append(data: Buffer, rec: JournalRecord) -> int | None:
    offset = rec.offset if rec.offset is not None else rec.size_before
    if hashlib.sha256(data[offset : offset + rec.line_len]).hexdigest() == rec.line_sha256:
        return offset
    needle = b'{"type":"compaction","id":"' + rec.entry_id.encode() + b'"'
    pos = data.find(needle)
    while pos >= 0:
        if (pos == 0 or data[pos - 1 : pos] == b"\n") and hashlib.sha256(data[pos : pos + rec.line_len]).hexdigest() == rec.line_sha256:
            return pos
        pos = data.find(needle, pos + 1)
    return None


def verified_checkpoint(path: Path, rec: JournalRecord) -> bytes:
    """The checkpoint's bytes as the journal recorded them (the file before the truncation), or a refusal."""
    checkpoint = Path(rec.checkpoint or "")
    try:
        data = read_file(checkpoint)
    except OSError as exc:
        raise SessionWriteError(f"{path}: the checkpoint {checkpoint} cannot be read ({exc.strerror or exc}); nothing changed") from None
    size = rec.checkpoint_size if rec.checkpoint_size is not None else rec.size_before
    if rec.checkpoint_sha256 is not None:
        sound = len(data) >= size and hashlib.sha256(data[:size]).hexdigest() == rec.checkpoint_sha256
    else:  # a record from before checkpoints had a digest: the checkpoint was a copy of exactly `size_before` bytes
        sound = len(data) == size
    if not sound:
        why = (f"{len(data)} bytes where {size} were recorded: cut short since" if len(data) < size
               else f"its first {size} bytes are not the ones recorded (SHA-256): edited or replaced since")
        raise SessionWriteError(
            f"{path}: the checkpoint {checkpoint} is not the file as it was before compaction {rec.entry_id} ({why}); nothing changed"
        )
    if not ends_with_newline(data[:size]):
        raise SessionWriteError(f"{path}: the checkpoint {checkpoint} does not end with a complete line; nothing changed")
    return data[:size]


def undo_last_compaction(
    path: Path | str,
    *,
    journal: Journal | None = None,
    clock: Clock | None = None,
    lock_timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> UndoResult:
    """Revert the newest compaction this tool committed to `path` (see the module docstring)."""
    path = resolve_session_path(path)
    journal = journal or Journal()
    clock = clock or SystemClock()
    with acquire_session_write_lock(path, timeout_ms=lock_timeout_ms, clock=clock):
        check_file_writable(path, "nothing changed")
        recovered = tuple(recover_pending(path, journal)) + tuple(
            f"removed {t.name} left by an interrupted rewrite" for t in remove_stale_temps(path, REWRITE_TMP_SUFFIXES)
        )
        rec = journal.last_committed(path)
        if rec is None:
            raise SessionWriteError(f"{path}: no compaction written by this tool to undo")
        if rec.dev is not None and rec.ino is not None and file_identity(path) != (rec.dev, rec.ino):
            raise SessionWriteError(
                f"{path}: the file was replaced since compaction {rec.entry_id} was written (another tool rewrote it); "
                "nothing changed" + (f". The checkpoint {rec.checkpoint} still holds the file as it was." if rec.checkpoint else "")
            )
        counter = [0]
        backup = backup_path_for(path)
        restored_from: Path | None = None
        if rec.mode == "append":

            def build(snapshot: Buffer) -> tuple[bytes, Callable[[bytes], bytes]]:
                _require_complete(path, snapshot)
                offset = _locate_append(snapshot, rec)
                if offset is None:
                    raise SessionWriteError(
                        f"{path}: compaction {rec.entry_id} is no longer in the file as it was written; nothing changed"
                    )
                counter[0] = 0
                before = snapshot[:offset]
                after = parse_lines(snapshot[offset + rec.line_len :])
                content = before + _join(_reparent(after, rec.entry_id, rec.parent_id, counter), True)
                return content, _carry_for(rec, counter)

        elif rec.mode == "migrate":
            checkpoint = Path(rec.checkpoint or "")
            original = verified_checkpoint(path, rec)
            restored_from = checkpoint

            def build(snapshot: Buffer) -> tuple[bytes, Callable[[bytes], bytes]]:
                if len(snapshot) != rec.size_after or hashlib.sha256(snapshot).hexdigest() != rec.content_sha256:
                    raise SessionWriteError(
                        f"{path}: the file changed since it was migrated to version 3 (lines appended or rewritten): putting the older "
                        f"version back would lose them; nothing changed. The checkpoint {checkpoint} holds the file as it was."
                    )
                return original, lambda extra: extra

        else:
            checkpoint = Path(rec.checkpoint or "")
            original = verified_checkpoint(path, rec)
            restored_from = checkpoint

            def build(snapshot: Buffer) -> tuple[bytes, Callable[[bytes], bytes]]:
                _require_complete(path, snapshot)
                end = rec.size_after or 0
                if hashlib.sha256(snapshot[:end]).hexdigest() != rec.content_sha256:
                    raise SessionWriteError(
                        f"{path}: the file changed since the truncating compaction {rec.entry_id} (not only appended to); "
                        f"nothing changed. The checkpoint {checkpoint} holds the file as it was."
                    )
                counter[0] = 0
                since = parse_lines(snapshot[end:])
                content = original + _join(_reparent(since, rec.entry_id, rec.parent_id, counter), True)
                return content, _carry_for(rec, counter)

        size_before = os.stat(path).st_size
        what = "the migration to version 3" if rec.mode == "migrate" else f"compaction {rec.entry_id}"
        outcome = rewrite_session_file(path, build, tmp_suffix=UNDO_TMP_SUFFIX, keep_as=backup, journal=journal,
                                       purpose=f"undo of {what}", undo_of=rec.record_id)
        return UndoResult(
            path=path,
            mode=rec.mode,
            entry_id=rec.entry_id,
            backup=backup,
            size_before=size_before,
            size_after=outcome.written_size + outcome.carried_bytes,
            reparented=counter[0],
            restored_from=restored_from,
            recovered=recovered + outcome.notes,
        )
