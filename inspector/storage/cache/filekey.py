"""What a cache entry knows about the session file it was made from, and how the file compares now.

A key holds the resolved path, device and inode, the end of what was read (`end`), hashes of the head (the
first `HEAD_BYTES`) and of the tail before `end` (`TAIL_BYTES`), and, when the file did not change while
it was read, its exact size, mtime and ctime. `compare` says `unchanged` (the same stat and hashes: nothing to
read), `grown` (same inode, same head and tail before `end`, larger: only bytes after `end` to read) or
`stale` (anything else: rebuild). A rewrite in place keeps its mtime only with `os.utime`, which moves the
ctime: it is never taken for unchanged. A rewrite of the middle of a file that also grew is not seen (the
issue's key: path, inode, size, mtime, head and tail).
"""

from __future__ import annotations

import os
import stat

from inspector.storage.cache._hash import blake2b

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a replayed memo (`inspector.cli.output_memo`) imports as little as it can
if TYPE_CHECKING:
    from typing import Any

HEAD_BYTES = 4096
"""The head hashed: `inspector.read.lines.HEAD_BYTES` (not imported from there: that module imports pathlib and
dataclasses, a third of a replayed memo's start-up; a test keeps the two equal)."""
TAIL_BYTES = 4096
UNCHANGED = "unchanged"
GROWN = "grown"
STALE = "stale"


class _Value:
    """A value equal to another of its class, and hashed, by its `_fields()`.

    Plain classes, not dataclasses, here: `dataclasses` imports `inspect` (ast, dis, tokenize), which alone
    costs a replayed memo more than everything else it does.
    """

    __slots__ = ()

    def _fields(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())


class FileStat(_Value):
    """The stat fields that tell a file unchanged (a value: equal and hashed by its fields)."""

    __slots__ = ("ctime_ns", "dev", "ino", "mtime_ns", "size")

    def __init__(self, dev: int, ino: int, size: int, mtime_ns: int, ctime_ns: int) -> None:
        self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns = dev, ino, size, mtime_ns, ctime_ns

    def _fields(self) -> tuple[int, int, int, int, int]:
        return (self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns)

    def __repr__(self) -> str:
        return "FileStat(dev={}, ino={}, size={}, mtime_ns={}, ctime_ns={})".format(*self._fields())

    def to_json(self) -> dict[str, int]:
        return {"dev": self.dev, "ino": self.ino, "size": self.size, "mtime_ns": self.mtime_ns, "ctime_ns": self.ctime_ns}

    @classmethod
    def of(cls, st: os.stat_result) -> FileStat:
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class FileKey(_Value):
    """A session file as a cache entry saw it (see the module docstring); a value like `FileStat`."""

    __slots__ = ("dev", "end", "exact", "head_hash", "ino", "path", "tail_hash")

    def __init__(self, path: str, dev: int, ino: int, end: int, head_hash: str, tail_hash: str, exact: FileStat | None) -> None:
        self.path, self.dev, self.ino, self.end = path, dev, ino, end
        self.head_hash, self.tail_hash, self.exact = head_hash, tail_hash, exact

    def _fields(self) -> tuple[str, int, int, int, str, str, FileStat | None]:
        return (self.path, self.dev, self.ino, self.end, self.head_hash, self.tail_hash, self.exact)

    def __repr__(self) -> str:
        return "FileKey(path={!r}, dev={}, ino={}, end={}, head_hash={!r}, tail_hash={!r}, exact={!r})".format(*self._fields())

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path, "dev": self.dev, "ino": self.ino, "end": self.end, "head_hash": self.head_hash,
            "tail_hash": self.tail_hash, "exact": None if self.exact is None else self.exact.to_json(),
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Any) -> FileKey:
        """The key back from an entry's header; raises (KeyError, TypeError, ValueError) when malformed."""
        exact = data["exact"]
        key = cls(
            str(data["path"]), int(data["dev"]), int(data["ino"]), int(data["end"]),
            str(data["head_hash"]), str(data["tail_hash"]), None if exact is None else FileStat(**exact),
        )  # fmt: skip
        if key.end < 0:
            raise ValueError("negative end")
        return key


def _hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def _read_at(fd: int, offset: int, length: int) -> bytes:
    out = b""
    while len(out) < length:
        chunk = os.pread(fd, length - len(out), offset + len(out))
        if not chunk:
            break
        out += chunk
    return out


def _hashes(fd: int, end: int) -> tuple[str, str]:
    head = _read_at(fd, 0, min(HEAD_BYTES, end))
    tail_start = max(0, end - TAIL_BYTES)
    tail = _read_at(fd, tail_start, end - tail_start)
    return _hash(head), _hash(tail)


def _open_regular(path: str | os.PathLike[str]) -> int | None:
    """A read-only fd of `path` if it is a regular file (a FIFO put in its place must not block us), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def resolved(path: str | os.PathLike[str]) -> str:
    """The path an entry is filed under: absolute, symlinks resolved."""
    return os.path.realpath(path)


def make_key(path: str | os.PathLike[str], end: int, before: FileStat | None) -> FileKey | None:
    """The key of `path` read up to `end`; `before` is the file's stat taken before it was read.

    The exact stat is kept only when the file is the same now as before the read and was read to its end.
    None when the file cannot be opened, is shorter than `end`, or is another file than `before`.
    """
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        now = FileStat.of(os.fstat(fd))
        if now.size < end or (before is not None and (before.dev, before.ino) != (now.dev, now.ino)):
            return None
        head_hash, tail_hash = _hashes(fd, end)
        after = FileStat.of(os.fstat(fd))
    except OSError:
        return None
    finally:
        os.close(fd)
    exact = now if (before == now == after and now.size == end) else None
    return FileKey(resolved(path), now.dev, now.ino, end, head_hash, tail_hash, exact)


def compare(key: FileKey, path: str | os.PathLike[str]) -> str:
    """`unchanged`, `grown` or `stale`: how `path` now compares with what `key` saw."""
    if resolved(path) != key.path:
        return STALE
    fd = _open_regular(path)
    if fd is None:
        return STALE
    try:
        now = FileStat.of(os.fstat(fd))
        if (now.dev, now.ino) != (key.dev, key.ino) or now.size < key.end:
            return STALE
        if key.exact is not None and now == key.exact:
            # The same stat, ctime included: the hashes guard against a clock or filesystem that lies.
            return UNCHANGED if _hashes(fd, key.end) == (key.head_hash, key.tail_hash) else STALE
        if now.size == key.end:
            return STALE  # same size, another stat: rewritten in place (or touched): never trusted
        return GROWN if _hashes(fd, key.end) == (key.head_hash, key.tail_hash) else STALE
    except OSError:
        return STALE
    finally:
        os.close(fd)
