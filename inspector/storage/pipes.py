"""Links to processes forked from this one: pickled messages over a pair of pipes (`Channel`), and the chores around
a bare `os.fork` (`flush_standard_streams` before it, `reap` after).

The indexing workers (`inspector.storage.forkpool`) and the counting helper (`inspector.counting.helper`) use them instead of
`multiprocessing`: importing `multiprocessing.connection` and `concurrent.futures` costs a command ~30 ms and ~2.4 MB,
and a restored session extended by a few lines needs neither.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
import time
from typing import Any

_FRAME = struct.Struct("<Q")


class Channel:
    """One end of a link to another process: pickled messages, each after its length, over a pair of pipes."""

    __slots__ = ("_read", "_write")

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self._read, self._write = read_fd, write_fd

    @staticmethod
    def pair(answer_pipe_bytes: int | None = None) -> tuple[Channel, Channel]:
        """Two connected ends: what one sends, the other receives. `answer_pipe_bytes`: the size asked for the pipe
        that carries the second end's messages to the first, where the system allows (Linux), so an answer can wait
        there (kernel memory) while its sender goes on."""
        a_read, b_write = os.pipe()
        b_read, a_write = os.pipe()
        if answer_pipe_bytes is not None:
            try:
                import fcntl

                fcntl.fcntl(b_write, fcntl.F_SETPIPE_SZ, answer_pipe_bytes)
            except (ImportError, AttributeError, OSError):  # not Linux, or a smaller limit: the default pipe
                pass
        return Channel(a_read, a_write), Channel(b_read, b_write)

    def send(self, message: Any) -> None:
        """Send one message (raises `OSError` when the other end is closed)."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        os.write(self._write, _FRAME.pack(len(data)))
        view = memoryview(data)
        while view:
            view = view[os.write(self._write, view) :]

    def _exactly(self, size: int) -> bytes:
        parts, left = [], size
        while left:
            chunk = os.read(self._read, min(left, 1 << 20))
            if not chunk:
                raise EOFError("the link is closed")
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)

    def ready(self) -> bool:
        """Whether a message has begun to arrive (`recv` would not wait for the other end to start sending it)."""
        import select

        return bool(select.select([self._read], [], [], 0)[0])

    def recv(self) -> Any:
        """The next message (raises `EOFError` when the other end is closed)."""
        (size,) = _FRAME.unpack(self._exactly(_FRAME.size))
        return pickle.loads(self._exactly(size))

    def close(self) -> None:
        """Close both pipe ends (the other end then reads end-of-file)."""
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass


def flush_standard_streams() -> None:
    """Flush stdout and stderr before a fork: a child must not inherit (and print again) buffered output."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def reap(pid: int, deadline: float) -> None:
    """Wait for the child `pid` to end until `deadline` (`time.monotonic()`), then kill it (SIGKILL)."""
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done != 0:
            return
        if time.monotonic() > deadline:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            return
        time.sleep(0.002)
