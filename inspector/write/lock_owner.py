"""Who holds a session's write lock and whether the lock is stale (OpenClaw 2026.4 `session-write-lock.ts`).

The lock file's payload as OpenClaw reads it (`readLockPayload`), the probes of the pid it names (`isPidAlive`,
the `starttime` of `/proc/<pid>/stat`) and the staleness rules (`inspectLockPayload`,
`shouldReclaimContendedLockFile`); `lock.py` takes and releases the lock with them. As there, a pid that
`kill(pid, 0)` answers with `EPERM` counts as alive (OpenClaw would reclaim that lock).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.js.timeutil import iso_to_ms

__all__ = [
    "LockInspection",
    "inspect_lock_payload",
    "is_pid_alive",
    "needs_mtime_fallback",
    "process_start_time",
    "read_lock_payload",
    "read_regular",
    "should_reclaim",
]


def read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file; None when it is missing, unreadable or not a regular file (never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------------------------------
# Processes
# --------------------------------------------------------------------------------------------------------------


def _valid_pid(pid: Any) -> bool:
    return type(pid) is int and pid > 0


def _is_zombie(pid: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as f:
            status = f.read()
    except OSError:
        return False
    m = re.search(r"^State:\s+(\S)", status, re.M)
    return bool(m and m.group(1) == "Z")


def is_pid_alive(pid: Any) -> bool:
    """OpenClaw's `isPidAlive`: `kill(pid, 0)` succeeds and the process is not a zombie (EPERM counts as alive)."""
    if not _valid_pid(pid):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return not _is_zombie(pid)


def process_start_time(pid: Any) -> int | None:
    """Field 22 (`starttime`, clock ticks since boot) of `/proc/<pid>/stat`; None off Linux or when unreadable."""
    if not sys.platform.startswith("linux") or not _valid_pid(pid):
        return None
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    end = stat.rfind(")")
    if end < 0:
        return None
    fields = stat[end + 1 :].lstrip().split()
    if len(fields) < 20:
        return None
    try:
        value = int(fields[19])
    except ValueError:
        return None
    return value if value >= 0 else None


# --------------------------------------------------------------------------------------------------------------
# Payload and staleness
# --------------------------------------------------------------------------------------------------------------

def _valid_lock_number(value: Any) -> bool:
    return type(value) is int and value >= 0


def read_lock_payload(lock_path: Path) -> dict[str, Any] | None:
    """OpenClaw's `readLockPayload`: the valid fields of the lock file's JSON, or None when unreadable.

    Only a regular file is read, without blocking (a FIFO at the lock path reads as None, it does not hang).
    """
    data = read_regular(Path(lock_path))
    if data is None:
        return None
    try:
        parsed = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return {}
    payload: dict[str, Any] = {}
    if _valid_lock_number(parsed.get("pid")) and parsed["pid"] > 0:
        payload["pid"] = parsed["pid"]
    if isinstance(parsed.get("createdAt"), str):
        payload["createdAt"] = parsed["createdAt"]
    if _valid_lock_number(parsed.get("starttime")):
        payload["starttime"] = parsed["starttime"]
    return payload


@dataclass(frozen=True)
class LockInspection:
    """What a lock payload says (OpenClaw's `inspectLockPayload`)."""

    pid: int | None
    pid_alive: bool
    created_at: str | None
    age_ms: int | None
    stale: bool
    stale_reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for `--json` output."""
        return {
            "pid": self.pid,
            "pid_alive": self.pid_alive,
            "created_at": self.created_at,
            "age_ms": self.age_ms,
            "stale": self.stale,
            "stale_reasons": list(self.stale_reasons),
        }


def inspect_lock_payload(payload: dict[str, Any] | None, stale_ms: int, now: int) -> LockInspection:
    """Stale reasons of a payload: missing-pid / dead-pid / recycled-pid, invalid-createdAt / too-old."""
    payload = payload or {}
    pid = payload.get("pid") if _valid_lock_number(payload.get("pid")) and payload.get("pid", 0) > 0 else None
    alive = is_pid_alive(pid) if pid is not None else False
    created_at = payload.get("createdAt") if isinstance(payload.get("createdAt"), str) else None
    created_ms = iso_to_ms(created_at) if created_at is not None else None
    age_ms = max(0, now - created_ms) if created_ms is not None else None
    stored_start = payload.get("starttime") if _valid_lock_number(payload.get("starttime")) else None
    recycled = False
    if alive and pid is not None and stored_start is not None:
        current = process_start_time(pid)
        recycled = current is not None and current != stored_start
    reasons: list[str] = []
    if pid is None:
        reasons.append("missing-pid")
    elif not alive:
        reasons.append("dead-pid")
    elif recycled:
        reasons.append("recycled-pid")
    if age_ms is None:
        reasons.append("invalid-createdAt")
    elif age_ms > stale_ms:
        reasons.append("too-old")
    return LockInspection(pid, alive, created_at, age_ms, bool(reasons), tuple(reasons))


def needs_mtime_fallback(details: LockInspection) -> bool:
    """Whether the payload alone cannot date the lock (no pid, or no valid `createdAt`): the file's mtime decides."""
    return details.stale and all(r in ("missing-pid", "invalid-createdAt") for r in details.stale_reasons)


def should_reclaim(lock_path: Path, details: LockInspection, stale_ms: int, now: int) -> bool:
    """OpenClaw's `shouldReclaimContendedLockFile`."""
    if not details.stale:
        return False
    if not needs_mtime_fallback(details):
        return True
    try:
        mtime_ms = os.stat(lock_path).st_mtime * 1000
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return max(0.0, now - mtime_ms) > stale_ms
