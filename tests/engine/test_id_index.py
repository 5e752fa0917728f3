"""The id index (`inspector.storage.id_index.IdIndex`): its flat form, stored in a snapshot, answers every lookup as the dict
a session builds while it is read does (the last entry with an id wins), before and after ids are added, and turns
into that dict for bulk passes or many lookups."""

from __future__ import annotations

import pickle
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.storage.id_index import IdIndex, id_hash

COLLIDING = ("ide8d", "id113c848")
"""Two ids with the same stable hash (found by a birthday search)."""


def _dict_of(ids: list[str | None]) -> dict[str, int]:
    """What `SessionTree.link` builds: every non-None id, the last entry with it winning."""
    out: dict[str, int] = {}
    for i, eid in enumerate(ids):
        if eid is not None:
            out[eid] = i
    return out


def _restored(ids: list[str | None]) -> IdIndex:
    """The index as a snapshot stores and restores it (pickled flat, then given the table's ids)."""
    index = IdIndex()
    index.attach(ids)
    index.update((eid, i) for i, eid in enumerate(ids) if eid is not None)
    back = pickle.loads(pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL))
    back.attach(ids)
    return back


_id = st.one_of(st.sampled_from(["a", "b", "", "x" * 40, "é", "\ud800", *COLLIDING]), st.text(max_size=6))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_id, st.none()), max_size=40), st.lists(_id, max_size=8), st.lists(_id, max_size=8))
def test_the_flat_index_answers_as_the_dict_before_and_after_ids_are_added(ids, added, probes) -> None:
    index = _restored(ids)
    assert index.is_flat
    expected = _dict_of(ids)
    for key in [*ids, *added, *probes, None, 5]:
        assert index.get(key) == expected.get(key)  # type: ignore[arg-type]
        assert (key in index) == (key in expected)
    for eid in added:  # entries appended after the restore
        ids.append(eid)
        index[eid] = len(ids) - 1
    expected = _dict_of(ids)
    assert [index.get(k) for k in [*ids, *probes]] == [expected.get(k) for k in [*ids, *probes]]
    assert index.isdisjoint(probes) == expected.keys().isdisjoint(probes)
    assert index.is_flat or len(ids) == 0
    again = pickle.loads(pickle.dumps(index))  # stored again: flat over every id, the added ones included
    again.attach(ids)
    assert again.as_dict() == expected and index.as_dict() == expected and not index.is_flat


def test_ids_sharing_a_hash_are_told_apart_and_the_last_entry_with_an_id_wins() -> None:
    a, b = COLLIDING
    assert id_hash(a) == id_hash(b) == zlib.crc32(a.encode())
    ids: list[str | None] = [b, a, None, b, "c", a]
    index = _restored(ids)
    assert (index.get(a), index.get(b), index.get("c"), index.get("d")) == (5, 3, 4, None)
    with pytest.raises(KeyError):
        index["d"]


def test_a_long_pass_or_many_lookups_build_the_dict_once(monkeypatch) -> None:
    ids: list[str | None] = [f"e{i}" for i in range(100)]
    index = _restored(ids)
    assert index.mapping_for(IdIndex.BULK_ROWS) is index and index.is_flat  # a few lookups: the table
    bulk = index.mapping_for(IdIndex.BULK_ROWS + 1)
    assert type(bulk) is dict and bulk == _dict_of(ids) and not index.is_flat
    assert index.mapping_for(1) is bulk  # from then on, the dict
    monkeypatch.setattr(IdIndex, "MAX_FLAT_LOOKUPS", 10)
    index = _restored(ids)
    for k in range(10):
        assert index.get(f"e{k}") == k
    assert index.is_flat
    assert index.get("e50") == 50 and not index.is_flat


def test_ids_that_are_not_strings_keep_the_dict() -> None:
    ids: list = ["a", 7, "b"]
    assert IdIndex.flat_over(ids) is None
    index = IdIndex()
    index.attach(ids)
    index.update([("a", 0), (7, 1), ("b", 2)])
    back = pickle.loads(pickle.dumps(index))
    assert not back.is_flat and back.as_dict() == {"a": 0, 7: 1, "b": 2}


def test_a_restored_index_refuses_a_table_shorter_than_it_covers() -> None:
    index = pickle.loads(pickle.dumps(_restored(["a", "b", "c"])))
    with pytest.raises(ValueError):
        index.attach(["a"])


def test_ids_added_after_the_dict_is_built_go_into_it() -> None:
    ids: list[str | None] = ["a", "b"]
    index = _restored(ids)
    ids.append("c")
    index["c"] = 2
    assert index.as_dict() == {"a": 0, "b": 1, "c": 2}
    ids.append("d")
    index["d"] = 3
    index.update([("e", 4)])
    assert index.get("d") == 3 and index.get("e") == 4 and index.as_dict() == {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}


def _link_all(index: IdIndex, ids: list[str | None], added: list[str], started, errors: list[str]) -> None:
    for k, eid in enumerate(added):
        ids.append(eid)
        index[eid] = 2000 + k
        if index.get(eid) != 2000 + k:
            errors.append(eid)
        if k == 50:
            started.set()


def test_ids_added_in_one_thread_while_another_builds_the_dict_are_all_kept() -> None:
    """The UI links appended entries in a worker thread while the main thread may build the dict (a long pass): no id
    added meanwhile is lost, and a lookup never misses an id added before it began."""
    import sys
    import threading

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter can
    try:
        for _ in range(20):
            ids: list[str | None] = [f"e{i}" for i in range(2000)]
            index = _restored(ids)
            started, errors = threading.Event(), []
            worker = threading.Thread(target=_link_all, args=(index, ids, [f"n{i}" for i in range(3000)], started, errors))
            worker.start()
            started.wait()
            built = index.as_dict()  # while the worker goes on adding ids
            worker.join()
            assert not errors
            assert built is index.as_dict() and len(built) == 5000
            assert all(index.get(f"n{k}") == 2000 + k for k in range(3000))
    finally:
        sys.setswitchinterval(before)
