"""The timeline's walk sends, before every call, exactly the messages pi 0.66.1 sends (issue 25, part 4).

`tests/oracle/pi_sent.mjs` runs pi's own `buildSessionContext` on the path before each assistant message, then
`convertToLlm` and pi-ai's `transformMessages` (which drops errored and aborted assistants and inserts a synthetic
"No result provided" tool result for an orphaned tool call), and names the entry behind every message sent. The
walk's ledger (`figures.diagnosis.calls.walk_calls`) must name the same entries in the same order; the synthetic tool
results are a few tokens each, not in the file, and counted apart. Only temporary copies are handed to pi.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from oracle.pi_oracle import oracle_dist

from inspector.figures.diagnosis.calls import CallWalk, walk_calls
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage
from inspector.session.session import open_session

SCRIPT = ROOT / "tests" / "oracle" / "pi_sent.mjs"
LARGE_SESSION = Path("/work/shared/corpus/pi/large-session.v1.jsonl")


def pi_sent(path: Path, scratch: Path) -> dict[int, list[int | None]]:
    """Per assistant entry (its position among the file's entries): the positions of the entries pi sends before it
    (None: a synthetic tool result)."""
    dist, why = oracle_dist()
    if dist is None:
        pytest.skip(f"pi oracle unavailable: {why}")
    copy = scratch / f"copy-{path.name}"
    shutil.copyfile(path, copy)
    modules = dist.parents[2]  # .../node_modules/@mariozechner/pi-coding-agent/dist -> .../node_modules
    proc = subprocess.run(["node", str(SCRIPT), str(modules)], input=json.dumps({"file": str(copy)}), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return {c["at"]: c["sent"] for c in json.loads(proc.stdout)["calls"]}


def walk_sent(walk: CallWalk, position: dict[int, int]) -> dict[int, list[int]]:
    """Per call (by `position`, entry index -> position among the file's entries): the positions of the rows the walk
    says were sent before it."""
    out: dict[int, list[int]] = {}
    rows: list = []
    step = 0
    for call in walk.calls:
        while step < call.ledger_at:
            reset, added = walk.ledger[step]
            rows = list(added) if reset else rows + list(added)
            step += 1
        out[position[call.entry_index]] = [position[r.entry_index] for r in rows]
    return out


def positions(s) -> dict[int, int]:
    """Entry index -> position among the file's entries (what pi's getEntries() holds: not the header)."""
    kept = [e.index for e in s.entries if e.type != "session"]
    return {index: n for n, index in enumerate(kept)}


def compare(path: Path, scratch: Path) -> tuple[int, int]:
    """Assert the walk sends what pi sends before every call; returns (calls compared, synthetic results)."""
    pi = pi_sent(path, scratch)
    s = open_session(path)
    ours = walk_sent(walk_calls(s, s.context()), positions(s))
    assert ours and set(ours) <= set(pi)
    synthetic = 0
    for at, sent in ours.items():
        synthetic += pi[at].count(None)
        assert [x for x in pi[at] if x is not None] == sent, at
    return len(ours), synthetic


def unsent_fixture(path: Path) -> dict[str, str]:
    """Errored and aborted assistants (one with a tool call whose result is sent), bash runs in and out of the
    context, a custom message, an orphaned tool call and a compaction."""
    b = SessionBuilder(seed=11)
    b.header(cwd="/work")
    ids: dict[str, str] = {}
    b.user("look at the failing build")
    first = b.assistant([b.tool_call("exec", {"command": "make"})], usage=make_usage(1000, 10))
    b.tool_result(b.last_tool_call_ids[0], "exec", "error: missing header")
    ids["aborted"] = b.assistant("I will now", usage=make_usage(1100, 3), stop_reason="aborted")
    b.user("go on")
    ids["errored"] = b.assistant("", usage=make_usage(1150, 0), error_message="overloaded")
    ids["errored_call"] = b.assistant([b.tool_call("exec", {"command": "ls"})], usage=make_usage(1160, 5), stop_reason="error")
    b.tool_result(b.last_tool_call_ids[0], "exec", "Makefile src")
    b.message({"role": "bashExecution", "command": "git status", "output": "clean", "exitCode": 0, "cancelled": False,
               "truncated": False, "timestamp": b.now_ms, "excludeFromContext": True})
    b.message({"role": "bashExecution", "command": "git log -1", "output": "abc fix", "exitCode": 0, "cancelled": False,
               "truncated": False, "timestamp": b.now_ms})
    b.custom_message("note", "remember the header path")
    b.assistant([b.tool_call("read", {"path": "a.h"})], usage=make_usage(1300, 8))
    b.user("never mind, try again")  # the read above is orphaned: pi inserts a synthetic result
    kept = b.assistant("retrying the build", usage=make_usage(1400, 6))
    b.compaction("the build failed on a missing header", kept, 1400)
    b.user("and now?")
    b.assistant("fixed", usage=make_usage(600, 2))
    b.write(path)
    ids["first"] = first
    return ids


def test_the_walk_sends_what_pi_sends_around_unsent_messages(tmp_path):
    path = tmp_path / "unsent.jsonl"
    ids = unsent_fixture(path)
    calls, synthetic = compare(path, tmp_path)
    assert calls >= 5 and synthetic == 1
    s = open_session(path)
    walk = walk_calls(s, s.context())
    assert walk.unsent_messages == 0  # the compaction dropped them from the leaf's context
    pos = positions(s)
    sent = walk_sent(walk, pos)
    last_before_compaction = pos[[c.entry_index for c in walk.calls if c.compaction_id is None][-1]]
    for unsent in ("aborted", "errored", "errored_call"):
        assert pos[s.entry_by_id(ids[unsent]).index] not in sent[last_before_compaction]


def test_the_walk_sends_what_pi_sends_on_the_demo(tmp_path):
    calls, _ = compare(ROOT / "inspector" / "data" / "demo-session.jsonl", tmp_path)
    assert calls > 40


@pytest.mark.skipif(not LARGE_SESSION.exists(), reason="the shared corpus is not here")
def test_the_walk_sends_what_pi_sends_on_large_session(tmp_path):
    calls, synthetic = compare(LARGE_SESSION, tmp_path)
    assert calls > 400 and synthetic == 0
