"""Row marks (`inspector.figures.marks`): the overlay's behaviour and the first filler, cache-TTL expiry."""

from __future__ import annotations

import pytest

from inspector.figures.marks import MARK_KINDS, MarkKind, MarkShape, RowMark, RowMarks, cache_expiry_marks
from inspector.figures.pruning.expiry import expired_tool_results
from inspector.rules.openclaw_2026_4_12.pruning.settings import resolve_settings
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

CONFIG = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}}}
TTL = 300_000


def test_every_kind_is_declared_with_a_shape():
    assert set(MARK_KINDS) == set(MarkKind)
    shapes = {kind: info.shape for kind, info in MARK_KINDS.items()}
    assert shapes[MarkKind.CACHE_EXPIRED] is MarkShape.FLAG
    assert {k for k, s in shapes.items() if s is MarkShape.BOUNDARY} == {
        MarkKind.CUT_POINT, MarkKind.CHUNK_BOUNDARY, MarkKind.PART_BOUNDARY}
    assert [k for k, i in MARK_KINDS.items() if i.dims] == [MarkKind.DROPPED_BY_HISTORY_SHARE]
    assert all(info.description for info in MARK_KINDS.values())


def test_overlay_lookups_order_and_replacement():
    marks = RowMarks([
        RowMark(MarkKind.OVERSIZED, 7),
        RowMark(MarkKind.KEPT_TAIL, 7),
        RowMark(MarkKind.CUT_POINT, 7),
        RowMark(MarkKind.CACHE_EXPIRED, 3, {"age_ms": 1}),
        RowMark(MarkKind.KEPT_TAIL, 9),
    ])
    assert len(marks) == 5 and bool(marks) and not RowMarks()
    # per entry, in MARK_KINDS order
    assert [m.kind for m in marks.at(7)] == [MarkKind.CUT_POINT, MarkKind.KEPT_TAIL, MarkKind.OVERSIZED]
    assert marks.at(4) == ()
    assert marks.first(3, MarkKind.CACHE_EXPIRED).payload == {"age_ms": 1}
    assert marks.first(3, MarkKind.KEPT_TAIL) is None
    assert marks.entries(MarkKind.KEPT_TAIL) == {7, 9}
    assert marks.kinds == {MarkKind.OVERSIZED, MarkKind.KEPT_TAIL, MarkKind.CUT_POINT, MarkKind.CACHE_EXPIRED}
    assert [m.entry_index for m in marks] == [3, 7, 7, 7, 9]
    replaced = marks.replacing(MarkKind.KEPT_TAIL, [RowMark(MarkKind.KEPT_TAIL, 11)])
    assert replaced.entries(MarkKind.KEPT_TAIL) == {11} and marks.entries(MarkKind.KEPT_TAIL) == {7, 9}
    assert replaced.first(7, MarkKind.CUT_POINT) is not None and len(replaced) == 4
    assert not marks.replacing(MarkKind.CACHE_EXPIRED, []).entries(MarkKind.CACHE_EXPIRED)
    with pytest.raises(ValueError):
        marks.replacing(MarkKind.CUT_POINT, [RowMark(MarkKind.OVERSIZED, 1)])
    assert marks.to_json()[0] == {"kind": "cache_expired", "entry_index": 3, "payload": {"age_ms": 1}}


def test_cache_expiry_marks_are_the_pruning_engines_expired_results(tmp_path):
    b = SessionBuilder(seed=21, start="2026-03-01T10:00:00.000Z")
    b.header()
    b.user("look around")
    for name in ("read", "exec"):
        b.assistant([b.tool_call(name, {"x": 1})])
        b.tool_result(b.last_tool_call_ids[0], name, name * 100)
    b.assistant("done")
    touch_ms = b.now_ms
    b.cache_ttl()
    session = open_session(b.write(tmp_path / "s.jsonl"))
    ctx = session.context()
    assert cache_expiry_marks(session, ctx, CONFIG, touch_ms + TTL - 1) == []
    now = touch_ms + TTL + 42_000
    marks = RowMarks(cache_expiry_marks(session, ctx, CONFIG, now))
    found = expired_tool_results(session, ctx, resolve_settings(CONFIG).settings, now)
    assert marks.entries(MarkKind.CACHE_EXPIRED) == set(found) and len(found) == 2
    for entry_index, info in found.items():
        mark = marks.first(entry_index, MarkKind.CACHE_EXPIRED)
        assert mark is not None and mark.payload == info and mark.info.shape is MarkShape.FLAG
        assert mark.to_json()["payload"]["expired_for_ms"] == 42_000
