"""The cache directory: where it is, whether it is safe to use, atomic writes, LRU eviction, clearing.

An entry is one file `<kind>-<hex>.sic`: a magic line, a header (plain data: what the entry is valid for, checked
before anything else is read) and a payload. Files are written 0600 under a temporary per-writer name, fsynced,
then renamed over the entry (two processes saving the same entry never interleave: the last rename wins). The
directory must be owned by the user and not writable by others (entries may be unpickled: a planted file could
run code), or the cache is off. Reads refuse symlinks and files not owned by the user.
"""

from __future__ import annotations

import marshal
import mmap
import os
import stat
import struct

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a replayed memo imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, BinaryIO

    from inspector.base.clock import Clock

ENV_DIR = "SESSION_INSPECTOR_CACHE_DIR"
ENV_MAX_BYTES = "SESSION_INSPECTOR_CACHE_MAX_BYTES"
APP_NAME = "session-inspector"
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
MAGIC = b"SESSION-INSPECTOR-CACHE\n"
_LEN = struct.Struct("<I")
ENTRY_PATTERN = r"^(?:(index|memo)-[0-9a-f]{16,128}\.sic|mirror-[0-9a-f]{32}\.(?:jsonl|json|lock|state))$"
"""Index snapshots, memos, and the JSONL mirrors of store sessions with their sidecars and lock files
(`inspector.read.store.mirror`), and the pi-format mirrors of Claude Code / Codex files with their translator state
(`inspector.read.formats.mirror`)."""
TEMP_PATTERN = r"^\.(?:(index|memo)-[0-9a-f]{16,128}\.sic\.[0-9]+\.[0-9a-f]+|mirror-[0-9a-f]{32}\.(?:jsonl|json|state)\.[0-9a-z_]+)\.tmp$"
STALE_TEMP_SECONDS = 3600.0
"""A temporary file older than this is a writer that died mid-write: eviction removes it."""
HEADER_MARSHAL_VERSION = 4
"""The header is a `marshal` of plain data (dicts, lists, strings, numbers, None): `marshal` is built into the
interpreter, where a JSON decoder costs a replayed memo its imports (`json` pulls in `re`)."""


class CacheUnavailable(Exception):
    """The cache directory cannot be used (not owned by the user, writable by others, not a directory, ...)."""


def _path_text(raw: str) -> str:
    """`str(pathlib.Path(raw))` without importing pathlib on POSIX (a replayed memo's start-up): empty and `.`
    parts dropped, `..` kept, a leading `//` kept as POSIX allows."""
    if os.name != "posix":
        from pathlib import Path

        return str(Path(raw))
    lead = "//" if raw.startswith("//") and not raw.startswith("///") else "/" if raw.startswith("/") else ""
    return (lead + "/".join(p for p in raw.split("/") if p and p != ".")) or "."


def cache_dir() -> str:
    """`$SESSION_INSPECTOR_CACHE_DIR` (`~` expanded), else the user cache dir of `platformdirs`."""
    raw = os.environ.get(ENV_DIR, "").strip()
    if raw:
        return _path_text(os.path.expanduser(raw))
    import platformdirs

    return _path_text(str(platformdirs.user_cache_dir(APP_NAME, appauthor=False)))


def max_bytes() -> int:
    """The size bound: `$SESSION_INSPECTOR_CACHE_MAX_BYTES` (a non-negative integer), else 512 MB."""
    raw = os.environ.get(ENV_MAX_BYTES, "").strip()
    try:
        value = int(raw)
    except ValueError:
        return DEFAULT_MAX_BYTES
    return value if value >= 0 else DEFAULT_MAX_BYTES


