"""OpenClaw's session write lock, exactly (`acquireSessionWriteLock`, OpenClaw 2026.4 `session-write-lock.ts`).

OpenClaw holds `<realpath(dir)>/<basename>.lock` for a whole run, a compaction, a transcript rewrite and a
tool-result truncation. Taking the same lock the same way is what makes our writes safe against OpenClaw's:

* acquire: create the lock exclusively (OpenClaw: `open(lock, "wx")`) holding `JSON.stringify({pid, createdAt,
  starttime}, null, 2)` (2-space indent, no trailing newline); `starttime` is field 22 of `/proc/<pid>/stat`
  (Linux only, omitted elsewhere). The descriptor stays open while the lock is held. Unlike OpenClaw, the payload
  is written to a temp file that is then hard-linked into place (`_create_lock_file`), so a crash can never leave
  an empty lock behind (OpenClaw's would block everyone for 30 minutes).
* on `EEXIST` the payload is inspected (`inspect_lock_payload`, in `lock_owner.py` with the pid probes): stale
  when the pid is missing, dead (or a zombie) or recycled (its current starttime differs from the stored one),
  or when `createdAt` is invalid or older than `stale_ms` (30 min). When the only reasons are a missing pid /
  invalid createdAt, the lock file's mtime decides instead (`> stale_ms` old). Our own pid without a starttime
  while we do not hold the lock is an orphan of this process: stale. A stale lock is deleted and the acquire
  retried at once; otherwise wait `min(1000, 50 * attempt)` ms and retry until the timeout (default 10 s), then
  raise `LockHeld`.
* re-entrant within the process (a count per lock path); released when the count drops to zero, at exit
  (`atexit`) and on SIGTERM / SIGINT / SIGQUIT / SIGABRT (when no other handler is installed for it; the held
  locks and that cleanup are in `lock_holds.py`).
* something at the lock path that is not a regular file (a directory, a FIFO, a socket, a device) is never
  opened blocking nor taken for a holder's lock: it raises `LockPathNotAFile` naming it (OpenClaw would hang
  reading a FIFO, and wait for a directory's mtime to age). An existing lock is read with `O_NONBLOCK` and a
  type check (`read_regular`), so one swapped in between the checks cannot hang the reader either.

One deliberate difference: OpenClaw's `isPidAlive` treats `EPERM` from `kill(pid, 0)` (a live process of
another user) as dead and would reclaim that lock; here such a pid counts as alive, because reclaiming a live
writer's lock is the one way this protocol can lose data.

OpenClaw's 60 s watchdog that force-releases locks held longer than `maxHoldMs` is not reproduced: a lock is
held here only for the short commit of a compaction (the summaries are produced before it is taken).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.js.timeutil import iso_from_ms
from inspector.write.lock_holds import HELD, HELD_LOCK, Held, register_cleanup
from inspector.write.lock_owner import (
    LockInspection,
    inspect_lock_payload,
    is_pid_alive,
    needs_mtime_fallback,
    process_start_time,
    read_lock_payload,
    read_regular,
    should_reclaim,
)

DEFAULT_TIMEOUT_MS = 10_000
DEFAULT_STALE_MS = 30 * 60 * 1000
MAX_BACKOFF_MS = 1000
BACKOFF_STEP_MS = 50

__all__ = [
    "DEFAULT_STALE_MS",
    "DEFAULT_TIMEOUT_MS",
    "LockHeld",
    "LockPathNotAFile",
    "SessionWriteLock",
    "acquire_session_write_lock",
    "inspect_lock",
    "lock_path_for",
]


class LockHeld(Exception):
    """The session file is locked by a live process (or the lock could not be taken before the timeout)."""

    def __init__(self, lock_path: Path, pid: int | None, created_at: str | None, timeout_ms: int) -> None:
        self.lock_path = lock_path
        self.pid = pid
        self.created_at = created_at
        self.timeout_ms = timeout_ms
        owner = f"pid={pid}" if pid is not None else "unknown"
        super().__init__(f"session file locked (timeout {timeout_ms}ms): {owner} {lock_path}")

    @property
    def hint(self) -> str:
        """A sentence for people: who holds the lock and what to do."""
        who = f"process {self.pid}" if self.pid is not None else "another process"
        since = f" since {self.created_at}" if self.created_at else ""
        return (
            f"{who} holds the session lock{since} (OpenClaw is probably running or compacting this session); "
            "nothing was written. Try again when it is idle."
        )


class LockPathNotAFile(OSError):
    """Something other than a regular file sits at the lock path, so it is nobody's lock and cannot be taken."""

    def __init__(self, lock_path: Path, kind: str) -> None:
        self.lock_path = lock_path
        self.kind = kind
        super().__init__(
            f"the lock path {lock_path} is {kind}, not a lock file (OpenClaw's session lock is a regular file); "
            "nothing written. If no program uses it, remove it and try again."
        )

    def __str__(self) -> str:
        return str(self.args[0])


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _kind_of(mode: int) -> str | None:
    """None for a regular file, else what the file type is, for people."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def lock_path_problem(lock_path: Path) -> str | None:
    """What sits at the lock path when it is not a regular file (symlinks followed), else None (also when absent)."""
    try:
        return _kind_of(os.stat(lock_path).st_mode)
    except OSError:
        return None


def lock_path_for(session_file: Path | str) -> Path:
    """`<realpath(dirname)>/<basename>.lock`, as OpenClaw computes it (the file itself is not resolved)."""
    p = Path(os.path.abspath(session_file))
    directory = p.parent
    with contextlib.suppress(OSError):
        directory = Path(os.path.realpath(directory))
    return directory / (p.name + ".lock")


class SessionWriteLock:
    """A held session write lock; `release()` (or leaving the `with` block) gives it back."""

    def __init__(self, key: str, held: Held) -> None:
        self._key = key
        self._held = held
        self._released = False

    @property
    def lock_path(self) -> Path:
        """The lock file (`<file>.lock`)."""
        return self._held.lock_path

    def release(self) -> None:
        """Drop one hold; the lock file is removed when the last hold in this process is released."""
        if self._released:
            return
        self._released = True
        with HELD_LOCK:
            if HELD.get(self._key) is not self._held:
                return
            self._held.count -= 1
            if self._held.count > 0:
                return
            HELD.pop(self._key, None)
            with contextlib.suppress(OSError):
                os.close(self._held.fd)
            with contextlib.suppress(OSError):
                os.unlink(self._held.lock_path)

    def __enter__(self) -> SessionWriteLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _clean_stray_temps(lock_path: Path) -> None:
    """Remove `<lock>.<pid>.<nonce>.tmp` files left by processes killed while creating the lock."""
    for tmp in lock_path.parent.glob(lock_path.name + ".*.tmp"):
        parts = tmp.name[len(lock_path.name) + 1 :].split(".")
        if len(parts) == 3 and parts[0].isdigit() and not is_pid_alive(int(parts[0])):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _create_lock_file(lock_path: Path, payload: bytes) -> int:
    """Create the lock file already holding its payload; the open descriptor, or -1 when it exists.

    OpenClaw creates the file with `O_EXCL` and writes the payload after, so a process killed in between leaves
    an empty lock that blocks everyone for 30 minutes (the mtime rule). Here the payload is written to a temp
    file first and hard-linked into place (`link` fails when the lock exists, like `O_EXCL`), so the lock file
    is never seen without its payload. Filesystems without hard links fall back to OpenClaw's way.
    """
    tmp = lock_path.with_name(f"{lock_path.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError:
        fd = -2
    if fd >= 0:
        try:
            _write_all(fd, payload)
            try:
                os.link(tmp, lock_path)
                return fd
            except FileExistsError:
                os.close(fd)
                return -1
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK, errno.ENOSYS):
                    os.close(fd)
                    raise
                os.close(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    try:
        fd = os.open(lock_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return -1
    try:
        _write_all(fd, payload)
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        raise
    return fd


def _read_raw(path: Path) -> bytes | None:
    return read_regular(path)


def _payload_bytes(pid: int, created_at: str, starttime: int | None) -> bytes:
    payload: dict[str, Any] = {"pid": pid, "createdAt": created_at}
    if starttime is not None:
        payload["starttime"] = starttime
    return json.dumps(payload, indent=2, ensure_ascii=False).encode("utf-8")


def acquire_session_write_lock(
    session_file: Path | str,
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    stale_ms: int = DEFAULT_STALE_MS,
    clock: Clock | None = None,
    sleep: Callable[[float], None] = time.sleep,
    allow_reentrant: bool = True,
) -> SessionWriteLock:
    """Take OpenClaw's write lock on `session_file`, waiting up to `timeout_ms` (0: a single attempt).

    Raises `LockHeld` naming the holder when a live process keeps it; `OSError` for other failures (e.g. a
    read-only directory).
    """
    clock = clock or SystemClock()
    register_cleanup()
    session_path = Path(os.path.abspath(session_file))
    session_path.parent.mkdir(parents=True, exist_ok=True)
    lock_path = lock_path_for(session_path)
    key = str(lock_path)
    with HELD_LOCK:
        held = HELD.get(key)
        if allow_reentrant and held is not None:
            held.count += 1
            return SessionWriteLock(key, held)
    _clean_stray_temps(lock_path)
    started = time.monotonic()
    attempt = 0
    reclaimed = 0  # a reclaimed stale lock is retried at once, even at the deadline (a few times at most)
    while attempt == 0 or 0 < reclaimed <= 5 or (time.monotonic() - started) * 1000 < timeout_ms:
        attempt += 1
        payload_bytes = _payload_bytes(os.getpid(), iso_from_ms(now_ms(clock)), process_start_time(os.getpid()))
        fd = _create_lock_file(lock_path, payload_bytes)
        if fd >= 0:
            new_held = Held(lock_path=lock_path, fd=fd, acquired_at_ms=now_ms(clock))
            with HELD_LOCK:
                HELD[key] = new_held
            return SessionWriteLock(key, new_held)
        kind = lock_path_problem(lock_path)
        if kind is not None:
            raise LockPathNotAFile(lock_path, kind)
        raw_before = _read_raw(lock_path)
        payload = read_lock_payload(lock_path)
        now = now_ms(clock)
        inspected = inspect_lock_payload(payload, stale_ms, now)
        with HELD_LOCK:
            held_here = key in HELD
        if payload is not None and payload.get("pid") == os.getpid() and "starttime" not in payload and not held_here:
            inspected = LockInspection(
                inspected.pid, inspected.pid_alive, inspected.created_at, inspected.age_ms, True,
                inspected.stale_reasons + ("orphan-self-pid",),
            )
        if should_reclaim(lock_path, inspected, stale_ms, now):
            # Narrow OpenClaw's reclaim race a little: only delete the lock we inspected, not one another
            # process created in between (the check and the unlink are still two steps, as in OpenClaw).
            if _read_raw(lock_path) == raw_before:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(lock_path)
            reclaimed += 1
            continue
        reclaimed = 0
        if (time.monotonic() - started) * 1000 >= timeout_ms:
            break
        sleep(min(MAX_BACKOFF_MS, BACKOFF_STEP_MS * attempt) / 1000)
    final = read_lock_payload(lock_path) or {}
    raise LockHeld(lock_path, final.get("pid"), final.get("createdAt"), timeout_ms)


@dataclass(frozen=True)
class LockStatus:
    """Who holds a session's lock right now (for the UI and the CLI), or that nobody does."""

    lock_path: Path
    exists: bool
    inspection: LockInspection | None = None
    held_by_us: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def blocking(self) -> bool:
        """True when a write would have to wait: the lock exists, is not ours and is not stale."""
        return self.exists and not self.held_by_us and not (self.inspection and self.inspection.stale)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for `--json` output."""
        return {
            "lock_path": str(self.lock_path),
            "exists": self.exists,
            "held_by_us": self.held_by_us,
            "blocking": self.blocking,
            "inspection": self.inspection.to_json() if self.inspection else None,
        }


def inspect_lock(session_file: Path | str, *, clock: Clock | None = None, stale_ms: int = DEFAULT_STALE_MS) -> LockStatus:
    """Look at a session's lock without touching it."""
    clock = clock or SystemClock()
    lock_path = lock_path_for(session_file)
    with HELD_LOCK:
        ours = str(lock_path) in HELD
    if not lock_path.exists():
        return LockStatus(lock_path, False, held_by_us=ours)
    inspected = inspect_lock_payload(read_lock_payload(lock_path), stale_ms, now_ms(clock))
    if inspected.stale and needs_mtime_fallback(inspected) and not should_reclaim(lock_path, inspected, stale_ms, now_ms(clock)):
        inspected = LockInspection(inspected.pid, inspected.pid_alive, inspected.created_at, inspected.age_ms, False, ())
    return LockStatus(lock_path, True, inspected, ours)
