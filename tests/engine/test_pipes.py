"""`inspector.storage.pipes`: the link the indexing workers and the counting helper talk over, and the reaping of a child."""

from __future__ import annotations

import os
import signal
import time

import pytest

from inspector.storage.pipes import Channel, reap

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the links are used across a fork")


@pytest.mark.parametrize("answer_pipe_bytes", [None, 1 << 20])
def test_messages_larger_than_a_pipe_buffer_cross_a_fork_both_ways(answer_pipe_bytes) -> None:
    """A message far larger than the pipe buffer arrives whole and equal, in order, and a closed end reads as
    end-of-file."""
    parent, child = Channel.pair(answer_pipe_bytes)
    big = {"text": "x" * (3 << 20), "ids": list(range(50_000)), "nested": ("é\ud800", None, 1.5)}
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child; ends in os._exit)
        code = 1
        try:
            parent.close()
            got = child.recv()
            child.send(("echo", got))
            child.send(len(got["text"]))
            code = 0
        finally:
            os._exit(code)
    child.close()
    parent.send(big)
    assert parent.recv() == ("echo", big)
    assert parent.recv() == 3 << 20
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with pytest.raises(EOFError):
        parent.recv()
    parent.close()


def test_reap_waits_for_a_child_that_ends_and_kills_one_that_does_not() -> None:
    quick = os.fork()
    if quick == 0:  # pragma: no cover
        os._exit(0)
    reap(quick, time.monotonic() + 5)
    with pytest.raises(ChildProcessError):
        os.waitpid(quick, os.WNOHANG)  # reaped
    stuck = os.fork()
    if stuck == 0:  # pragma: no cover
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(60)
        os._exit(0)
    started = time.monotonic()
    reap(stuck, time.monotonic() + 0.2)
    assert time.monotonic() - started < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(stuck, os.WNOHANG)  # killed and reaped
