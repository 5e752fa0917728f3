"""Property tests of the reader: random sessions round-trip, corruption never crashes it or loses a valid line,
incremental reads equal a one-shot read."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from conftest import assistant, jline, tool_result, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pi_reference import build_session_context, load_entries, migrate

from inspector.read.estimates import reader_estimates
from inspector.session.context import build_context
from inspector.session.session import Session, open_session

HEADER = {"type": "session", "version": 3, "id": "prop", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}
text = st.text(st.characters(min_codepoint=1, max_codepoint=0x2FFFF, blacklist_categories=("Cs",)), max_size=40)


@st.composite
def sessions(draw):
    """A random valid v3 session: a tree (branches allowed) of every entry type, as JSON lines."""
    n = draw(st.integers(min_value=0, max_value=25))
    ids: list[str] = []
    lines = [HEADER]
    for i in range(n):
        eid = f"{i:08x}"
        parent = None
        if ids:
            parent = draw(st.sampled_from(ids[-3:] + [ids[-1]] * 3))
        kind = draw(st.sampled_from(["user", "assistant", "toolResult", "model_change", "compaction", "branch_summary", "custom", "custom_message", "label", "session_info", "thinking_level", "unknown"]))
        base = {"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z"}
        if kind == "user":
            base["message"] = user(draw(text))
        elif kind == "assistant":
            calls = [(f"c{i}", "read", {"path": draw(text), "n": draw(st.integers(-5, 2**40))})] if draw(st.booleans()) else []
            base["message"] = assistant(draw(text), tool_calls=calls)
        elif kind == "toolResult":
            base["message"] = tool_result(f"c{i - 1}", "read", draw(text), details={"k": draw(text)})
        elif kind == "model_change":
            base = {"type": "model_change", "id": eid, "parentId": parent, "timestamp": base["timestamp"], "provider": "p", "modelId": draw(text)}
        elif kind == "compaction":
            target = draw(st.sampled_from(ids + [eid, "missing"])) if ids else eid
            base = {"type": "compaction", "id": eid, "parentId": parent, "timestamp": base["timestamp"], "summary": draw(text), "firstKeptEntryId": target, "tokensBefore": 10}
        elif kind == "branch_summary":
            base = {"type": "branch_summary", "id": eid, "parentId": parent, "timestamp": base["timestamp"], "fromId": "root", "summary": draw(text)}
        elif kind == "custom":
            base = {"type": "custom", "customType": "openclaw.cache-ttl", "data": {"timestamp": 1}, "id": eid, "parentId": parent, "timestamp": base["timestamp"]}
        elif kind == "custom_message":
            base = {"type": "custom_message", "customType": "x", "content": draw(text), "display": True, "id": eid, "parentId": parent, "timestamp": base["timestamp"]}
        elif kind == "label":
            base = {"type": "label", "id": eid, "parentId": parent, "timestamp": base["timestamp"], "targetId": ids[0] if ids else eid, "label": draw(text)}
        elif kind == "thinking_level":
            base = {"type": "thinking_level_change", "id": eid, "parentId": parent, "timestamp": base["timestamp"], "thinkingLevel": draw(st.sampled_from(["low", "high"]))}
        elif kind == "session_info":
            base = {"type": "session_info", "id": eid, "parentId": parent, "timestamp": base["timestamp"], "name": draw(text)}
        else:
            base = {"type": "future_" + str(i), "id": eid, "parentId": parent, "timestamp": base["timestamp"], "blob": [draw(text)]}
        ids.append(eid)
        lines.append(base)
    return [jline(o) for o in lines]


def write(tmp: Path, name: str, data: bytes) -> Path:
    p = tmp / name
    p.write_bytes(data)
    return p


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPS
@given(sessions())
def test_random_sessions_round_trip_and_match_pi(lines):
    with tempfile.TemporaryDirectory() as d:
        p = write(Path(d), "s.jsonl", ("\n".join(lines) + "\n").encode())
        s = open_session(p)
        objs = [json.loads(x) for x in lines[1:]]
        assert [(e.id, e.parent_id, e.type, e.line) for e in s.entries] == [
            (o["id"], o["parentId"], o["type"], n) for n, o in enumerate(objs, start=2)
        ]
        ref = load_entries(p)
        migrate(ref)
        assert [(r.line, r.role) for r in s.context().messages] == [(n, m["role"]) for n, m in build_session_context(ref)]
        assert not [d for d in s.diagnostics if d.severity == "error"]


def corrupt(data: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    b = bytearray(data)
    for op, pos, val in ops:
        if not b:
            break
        pos %= len(b)
        if op == "flip":
            b[pos] = val % 256
        elif op == "cut":
            del b[pos : pos + (val % 50) + 1]
        elif op == "insert":
            b[pos:pos] = bytes([val % 256]) * ((val % 7) + 1)
        elif op == "garbage_line":
            nl = b.find(b"\n", pos)
            at = len(b) if nl < 0 else nl + 1
            b[at:at] = [b"{not json\n", b"\x00\x00\n", b"\xff\xfe{}\n", b"[1]\n", b'{"type":"message"\n'][val % 5]
    return bytes(b)


@PROPS
@given(sessions(), st.lists(st.tuples(st.sampled_from(["flip", "cut", "insert", "garbage_line"]), st.integers(0, 10**6), st.integers(0, 10**6)), max_size=6))
def test_corruption_never_crashes_and_never_loses_a_valid_line(lines, ops):
    data = corrupt(("\n".join(lines) + "\n").encode(), ops)
    with tempfile.TemporaryDirectory() as d:
        p = write(Path(d), "c.jsonl", data)
        before = (p.read_bytes(), os.stat(p).st_mtime_ns)
        s = open_session(p)
        s.context()
        s.all_diagnostics()
        assert (p.read_bytes(), os.stat(p).st_mtime_ns) == before
        # Every line that is still a JSON object entry (not the header) must be an entry, at its line number.
        expected = []
        parsed_any = False
        for n, raw in enumerate(data.split(b"\n"), start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw.decode("utf-8", "replace"))
            except ValueError:
                continue
            first = not parsed_any
            parsed_any = True
            if first and isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str):
                continue
            if isinstance(obj, dict) and obj.get("type") != "session":
                expected.append(n)
        assert [e.line for e in s.entries] == expected


@PROPS
@given(sessions(), st.lists(st.integers(1, 400), max_size=8))
def test_incremental_reads_equal_one_shot_read(lines, cuts):
    data = ("\n".join(lines) + "\n").encode()
    with tempfile.TemporaryDirectory() as d:
        p = write(Path(d), "live.jsonl", b"")
        live = Session(p).load()
        live.context()
        pos = 0
        for c in cuts + [len(data)]:
            chunk = data[pos : pos + c]
            pos += len(chunk)
            with open(p, "ab") as f:
                f.write(chunk)
            res = live.refresh()
            assert not res.reset
            live.context()
        once = open_session(p)
        key = lambda s: [(e.id, e.parent_id, e.type, e.line, e.offset, e.length, e.estimates) for e in s.entries]
        assert key(live) == key(once)
        rebuilt = build_context(live.tree, None)
        assert [(r.entry_index, r.role) for r in live.context().messages] == [(r.entry_index, r.role) for r in rebuilt.messages]
        assert live.context().model == rebuilt.model


def test_parallel_index_equals_serial_index(tmp_path, monkeypatch):
    """Big files are parsed by worker processes in byte ranges; the result must equal the serial read."""
    from conftest import corpus_file

    import inspector.read.parallel as par

    src = corpus_file("pi", "before-compaction.v1.jsonl")
    data = src.read_bytes() + b'{"broken\n' + b"\n" + src.read_bytes().split(b"\n")[5] + b"\n" + b'{"partial":'
    p = tmp_path / "big.jsonl"
    p.write_bytes(data)
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "1")
    serial = open_session(p)
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "2")
    monkeypatch.setattr(par, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(par, "CHUNKS_PER_WORKER", 7)
    parallel = open_session(p)
    key = lambda s: [(e.id, e.parent_id, e.type, e.line, e.offset, e.length, e.estimates, e.usage_packed, e.data) for e in s.entries]
    assert key(parallel) == key(serial)
    assert [d.to_json() for d in parallel.all_diagnostics()] == [d.to_json() for d in serial.all_diagnostics()]
    assert parallel.pending_bytes == serial.pending_bytes == len(b'{"partial":')
    with open(p, "ab") as f:
        f.write(b'"yes"}\n')
    assert parallel.refresh().new_entries[0].line == serial.refresh().new_entries[0].line


def test_split_points_skip_a_huge_line_and_end_after_newlines(tmp_path):
    """Range boundaries for worker processes: each just after a newline, none inside a line, one scan per range."""
    from inspector.read.parallel import split_points

    data = b"a\n" + b"x" * 5_000_000 + b"\n" + b"b\n" * 10 + b"y" * 3_000_000 + b"\n"
    p = tmp_path / "h.jsonl"
    p.write_bytes(data)
    with open(p, "rb") as f:
        points = split_points(f, len(data), 8)
    assert points[0] == 0 and points[-1] == len(data)
    assert points == sorted(set(points))
    for pos in points[1:-1]:
        assert data[pos - 1 : pos] == b"\n"
    assert len(points) < 8 + 1  # the huge lines swallow several targets


def test_records_cross_processes_as_plain_tuples_and_come_back_named():
    import pickle

    from inspector.read.records import ErrorRecord, MessageRecord, OtherRecord, extract_record, from_wire, to_wire

    lines = [b'{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[],"usage":{}}}',
             b'{"type":"label","id":"l","parentId":"a","targetId":"a"}', b'{"broken']
    recs = [extract_record(line, 3, reader_estimates()) for line in lines]
    assert [type(r) for r in recs] == [MessageRecord, OtherRecord, ErrorRecord]
    for rec in recs:
        wire = pickle.loads(pickle.dumps(to_wire(rec), protocol=pickle.HIGHEST_PROTOCOL))
        assert type(wire) is tuple
        back = from_wire(wire)
        assert type(back) is type(rec) and back == rec
    assert recs[0].id == "a" and recs[0].role == "assistant" and recs[0].usage_packed is not None


def _long_session(tmp: Path) -> Path:
    """60 entries in a line: a compaction at 40 keeping from entry 5, a model change at 2, thinking levels at 1 and
    50, a custom message at 45: the walk finds settings near the leaf but keeps messages far back."""
    lines, parent = [HEADER], None
    for i in range(60):
        eid, ts = f"e{i:02d}", "2026-01-01T00:00:01.000Z"
        if i == 40:
            o = {"type": "compaction", "summary": "s", "firstKeptEntryId": "e05", "tokensBefore": 10}
        elif i == 2:
            o = {"type": "model_change", "provider": "p", "modelId": "m"}
        elif i in (1, 50):
            o = {"type": "thinking_level_change", "thinkingLevel": "high" if i == 50 else "low"}
        elif i == 45:
            o = {"type": "custom_message", "customType": "x", "content": "c", "display": True}
        else:
            o = {"type": "message", "message": user(f"u{i}") if i % 2 else assistant(f"a{i}")}
        lines.append({**o, "id": eid, "parentId": parent, "timestamp": ts})
        parent = eid
    return write(tmp, "long.jsonl", ("\n".join(jline(x) for x in lines) + "\n").encode())


@pytest.mark.parametrize("piece", [1, 2, 3, 7])
def test_a_long_context_walk_in_small_pieces_keeps_messages_far_back(tmp_path, piece):
    """The kept messages start far before the pieces the settings walk computed (entry 5 of 60)."""
    from unittest.mock import patch

    from inspector.session import context

    s = open_session(_long_session(tmp_path))
    with patch.object(context._PathKinds, "FIRST_PIECE", 10**9):
        whole = {leaf: build_context(s.tree, leaf) for leaf in range(len(s.entries))}
    with patch.object(context._PathKinds, "FIRST_PIECE", piece), patch.object(context, "_FIRST_WINDOW", piece):
        # and the first kept entry looked for back from the compaction in small windows (1, 8, 64...)
        assert {leaf: build_context(s.tree, leaf) for leaf in range(len(s.entries))} == whole
    ctx = whole[59]
    assert ctx.thinking_level == "high" and ctx.model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert [r.entry_id for r in ctx.messages][:3] == ["e40", "e05", "e06"]


@PROPS
@given(sessions(), st.sampled_from([1, 2, 3, 5]))
def test_the_context_walk_reads_the_path_from_its_end_in_pieces_with_the_same_result(lines, piece):
    """`context._PathKinds` computes the path's kinds backwards a piece at a time (doubling), only as far as the walk
    asks: with tiny pieces (many doublings, compactions and settings far back) the context is what one piece gives."""
    from unittest.mock import patch

    from inspector.session import context

    with tempfile.TemporaryDirectory() as d:
        p = write(Path(d), "s.jsonl", ("\n".join(lines) + "\n").encode())
        s = open_session(p)
        if not len(s.entries):
            return
        whole = build_context(s.tree)
        with patch.object(context._PathKinds, "FIRST_PIECE", piece), patch.object(context, "_FIRST_WINDOW", piece):
            for leaf in range(len(s.entries)):
                pieces = build_context(s.tree, leaf)
                with patch.object(context._PathKinds, "FIRST_PIECE", 10**9), patch.object(context, "_FIRST_WINDOW", 10**9):
                    assert pieces == build_context(s.tree, leaf)
            assert build_context(s.tree) == whole
