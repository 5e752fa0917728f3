"""Replacing a session file whole without losing a line other processes write, even across a crash.

OpenClaw's delivery mirrors and gateway injections append to a session *without* the lock (spec §1.4), pi opens,
appends and closes per line, and a process may even keep the file open. A rewrite (truncation, undo) must
expect lines to arrive while it works, and after. `rewrite_session_file`, under the session lock:

1. reads the file (a snapshot, read and not mapped: a file truncated in place under us is an error, not a
   SIGBUS), builds the new content, writes it to `<file><tmp_suffix>` and fsyncs it; if the file grew meanwhile
   it starts again from a fresh snapshot (a few times); replaced (new inode) or shrunk: gives up, nothing changed;
2. carries what was appended since the snapshot into the temp file (complete lines, through `carry`, which
   re-parents a line whose parent the rewrite removed), fsyncs, and repeats while lines keep coming (bounded);
3. journals the rewrite as a `journal.ReplacedFile` (`pending`): where the replaced file will be kept, how many
   of its bytes the new file holds (`carried_upto`), the new file's size and SHA-256 (with, in the same write,
   the `pending` record of the compaction a truncation writes);
4. keeps the replaced file reachable: `keep_as` (the checkpoint or the backup) is a hard link to it, not a
   copy, so lines that land in it from now on are not lost even if we die. Only where the file system has no
   hard links is it a copy of the snapshot, written to `<file>.copy-tmp`, fsynced, then given its name (a copy
   is whole or absent; a stale `.copy-tmp` a killed run left is removed first);
5. renames the temp file over the original and fsyncs the directory: the file is at every instant the old or
   the new version;
6. reads the replaced file (still open) past `carried_upto` and appends its complete lines to the new file (one
   `O_APPEND` write, fsync); the record becomes `open` with the new `carried_upto`, and in the same write the
   compaction becomes `committed` (a truncation) or `undone` (an undo, `journal.Journal.mark_undone`'s change).

A full disk (or a file size limit, or a quota) while writing the temp file or the copy is a `SessionWriteError`
saying so, with the temp files removed and the session untouched.

A crash anywhere leaves the old file or the new one in place, and the journal knows which bytes of the replaced
file the session may lack. `recovery.recover_replaced`, run under the lock by the next `compact` or `undo`,
finishes the job: a rename that never happened is `abandoned` (the hard link, only a second name of the live file, is
removed); one that did is confirmed, and the kept file's complete lines past `carried_upto` that the session
does not hold yet are appended (re-parented onto their nearest ancestor still in the session) and reported. It
does so at every later run while the kept file exists: a process that keeps the replaced file open and goes on
writing into it loses nothing; its lines arrive at the next run, which says so.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.base.clock import SystemClock, now_ms
from inspector.js.timeutil import iso_from_ms
from inspector.write.journal import Journal, JournalRecord, ReplacedFile, new_record_id, normalized_path
from inspector.write.sessionfile import (
    SessionWriteError,
    complete_lines,
    read_from,
    read_settled,
)
from inspector.write.statefile import fsync_dir, write_all

TRUNCATE_TMP_SUFFIX = ".truncate-tmp"
UNDO_TMP_SUFFIX = ".undo-tmp"
MIGRATE_TMP_SUFFIX = ".migrate-tmp"
REWRITE_TMP_SUFFIXES = (TRUNCATE_TMP_SUFFIX, UNDO_TMP_SUFFIX, MIGRATE_TMP_SUFFIX)
"""The temp files of the rewrites (a truncation's, an undo's, a migration's): one a crash left is removed by the next run."""
MAX_ATTEMPTS = 5
MAX_CARRY_ROUNDS = 20
_TAIL_CHECK = 4096
_NO_HARD_LINKS = (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK, errno.ENOSYS)

Carry = Callable[[bytes], bytes]
Build = Callable[[bytes], tuple[bytes, Carry]]
"""snapshot -> (new content, carry): `carry(lines)` turns complete lines appended after the snapshot into what to append."""


@dataclass(frozen=True)
class PreparedRewrite:
    """The rewrite about to be renamed into place (what `before_rename` may journal)."""

    snapshot_size: int
    snapshot_sha256: str
    content: bytes
    carried_upto: int
    new_size: int
    new_sha256: str


@dataclass(frozen=True)
class RewriteOutcome:
    """What a rewrite did."""

    snapshot_size: int
    snapshot_sha256: str
    written_size: int
    content_sha256: str
    carried_bytes: int
    dev: int
    ino: int
    attempts: int
    kept: Path
    linked: bool
    notes: tuple[str, ...] = ()


COPY_TMP_SUFFIX = ".copy-tmp"
NO_SPACE_ERRNOS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
"""A full disk, a file-size limit (`RLIMIT_FSIZE`) or a quota: the write cannot complete."""


def copy_with_fsync(data: bytes, dest: Path, mode: int, tmp: Path | None = None) -> None:
    """Write `data` to a new file `dest` and fsync it and its directory; `dest` is never seen partly written.

    The bytes go to `tmp` (default `<dest>.tmp`) first, fsynced, then hard-linked to `dest` (which must not
    exist, as with `O_EXCL`) and the temp removed; on any failure the temp is removed and `dest` not created.
    """
    tmp = tmp or dest.with_name(dest.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, dest)
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links
            if os.path.lexists(dest):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(dest)) from None
            os.rename(tmp, dest)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    fsync_dir(dest.parent)


