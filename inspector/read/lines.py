"""Byte-level scanning of a session file: complete lines with their offsets, incrementally.

`LineScanner` reads a file in large chunks (constant memory whatever the file size), yields each complete
line with its 1-based line number and byte offset, keeps a trailing partial line buffered until its newline
arrives, and notices when the file was truncated or replaced (size shrink, different inode) so the caller
can re-index. It never writes.

A segmented scanner (`segmented=True`, for the pi-format mirror of a Claude Code / Codex file) also splits each line
at `SEGMENT_SEPARATOR`: one physical line may hold several entries (one line of the other tool's file that pi writes
as several entries), each handed out with the line's number and its own offset; a usage mark among them (a later
row revising an earlier row's usage: `inspector.read.usage_marks`) is no entry: the scanner keeps it in `usage_marks`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from inspector.read.usage_marks import USAGE_MARK_PREFIX, UsageMark, read_usage_mark

CHUNK_SIZE = 1024 * 1024
"""Bytes read at a time: a chunk and its lines are alive together, so this bounds the scan's own memory (8 MiB
chunks cost about 24 MB of peak RSS in the serial index and in every worker, for no measurable speed)."""


@dataclass(slots=True)
class RawLine:
    """One physical line: 1-based `line` number, byte `offset` of its start, bytes without the `\\n`."""

    line: int
    offset: int
    data: bytes
    terminated: bool = True


SEGMENT_SEPARATOR = b"\x1e"
"""Separates the entries of one mirror line (ASCII record separator: JSON writers escape it inside strings and JSON
allows it nowhere else, so it never occurs in a JSON text; a session file holding it raw has an unparseable line,
which only a segmented scanner reads as several)."""


def segments(offset: int, data: bytes) -> list[tuple[int, bytes]]:
    """The entries of one segmented line at `offset`: (offset of each, its bytes)."""
    out = []
    for part in data.split(SEGMENT_SEPARATOR):
        out.append((offset, part))
        offset += len(part) + 1
    return out


HEAD_BYTES = 4096
"""The first bytes kept to notice a file rewritten in place (same inode, same or larger size)."""


@dataclass(slots=True)
class FileIdentity:
    """What tells us that a file is still the one we indexed."""

    dev: int
    ino: int
    size: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileIdentity:
        return cls(st.st_dev, st.st_ino, st.st_size)


class FileReplaced(Exception):
    """The file shrank or was replaced since it was indexed: everything must be read again."""


class LineScanner:
    """Incremental reader of complete lines of one file.

    `consumed` is the offset just past the last complete line handed out; bytes after it (a line a writer
    is still writing) are kept in `pending` and re-examined on the next `scan()`. `next_line` is the number
    the next complete line gets. The scanner's position changes only through `scan`/`scan_until`,
    `accept_pending` and `resume`.
    """

    def __init__(self, path: Path | str, chunk_size: int = CHUNK_SIZE, segmented: bool = False) -> None:
        self.path = Path(path)
        self.chunk_size = chunk_size
        self.segmented = segmented
        """Split lines at `SEGMENT_SEPARATOR` (see the module docstring)."""
        self._consumed = 0
        self._next_line = 1
        self._pending_parts: list[bytes] = []
        self._pending_len = 0
        self._identity: FileIdentity | None = None
        self._head = b""
        self._skip_newline = False
        self.usage_marks: list[UsageMark] = []
        """The usage marks of the segmented lines scanned, in file order (the caller takes them: `take_usage_marks`)."""

    @property
    def consumed(self) -> int:
        """Offset just past the last complete line handed out."""
        return self._consumed

    @property
    def next_line(self) -> int:
        """1-based number of the next line."""
        return self._next_line

    @property
    def identity(self) -> FileIdentity | None:
        """The file as last seen (None before the first scan): how truncation and replacement are noticed."""
        return self._identity

    @property
    def pending(self) -> bytes:
        """The bytes after the last complete line (a line still being written)."""
        if len(self._pending_parts) > 1:
            self._pending_parts = [b"".join(self._pending_parts)]
        return self._pending_parts[0] if self._pending_parts else b""

    @property
    def pending_len(self) -> int:
        """Length of `pending`, without joining its pieces."""
        return self._pending_len

    def _set_pending(self, value: bytes) -> None:
        self._pending_parts = [value] if value else []
        self._pending_len = len(value)

    def resume(self, offset: int, line: int, pending: bytes = b"", identity: FileIdentity | None = None) -> None:
        """Continue at byte `offset`, the start of physical line `line`, as if everything before had been scanned.

        `pending` are the bytes already read after `offset` that hold no newline yet (they are kept, not re-read);
        `identity` is the file as it was when those bytes were read (None: taken at the next `scan`). Used to start
        a worker at its byte range, and to continue after lines parsed elsewhere (the parallel index).
        """
        self._consumed = offset
        self._next_line = line
        self._set_pending(pending)
        self._identity = identity
        self._head = self._read_head() if identity is not None else b""
        self._skip_newline = False

    def _read_head(self) -> bytes:
        """The first `HEAD_BYTES` of the file now (b"" when it cannot be read)."""
        try:
            with open(self.path, "rb") as f:
                return f.read(HEAD_BYTES)
        except OSError:
            return b""

    def check_identity(self) -> os.stat_result:
        """Stat the file; raise `FileReplaced` if it shrank below what we read or is another inode."""
        st = os.stat(self.path)
        if self.identity is not None:
            if (st.st_dev, st.st_ino) != (self.identity.dev, self.identity.ino):
                raise FileReplaced(f"{self.path} was replaced (inode changed)")
            if st.st_size < self._consumed + self._pending_len:
                raise FileReplaced(
                    f"{self.path} was truncated ({st.st_size} bytes, {self._consumed + self._pending_len} read)"
                )
            if self._head and self._read_head()[: len(self._head)] != self._head:
                # Same inode, not shorter, other first bytes: rewritten in place (pi's v1->v3 migration does this).
                raise FileReplaced(f"{self.path} was rewritten in place (its first bytes changed)")
        return st

    def scan(self) -> Iterator[tuple[int, int, bytes]]:
        """Yield `(line, offset, data)` for every complete line appended since the last scan."""
        st = self.check_identity()
        self._identity = FileIdentity.of(st)
        if len(self._head) < HEAD_BYTES:
            self._head = self._read_head()
        yield from self.scan_until(None)

    def scan_until(self, end: int | None) -> Iterator[tuple[int, int, bytes]]:
        """Complete lines from `consumed` up to byte `end` (EOF when None), without identity checks."""
        start = self._consumed + self._pending_len
        with open(self.path, "rb") as f:
            f.seek(start)
            remaining = None if end is None else end - start
            while remaining is None or remaining > 0:
                size = self.chunk_size if remaining is None else min(self.chunk_size, remaining)
                chunk = f.read(size)
                if not chunk:
                    break
                if remaining is not None:
                    remaining -= len(chunk)
                yield from self._feed(chunk)
            if end is None:
                self._identity = FileIdentity.of(os.fstat(f.fileno()))

    def _feed(self, chunk: bytes) -> Iterator[tuple[int, int, bytes]]:
        if self._skip_newline and not self._pending_len:
            self._skip_newline = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                self._consumed += 1
        last_nl = chunk.rfind(b"\n")
        if last_nl < 0:
            # No newline yet (a huge line, or a writer mid-line): keep the pieces, join them once.
            self._pending_parts.append(chunk)
            self._pending_len += len(chunk)
            return
        if self._pending_len:
            chunk = b"".join([*self._pending_parts, chunk])
            self._set_pending(b"")
        lines = chunk.split(b"\n")  # the last piece is what follows the last newline (no copy of the body first)
        del chunk
        tail = lines.pop()
        offset = self._consumed
        line_no = self._next_line
        if self.segmented:
            for data in lines:
                if SEGMENT_SEPARATOR in data:
                    for at, part in segments(offset, data):
                        if part.startswith(USAGE_MARK_PREFIX):
                            mark = read_usage_mark(part)
                            if mark is not None:
                                self.usage_marks.append(mark)
                        else:
                            yield line_no, at, part
                else:
                    yield line_no, offset, data
                offset += len(data) + 1
                line_no += 1
        else:
            for data in lines:
                yield line_no, offset, data
                offset += len(data) + 1
                line_no += 1
        self._consumed = offset
        self._next_line = line_no
        self._set_pending(tail)

    def take_usage_marks(self) -> list[UsageMark]:
        """The usage marks scanned since the last call, in file order."""
        marks, self.usage_marks = self.usage_marks, []
        return marks

    def take_pending(self) -> RawLine | None:
        """Hand out the unterminated last line as if complete (for a one-shot read of a static file)."""
        if not self._pending_len:
            return None
        return RawLine(self._next_line, self._consumed, self.pending, terminated=False)

    def accept_pending(self) -> None:
        """Mark the unterminated last line as consumed; a newline arriving later is skipped."""
        self._consumed += self._pending_len
        self._set_pending(b"")
        self._next_line += 1
        self._skip_newline = True


def read_range(path: Path | str, offset: int, length: int) -> bytes:
    """Read `length` bytes at `offset` (one entry's line)."""
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(length)
