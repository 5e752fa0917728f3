"""Worker processes forked from this one, each answering calls over its own pair of pipes (`ForkPool`).

`parallel.parse_ranges` runs a big file's ranges on them. `concurrent.futures.ProcessPoolExecutor` would do the
same, but it costs the indexing process about 2.4 MB of imports (multiprocessing, sockets, logging, queues) and
a thread that takes every result into this process as soon as it is ready. Here a result stays in its worker
(in its pipe) until the caller asks for it, in the order the caller needs them.

A worker runs one function, `serve`, on the arguments sent to it, in order; it answers each call with the result
or the exception, pickled after its length. It ignores SIGINT (Ctrl-C is its parent's to handle: the parent ends
it), dies on SIGTERM, never runs its parent's exit handlers, and ends when its request pipe closes.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from typing import Any

from inspector.storage.pipes import Channel, flush_standard_streams, reap

RESULT_PIPE_BYTES = 1 << 20
"""The size asked for a worker's answer pipe (Linux's default limit for a process): a worker that has finished a
call goes on with the next one while its answer waits there (kernel memory, not this process's)."""


class WorkerGone(Exception):
    """A worker ended without answering (killed, crashed)."""


class ForkPool:
    """`count` worker processes forked now, each running `serve` on the calls `send` gives it (see the module
    docstring). Use it as a context manager: leaving it ends the workers (at once when leaving on an exception)."""

    def __init__(self, count: int, serve: Callable[..., Any]) -> None:
        self._workers: list[tuple[int, Channel]] = []
        flush_standard_streams()
        try:
            for _ in range(count):
                ours, theirs = Channel.pair(RESULT_PIPE_BYTES)
                pid = os.fork()
                if pid == 0:  # pragma: no cover (the child; ends in os._exit)
                    code = 0
                    try:
                        signal.signal(signal.SIGTERM, signal.SIG_DFL)
                        signal.signal(signal.SIGINT, signal.SIG_IGN)
                        ours.close()
                        for _, other in self._workers:  # the earlier workers' links: theirs alone to end
                            other.close()
                        _serve(theirs, serve)
                    except BaseException:
                        code = 1
                    finally:
                        os._exit(code)
                theirs.close()
                self._workers.append((pid, ours))
        except BaseException:
            self.close(kill=True)
            raise

    def __len__(self) -> int:
        return len(self._workers)

    def send(self, worker: int, *args: Any) -> None:
        """Queue a call of `serve(*args)` on `worker` (its answers come back in the order of its calls)."""
        try:
            self._workers[worker][1].send(args)
        except OSError as exc:
            raise WorkerGone(f"worker {worker} gone: {exc}") from None

    def ready(self, worker: int) -> bool:
        """Whether `worker`'s oldest unanswered call is answered (`result` would not wait for the call to end)."""
        return self._workers[worker][1].ready()

    def result(self, worker: int) -> Any:
        """The answer to `worker`'s oldest unanswered call: its result, or its exception raised here."""
        try:
            ok, value = self._workers[worker][1].recv()
        except (OSError, EOFError) as exc:
            raise WorkerGone(f"worker {worker} gone: {exc}") from None
        if not ok:
            raise value
        return value

    def close(self, kill: bool = False) -> None:
        """End every worker: closing its link makes it return after its call; `kill` ends it now (SIGTERM). A
        worker still there a second later is killed."""
        workers, self._workers = self._workers, []
        for pid, channel in workers:
            if kill:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            channel.close()
        deadline = time.monotonic() + 1.0
        for pid, _ in workers:
            reap(pid, deadline)

    def __enter__(self) -> ForkPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.close(kill=kind is not None)


def _serve(channel: Channel, serve: Callable[..., Any]) -> None:  # pragma: no cover (runs in the child)
    """A worker's loop: answer each call until the link closes."""
    while True:
        try:
            args = channel.recv()
        except (EOFError, OSError):
            return
        try:
            reply: tuple[bool, Any] = (True, serve(*args))
        except Exception as exc:  # the caller raises it
            reply = (False, exc)
        try:
            channel.send(reply)
        except OSError:
            return  # the parent is gone
        except Exception as exc:  # an answer that does not pickle
            channel.send((False, RuntimeError(f"worker answer not sendable: {exc!r}")))
