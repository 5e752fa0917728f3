"""Packed ids (`inspector.storage.packed_ids`, `EntryTable` restored from a snapshot): every id and parent id read one at a
time, or in ranges, or as the lists, is the one the table held, before and after rows are added, and while another
thread adds rows."""

from __future__ import annotations

import pickle
import threading

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.model import entries as m
from inspector.read.estimates import reader_estimates
from inspector.storage.entry_table import EntryTable
from inspector.storage.id_index import IdIndex
from inspector.storage.packed_ids import PackedIds

LAYOUT = reader_estimates().layout

_NUMS = LAYOUT.pack_nums(1, 0, 1, None, None)
_id = st.one_of(st.sampled_from(["a", "b", "", "é", "\ud800", "x" * 30, "a\x00b"]), st.text(max_size=5), st.none(), st.integers(-3, 3))


def _table(ids: list, parents: list) -> EntryTable:
    table = EntryTable(LAYOUT)
    for eid, pid in zip(ids, parents):
        table.append(m.Entry(len(table), _NUMS, LAYOUT, m.MESSAGE, eid, pid))
    return table


def _restored(table: EntryTable) -> EntryTable:
    """`table` as a snapshot stores and restores it (its `snapshot_attrs`)."""
    back = EntryTable.__new__(EntryTable)
    vars(back).update(pickle.loads(pickle.dumps(table.snapshot_attrs(), protocol=pickle.HIGHEST_PROTOCOL)))
    return back