def checked_dir(*, create: bool) -> str:
    """The cache dir, created 0700 when `create`; raises `CacheUnavailable` with a one-line reason.

    A dir owned by someone else, or writable by group or others, is refused (never "fixed": it may be a
    directory the user pointed `$SESSION_INSPECTOR_CACHE_DIR` at for another purpose).
    """
    path = cache_dir()
    if create:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise CacheUnavailable(f"{path}: cannot create: {exc.strerror or exc}") from None
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise CacheUnavailable(f"{path}: does not exist") from None
    except OSError as exc:
        raise CacheUnavailable(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise CacheUnavailable(f"{path}: not a directory")
    if st.st_uid != os.getuid():
        raise CacheUnavailable(f"{path}: owned by another user (uid {st.st_uid}); cache off")
    if st.st_mode & 0o022:
        raise CacheUnavailable(f"{path}: writable by group or others (mode {stat.S_IMODE(st.st_mode):o}); cache off")
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        raise CacheUnavailable(f"{path}: not readable and writable")
    return path


def entry_name(kind: str, digest: str) -> str:
    """The file name of an entry: `index-<hex>.sic` or `memo-<hex>.sic`."""
    return f"{kind}-{digest}.sic"


def _plain(value: Any) -> Any:
    """`value` as JSON-like plain data (tuples become lists, as a JSON round trip would make them); TypeError
    for anything else."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"header key {k!r} is not a string")
            out[k] = _plain(v)
        return out
    raise TypeError(f"header value of type {type(value).__name__} is not plain data")


def encode_header(header: dict[str, Any]) -> bytes:
    """The magic line, the header's length and the header (everything before the payload)."""
    data = marshal.dumps(_plain(header), HEADER_MARSHAL_VERSION)
    return MAGIC + _LEN.pack(len(data)) + data


def read_entry(directory: str | os.PathLike[str], name: str, *, mapped: bool = False) -> tuple[dict[str, Any], memoryview] | None:
    """`(header, payload)` of an entry, or None when it is absent, not ours, or not an entry at all.

    A damaged entry (wrong magic, a header that is not JSON) is removed: it would never become valid.

    `mapped`: the payload is a read-only memory map of the file rather than a copy of it, for a command that
    ends soon after (a headless command's restore: copying a 25-60 MB snapshot out of the page cache cost 13-33 ms,
    most of it page faults, and a restore reads only part of it). An entry is never written in place (a new one is
    renamed over it, a removed one unlinked), so the mapping stays what it was; only a truncation from outside the
    cache, or a failing device, could make a read of it fault (SIGBUS), which is why a long-lived reader (the UI)
    takes a copy.
    """
    path = os.path.join(directory, name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
        data: bytes | mmap.mmap | None = None
        if mapped and st.st_size and os.name == "posix":  # elsewhere a mapped file could not be replaced
            try:
                data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
            except OSError:  # a file system that cannot map files: read it
                data = None
        if data is None:
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read()
    except (OSError, ValueError):  # ValueError: emptied since `fstat`
        return None
    finally:
        os.close(fd)
    view = memoryview(data)
    start = len(MAGIC) + _LEN.size
    if len(data) < start or data[: len(MAGIC)] != MAGIC:
        discard(directory, name)
        return None
    (hlen,) = _LEN.unpack_from(data, len(MAGIC))
    try:
        header = _plain(marshal.loads(view[start : start + hlen]))  # anything but plain data: not ours
    except (EOFError, ValueError, TypeError, RecursionError):
        discard(directory, name)
        return None
    if not isinstance(header, dict) or start + hlen > len(data):
        discard(directory, name)
        return None
    return header, view[start + hlen :]


def touch(directory: str | os.PathLike[str], name: str) -> None:
    """Mark an entry as just used (its mtime: what LRU eviction goes by)."""
    try:
        os.utime(os.path.join(directory, name))
    except OSError:
        pass


def discard(directory: str | os.PathLike[str], name: str) -> None:
    """Remove an entry (a damaged or unusable one); missing is fine."""
    try:
        os.unlink(os.path.join(directory, name))
    except OSError:
        pass


def write_entry(directory: str | os.PathLike[str], name: str, header: dict[str, Any],
                payload: bytes | memoryview | Sequence[bytes | memoryview] | Callable[[BinaryIO], object], *,
                durable: bool = True) -> bool:
    """Write an entry atomically (temp + fsync + rename), then evict the least recently used entries. `durable=False`:
    no fsync, for an entry whose header lets a reader tell it whole (a crash may leave it short or zeroed). A
    `payload` given as a sequence of pieces is written piece by piece (never joined: no copy of a big payload); given
    as a callable, it writes the payload itself into the file it is passed (seekable, after the header: an index
    snapshot made as it is written), and any exception it raises is a failure to write.

    Returns False (and leaves no temporary file) when it could not be written or alone exceeds the bound.
    """
    head = encode_header(header)
    limit = max_bytes()
    writer = payload if callable(payload) else None
    pieces: list[Any] = []
    if isinstance(payload, (bytes, bytearray, memoryview)):
        pieces = [payload]
    elif not callable(payload):
        pieces = list(payload)
    if len(head) + sum(memoryview(p).nbytes for p in pieces) > limit:
        return False
    tmp = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(head)
            if writer is not None:
                writer(f)
                if f.tell() > limit:
                    raise OSError("the entry alone exceeds the cache's bound")
            for piece in pieces:
                f.write(piece)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, os.path.join(directory, name))
    except Exception:  # OSError, or whatever a payload writer raised
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    evict(directory, limit, keep=name)
    return True


class CacheFile:
    """One file the cache owns: an entry or a writer's temporary file (`name`, `size`, `mtime`, `temporary`)."""

    __slots__ = ("mtime", "name", "size", "temporary")

    def __init__(self, name: str, size: int, mtime: float, temporary: bool) -> None:
        self.name, self.size, self.mtime, self.temporary = name, size, mtime, temporary

    def __repr__(self) -> str:
        return f"CacheFile(name={self.name!r}, size={self.size}, mtime={self.mtime}, temporary={self.temporary})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CacheFile):
            return NotImplemented
        return (self.name, self.size, self.mtime, self.temporary) == (other.name, other.size, other.mtime, other.temporary)

    def __hash__(self) -> int:
        return hash((self.name, self.size, self.mtime, self.temporary))

    @property
    def kind(self) -> str:
        """`index`, `memo`, `mirror` (or `temp`)."""
        return "temp" if self.temporary else self.name.partition("-")[0]


def owned_files(directory: str | os.PathLike[str]) -> list[CacheFile]:
    """Every file of `directory` this cache owns (by name: other files are never listed, so never removed)."""
    import re

    entry_re, temp_re = re.compile(ENTRY_PATTERN), re.compile(TEMP_PATTERN)
    out: list[CacheFile] = []
    try:
        names = os.listdir(directory)
    except OSError:
        return out
    for name in names:
        temporary = temp_re.match(name) is not None
        if not temporary and entry_re.match(name) is None:
            continue
        try:
            st = os.lstat(os.path.join(directory, name))
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            out.append(CacheFile(name, st.st_size, st.st_mtime, temporary))
    return out


def evict(directory: str | os.PathLike[str], limit: int, keep: str | None = None, clock: Clock | None = None) -> int:
    """Remove least recently used entries until the total is within `limit` (never `keep`); returns bytes freed.

    Temporary files of writers that died long ago go first; a live writer's temporary file is left alone.
    """
    from inspector.base.clock import SystemClock

    files = owned_files(directory)
    now = (clock or SystemClock()).now().timestamp()
    freed = 0
    live: list[CacheFile] = []
    for f in files:
        if f.temporary and now - f.mtime > STALE_TEMP_SECONDS:
            discard(directory, f.name)
            freed += f.size
        else:
            live.append(f)
    total = sum(f.size for f in live)
    # A mirror's lock file (empty) is never evicted: a process may hold it while another would create a new one.
    for f in sorted((f for f in live if not f.temporary and f.name != keep and not f.name.endswith(".lock")), key=lambda f: f.mtime):
        if total <= limit:
            break
        discard(directory, f.name)
        total -= f.size
        freed += f.size
    return freed


def clear(directory: str | os.PathLike[str]) -> tuple[int, int]:
    """Remove every file the cache owns in `directory`; returns `(files removed, bytes freed)`."""
    removed = freed = 0
    for f in owned_files(directory):
        try:
            os.unlink(os.path.join(directory, f.name))
        except OSError:
            continue
        removed += 1
        freed += f.size
    return removed, freed
