"""The index's compact cells (issue 27, memory on sessions of many small entries):

- a tool result's `calls` cell names its call in the assistant's cell just before it (`call_cells.back_cell`: 3 bytes
  instead of the ~30 of the id again), whether rows are added one at a time or packed by a worker, and reads back as
  the id itself: from the table, an `Entry`, a snapshot, and after rows appended to a restored table;
- a worker packs its run's `extras` cells into one buffer (`PackedExtras.growing`, `add`) that the table keeps so
  (`extend_run`), reading back every cell;
- `pack_extra(..., parsed=True)` (no re-parse of JSON that holds no null) gives the same cell as the checked path on
  parsed JSON.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.model import entries as m
from inspector.read import parallel as par
from inspector.read.column_runs import extract_range_runs
from inspector.read.estimates import reader_estimates
from inspector.session.session import open_session
from inspector.storage import nums_layout as nl
from inspector.storage.block_text import BlockText
from inspector.storage.call_cells import RESULT_BACK_KIND, back_cell, back_reference
from inspector.storage.entry_table import EntryTable
from inspector.storage.extra_cells import pack_extra
from inspector.storage.packed_extras import PackedExtras

LAYOUT = reader_estimates().layout
NUMS = nl.pack_row(1, 0, 1, -1, -1, -1, -1, float("nan"), 0)
CALL = "toolu_01DzaAB7oq1WkCUFdznc6SMp"


def _line(obj: dict) -> str:
    return orjson.dumps(obj).decode()


def _session_lines(turns: int) -> list[str]:
    """A header, then per turn: an assistant with two calls, their two results, a custom entry."""
    lines = [_line({"type": "session", "version": 3, "id": "s", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"})]
    parent = None
    for t in range(turns):
        calls = [f"{CALL}{t}a", f"{CALL}{t}b"]
        aid = f"a{t}"
        lines.append(_line({"type": "message", "id": aid, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z", "message": {
            "role": "assistant", "content": [{"type": "toolCall", "id": c, "name": "read", "arguments": {"path": "x"}} for c in calls],
            "provider": "anthropic", "model": "m", "stopReason": "toolUse", "timestamp": 1}}))
        parent = aid
        for k, c in enumerate(reversed(calls)):
            rid = f"r{t}{k}"
            lines.append(_line({"type": "message", "id": rid, "parentId": parent, "timestamp": "2026-01-01T00:00:02.000Z", "message": {
                "role": "toolResult", "toolCallId": c, "toolName": "read", "content": [{"type": "text", "text": "ok"}],
                "details": {"status": "ok", "durationMs": t}, "isError": False, "timestamp": 2}}))
            parent = rid
        lines.append(_line({"type": "custom", "customType": "hook", "data": {"n": t, "none": None if t % 2 else 1},
                            "id": f"c{t}", "parentId": parent, "timestamp": "2026-01-01T00:00:03.000Z"}))
        parent = f"c{t}"
    return lines


def test_a_result_names_its_call_in_three_bytes_serially_and_in_a_worker_run(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(_session_lines(40)) + "\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SESSION_INSPECTOR_WORKERS", "1")
        serial = open_session(path)
        mp.setenv("SESSION_INSPECTOR_WORKERS", "2")
        mp.setattr(par, "PARALLEL_MIN_BYTES", 0)
        mp.setattr(par, "CHUNKS_PER_WORKER", 3)
        parallel = open_session(path)
    for session in (serial, parallel):
        t = session.entries
        results = [i for i in range(len(t)) if t.shape_of(i)[1] == "toolResult"]
        assert len(results) == 80
        back = [i for i in results if t.call_text[t.call_end[i - 1]] == RESULT_BACK_KIND]
        assert len(back) >= 70  # all but those whose assistant is in an earlier worker's range
        for i in results:
            assert t.tool_call_id_of(i) == t.calls_of(i) == t[i].tool_call_id
        assert [t.calls_of(i) for i in range(len(t))] == [serial.entries.calls_of(i) for i in range(len(t))]
        turn_of = {t.id_of(i): i for i in range(len(t))}
        for i in results:
            eid = t.id_of(i)
            turn, k = int(eid[1:-1]), int(eid[-1])
            assert t.tool_call_id_of(i) == f"{CALL}{turn}{'ba'[k]}"
            assert t.tool_call_id_of(i) in t.tool_call_ids_of(turn_of[f"a{turn}"])
    restored = pickle.loads(pickle.dumps(parallel.entries, protocol=pickle.HIGHEST_PROTOCOL))
    assert [restored.calls_of(i) for i in range(len(restored))] == [serial.entries.calls_of(i) for i in range(len(restored))]
    # rows appended to a restored table: a result after its assistant is a back cell again, and reads back
    n = len(restored)
    shape = restored.shape_code((m.MESSAGE, "assistant", None, None, None, None, ()))
    restored.add_row(NUMS, "x1", None, shape, ("k1", CALL), None)
    restored.add_row(NUMS, "x2", "x1", shape, CALL, None)
    assert restored.call_text[-3:] == back_cell(1, 1)
    assert restored.calls_of(n + 1) == restored[n + 1].tool_call_id == CALL


def test_back_reference_only_names_a_call_it_can_reach() -> None:
    assert back_reference(("a", "b"), 1, "b") == back_cell(1, 1)
    assert back_reference(("a", "b"), 1, "c") is None
    assert back_reference(("a",), 256, "a") is None
    assert back_reference(tuple(str(k) for k in range(300)), 3, "299") is None
    table = EntryTable(LAYOUT)
    code = table.shape_code((m.MESSAGE, "assistant", None, None, None, None, ()))
    table.add_row(NUMS, "a", None, code, ("c1",), None)
    for k in range(256):
        table.add_row(NUMS, f"u{k}", None, code, None, None)
    table.add_row(NUMS, "r", None, code, "c1", None)  # 257 rows after its call: the id itself
    assert table.calls_of(len(table) - 1) == "c1" and bytes(table.call_text).endswith(b"c1")


def test_a_worker_run_packs_its_extras_and_the_table_keeps_them_packed(tmp_path: Path) -> None:
    lines = _session_lines(30)
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    est = reader_estimates()
    parts, _, _ = extract_range_runs(str(path), len(lines[0]) + 1, path.stat().st_size, 2, 3, est)
    runs = [p for p in parts if type(p) is not list]
    assert runs and all(type(r.extras) is PackedExtras for r in runs)
    assert sum(len(r.extras) for r in runs) == 30
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SESSION_INSPECTOR_WORKERS", "2")
        mp.setattr(par, "PARALLEL_MIN_BYTES", 0)
        parallel = open_session(path)
        mp.setenv("SESSION_INSPECTOR_WORKERS", "1")
        serial = open_session(path)
    table = parallel.entries
    assert type(table.extras) is PackedExtras and type(table.extras.text) is BlockText  # the runs' text, compressed
    customs = [i for i in range(len(table)) if table.type_of(i) == m.CUSTOM]
    assert [table[i].data for i in customs] == [orjson.loads(lines[i + 1]) for i in customs]
    assert [table[i].data for i in customs] == [serial.entries[i].data for i in customs]
    assert dict(table.extras.items()) == dict(serial.entries.extras.items())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=5), st.booleans())
def test_pack_extra_of_parsed_json_equals_the_checked_path(data: dict, with_timestamp: bool) -> None:
    if with_timestamp:
        data["timestamp"] = "2026-01-01T00:00:00.000Z"
    try:
        parsed = orjson.loads(orjson.dumps(data))
    except orjson.JSONEncodeError:  # a lone surrogate: not what a parser gives
        return
    ts = parsed.get("timestamp") if isinstance(parsed.get("timestamp"), str) else None
    assert pack_extra(ts, parsed, parsed=True) == pack_extra(ts, parsed)
    inf = {**parsed, "x": float("inf")}  # what the stdlib fallback parser gives for 1e400: kept as it is either way
    assert pack_extra(ts, inf, parsed=True) == pack_extra(ts, inf) == (ts, inf)
