"""A session file as raw lines, for the writers (append, truncate, undo).

The reader (`inspector.session.session`) indexes metadata and leaves content on disk; a writer needs every line's exact
bytes (to keep what it does not change byte for byte) and the parsed object of the lines it reasons about.
`parse_lines` splits like pi's `loadEntriesFromFile` (on `\\n`; blank lines skipped; lines `JSON.parse` rejects
skipped) but keeps every line, parsed or not, with its byte offset, so nothing is lost on a rewrite.

`SessionLines` adds what the writers ask: the header, the entries in file order (objects that are not the
header), the leaf (pi: the last entry in file order), `byId` with pi's "the later duplicate wins", and the
branch from a leaf to the root (`getBranch`, guarded against `parentId` cycles, which would hang pi).
"""

from __future__ import annotations

import errno
import os
import time
import uuid
from pathlib import Path
from typing import Any

from inspector.js.jsjson import js_stringify
from inspector.read.encode import encode_entry
from inspector.read.jsonl_reader import decode_line

CURRENT_VERSION = 3
_BOM = b"\xef\xbb\xbf"


class SessionWriteError(Exception):
    """A write was refused or failed; nothing was changed unless the message says otherwise."""


Buffer = bytes
"""What the writers parse: a file read whole (never an mmap, see `read_exact`)."""


class RawLine:
    """One physical line: where it is, and the few fields the writers reason about (parsed once).

    The parsed object itself is not kept (a big session's messages would take several times the file's size in
    memory); `obj` parses the line again when a caller needs more than the metadata.
    """

    __slots__ = ("_e", "_header", "_s", "_src", "first_kept_entry_id", "id", "is_object", "parent_id", "parsed", "start", "target_id", "type")

    def __init__(self, start: int, src: Buffer, s: int, e: int) -> None:
        self.start = start
        self._src = src
        self._s = s
        self._e = e
        self.parsed = False
        self.is_object = False
        self.type: Any = None
        self.id: Any = None
        self.parent_id: Any = None
        self.target_id: Any = None
        self.first_kept_entry_id: Any = None
        self._header: dict[str, Any] | None = None

    @property
    def raw(self) -> bytes:
        """The line's bytes, without the `\n`."""
        return bytes(self._src[self._s : self._e])

    def _body(self) -> bytes:
        raw = self.raw
        return raw[3:] if self.start == 0 and raw.startswith(_BOM) else raw

    @property
    def value(self) -> Any:
        """The parsed JSON value (parsed again on each call), or None when the line is not JSON."""
        if not self.parsed:
            return None
        try:
            return decode_line(self._body())[0]
        except ValueError:  # pragma: no cover - it parsed once
            return None

    @property
    def obj(self) -> dict[str, Any] | None:
        """The parsed object, when the line is a JSON object."""
        if self._header is not None:
            return self._header
        if not self.is_object:
            return None
        v = self.value
        return v if isinstance(v, dict) else None

    @property
    def is_entry(self) -> bool:
        """An object that is not a `session` header line (what pi's `getEntries` returns)."""
        return self.is_object and self.type != "session"

    def with_parent(self, parent_id: str | None) -> bytes:
        """The line re-serialized with a new `parentId` (key order kept, as `{...entry, parentId}` does)."""
        o = dict(self.obj or {})
        o["parentId"] = parent_id
        return js_stringify(o).encode("utf-8")


def _parse_one(start: int, src: Buffer, s: int, e: int) -> RawLine:
    line = RawLine(start, src, s, e)
    body = line._body()
    if body.strip():
        try:
            value, _ = decode_line(body)
        except ValueError:
            return line
        line.parsed = True
        if isinstance(value, dict):
            line.is_object = True
            line.type = value.get("type")
            line.id = value.get("id")
            line.parent_id = value.get("parentId")
            line.target_id = value.get("targetId")
            line.first_kept_entry_id = value.get("firstKeptEntryId")
            if line.type == "session":
                line._header = value
    return line


def parse_lines(data: Buffer, base: int = 0) -> list[RawLine]:
    """Every line of `data` (the last one may lack a newline), parsed where JSON.parse would accept it.

    `base` is added to each line's `start` (for a buffer that continues another).
    """
    out: list[RawLine] = []
    pos = 0
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        end = n if nl < 0 else nl
        out.append(_parse_one(base + pos, data, pos, end))
        pos = end + 1
    return out


def first_line(data: Buffer) -> RawLine | None:
    """The first non-blank line, parsed (where the header must be)."""
    pos = 0
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        end = n if nl < 0 else nl
        if data[pos:end].strip():
            return _parse_one(pos, data, pos, end)
        pos = end + 1
    return None


