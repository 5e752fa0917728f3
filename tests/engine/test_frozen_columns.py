"""A table restored from a snapshot (`EntryTable` with `FrozenColumns`): its first rows read where the snapshot's bytes
lie, the rows added since in its own columns, and every accessor answers as the table it was stored from, before
and after rows are added (narrow and wide numbers, every kind of calls cell, usage or none), and stored again."""

from __future__ import annotations

import pickle

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.model import entries as m
from inspector.read.estimates import reader_estimates
from inspector.storage.entry_table import EntryTable
from inspector.storage.table_columns import FrozenColumns

LAYOUT = reader_estimates().layout


def _restored(table: EntryTable) -> EntryTable:
    """`table` as a snapshot stores and restores it: its big columns out of band, read-only views after."""
    buffers: list[pickle.PickleBuffer] = []
    stream = pickle.dumps(table.snapshot_attrs(), protocol=5, buffer_callback=buffers.append)
    attrs = pickle.loads(stream, buffers=[memoryview(b.raw()).toreadonly() for b in buffers])
    back = EntryTable.__new__(EntryTable)
    vars(back).update(attrs)
    return back


_row = st.tuples(
    st.sampled_from([0, 1, 2**33]),  # an offset beyond 4 GiB makes the numbers wide
    st.one_of(
        st.none(),
        st.text(max_size=4),  # a result's tool call id
        st.lists(st.text(alphabet="abc\x00", max_size=3), min_size=1, max_size=3).map(tuple),  # an assistant's (NUL: odd)
    ),
    st.one_of(st.none(), st.integers(0, 10**6)),  # usage input tokens, or no usage
    st.one_of(st.none(), st.just({"summary": "s", "n": 1})),
)


def _add(table: EntryTable, rows: list) -> None:
    for offset, calls, tokens, data in rows:
        i = len(table)
        usage = None if tokens is None else m.pack_usage({"input": tokens, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens + 1})
        entry = m.Entry(
            i, LAYOUT.pack_nums(i + 1, offset + i, 10, (1, 2, 3, 4), 1767225601000.0), LAYOUT, m.CUSTOM if data else m.MESSAGE, f"e{i}",
            f"e{i - 1}" if i else None, None, data, "assistant" if not data else None, None,
            calls if type(calls) is str else None, calls if type(calls) is tuple else (), usage_packed=usage,
        )  # fmt: skip
        table.append(entry)


def _same(got: EntryTable, want: EntryTable) -> None:
    n = len(want)
    assert len(got) == n and list(got) == list(want)
    for i in range(n):
        assert got.nums_of(i) == want.nums_of(i) and got.line_of(i) == want.line_of(i)
        assert got.calls_of(i) == want.calls_of(i)
        assert got.tool_call_ids_of(i) == want.tool_call_ids_of(i) and got.tool_call_id_of(i) == want.tool_call_id_of(i)
        assert got.usage_packed(i) == want.usage_packed(i) and got.data_of(i) == want.data_of(i)
    assert got.usage_total() == want.usage_total()
    every = list(range(n))
    assert got.usage_rows(every[::-1]) == want.usage_rows(every[::-1])
    assert got.usage_column(every) == want.usage_column(every)


@settings(max_examples=120, deadline=None)
@given(st.lists(_row, min_size=1, max_size=15), st.lists(_row, max_size=8), st.lists(_row, max_size=4))
def test_a_restored_table_answers_as_the_one_it_was_stored_from(first: list, more: list, last: list) -> None:
    table = EntryTable(LAYOUT)
    _add(table, first)
    back = _restored(table)
    assert isinstance(back._frozen, FrozenColumns) and type(back._frozen.nums) is memoryview, "read where it lies"
    assert not back.nums and not back.call_text and not back.usage_buffer
    _same(back, table)
    _add(table, more)
    _add(back, more)
    _same(back, table)
    again = _restored(back)  # stored again: its frozen rows and the rows added since, as one
    _add(table, last)
    _add(again, last)
    _same(again, table)
    assert again._frozen is not None and again._frozen.rows == len(first) + len(more)


def test_an_older_pickle_protocol_copies_the_frozen_columns() -> None:
    table = EntryTable(LAYOUT)
    _add(table, [(0, "r", 5, None), (2**33, ("a", "b"), None, {"summary": "s", "n": 1})])
    back = _restored(table)
    copied = pickle.loads(pickle.dumps(back, protocol=4))  # before protocol 5: no out-of-band buffers
    assert type(copied._frozen.nums) is bytes and type(copied.extras.text) is bytes
    _same(copied, table)
