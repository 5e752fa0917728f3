"""This tool's own state files (circuit breaker, write journal): where they live and how they are written.

* `state_dir()`: `$SESSION_INSPECTOR_STATE_DIR` when set (tests), otherwise `platformdirs.user_state_dir(
  "session-inspector")`.
* `JsonStateFile`: a small JSON document changed read-modify-write under an exclusive `fcntl.flock` on a
  sidecar `<name>.lock` (so two instances of the app never lose each other's update), and replaced atomically
  (temp file, fsync, rename, fsync of the directory), so a crash leaves the old or the new document.
  A document that cannot be read (corrupt JSON, wrong shape) is reported through `StateLoad.problem` and
  treated as empty; before it is overwritten it is kept as `<name>.corrupt-<ms>` (nothing is lost).
* `atomic_write_bytes(path, data)`: the same temp + fsync + rename + dir fsync, for any file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import mmap
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from inspector.base.clock import SystemClock, now_ms

STATE_DIR_ENV = "SESSION_INSPECTOR_STATE_DIR"
APP_NAME = "session-inspector"


def state_dir(env: dict[str, str] | None = None) -> Path:
    """This tool's state directory (not created here)."""
    env = dict(os.environ) if env is None else env
    override = env.get(STATE_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_state_dir(APP_NAME, appauthor=False))


def fsync_dir(directory: Path) -> None:
    """fsync a directory so a rename or a new file in it survives a crash (best effort on odd filesystems)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_all(fd: int, data: bytes | bytearray | memoryview | mmap.mmap) -> None:
    """`os.write` until every byte is written.

    The views taken of `data` are released even when a write fails (a full disk): an mmap can then be closed
    while the error propagates (a view left in the traceback would make `mmap.close()` raise `BufferError`).
    """
    with memoryview(data) as whole:
        done = 0
        while done < len(whole):
            with whole[done:] as rest:
                done += os.write(fd, rest)


def atomic_write_bytes(path: Path, data: bytes, *, tmp_suffix: str | None = None, mode: int | None = None) -> None:
    """Replace `path` with `data`: write a temp file beside it, fsync, rename over `path`, fsync the directory.

    `tmp_suffix` names the temp file `<path><tmp_suffix>` (default `.tmp-<pid>`); `mode` defaults to the
    current file's permission bits (or 0o600 for a new file).
    """
    path = Path(path)
    tmp = path.with_name(path.name + (tmp_suffix or f".tmp-{os.getpid()}"))
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o600
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


@dataclass
class StateLoad:
    """A state document as read: `data` (empty when missing or unreadable) and the `problem`, if any."""

    data: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    raw: bytes | None = None


class JsonStateFile:
    """A JSON state document under a sidecar flock, written atomically."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")

    def read(self) -> StateLoad:
        """Read without the lock (a snapshot; writers replace the file atomically, so it is never partial)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return StateLoad()
        except OSError as exc:
            return StateLoad(problem=f"{self.path}: cannot read: {exc.strerror or exc}")
        if not raw.strip():
            return StateLoad(raw=raw)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            return StateLoad(problem=f"{self.path}: corrupt state ({exc.__class__.__name__}: {exc}); treated as empty", raw=raw)
        if not isinstance(data, dict):
            return StateLoad(problem=f"{self.path}: corrupt state (top level is not an object); treated as empty", raw=raw)
        return StateLoad(data=data, raw=raw)

    @contextlib.contextmanager
    def locked(self) -> Iterator[StateLoad]:
        """Hold the sidecar lock and yield the current document; `save()` inside the block writes it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield self.read()
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def save(self, data: dict[str, Any], loaded: StateLoad | None = None) -> None:
        """Write `data` (call inside `locked()`); a corrupt previous document is kept as `<name>.corrupt-<ms>`."""
        if loaded is not None and loaded.problem and loaded.raw is not None:
            keep = self.path.with_name(f"{self.path.name}.corrupt-{now_ms(SystemClock())}")
            with contextlib.suppress(OSError):
                keep.write_bytes(loaded.raw)
        text = json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
        atomic_write_bytes(self.path, text.encode("utf-8"), tmp_suffix=f".tmp-{os.getpid()}", mode=0o600)