def _round_trip(value: object, protocol: int) -> object:
    """`value` pickled and back; from protocol 5 its buffers out of band, handed back as read-only views."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(value, protocol=protocol, buffer_callback=buffers.append if protocol >= 5 else None)
    return pickle.loads(data, buffers=[b.raw().toreadonly() for b in buffers])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_id, _id), max_size=30), st.data(), st.sampled_from([4, 5]))
def test_packed_ids_read_back_as_they_were(rows: list, data: st.DataObject, protocol: int) -> None:
    ids = [r[0] for r in rows]
    # Parent ids: most name an entry (the reader gives the parent's own string), others are missing or null.
    parents = [data.draw(st.one_of(st.sampled_from(ids), _id)) if ids else pid for _, pid in rows]
    packed = PackedIds.pack(ids, parents)
    assert packed is not None
    packed = _round_trip(_round_trip(packed, protocol), protocol)  # twice: a restored one is stored again
    assert [packed.id_of(i) for i in range(len(ids))] == ids
    assert [packed.parent_id_of(i) for i in range(len(ids))] == parents
    got_ids, got_parents = packed.lists()
    assert got_ids == ids and got_parents == parents
    assert all(type(a) is type(b) for a, b in zip(got_parents, parents)), "1 and True, '' and None stay apart"


def test_restored_columns_are_read_where_they_lie() -> None:
    """From protocol 5 the packed ids' columns and the id index's travel out of band, and the restored objects read
    them in place (views of the buffers handed to the unpickler, not copies)."""
    ids = [f"id{i}" for i in range(500)] + [None, "id7"]
    parents = [None, *ids[:-1]]
    packed, index = PackedIds.pack(ids, parents), IdIndex.flat_over(ids)
    assert packed is not None and index is not None
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps((packed, index), protocol=5, buffer_callback=buffers.append)
    views = [b.raw().toreadonly() for b in buffers]
    assert len(views) == 4
    got_packed, got_index = pickle.loads(data, buffers=views)
    assert {id(c.obj) for c in (got_packed.ends, got_packed.parents, got_index._hashes, got_index._order)} == {id(v.obj) for v in views}
    got_index.attach(ids)
    assert got_packed.lists() == (ids, parents)
    assert [got_index.get(i) for i in ids[:500]] == [*range(7), 501, *range(8, 500)] and got_index.get("nope") is None


def test_a_parent_id_is_its_parent_s_string_again() -> None:
    ids = ["root", "a", "b"]
    packed = PackedIds.pack(ids, [None, "root", "a"])
    assert packed is not None
    got_ids, got_parents = packed.lists()
    assert got_parents[1] is got_ids[0] and got_parents[2] is got_ids[1]


def test_unhashable_parent_ids_are_not_packed() -> None:
    assert PackedIds.pack(["a"], [["x"]]) is None
    table = _table(["a", "b"], [None, ["x"]])
    back = _restored(table)
    assert not back.ids_packed and back.parent_ids == [None, ["x"]]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_id, _id), min_size=1, max_size=20), st.lists(st.tuples(_id, _id), max_size=6), st.data())
def test_a_restored_table_reads_ids_without_building_them(rows: list, more: list, data: st.DataObject) -> None:
    ids, parents = [r[0] for r in rows], [r[1] for r in rows]
    back = _restored(_table(ids, parents))
    assert back.ids_packed
    for eid, pid in more:  # rows added after the restore
        back.append(m.Entry(len(back), _NUMS, LAYOUT, m.MESSAGE, eid, pid))
        ids.append(eid)
        parents.append(pid)
    n = len(ids)
    assert len(back) == n
    assert [back.id_of(i) for i in range(n)] == ids and [back.parent_id_of(i) for i in range(n)] == parents
    assert back.id_of(-1) == ids[-1] and back.parent_id_of(-n) == parents[0]
    start = data.draw(st.integers(0, n))
    stop = data.draw(st.integers(start, n))
    assert list(back.ids_in(start, stop)) == ids[start:stop] and list(back.parent_ids_in(start, stop)) == parents[start:stop]
    assert [e.id for e in back] == ids and [e.parent_id for e in back] == parents
    assert back.ids_packed, "point and range reads leave the ids packed"
    assert back.ids == ids and back.parent_ids == parents
    assert not back.ids_packed
    assert back.id_of(n - 1) == ids[-1] and list(back.ids_in(0, n)) == ids


def test_a_long_range_builds_the_lists_once() -> None:
    ids = [f"e{i}" for i in range(10_000)]
    back = _restored(_table(ids, [None, *ids[:-1]]))
    assert list(back.ids_in(5, 15)) == ids[5:15] and back.ids_packed
    assert list(back.parent_ids_in(0, 10_000)) == [None, *ids[:-1]]
    assert not back.ids_packed, "reading most rows one by one would cost more than building the lists"


def _add_rows(table: EntryTable, ids: list[str], go: threading.Event) -> None:
    go.wait()
    for i in range(len(table), len(ids)):
        table.append(m.Entry(i, _NUMS, LAYOUT, m.MESSAGE, ids[i], ids[i - 1]))


def test_rows_added_while_another_thread_builds_the_lists_are_all_kept() -> None:
    ids = [f"e{i}" for i in range(50_000)]
    for _ in range(5):
        back = _restored(_table(ids[:40_000], [None, *ids[: 40_000 - 1]]))
        go = threading.Event()
        adder = threading.Thread(target=_add_rows, args=(back, ids, go))
        adder.start()
        go.set()
        seen = back.ids  # built while rows are being added
        adder.join()
        assert len(seen) <= 50_000
        assert back.ids == ids and back.parent_ids == [None, *ids[:-1]]
        assert len(back) == 50_000


_cell = st.one_of(
    st.dictionaries(st.sampled_from(["summary", "timestamp", "n"]), st.one_of(st.text(max_size=4), st.integers()), max_size=3),
    st.none(),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_cell, st.booleans()), max_size=25), st.lists(_cell, max_size=5))
def test_packed_extras_read_back_as_they_were(cells: list, more: list) -> None:
    """Entries with `data` (JSON cells, or kept as they are when JSON would not give them back) restored from a
    snapshot, then more added: every entry's `data` and `timestamp` as the table held them, and stored again whole."""
    table = EntryTable(LAYOUT)
    for data, elsewhere in cells:
        own = (data or {}).get("timestamp")
        timestamp = "elsewhere" if elsewhere else (own if isinstance(own, str) else None)  # "elsewhere": a tuple cell
        table.append(m.Entry(len(table), _NUMS, LAYOUT, m.CUSTOM, f"e{len(table)}", None, timestamp, data))
    expected = [(e.timestamp, e.data) for e in table]
    back = _restored(table)
    assert type(back.extras).__name__ == "PackedExtras"
    assert [(e.timestamp, e.data) for e in back] == expected
    for data in more:
        back.append(m.Entry(len(back), _NUMS, LAYOUT, m.CUSTOM, f"e{len(back)}", None, None, data))
        expected.append((None, data))
    assert [(e.timestamp, e.data) for e in back] == expected
    again = _restored(back)
    assert [(e.timestamp, e.data) for e in again] == expected and not again.extras.added
    assert dict(again.extras.items()) == dict(back.extras.items())