def _no_space(path: Path, exc: OSError, what: str) -> SessionWriteError:
    """The refusal for a write that ran out of space (`NO_SPACE_ERRNOS`) while writing `what`."""
    return SessionWriteError(
        f"{path}: no space to write {what} ({exc.strerror or exc}: the disk is full or a file size limit or quota was "
        "reached); the session file is unchanged and nothing partial was left. Free some space and try again."
    )


@contextlib.contextmanager
def _space_for(path: Path, what: str) -> Iterator[None]:
    """Turn a write that runs out of space (`NO_SPACE_ERRNOS`) while writing `what` into the refusal saying so."""
    try:
        yield
    except OSError as exc:
        if exc.errno in NO_SPACE_ERRNOS:
            raise _no_space(path, exc, what) from None
        raise


def remove_stale_temps(path: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Delete temp files a killed rewrite left beside `path` (call under the session lock: nobody else writes them)."""
    removed = []
    for suffix in suffixes:
        tmp = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
            removed.append(tmp)
    return removed


def append_synced(path: Path, data: bytes) -> None:
    """Append `data` to `path` with one `O_APPEND` write, then fsync."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def _same_file_size(path: Path, fd_old: int, st0: os.stat_result, at_least: int) -> int:
    """The replaced file's size now; raises when `path` is no longer that file or it shrank below `at_least`."""
    try:
        st_now = os.stat(path)
    except FileNotFoundError:
        st_now = None
    if st_now is None or (st_now.st_dev, st_now.st_ino) != (st0.st_dev, st0.st_ino):
        raise SessionWriteError(f"{path}: the file was replaced or removed while it was being rewritten; nothing changed")
    size = os.fstat(fd_old).st_size
    if size < at_least:
        raise SessionWriteError(f"{path}: the file shrank while it was being rewritten (truncated in place by another process?); nothing changed")
    return size


def _keep(path: Path, keep_as: Path, st0: os.stat_result, snapshot: bytes, mode: int, copy_tmp: Path) -> bool:
    """Make `keep_as` a hard link to the file about to be replaced (True), or a copy of the snapshot (False,
    through `copy_tmp`: whole or absent)."""
    try:
        with _space_for(path, f"the link {keep_as.name}"):
            os.link(path, keep_as)
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        with _space_for(path, f"the copy {keep_as.name}"):
            copy_with_fsync(snapshot, keep_as, mode, copy_tmp)
        return False
    st = os.stat(keep_as)
    if (st.st_dev, st.st_ino) != (st0.st_dev, st0.st_ino):
        os.unlink(keep_as)
        raise SessionWriteError(f"{path}: the file was replaced while it was being rewritten; nothing changed")
    fsync_dir(keep_as.parent)
    return True


def drop_alias(kept: Path, path: Path) -> bool:
    """Remove `kept` when it is only a second name of the live file (a rewrite that never renamed)."""
    try:
        a, b = os.stat(kept), os.stat(path)
    except FileNotFoundError:
        return False
    if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
        return False
    os.unlink(kept)
    fsync_dir(kept.parent)
    return True


def rewrite_session_file(
    path: Path,
    build: Build,
    *,
    tmp_suffix: str,
    keep_as: Path,
    journal: Journal,
    purpose: str | Callable[[], str],
    undo_of: str | None = None,
    companion: Callable[[PreparedRewrite], JournalRecord] | None = None,
    before_rename: Callable[[], None] | None = None,
) -> RewriteOutcome:
    """Replace `path` with `build(snapshot)` safely (see the module docstring). Call it under the session lock.

    `purpose` names the rewrite in the journal and in reports ("undo of compaction …"; a callable is asked after
    `build`). `undo_of` is the compaction record an undo reverts (marked `undone` with the outcome);
    `companion(prepared)` returns the `pending` record of the compaction the rewrite writes, journaled with the
    rewrite and marked `committed` (with the new file's identity) with its outcome. `before_rename` is a test seam.
    """
    path = Path(path)
    tmp = path.with_name(path.name + tmp_suffix)
    copy_tmp = path.with_name(path.name + COPY_TMP_SUFFIX)
    remove_stale_temps(path, (COPY_TMP_SUFFIX,))  # left by a process killed while copying (we hold the lock)
    fd_old = os.open(path, os.O_RDONLY)
    fd_tmp = -1
    record: ReplacedFile | None = None
    renamed = False
    try:
        st0 = os.fstat(fd_old)
        mode = st0.st_mode & 0o7777
        for attempt in range(1, MAX_ATTEMPTS + 1):
            snapshot = read_settled(fd_old, path)
            content, carry = build(snapshot)
            if fd_tmp >= 0:
                os.close(fd_tmp)
            with _space_for(path, "the new file"):
                fd_tmp = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
                write_all(fd_tmp, content)
                os.fsync(fd_tmp)
            if _same_file_size(path, fd_old, st0, len(snapshot)) > len(snapshot) and attempt < MAX_ATTEMPTS:
                continue  # lines arrived: rebuild from a fresh snapshot
            break
        hasher = hashlib.sha256(content)
        carried_upto = len(snapshot)
        carried = 0
        for _ in range(MAX_CARRY_ROUNDS):  # lines appended since the snapshot go into the new file before the rename
            lines = complete_lines(read_from(fd_old, carried_upto))
            if not lines:
                break
            piece = carry(lines)
            with _space_for(path, "the new file"):
                write_all(fd_tmp, piece)
                os.fsync(fd_tmp)
            hasher.update(piece)
            carried += len(piece)
            carried_upto += len(lines)
        _same_file_size(path, fd_old, st0, carried_upto)
        tail = max(0, len(snapshot) - _TAIL_CHECK)
        if os.pread(fd_old, len(snapshot) - tail, tail) != snapshot[tail:]:
            raise SessionWriteError(f"{path}: the file was rewritten in place while it was being rewritten; nothing changed")
        os.close(fd_tmp)
        fd_tmp = -1
        prepared = PreparedRewrite(
            snapshot_size=len(snapshot),
            snapshot_sha256=hashlib.sha256(snapshot).hexdigest(),
            content=content,
            carried_upto=carried_upto,
            new_size=len(content) + carried,
            new_sha256=hasher.hexdigest(),
        )
        record = ReplacedFile(
            record_id=new_record_id(),
            path=normalized_path(path),
            purpose=purpose() if callable(purpose) else purpose,
            kept=str(keep_as),
            replaced_dev=st0.st_dev,
            replaced_ino=st0.st_ino,
            carried_upto=carried_upto,
            new_size=prepared.new_size,
            new_sha256=prepared.new_sha256,
            status="pending",
            created_at=iso_from_ms(now_ms(SystemClock())),
            undo_of=undo_of,
        )
        companion_record = companion(prepared) if companion is not None else None
        journal.add_replaced(record, companion_record)
        if before_rename is not None:
            before_rename()
        linked = _keep(path, keep_as, st0, snapshot, mode, copy_tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
        renamed = True
        fsync_dir(path.parent)
        st_new = os.stat(path)
        settled: dict[str, dict[str, Any]] = {}
        if companion_record is not None:
            settled[companion_record.record_id] = {"status": "committed", "dev": st_new.st_dev, "ino": st_new.st_ino}
        undone = (undo_of, st_new.st_dev, st_new.st_ino) if undo_of is not None else None
        late, notes = _carry_after_rename(path, fd_old, carry, record, carried_upto, linked, journal, settled, undone)
        carried += late
    except BaseException:
        if fd_tmp >= 0:
            with contextlib.suppress(OSError):
                os.close(fd_tmp)
        if not renamed:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if record is not None:
                with contextlib.suppress(OSError):
                    drop_alias(keep_as, path)
                with contextlib.suppress(OSError):
                    journal.update_replaced(record.record_id, status="abandoned")
        raise
    finally:
        os.close(fd_old)
    return RewriteOutcome(
        snapshot_size=prepared.snapshot_size,
        snapshot_sha256=prepared.snapshot_sha256,
        written_size=len(content),
        content_sha256=hashlib.sha256(content).hexdigest(),
        carried_bytes=carried,
        dev=st_new.st_dev,
        ino=st_new.st_ino,
        attempts=attempt,
        kept=keep_as,
        linked=linked,
        notes=tuple(notes),
    )


def _carry_after_rename(
    path: Path,
    fd_old: int,
    carry: Carry,
    record: ReplacedFile,
    carried_upto: int,
    linked: bool,
    journal: Journal,
    settled: dict[str, dict[str, Any]],
    undone: tuple[str, int, int] | None,
) -> tuple[int, list[str]]:
    """Step 6: append what landed in the replaced file since the last carry, then journal the outcome (with the
    `settled` changes of compaction records, and the `undone` record of an undo with the new file's identity, as
    `Journal.mark_undone`). Never raises: the rename is done; on an error the records stay
    `pending` and the next run confirms them and carries the lines."""
    notes: list[str] = []
    carried = 0
    try:
        rest = read_from(fd_old, carried_upto)
        lines = complete_lines(rest)
        if lines:
            piece = carry(lines)
            if piece:
                append_synced(path, piece)
            carried = len(piece)
            carried_upto += len(lines)
        if len(rest) > len(lines) and not linked:
            notes.append(f"{len(rest) - len(lines)} bytes of an unfinished line were written into the replaced file after the rewrite; "
                         f"they are not in the session (no hard link could keep the replaced file: {record.kept} is a copy)")
        journal.update_replaced(record.record_id, record_changes=settled, undone=undone, status="open" if linked else "closed",
                                carried_upto=carried_upto)
    except Exception as exc:  # the rename is done: report, never fail the rewrite now
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        where = (f"they are kept in {record.kept} and the next compact or undo carries them" if linked
                 else f"they are lost with the replaced file (no hard link could keep it: {record.kept} is a copy)")
        notes.append(f"the lines written into the replaced file during the rename could not be carried over ({why}); {where}")
    return carried, notes

