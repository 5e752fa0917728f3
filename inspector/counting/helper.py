"""A small process that counts tokens for a command, started before the session is indexed: `start`, `stop`.

The tokenizer (bpe-openai's cl100k tables: about 32 MB resident) and the reads of the lines to count would
otherwise sit on top of the whole index in the command's process, whose peak is the one that matters on a big
file. Forked while this process is still small (its imports done, nothing indexed), the helper loads the tokenizer
while the parent indexes, then counts what `inspector.counting.bulk.count_lines` and `count_messages` send it: the
parent never loads the tokenizer, and the helper never holds the index (its own worker processes for a big share,
forked from it, are small too).

Anything that goes wrong with the helper (it died, a request failed, no `fork`) makes the caller count in its own
process as before: the counts are the same either way, only where the memory sits changes.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

from inspector.counting.counter import Implementation, get_token_counter
from inspector.storage.pipes import Channel, flush_standard_streams, reap

__all__ = ["HelperFailed", "active", "count_lines", "count_lines_soon", "count_messages", "running", "start", "stop"]


class HelperFailed(Exception):
    """The helper could not answer (gone, or its count raised): the caller counts in its own process."""


class _Helper:
    """The parent's handle on a helper process: its pipe, its process, what it counts with."""

    def __init__(self, encoding: str, implementation: Implementation) -> None:
        self.encoding, self.implementation = encoding, implementation
        self.early: tuple[Any, ...] | None = None
        """A request sent ahead (`send_early`) whose answer is not read yet."""
        self.conn, child_end = Channel.pair()
        flush_standard_streams()
        # A bare fork, not `multiprocessing.Process`: the helper may start a pool of its own (a daemonic
        # process may not), and it must never run this process's exit handlers.
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child; ends in os._exit)
            code = 0
            try:
                self.conn.close()
                _detach_standard_streams()
                _serve(child_end, encoding, implementation)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        self.pid = pid
        child_end.close()

    def ask(self, request: tuple[Any, ...]) -> Any:
        """The answer to `request` (the one to a request sent early, when it is this one), waited for; `HelperFailed`
        when the helper is gone or failed."""
        early, self.early = self.early, None
        if early is not None:
            try:
                answer = self._receive()  # answers come in order: the early one first, even when not this one's
            except HelperFailed:
                if early == request:
                    raise
            else:
                if early == request:
                    return answer
        try:
            self.conn.send(request)
        except (OSError, ValueError) as exc:
            raise HelperFailed(f"counting helper gone: {exc}") from None
        return self._receive()

    def send_early(self, request: tuple[Any, ...]) -> None:
        """Send `request` now, its answer read by the `ask` of the same request (the helper works meanwhile)."""
        if self.early is not None:
            self.ask(self.early)  # one early request at a time: its answer is dropped
        try:
            self.conn.send(request)
        except (OSError, ValueError) as exc:
            raise HelperFailed(f"counting helper gone: {exc}") from None
        self.early = request

    def _receive(self) -> Any:
        try:
            status, value = self.conn.recv()
        except (OSError, EOFError, ValueError) as exc:
            raise HelperFailed(f"counting helper gone: {exc}") from None
        if status != "ok":
            raise HelperFailed(str(value))
        return value

    def close(self, wait: bool = True) -> None:
        """End the helper: closing the pipe makes it return; one that does not within a second is killed. `wait=False`:
        only close the pipe (the process is about to exit: the helper ends by itself, and the init process reaps it)."""
        try:
            self.conn.close()
        except OSError:
            pass
        if wait:
            reap(self.pid, time.monotonic() + 1.0)


_helper: _Helper | None = None
_exit_hooked = False


