"""A Claude Code line answering several tool calls at once (issue 26): one `toolResult` row per result, each paired
with its own `tool_use` and estimated on its own, all at the file's line number; read the same by every reader of
the mirror (serial, parallel, tail, glance, live follow), while an OpenClaw line holding the separator stays the
unparseable line pi skips."""

from __future__ import annotations

import json
from pathlib import Path

from inprocess import run_cli

import inspector.read.parallel as par
from inspector.host.listing.glance import glance_session
from inspector.read.formats.mirror import sync_foreign
from inspector.read.lines import SEGMENT_SEPARATOR
from inspector.session.session import Session, open_session
from inspector.session.tail import tail_session

TS = "2026-01-01T00:00:00.000Z"


def cc(uuid, parent, kind, content, **extra):
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, "timestamp": TS,
            "message": {"role": kind, "content": content}, **extra}


def ca(uuid, parent, blocks, mid, usage):
    line = cc(uuid, parent, "assistant", blocks, requestId=f"req-{mid}")
    line["message"].update(id=mid, model="claude-opus-4-6", stop_reason=None, usage=usage)
    return line


def usage(write, read):
    return {"input_tokens": 3, "cache_creation_input_tokens": write, "cache_read_input_tokens": read, "output_tokens": 4}


def call(call_id, name):
    return [{"type": "tool_use", "id": call_id, "name": name, "input": {"arg": call_id}}]


def three_parallel_calls() -> list[dict]:
    """One API message calling Read, Grep and Bash at once; the three results come back on ONE user line (a text
    block after them), and the next message's parent is that line."""
    return [
        cc("u1", None, "user", "look around"),
        ca("a1", "u1", call("t1", "Read"), "m1", usage(200, 5000)),
        ca("a2", "a1", call("t2", "Grep"), "m1", usage(200, 5000)),
        ca("a3", "a2", call("t3", "Bash"), "m1", usage(200, 5000)),
        cc("r1", "a3", "user", [
            {"type": "tool_result", "tool_use_id": "t1", "content": "A" * 400},
            {"type": "tool_result", "tool_use_id": "t2", "content": "B" * 800, "is_error": True},
            {"type": "tool_result", "tool_use_id": "t3", "content": [{"type": "text", "text": "C" * 1200}]},
            {"type": "text", "text": "D" * 40},
        ]),
        ca("a4", "r1", [{"type": "text", "text": "done"}], "m2", usage(900, 5200)),
    ]


def write(path: Path, objs) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def rows_of(session: Session) -> list[tuple]:
    return [(e.line, e.id, e.parent_id, e.role, e.tool_call_id or e.tool_call_ids, e.estimates["pi"]) for e in session.entries]


EXPECTED = [
    (1, "u1", None, "user", (), 3),
    (2, "a1", "u1", "assistant", ("t1",), 4),
    (3, "a2", "a1", "assistant", ("t2",), 4),
    (4, "a3", "a2", "assistant", ("t3",), 4),
    (5, "r1", "a3", "toolResult", "t1", 100),
    (5, "r1#2", "r1", "toolResult", "t2", 200),
    (5, "r1#3", "r1#2", "toolResult", "t3", 310),  # its 1,200 chars and the text block beside it (40)
    (6, "a4", "r1#3", "assistant", (), 1),
]