def lines_from(data: Buffer, start: int) -> list[RawLine]:
    """The lines of `data[start:]` (`start` at a line boundary), with offsets into `data`."""
    return parse_lines(bytes(data[start:]), base=start)


def ends_with_newline(data: Buffer) -> bool:
    """True for an empty buffer or one whose last byte is `\n`."""
    n = len(data)
    return n == 0 or data[n - 1 : n] == b"\n"


def last_entry(data: Buffer, size: int | None = None) -> RawLine | None:
    """pi's leaf read from the end: the last parseable line that is not a `session` header (None if none).

    A parsed value that is not an object counts too (pi would take it as the leaf), with no id. `size` reads
    only `data[:size]` (without copying it).
    """
    n = len(data) if size is None else size
    end = n - 1 if n and data[n - 1 : n] == b"\n" else n
    while end >= 0:
        start = data.rfind(b"\n", 0, end) + 1
        if data[start:end].strip():
            line = _parse_one(start, data, start, end)
            if line.parsed and not (line.is_object and line.type == "session"):
                return line
        if start == 0:
            return None
        end = start - 1
    return None


def check_writable(data: Buffer, path: Path) -> None:
    """Refuse files pi would not load as a version-3 session, and a last line still being written."""
    head = first_line(data)
    header = head.obj if head is not None else None
    if header is None or header.get("type") != "session" or not isinstance(header.get("id"), str):
        raise SessionWriteError(f"{path}: no session header on the first line; not a pi/OpenClaw session, nothing written")
    version = header.get("version") if type(header.get("version")) is int else 1
    if version != CURRENT_VERSION:
        raise SessionWriteError(
            f"{path}: session version {version}; this tool writes only version {CURRENT_VERSION} files "
            "(pi migrates older files in place when it opens them); nothing written"
        )
    if not ends_with_newline(data):
        raise unterminated_line_error(data, path, "nothing written")


def complete_lines_size(data: Buffer) -> int:
    """The size of `data` up to and including its last `\n` (what is left out is a line still being written)."""
    return data.rfind(b"\n") + 1


def _count_newlines(data: Buffer) -> int:
    step = 1 << 24
    return sum(bytes(data[i : i + step]).count(b"\n") for i in range(0, len(data), step))


def unterminated_line_error(data: Buffer, path: Path, outcome: str) -> SessionWriteError:
    """The refusal for a file whose last line has no final `\n`: which line, what it looks like, what to do.

    A line that is not complete JSON is a writer mid-append or a line cut off (it never ends by itself when no
    program is writing); a complete JSON line without the newline was just never ended.
    """
    start = complete_lines_size(data)
    number = _count_newlines(data) + 1  # the tail has no newline
    tail = bytes(data[start:])
    try:
        decode_line(tail[3:] if start == 0 and tail.startswith(_BOM) else tail)
        complete = True
    except ValueError:
        complete = False
    if complete:
        return SessionWriteError(
            f"{path}: line {number} (the last line) is complete JSON but has no final newline; {outcome}. "
            "Every line of a session ends with a newline: if no program is writing this session, add the missing "
            "newline at the end of the file and run again."
        )
    return SessionWriteError(
        f"{path}: line {number} (the last line) is incomplete: {len(tail)} bytes without a final newline that are not "
        f"complete JSON (a program is writing it, or it was cut off); {outcome}. If no program is writing this session "
        "and the line stays like this, remove the incomplete line (or restore the file from a backup) and run again."
    )


def check_file_writable(path: Path, outcome: str) -> None:
    """Refuse a session file this process may not write: a file it could not append to is not rewritten either.

    The file is opened for writing (nothing is written) the way an append opens it, so a read-only mode, an
    immutable file or a read-only mount refuse a rewrite (a rename needs only the directory) as they refuse
    an append.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ETXTBSY):
            raise SessionWriteError(
                f"{path}: the file is read-only for this user ({exc.strerror}); {outcome}. "
                "Make it writable (e.g. chmod u+w) if it should be changed."
            ) from None
        raise
    os.close(fd)


def resolve_session_path(path: Path | str) -> Path:
    """The file a session path names, symlinks resolved: the one to lock and rewrite (a link stays a link to it)."""
    return Path(os.path.realpath(os.path.abspath(path)))


class SessionLines:
    """The lines of a session file with pi's view of them (header, entries, leaf, byId, branches)."""

    def __init__(self, data: Buffer, extra: bytes = b"") -> None:
        """`data` (bytes or an mmap of the file), followed by `extra` (e.g. a line about to be appended)."""
        self.data = data
        self.size = len(data) + len(extra)
        self.lines = parse_lines(data) + (parse_lines(extra, base=len(data)) if extra else [])
        self.header: dict[str, Any] | None = None
        for line in self.lines:
            if line.parsed:
                o = line.obj
                if o is not None and o.get("type") == "session" and isinstance(o.get("id"), str):
                    self.header = o
                break
        self.entries = [line for line in self.lines if line.is_entry]
        self.by_id: dict[Any, RawLine] = {}
        for line in self.entries:
            self.by_id[line.id] = line

    @property
    def version(self) -> int:
        """The header's version (1 when absent, as pi reads it)."""
        v = (self.header or {}).get("version")
        return v if type(v) is int else 1

    @property
    def leaf(self) -> RawLine | None:
        """pi's leaf on load: the last entry in file order."""
        return self.entries[-1] if self.entries else None

    def branch(self, leaf_id: Any) -> list[RawLine]:
        """pi's `getBranch(leafId)`: root → leaf through `parentId` (a cycle stops the walk)."""
        path: list[RawLine] = []
        seen: set[int] = set()
        current = self.by_id.get(leaf_id) if leaf_id else None
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            path.append(current)
            pid = current.parent_id
            current = self.by_id.get(pid) if pid else None
        path.reverse()
        return path



