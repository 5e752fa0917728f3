"""A real second process appends to a session (in odd-sized pieces, mid-line) while the reader refreshes."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import time

from conftest import assistant, header, jline, msg, tool_result, user

from inspector.session.context import build_context
from inspector.session.session import open_session


def _writer(path: str, lines: list[str], seed: int) -> None:
    rng = random.Random(seed)
    data = ("\n".join(lines) + "\n").encode()
    pos = 0
    with open(path, "ab", buffering=0) as f:
        while pos < len(data):
            step = rng.choice([1, 7, 50, 300, 4096])
            f.write(data[pos : pos + step])
            pos += step
            if rng.random() < 0.3:
                time.sleep(0.001)


def _lines(n: int) -> list[str]:
    out = []
    prev = "u0"
    for i in range(1, n):
        eid = f"e{i:07d}"
        if i % 3 == 1:
            out.append(jline(msg(eid, prev, assistant("", tool_calls=[(f"c{i}", "exec", {"cmd": "ls " * (i % 50)})]))))
        elif i % 3 == 2:
            out.append(jline(msg(eid, prev, tool_result(f"c{i - 1}", "exec", "out\u00e9 " * (i % 200)))))
        else:
            out.append(jline(msg(eid, prev, user(f"turn {i} \u6587\u5b57"))))
        prev = eid
    return out


def test_reader_follows_a_concurrent_writer_process(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_text(jline(header()) + "\n" + jline(msg("u0", None, user("start"))) + "\n")
    session = open_session(path)
    session.context()
    lines = _lines(1500)
    proc = mp.get_context("spawn").Process(target=_writer, args=(str(path), lines, 7))
    proc.start()
    deadline = time.monotonic() + 60
    while proc.is_alive() and time.monotonic() < deadline:
        res = session.refresh()
        assert not res.reset
        session.context()
    proc.join(10)
    assert proc.exitcode == 0
    session.refresh()
    assert session.pending_bytes == 0
    once = open_session(path)
    key = lambda s: [(e.id, e.parent_id, e.line, e.offset, e.length, e.estimates) for e in s.entries]
    assert key(session) == key(once)
    assert len(session.entries) == 1500
    live_rows = [(r.entry_index, r.role) for r in session.context().messages]
    assert live_rows == [(r.entry_index, r.role) for r in build_context(once.tree, None).messages]
    assert not [d for d in session.all_diagnostics() if d.severity == "error"]
    assert os.path.getsize(path) == session.file_size
