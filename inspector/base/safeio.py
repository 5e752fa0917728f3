"""Reading files the user names without hanging or exhausting memory.

A path can be a FIFO (a read blocks forever), a device (`/dev/zero` never ends, `/dev/urandom` neither) or a
huge file. `read_regular_file` opens with `O_NONBLOCK` (so opening a FIFO does not wait for a writer), checks
with `fstat` that it is a regular file, and refuses more than a cap, each with a one-line reason.
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class NotRegularFileError(OSError):
    """The path exists but is not a regular file (a FIFO, a device, a socket, a directory)."""


class FileTooLargeError(OSError):
    """A regular file larger than the cap the caller set."""


def file_kind(mode: int) -> str:
    """A human name for the type of a file from its `st_mode`: "a FIFO", "a character device", ..."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path | str) -> int:
    """An fd (blocking mode restored) of `path` opened read-only; raises `NotRegularFileError` for anything
    that is not a regular file, without ever blocking on a FIFO."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFileError(f"{path}: {file_kind(mode)}, not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def check_regular(path: Path | str) -> None:
    """Raise `NotRegularFileError` unless `path` is a regular file (never blocks; `stat` follows links)."""
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise NotRegularFileError(f"{path}: {file_kind(mode)}, not a regular file")


def read_regular_file(path: Path | str, max_bytes: int) -> bytes:
    """The bytes of the regular file `path`, at most `max_bytes` of them (`FileTooLargeError` beyond)."""
    fd = open_regular(path)
    try:
        size = os.fstat(fd).st_size
        if size > max_bytes:
            raise FileTooLargeError(f"{path}: {size:,} bytes, more than the {max_bytes:,} this tool reads")
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > max_bytes:  # grew while reading
                raise FileTooLargeError(f"{path}: more than the {max_bytes:,} bytes this tool reads")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


@contextmanager
def exclusive_lock(path: str) -> Iterator[None]:
    """An exclusive `flock` on the file `path` (created 0600, never through a symlink) while the block runs: what
    serializes the processes that write one cache mirror."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