def test_three_results_on_one_line_are_three_paired_rows_at_the_file_s_line(tmp_path):
    p = write(tmp_path / "s.jsonl", three_parallel_calls())
    mirror = sync_foreign(p, "claude-code")
    assert mirror.path.read_bytes().count(b"\n") == 6 and mirror.path.read_bytes().count(SEGMENT_SEPARATOR) == 2
    assert [r[:5] for r in rows_of(open_session(mirror.path))] == [r[:5] for r in EXPECTED]
    assert [r[5] for r in rows_of(open_session(mirror.path))] == [r[5] for r in EXPECTED]
    ctx = json.loads(run_cli(["context", str(p), "--json"]).stdout)
    results = [r for r in ctx["messages"] if r["role"] == "toolResult"]
    assert [(r["line"], r["entry_id"], r["tool_name"], r["estimates"]["pi_tokens"]) for r in results] == [
        (5, "r1", "Read", 100), (5, "r1#2", "Grep", 200), (5, "r1#3", "Bash", 310)]
    assert ctx["totals"]["pi_tokens"] == sum(r["estimates"]["pi_tokens"] for r in ctx["messages"]) == 3 + 12 + 610 + 1
    assert ctx["totals"]["estimate_context_tokens"]["usage_tokens"] == 3 + 900 + 5200
    stats = json.loads(run_cli(["stats", str(p), "--json"]).stdout)
    assert stats["entries"]["by_role"] == {"assistant": 4, "toolResult": 3, "user": 1}
    assert not [d for d in stats["diagnostics"] if "tool" in d["kind"] or d["kind"] in ("duplicate_id", "orphan", "unparseable")]
    assert stats["tree"]["off_path_entries"] == 0
    session = open_session(mirror.path)
    assert session.load_message(session.entries[6])["content"][-1] == {"type": "text", "text": "D" * 40}
    assert session.load_message(session.entries[5])["isError"] is True


def test_the_parallel_index_the_tail_and_the_glance_read_the_segments_as_the_serial_index(tmp_path, monkeypatch):
    p = write(tmp_path / "s.jsonl", three_parallel_calls())
    mirror = sync_foreign(p, "claude-code")
    serial = rows_of(open_session(mirror.path))
    monkeypatch.setattr(par, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(par, "worker_count", lambda: 2)
    assert rows_of(open_session(mirror.path)) == serial == EXPECTED
    tail = tail_session(mirror.path, 2)  # the last two lines: four entries
    assert tail is not None and [(e.id, e.tool_call_id) for e in tail.entries][:3] == [("r1", "t1"), ("r1#2", "t2"), ("r1#3", "t3")]
    assert [tail.raw_line(e) for e in tail.entries] == [open_session(mirror.path).raw_line(e) for e in open_session(mirror.path).entries][-4:]
    glance = glance_session(mirror.path)
    assert glance.context_tokens == 3 + 900 + 5200 and glance.leaf_id == "a4"


def test_a_followed_file_picks_up_a_line_of_three_results(tmp_path):
    lines = three_parallel_calls()
    p = write(tmp_path / "s.jsonl", lines[:4])
    mirror = sync_foreign(p, "claude-code")
    session = open_session(mirror.path)
    with p.open("a") as f:
        f.write(json.dumps(lines[4]) + "\n" + json.dumps(lines[5]) + "\n")
    mirror = sync_foreign(p, "claude-code", mirror)
    assert mirror.change == "appended"
    result = session.refresh()
    assert not result.reset and [(e.line, e.id) for e in result.new_entries] == [(5, "r1"), (5, "r1#2"), (5, "r1#3"), (6, "a4")]
    assert rows_of(session) == EXPECTED
    assert [session.entries[i].id for i in [r.entry_index for r in session.context().messages]][-4:] == ["r1", "r1#2", "r1#3", "a4"]


def test_an_openclaw_line_holding_the_separator_stays_unparseable_as_pi_reads_it(tmp_path):
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": TS, "cwd": "/"}
    m1 = {"type": "message", "id": "m1", "parentId": None, "timestamp": TS, "message": {"role": "user", "content": "hi", "timestamp": 1}}
    m2 = {**m1, "id": "m2", "parentId": "m1"}
    p = tmp_path / "s.jsonl"
    p.write_bytes(json.dumps(header).encode() + b"\n" + json.dumps(m1).encode() + SEGMENT_SEPARATOR + json.dumps(m2).encode() + b"\n")
    session = open_session(p)
    assert not session.segmented and len(session.entries) == 0
    assert [(d.kind, d.line) for d in session.diagnostics] == [("unparseable", 2)]
