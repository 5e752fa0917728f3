"""Replacing a session file whole without losing what unlocked writers append meanwhile.

OpenClaw's delivery mirrors and gateway injections append to a session *without* the lock (spec §1.4), so a
rewrite (truncation, undo) must expect lines to arrive while it works. `rewrite_session_file`:

1. opens the file and reads it (snapshot), builds the new content from that snapshot, writes it to a temp
   file beside it (`<file><tmp_suffix>`) and fsyncs it;
2. re-checks the file: if it grew, starts again from a fresh snapshot (a few times), so the new content has
   everything up to that moment; if it was replaced (new inode) or shrank, gives up and changes nothing;
3. writes the backup/checkpoint copy of the final snapshot, if asked (to `<file>.copy-tmp`, fsync, then linked
   to its name: a copy is whole or absent), then renames the temp file over the original and fsyncs the
   directory: the file is at every instant the old or the new version. A full disk (or a file size limit) on
   the way is a `SessionWriteError` saying so, with the temp files removed and the session untouched;
4. reads the old inode (still open) past the snapshot: lines that landed there in the last instant before the
   rename are appended to the new file (one `O_APPEND` write, after the `carry` transform), so no line is lost.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspector.write.sessionfile import Buffer, MappedFile, SessionWriteError
from inspector.write.statefile import fsync_dir, write_all

MAX_ATTEMPTS = 5

Build = Callable[[Buffer], tuple[bytes, Callable[[bytes], bytes]]]
"""snapshot -> (new content, carry): `carry(extra)` turns lines appended after the snapshot into what to append."""


@dataclass(frozen=True)
class RewriteOutcome:
    """What a rewrite did."""

    snapshot_size: int
    written_size: int
    content_sha256: str
    carried_bytes: int
    dev: int
    ino: int
    attempts: int
    copy: Path | None


COPY_TMP_SUFFIX = ".copy-tmp"
NO_SPACE_ERRNOS = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)
"""A full disk, a file-size limit (`RLIMIT_FSIZE`) or a quota: the write cannot complete."""


def copy_with_fsync(data: Buffer, dest: Path, mode: int, tmp: Path | None = None) -> None:
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


def remove_stale_temps(path: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """Delete temp files a killed rewrite left beside `path` (call under the session lock: nobody else writes them)."""
    removed = []
    for suffix in suffixes:
        tmp = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
            removed.append(tmp)
    return removed


def _read_from(fd: int, offset: int) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def rewrite_session_file(
    path: Path,
    build: Build,
    *,
    tmp_suffix: str,
    copy_to: Path | None = None,
    before_rename: Callable[[], None] | None = None,
) -> RewriteOutcome:
    """Replace `path` with `build(snapshot)` safely (see the module docstring). Call it under the session lock."""
    path = Path(path)
    tmp = path.with_name(path.name + tmp_suffix)
    copy_tmp = path.with_name(path.name + COPY_TMP_SUFFIX)
    remove_stale_temps(path, (COPY_TMP_SUFFIX,))  # left by a process killed while copying (we hold the lock)
    fd_old = os.open(path, os.O_RDONLY)
    mapped: MappedFile | None = None
    try:
        st0 = os.fstat(fd_old)
        mode = st0.st_mode & 0o7777
        for attempt in range(1, MAX_ATTEMPTS + 1):
            if mapped is not None:
                mapped.close()
            mapped = MappedFile(fd_old, os.fstat(fd_old).st_size)  # the snapshot, without reading it into memory
            content, carry = build(mapped.data)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
                try:
                    write_all(fd, content)
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except BaseException as exc:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                if isinstance(exc, OSError) and exc.errno in NO_SPACE_ERRNOS:
                    raise _no_space(path, exc, "the new file") from None
                raise
            try:
                st_now = os.stat(path)
            except FileNotFoundError:
                st_now = None
            if st_now is None or (st_now.st_dev, st_now.st_ino) != (st0.st_dev, st0.st_ino):
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise SessionWriteError(f"{path}: the file was replaced or removed while it was being rewritten; nothing changed")
            if st_now.st_size < mapped.size:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise SessionWriteError(f"{path}: the file shrank while it was being rewritten; nothing changed")
            if st_now.st_size > mapped.size and attempt < MAX_ATTEMPTS:
                continue  # lines arrived: rebuild from a fresh snapshot
            break
        assert mapped is not None
        snapshot_size = mapped.size
        if copy_to is not None:
            try:
                copy_with_fsync(mapped.data, copy_to, mode, copy_tmp)
            except BaseException as exc:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                if isinstance(exc, OSError) and exc.errno in NO_SPACE_ERRNOS:
                    raise _no_space(path, exc, f"the copy {copy_to.name}") from None
                raise
        mapped.close()
        if before_rename is not None:
            before_rename()
        try:
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        fsync_dir(path.parent)
        st_new = os.stat(path)
        extra = _read_from(fd_old, snapshot_size)
    finally:
        if mapped is not None:
            mapped.close()
        os.close(fd_old)
    carried = b""
    if extra:
        carried = carry(extra)
        if carried:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            try:
                write_all(fd, carried)
                os.fsync(fd)
            finally:
                os.close(fd)
    return RewriteOutcome(
        snapshot_size=snapshot_size,
        written_size=len(content),
        content_sha256=hashlib.sha256(content).hexdigest(),
        carried_bytes=len(carried),
        dev=st_new.st_dev,
        ino=st_new.st_ino,
        attempts=attempt,
        copy=copy_to,
    )