def id_in_file(data: Buffer, entry_id: str) -> bool:
    """Conservative collision check: does `"<id>"` occur anywhere in the file (as an id or any other string)?"""
    return data.find(b'"' + entry_id.encode("ascii") + b'"') >= 0


def new_entry_id(data: Buffer) -> str:
    """pi's `generateId`: the first 8 characters of a random UUID, unused in the file (full UUID after 100 tries)."""
    for _ in range(100):
        candidate = str(uuid.uuid4())[:8]
        if not id_in_file(data, candidate):
            return candidate
    return str(uuid.uuid4())


def compaction_entry(
    entry_id: str,
    parent_id: str | None,
    timestamp: str,
    summary: str,
    first_kept_entry_id: str,
    tokens_before: int | float,
    details: Any = None,
    from_hook: bool | None = True,
) -> dict[str, Any]:
    """The object pi's `appendCompaction` builds, in its key order; absent `details`/`fromHook` are left out."""
    entry: dict[str, Any] = {
        "type": "compaction",
        "id": entry_id,
        "parentId": parent_id,
        "timestamp": timestamp,
        "summary": summary,
        "firstKeptEntryId": first_kept_entry_id,
        "tokensBefore": tokens_before,
    }
    if details is not None:
        entry["details"] = details
    if from_hook is not None:
        entry["fromHook"] = from_hook
    return entry


def encode_compaction(entry: dict[str, Any]) -> bytes:
    """The JSONL line pi writes for `entry` (`JSON.stringify(entry) + "\\n"`)."""
    return encode_entry(entry)


def file_identity(path: Path) -> tuple[int, int]:
    """(st_dev, st_ino) of a file: a rename over it gives a new identity."""
    st = os.stat(path)
    return st.st_dev, st.st_ino


def read_file(path: Path) -> bytes:
    """The whole file (a session being written is read as it is at this moment)."""
    with open(path, "rb") as f:
        return f.read()


def read_exact(fd: int, size: int, path: Path) -> bytes:
    """The first `size` bytes of an open file, read (never mapped: a mapping of a file that another process
    truncates in place kills the process with SIGBUS). A file now shorter than `size` is a `SessionWriteError`."""
    chunks: list[bytes] = []
    got = 0
    while got < size:
        chunk = os.pread(fd, min(size - got, 1 << 24), got)
        if not chunk:
            raise SessionWriteError(f"{path}: the file shrank while it was being read (truncated in place by another process?); nothing changed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


SETTLE_TRIES = 50
SETTLE_PAUSE_S = 0.002


def read_settled(fd: int, path: Path) -> bytes:
    """The whole open file, read again (a few times, ~0.1 s at most) while its last line is unfinished.

    Another process's `write` of a line that crosses a page boundary can be seen half done for an instant; a line
    that stays unfinished (a writer died mid-line) is returned as is, for the caller's check to refuse.
    """
    data = read_exact(fd, os.fstat(fd).st_size, path)
    for _ in range(SETTLE_TRIES):
        if ends_with_newline(data):
            break
        time.sleep(SETTLE_PAUSE_S)
        data = read_exact(fd, os.fstat(fd).st_size, path)
    return data


def read_from(fd: int, offset: int) -> bytes:
    """Everything from `offset` to the end of an open file (b"" when it is shorter)."""
    chunks: list[bytes] = []
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def complete_lines(data: bytes) -> bytes:
    """`data` up to and including its last `\n` (the lines a writer has finished)."""
    return data[: data.rfind(b"\n") + 1]
