"""Finishing what a crash left, and carrying lines written late into a file a rewrite replaced.

Called under the session lock by every `compact` that may write (`recover_session`, before it plans; again at
commit) and by every `undo`, before anything else:

* a compaction record left `pending` (`writer`: an append journaled before its line was written) is confirmed
  when the whole line is there, its torn line cut off when only part of it is (the only partial state an
  append can leave), or abandoned; a truncation's record is confirmed when its content starts the file;
* a rewrite (`rewrite.rewrite_session_file`: a truncation, an undo) left `pending` is `abandoned` when the file
  is still the one it would have replaced (its hard link, only a second name of the live file, removed), and
  confirmed when the file starts with the new content (an undo's compaction is then marked undone, the older
  records given the new file's identity, as `journal.Journal.mark_undone`);
* the replaced file a rewrite kept (a hard link: its checkpoint or backup) is read past what the session holds
  (`carried_upto`): its complete lines that the session lacks are appended, re-parented onto their nearest
  ancestor still in the session, and reported. This goes on at every run while the kept file exists, so a
  process that keeps the replaced file open and goes on writing into it loses nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from inspector.base.clock import Clock, SystemClock
from inspector.write.journal import Journal, ReplacedFile
from inspector.write.lock import DEFAULT_TIMEOUT_MS, acquire_session_write_lock
from inspector.write.rewrite import REWRITE_TMP_SUFFIXES, append_synced, drop_alias, remove_stale_temps
from inspector.write.sessionfile import (
    SessionLines,
    check_file_writable,
    complete_lines,
    ends_with_newline,
    file_identity,
    parse_lines,
    read_file,
    resolve_session_path,
)


def recover_pending(path: Path, journal: Journal) -> list[str]:
    """Resolve what a crashed process left pending, and carry lines written late into files a rewrite replaced
    (`recover_replaced`). Call under the lock. Returns what was done."""
    notes = []
    for rec in journal.pending(path):
        data = read_file(path)
        if rec.mode in ("truncate", "migrate"):
            end = rec.size_after or 0
            what = "migration to version 3" if rec.mode == "migrate" else f"truncation with compaction {rec.entry_id}"
            if rec.content_sha256 and hashlib.sha256(data[:end]).hexdigest() == rec.content_sha256:
                dev, ino = file_identity(path)
                journal.update(rec.record_id, status="committed", dev=dev, ino=ino)
                notes.append(f"confirmed {what} renamed into place before a crash")
            else:
                journal.update(rec.record_id, status="abandoned")
                notes.append(f"{what} never replaced the file (interrupted before its rename)")
            continue
        start = rec.size_before
        head = b'{"type":"compaction","id":"' + rec.entry_id.encode() + b'"'
        full = data[start : start + rec.line_len]
        if len(full) == rec.line_len and hashlib.sha256(full).hexdigest() == rec.line_sha256:
            journal.update(rec.record_id, status="committed", offset=start, size_after=start + rec.line_len)
            notes.append(f"confirmed compaction {rec.entry_id} written before a crash")
        elif len(data) > start and len(data) < start + rec.line_len and data[start:].startswith(head) and b"\n" not in data[start:]:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.ftruncate(fd, start)
                os.fsync(fd)
            finally:
                os.close(fd)
            journal.update(rec.record_id, status="abandoned")
            notes.append(f"removed the torn line of compaction {rec.entry_id} left by a crash")
        else:
            journal.update(rec.record_id, status="abandoned")
            notes.append(f"compaction {rec.entry_id} was never written (the writer stopped before it)")
    return notes + recover_replaced(path, journal)


def recover_session(
    path: Path | str, *, journal: Journal | None = None, clock: Clock | None = None, lock_timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> list[str]:
    """Under the session lock, finish what crashed writes left (`recover_pending`) and remove their temp files.

    A symlinked path recovers its target; a file this user cannot write is refused (`SessionWriteError`), as a
    commit refuses it. Returns what was done (empty when there was nothing to do); raises `lock.LockHeld` when
    the lock is busy.
    """
    path = resolve_session_path(path)
    journal = journal or Journal()
    with acquire_session_write_lock(path, timeout_ms=lock_timeout_ms, clock=clock or SystemClock()):
        check_file_writable(path, "nothing written")
        notes = recover_pending(path, journal)
        return notes + [f"removed {t.name} left by an interrupted rewrite" for t in remove_stale_temps(path, REWRITE_TMP_SUFFIXES)]




def _starts_with(path: Path, size: int, sha256: str) -> bool:
    fd = os.open(path, os.O_RDONLY)
    try:
        head = os.pread(fd, size, 0) if size else b""
        while len(head) < size:
            more = os.pread(fd, size - len(head), len(head))
            if not more:
                return False
            head += more
    finally:
        os.close(fd)
    return hashlib.sha256(head).hexdigest() == sha256


def _line_key(raw: bytes) -> bytes:
    return hashlib.blake2b(raw, digest_size=16).digest()


def late_lines(replaced: bytes, lines: bytes, current: bytes) -> tuple[bytes, int, int]:
    """What to append to the session (`current`) for `lines` found late in the replaced file (`replaced`, up to and
    including them): each line not already in the session, re-parented onto its nearest ancestor (through the
    replaced file's entries) that the session holds. Returns (bytes to append, lines carried, lines already there)."""
    old = SessionLines(replaced)
    cur = parse_lines(current)
    present: set[Any] = {line.id for line in cur if line.is_entry}
    seen = {_line_key(line.raw) for line in cur}
    out: list[bytes] = []
    already = 0
    for line in parse_lines(lines):
        raw = line.raw
        if not raw.strip():
            continue
        new = raw
        if line.is_entry and line.parent_id is not None and line.parent_id not in present:
            parent: Any = line.parent_id
            walked: set[Any] = set()
            while parent is not None and parent not in present and parent in old.by_id and parent not in walked:
                walked.add(parent)
                parent = old.by_id[parent].parent_id
            if parent != line.parent_id:
                new = line.with_parent(parent)
        if _line_key(raw) in seen or _line_key(new) in seen:
            already += 1
            continue
        out.append(new)
        seen.add(_line_key(new))
        if line.is_entry:
            present.add(line.id)
    return (b"\n".join(out) + b"\n" if out else b""), len(out), already


def _carry_late(path: Path, rec: ReplacedFile, journal: Journal) -> list[str]:
    kept = Path(rec.kept)
    try:
        st = os.stat(kept)
    except FileNotFoundError:
        journal.update_replaced(rec.record_id, status="closed")
        return [f"{kept} (the file the {rec.purpose} replaced) was removed: lines written into it after byte {rec.carried_upto} "
                "can no longer be carried over"]
    if (st.st_dev, st.st_ino) != (rec.replaced_dev, rec.replaced_ino):
        journal.update_replaced(rec.record_id, status="closed")  # a copy: nobody writes into it
        return []
    if st.st_size <= rec.carried_upto:
        return []
    replaced = read_file(kept)
    late = replaced[rec.carried_upto :]
    lines = complete_lines(late)
    notes = []
    if lines:
        current = read_file(path)
        if not ends_with_newline(current):
            return [f"{len(lines)} bytes were written into the file the {rec.purpose} replaced ({kept}) and are not in the session yet; "
                    "not carried now because the session's last line is being written. Run again."]
        data, n, already = late_lines(replaced[: rec.carried_upto + len(lines)], lines, current)
        if data:
            append_synced(path, data)
        journal.update_replaced(rec.record_id, carried_upto=rec.carried_upto + len(lines))
        if n:
            notes.append(f"carried {n} line(s) into the session that were written into the file the {rec.purpose} replaced "
                         f"({kept}) after it was replaced (a process wrote there late or keeps it open)")
        if already:
            notes.append(f"{already} line(s) written into {kept} after the {rec.purpose} were already in the session")
    unfinished = len(late) - len(lines)
    if unfinished:
        notes.append(f"{kept} (replaced by the {rec.purpose}) ends with an unfinished line of {unfinished} bytes at offset "
                     f"{st.st_size - unfinished}: not carried (still being written, or cut off)")
    return notes


def recover_replaced(path: Path, journal: Journal) -> list[str]:
    """Resolve the rewrites of `path` a crash interrupted and carry late lines of replaced files (under the lock)."""
    path = Path(path)
    notes: list[str] = []
    for rec in journal.replaced_for(path):
        if rec.status == "pending":
            st = os.stat(path)
            if (st.st_dev, st.st_ino) == (rec.replaced_dev, rec.replaced_ino):
                drop_alias(Path(rec.kept), path)
                journal.update_replaced(rec.record_id, status="abandoned")
                notes.append(f"the {rec.purpose} was interrupted before its rename: the file was not changed")
                continue
            if not _starts_with(path, rec.new_size, rec.new_sha256):
                journal.update_replaced(rec.record_id, status="closed")
                notes.append(f"the {rec.purpose} was interrupted and the file was replaced since by something else; "
                             f"the file it replaced is kept as {rec.kept}")
                continue
            undone = (rec.undo_of, st.st_dev, st.st_ino) if rec.undo_of else None  # the undo's file is the one in place
            journal.update_replaced(rec.record_id, undone=undone, status="open")
            if rec.undo_of:  # (a truncation's confirmation is reported with its compaction record, by `writer.recover_pending`)
                notes.append(f"confirmed the {rec.purpose}, renamed into place before a crash")
        if rec.undo_of:  # the undo is in place: its compaction is undone, even if a crash came before it said so
            reverted = journal.record(rec.undo_of)
            if reverted is not None and reverted.status == "committed":
                journal.update(rec.undo_of, status="undone")
        notes += _carry_late(path, rec, journal)
    return notes


__all__ = ["late_lines", "recover_pending", "recover_replaced", "recover_session"]
