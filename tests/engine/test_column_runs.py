"""The parallel index's column runs (`inspector.read.column_runs`): workers pack plain message lines into entry
table columns, the parent adds them in bulk. The result must be the serial read's, column for column."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from conftest import jline, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_entry_table import HEADER, context_key, growing_sessions

import inspector.read.parallel as par
from inspector.read.column_runs import ColumnRun, extract_range_runs
from inspector.read.estimates import reader_estimates
from inspector.session.session import Session, open_session

ODD_LINES = [
    b"{not json",
    b"\xff\xfe{}",
    b"[1]",
    b"",
    b'{"type":"message","id":"bad\xff","parentId":null,"message":{"role":"user","content":"x"}}',
    b'{"type":"message","id":7,"parentId":null,"message":{"role":"user","content":"x"}}',
    b'{"type":"message","id":"nr","parentId":null,"message":{"content":"x"}}',
    b'{"type":"message","id":"nm","parentId":null}',
    b'{"type":"session","version":3,"id":"again"}',
    b'{"type":"label","id":"l1","parentId":null,"targetId":"e1","label":"x"}',
    b'{"type":"label","id":"l2","parentId":"l1","targetId":"e1","label":""}',
    b'{"type":"session_info","id":"n1","parentId":null,"name":" named "}',
    b'{"type":"custom_message","id":"cm","parentId":null,"customType":"x","content":"hi","display":true,"timestamp":"2026-01-01T00:00:02.000Z"}',
    b'{"type":"branch_summary","id":"bs","parentId":null,"fromId":"e1","summary":"s","timestamp":"2026-01-01T00:00:03.000Z"}',
    b'{"type":"branch_summary","id":"b0","parentId":null,"fromId":"e1","summary":""}',
    b'{"type":"custom","id":"cu","parentId":null,"customType":"openclaw.cache-ttl","data":{"n":1e400}}',
    b'{"type":"future_kind","id":"fk","parentId":null}',
    b'{"type":"custom","id":5,"parentId":null}',
    b'{"type":"message","id":"nul","parentId":null,"message":{"role":"assistant","content":[{"type":"toolCall","id":"a\\u0000b",'
    b'"name":"t","arguments":{}},{"type":"toolCall","id":"c","name":"t","arguments":{}}]}}',
]


def table_key(session: Session) -> tuple:
    t = session.entries
    shapes = [t.shape_of(i) for i in range(len(t))]
    # The cells as read back: a result's cell may name its call in the assistant's cell before it (`back_cell`), which
    # the parallel read does only within a worker's run, so the encoded bytes may differ where a range was cut.
    calls = (t.call_odd, [t.calls_of(i) for i in range(len(t))], [t.tool_call_id_of(i) for i in range(len(t))])
    return (bytes(t.nums), t.ids, t.parent_ids, shapes, calls, list(t.usage_slot), bytes(t.usage_buffer), t.extras)


def both_ways(path: Path, chunks: int) -> tuple[Session, Session]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SESSION_INSPECTOR_WORKERS", "1")
        serial = open_session(path)
        mp.setenv("SESSION_INSPECTOR_WORKERS", "2")
        mp.setattr(par, "PARALLEL_MIN_BYTES", 0)
        mp.setattr(par, "CHUNKS_PER_WORKER", chunks)
        parallel = open_session(path)
    return serial, parallel


def assert_same(serial: Session, parallel: Session) -> None:
    assert table_key(parallel) == table_key(serial)
    assert [d.to_json() for d in parallel.all_diagnostics()] == [d.to_json() for d in serial.all_diagnostics()]
    assert (parallel.tree.by_id, parallel.tree.duplicates, parallel.tree.labels) == (serial.tree.by_id, serial.tree.duplicates, serial.tree.labels)
    assert parallel.reader.parsed_count == serial.reader.parsed_count
    assert context_key(parallel.context()) == context_key(serial.context())
    assert parallel.tree.roots() == serial.tree.roots() and parallel.tree.branch_points() == serial.tree.branch_points()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(growing_sessions(), st.lists(st.tuples(st.integers(0, 40), st.sampled_from(ODD_LINES)), max_size=5), st.integers(1, 9), st.booleans())
def test_parallel_runs_equal_the_serial_read(lines: list[str], odd: list[tuple[int, bytes]], chunks: int, header: bool) -> None:
    raw = [line.encode() for line in (lines if header else lines[1:])]
    for at, line in odd:
        raw.insert(min(at, len(raw)), line)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "s.jsonl"
        path.write_bytes(b"\n".join(raw) + b"\n")
        assert_same(*both_ways(path, chunks))


def test_a_range_sends_rows_until_a_record_is_counted(tmp_path: Path) -> None:
    """Unparseable lines first, then the first counted record, then plain messages packed; a message the reader
    must report on (a non-string id) is a row in the middle."""
    msgs = [{"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None, "timestamp": "t", "message": user(f"m{i}")} for i in range(6)]
    msgs[3]["id"] = 3
    data = b"{broken\n\n" + "".join(jline(o) + "\n" for o in [HEADER, *msgs]).encode() + b'{"tail":'
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    parts, lines_seen, tail = extract_range_runs(str(path), 0, len(data), 1, 3, reader_estimates())
    kinds = [("run", len(p)) if isinstance(p, ColumnRun) else ("rows", [row[0] for row in p]) for p in parts]
    assert kinds == [("rows", [1, 3]), ("run", 3), ("rows", [7]), ("run", 2)]
    assert (lines_seen, tail) == (9, b'{"tail":')
    assert_same(*both_ways(path, 3))


def test_a_v1_file_is_never_packed(tmp_path: Path) -> None:
    v1 = [{"type": "session", "id": "old", "timestamp": "t"}] + [
        {"type": "message", "timestamp": "t", "message": user(f"m{i}")} for i in range(5)
    ]
    path = tmp_path / "v1.jsonl"
    path.write_text("".join(jline(o) + "\n" for o in v1))
    parts, _, _ = extract_range_runs(str(path), 0, path.stat().st_size, 1, 1, reader_estimates())
    assert not any(isinstance(p, ColumnRun) for p in parts)
    assert_same(*both_ways(path, 2))
