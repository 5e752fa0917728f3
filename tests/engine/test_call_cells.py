"""The entry table's tool call ids, kept encoded end to end (`EntryTable.call_text`, `call_end`, `call_odd`).

- every `calls` cell comes back equal, with its type: a result's id (empty, lone surrogates, a NUL included), an
  assistant's ids (one empty, several), both (the `BothCalls` an `Entry` may carry), none; whether it was added
  one row at a time or as a worker's encoded run after rows already there;
- a cell with no encoding (an id holding a NUL among several) is kept as it is, and a worker sends such a line
  as a row for the reader instead of packing it;
- the ends switch to 64 bits rather than wrap once the text passes 4 GiB;
- the encoded columns survive pickling (the snapshot cache).
"""

from __future__ import annotations

import json
import pickle
from array import array
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.model import entries as m
from inspector.read.column_runs import ColumnRun, extract_range_runs
from inspector.read.estimates import reader_estimates
from inspector.storage import nums_layout as nl
from inspector.storage.call_cells import ODD_CELL, BothCalls, call_cell, extended_ends
from inspector.storage.entry_table import EntryTable

LAYOUT = reader_estimates().layout

PROPS = settings(max_examples=150, deadline=None)

ids = st.text(st.characters(blacklist_categories=()), max_size=6) | st.sampled_from(["", "\x00", "a\x00b", "\ud800", "toolu_01ABC"])
cells = st.one_of(
    st.none(),
    ids,
    st.lists(ids, min_size=1, max_size=4).map(tuple),
    st.tuples(ids, st.lists(ids, min_size=1, max_size=3).map(tuple)).map(BothCalls),
)
NUMS = nl.pack_row(1, 0, 1, -1, -1, -1, -1, float("nan"), 0)


def same_cell(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


@PROPS
@given(st.lists(cells, max_size=10), st.lists(st.lists(ids, min_size=1, max_size=3).map(tuple) | ids | st.none(), max_size=10))
def test_every_calls_cell_comes_back_equal(rows: list, run_cells: list) -> None:
    table = EntryTable(LAYOUT)
    table.shape_code((m.MESSAGE, "assistant", None, None, None, None, ()))
    for k, calls in enumerate(rows):
        table.add_row(NUMS, f"r{k}", None, 0, calls, None)
    # Then a worker's run: only encodable cells (a worker sends the others as rows).
    packable = [c for c in run_cells if call_cell(c) != ODD_CELL]
    run = ColumnRun()
    for c in packable:
        run.call_text += call_cell(c)
        run.call_ends.append(len(run.call_text))
    n = len(packable)
    table.extend_columns(
        bytearray(NUMS * n), [f"w{k}" for k in range(n)], [None] * n, array("I", [0] * n), run.call_text, run.call_ends, array("i", [-1] * n), b"", {}
    )
    expected = [None if c == () else c for c in rows] + [None if c == () else c for c in packable]
    assert len(table.call_end) == len(table) == len(expected)
    assert all(same_cell(table.calls_of(i), c) for i, c in enumerate(expected))
    for i, c in enumerate(expected):
        e = table[i]
        if type(c) is str:
            assert (e.tool_call_id, e.tool_call_ids) == (c, ()) and table.tool_call_id_of(i) == c
        elif type(c) is BothCalls:
            assert (e.tool_call_id, e.tool_call_ids) == tuple(c)
        elif type(c) is tuple:
            assert (e.tool_call_id, e.tool_call_ids) == (None, c) and table.tool_call_ids_of(i) == c
        else:
            assert (e.tool_call_id, e.tool_call_ids) == (None, ())
    back = pickle.loads(pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
    assert all(same_cell(back.calls_of(i), c) for i, c in enumerate(expected))


def test_cells_with_no_encoding_are_kept_as_they_are() -> None:
    assert call_cell(("a\x00b", "c")) == ODD_CELL and call_cell(BothCalls(("x", ("y",)))) == ODD_CELL
    assert call_cell("a\x00b") != ODD_CELL, "a single result id may hold a NUL"
    table = EntryTable(LAYOUT)
    table.shape_code((m.MESSAGE, "assistant", None, None, None, None, ()))
    table.add_row(NUMS, "a", None, 0, ("a\x00b", "c"), None)
    table.add_row(NUMS, "b", None, 0, "x", None)
    assert table.call_odd == {0: ("a\x00b", "c")}
    assert table.calls_of(0) == ("a\x00b", "c") and table.calls_of(1) == "x"


def test_a_worker_sends_a_message_whose_call_ids_have_no_encoding_as_a_row(tmp_path: Path) -> None:
    header = b'{"type":"session","version":3,"id":"s"}'
    first = b'{"type":"message","id":"u","parentId":null,"message":{"role":"user","content":"hi"}}'
    calls = [{"type": "toolCall", "id": "a\u0000b", "name": "t", "arguments": {}}, {"type": "toolCall", "id": "c", "name": "t", "arguments": {}}]
    odd = json.dumps({"type": "message", "id": "a", "parentId": "u", "message": {"role": "assistant", "content": calls}}).encode()
    plain = b'{"type":"message","id":"r","parentId":"a","message":{"role":"toolResult","toolCallId":"c","toolName":"t","content":[]}}'
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join([header, first, odd, plain]) + b"\n")
    parts, _, _ = extract_range_runs(str(path), 0, path.stat().st_size, 1, 3, reader_estimates())
    kinds = [type(p).__name__ for p in parts]
    assert kinds == ["list", "ColumnRun", "list", "ColumnRun"], kinds  # the header; u; the odd one as a row; r
    row = parts[2][0]
    assert isinstance(row, tuple) and row[3][0] == "a" and row[3][5] == ("a\x00b", "c")
    assert isinstance(parts[3], ColumnRun) and parts[3].ids == ["r"] and bytes(parts[3].call_text) == call_cell("c")


def test_ends_switch_to_64_bits_instead_of_wrapping() -> None:
    ends = extended_ends(array("I", [5]), [2**32 - 1])
    assert ends.typecode == "I" and list(ends) == [5, 2**32 - 1]
    ends = extended_ends(ends, [2**32 + 7, 2**33])
    assert ends.typecode == "q" and list(ends) == [5, 2**32 - 1, 2**32 + 7, 2**33]