def start(encoding: str, implementation: Implementation = "auto") -> bool:
    """Fork the helper for `encoding` now (call it while this process is small); False where there is no `fork`.

    A helper already running is ended first. The helper loads its tokenizer at once, while the caller goes on.
    """
    global _helper
    stop()
    if not hasattr(os, "fork"):
        return False
    try:
        _helper = _Helper(encoding, implementation)
    except OSError:
        _helper = None
        return False
    global _exit_hooked
    if not _exit_hooked:
        atexit.register(stop)  # whatever ends the command, the helper ends with it
        _exit_hooked = True
    return True


def stop(*, wait: bool = True) -> None:
    """End the helper, if one runs (the command is over). `wait=False` when this process is about to exit: the
    helper is told to end (its pipe closed) and not waited for (its exit, freeing a tokenizer and a forked copy of
    this process, took 4-8 ms of every command's time)."""
    global _helper
    helper, _helper = _helper, None
    if helper is not None:
        helper.close(wait)


def running() -> bool:
    """Whether a helper was started and not stopped (it may still have died)."""
    return _helper is not None


def active(encoding: str, implementation: Implementation) -> bool:
    """Whether a running helper counts with `encoding` and `implementation` (so it can serve this count)."""
    return _helper is not None and (_helper.encoding, _helper.implementation) == (encoding, implementation)


def count_lines(path: str, jobs: Sequence[Any], version: int) -> dict[int, int | None]:
    """`inspector.counting.bulk.count_lines(path, jobs, version, ...)` done by the helper; `HelperFailed` if it cannot.
    Counted already when the same request was sent by `count_lines_soon`."""
    if _helper is None:
        raise HelperFailed("no counting helper")
    result: dict[int, int | None] = _helper.ask(_lines_request(path, jobs, version))
    return result


def count_lines_soon(path: str, jobs: Sequence[Any], version: int) -> None:
    """Have the helper start on `count_lines(path, jobs, version)` now, without waiting: the `count_lines` of the same
    jobs then reads its answer, made while this process did other work. `HelperFailed` if it cannot be sent."""
    if _helper is None:
        raise HelperFailed("no counting helper")
    _helper.send_early(_lines_request(path, jobs, version))


def _lines_request(path: str, jobs: Sequence[Any], version: int) -> tuple[Any, ...]:
    return ("lines", path, [tuple(j) for j in jobs], version)


def count_messages(messages: Sequence[dict[str, Any]]) -> list[int]:
    """`TokenCounter.count_message` of each message, done by the helper; `HelperFailed` if it cannot."""
    if _helper is None:
        raise HelperFailed("no counting helper")
    result: list[int] = _helper.ask(("messages", list(messages)))
    return result


def _serve(conn: Channel, encoding: str, implementation: Implementation) -> None:
    """The helper's loop: load the tokenizer, then answer requests until the parent closes the pipe."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it ends us
    _die_with_parent()
    from inspector.counting import bulk
    from inspector.counting.bulk import LineJob

    counter = get_token_counter(encoding, implementation)
    counter.prepare()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if request[0] == "lines":
                _, path, rows, version = request
                jobs = [LineJob(*row) for row in rows]
                answer: Any = bulk.count_lines(path, jobs, version, encoding, implementation)
            elif request[0] == "messages":
                answer = [counter.count_message(msg) for msg in request[1]]
            else:
                raise ValueError(f"unknown request {request[0]!r}")
            reply: tuple[str, Any] = ("ok", answer)
        except Exception as exc:  # the parent counts itself instead
            reply = ("error", f"{type(exc).__name__}: {exc}")
        try:
            conn.send(reply)
        except (OSError, ValueError):
            return


def _detach_standard_streams() -> None:
    """Point the helper's stdin, stdout and stderr at /dev/null: a helper still ending after its parent exited must
    not hold the parent's output pipe open (a reader of that pipe waits for every writer to close it)."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        try:
            os.dup2(null, fd)
        except OSError:
            pass
    os.close(null)


def _die_with_parent() -> None:
    """Linux: SIGTERM this process when its parent dies (a parent killed outright cannot end it otherwise)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
