"""`inspector.storage.forkpool.ForkPool`, the forked workers a big file's ranges are parsed on.

- each worker answers its calls in order, results that do not fit a pipe's default buffer included;
- an exception in a worker is raised in the caller, with its type, and the worker goes on serving;
- a worker that dies is reported (`WorkerGone`), never waited for forever;
- leaving the pool ends every worker, at once when leaving on an exception (none is left running).
"""

from __future__ import annotations

import os
import signal

import pytest
from conftest import pid_alive

from inspector.storage.forkpool import ForkPool, WorkerGone

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the pool forks")


def echo(kind: str, value: int) -> object:
    if kind == "fail":
        raise KeyError(value)
    if kind == "big":
        return bytes([value % 256]) * (3 << 20)  # three times a pipe's default buffer
    if kind == "pid":
        return os.getpid()
    return (kind, value * 2)


def test_each_worker_answers_in_order() -> None:
    with ForkPool(2, echo) as pool:
        assert len(pool) == 2
        for k in range(6):
            pool.send(k % 2, "x", k)
        assert [pool.result(k % 2) for k in range(6)] == [("x", 2 * k) for k in range(6)]
        pool.send(0, "big", 7)
        pool.send(0, "x", 1)
        assert pool.result(0) == bytes([7]) * (3 << 20) and pool.result(0) == ("x", 2)


def test_an_exception_is_raised_here_and_the_worker_goes_on() -> None:
    with ForkPool(1, echo) as pool:
        pool.send(0, "fail", 3)
        pool.send(0, "x", 4)
        with pytest.raises(KeyError):
            pool.result(0)
        assert pool.result(0) == ("x", 8)


def test_a_dead_worker_is_reported() -> None:
    with ForkPool(1, echo) as pool:
        pool.send(0, "pid", 0)
        pid = pool.result(0)
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerGone):
            pool.send(0, "x", 1)
            pool.result(0)


def test_leaving_ends_every_worker() -> None:
    with ForkPool(2, echo) as pool:
        pids = []
        for w in range(2):
            pool.send(w, "pid", 0)
            pids.append(pool.result(w))
    assert not any(map(pid_alive, pids)), "a worker outlived its pool"
    with pytest.raises(RuntimeError), ForkPool(2, echo) as pool:
        pids = []
        for w in range(2):
            pool.send(w, "pid", 0)
            pids.append(pool.result(w))
        pool.send(0, "big", 1)  # still working (or its answer unread) when the pool is left on an error
        raise RuntimeError("the caller failed")
    assert not any(map(pid_alive, pids)), "a worker outlived its pool"
