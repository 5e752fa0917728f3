"""The bytes of a session file a listing reads: the head (header line, format) and a tail window grown backwards.

`FileWindow` opens a file once, read only, refusing anything but a regular file (a FIFO or a device would block or
never end). `head` holds the first `HEAD_BYTES` (the whole file when it is that small). `lines_from_end()` yields the
file's lines from the last one backwards, reading more of the file only when the walk gets there, so a caller that
stops after three lines reads one block. Every byte read is counted in `bytes_read`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HEAD_BYTES = 16 * 1024
"""What `detect_format` reads first: the head a listing reads anyway (one header line fits in it almost always)."""
BLOCK_BYTES = 16 * 1024
"""First tail read; every further read backwards doubles, up to `MAX_BLOCK_BYTES`."""
MAX_BLOCK_BYTES = 4 * 1024 * 1024
MAX_HEADER_BYTES = 1024 * 1024
"""A first line longer than this is not read to its end (pi's header is a few hundred bytes)."""


class NotRegularFile(OSError):
    """The path is a FIFO, a device, a socket or a directory: never read it."""


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the file: `offset` of its first byte, its bytes without the newline, and whether a newline ends it."""

    offset: int
    data: bytes
    terminated: bool


class FileWindow:
    """Read-only access to one session file for a listing: its head, then lines from the end, counting bytes."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(self.fd)
            if not stat.S_ISREG(st.st_mode):
                raise NotRegularFile(f"{self.path}: not a regular file")
            self.size = st.st_size
            self.bytes_read = 0
            self.head = self._read_at(0, min(self.size, HEAD_BYTES))
        except BaseException:
            os.close(self.fd)
            raise
        self._tail = self.head if len(self.head) >= self.size else b""
        self._tail_start = 0 if self._tail else self.size

    def close(self) -> None:
        """Release the file."""
        os.close(self.fd)

    def __enter__(self) -> FileWindow:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_at(self, offset: int, count: int) -> bytes:
        parts: list[bytes] = []
        while count > 0:
            chunk = os.pread(self.fd, min(count, MAX_BLOCK_BYTES), offset)
            if not chunk:
                break
            parts.append(chunk)
            offset += len(chunk)
            count -= len(chunk)
            self.bytes_read += len(chunk)
        return b"".join(parts)

    @property
    def tail(self) -> bytes:
        """The bytes read from the end so far (from `tail_start` to the end of the file)."""
        return self._tail

    @property
    def tail_start(self) -> int:
        """Offset of the first byte of `tail`."""
        return self._tail_start

    @property
    def whole(self) -> bool:
        """True once every byte of the file has been read."""
        return self._tail_start == 0

    def first_line(self) -> bytes:
        """The first line without its newline (at most `MAX_HEADER_BYTES`; read further only for a long header)."""
        end = self.head.find(b"\n")
        if end >= 0:
            return self.head[:end]
        if len(self.head) >= self.size:
            return self.head
        more = self._read_at(len(self.head), MAX_HEADER_BYTES - len(self.head))
        line = self.head + more
        end = line.find(b"\n")
        return line[:end] if end >= 0 else line

    def read_all(self) -> bytes:
        """The whole file (the tail window becomes the whole file)."""
        if self._tail_start > 0:
            self._tail = self._read_at(0, self._tail_start) + self._tail
            self._tail_start = 0
        return self._tail

    def _grow(self) -> bool:
        """Read the next block before the window (re-reading the head's bytes is cheaper than splicing them in)."""
        if self._tail_start == 0:
            return False
        want = min(self._tail_start, max(BLOCK_BYTES, min(MAX_BLOCK_BYTES, len(self._tail))))
        start = self._tail_start - want
        self._tail = self._read_at(start, want) + self._tail
        self._tail_start = start
        return True

    def lines_from_end(self) -> Iterator[Line]:
        """Every line, last first (an unterminated last line too, flagged), reading backwards on demand."""
        if self.size == 0:
            return
        if not self._tail:
            self._grow()
        end = self.size  # file offset just past the current line's newline position
        terminated_last = True
        first = True
        while True:
            buf, base = self._tail, self._tail_start
            rel_end = end - base
            if first:
                first = False
                if buf.endswith(b"\n"):
                    rel_end -= 1
                    end -= 1
                else:
                    terminated_last = False
            nl = buf.rfind(b"\n", 0, rel_end)
            if nl < 0 and base > 0:
                self._grow()
                continue
            start = nl + 1
            yield Line(base + start, buf[start:rel_end], terminated_last)
            terminated_last = True
            if nl < 0:
                return
            end = base + nl
