"""The forecast's row marks (`inspector.figures.forecast.marks.plan_marks`) on the plan fixtures of issue 9."""

from __future__ import annotations

from oracle.cases import after_compaction_session, oversized_session, share_session, split_turn_session

from inspector.figures.forecast.marks import FORECAST_KINDS, ForecastMark, plan_marks
from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.figures.marks import MarkKind, RowMarks
from inspector.session.session import open_session


def _marks(b, tmp_path, **kw):
    s = open_session(b.write(tmp_path / "s.jsonl"))
    ctx = s.context()
    config = kw.pop("config", {})
    plan = plan_compaction(s, ctx, PlanOptions(config=config, **kw))
    return s, ctx, plan, plan_marks(plan, ctx)


def _ids(s, marks):
    return [s.entries[mk.entry_index].id for mk in marks]


def test_nothing_to_plan_gives_no_marks(tmp_path):
    _, _, plan, marks = _marks(after_compaction_session(), tmp_path)
    assert plan.nothing_to_plan is not None
    assert set(marks) == set(FORECAST_KINDS) and all(v == [] for v in marks.values())


def test_split_turn_marks(tmp_path):
    b, ids = split_turn_session()
    s, _, _, marks = _marks(b, tmp_path, keep_recent_tokens=2100)
    assert _ids(s, marks[MarkKind.CUT_POINT]) == [ids["a4"]]
    cut = marks[MarkKind.CUT_POINT][0].payload
    assert cut == ForecastMark("cut · 6,000 tok before · split turn", 6000)
    assert _ids(s, marks[MarkKind.KEPT_TAIL]) == [ids["a4"]]
    assert _ids(s, marks[MarkKind.SPLIT_TURN_PREFIX]) == [ids[k] for k in ("u2", "a2", "r2", "a3", "r3")]
    # the prefix is one chunk (starting at u2); the history input [u1, a1] is preserved whole: no history chunk
    chunks = marks[MarkKind.CHUNK_BOUNDARY]
    assert _ids(s, chunks) == [ids["u2"]]
    assert chunks[0].payload == ForecastMark("prefix chunk 1/1 · 4,112 tok", 4112)
    assert marks[MarkKind.DROPPED_BY_HISTORY_SHARE] == [] and marks[MarkKind.OVERSIZED] == []
    # all kinds fit one overlay, which the transcript reads by entry
    overlay = RowMarks([mk for v in marks.values() for mk in v])
    assert overlay.first(s.entry_by_id(ids["a4"]).index, MarkKind.CUT_POINT) is not None


def test_history_share_drop_marks(tmp_path):
    b, ids = share_session()
    cfg = {"agents": {"defaults": {"compaction": {"recentTurnsPreserve": 1}}}}
    s, ctx, _, marks = _marks(b, tmp_path, config=cfg, context_window=100_000, keep_recent_tokens=10_100)
    assert _ids(s, marks[MarkKind.DROPPED_BY_HISTORY_SHARE]) == [ids[i] for i in range(4)]
    assert sum(mk.payload.tokens for mk in marks[MarkKind.DROPPED_BY_HISTORY_SHARE]) == 20_200  # hs dropped_tokens
    # the kept history [u3 a3 u4 a4] is one chunk of 20200 tokens, starting at u3
    chunks = marks[MarkKind.CHUNK_BOUNDARY]
    assert _ids(s, chunks) == [ids[4]] and chunks[0].payload.tokens == 20_200
    assert _ids(s, marks[MarkKind.CUT_POINT]) == [ids[10]]
    assert _ids(s, marks[MarkKind.KEPT_TAIL]) == [ids[i] for i in range(10, len(ctx.messages))]


def test_oversized_and_part_marks(tmp_path):
    b, kept = oversized_session()
    cfg = {"agents": {"defaults": {"compaction": {"recentTurnsPreserve": 0}}}}
    s, ctx, plan, marks = _marks(b, tmp_path, config=cfg, context_window=100_000, keep_recent_tokens=200)
    rows = ctx.messages
    assert [mk.entry_index for mk in marks[MarkKind.OVERSIZED]] == [rows[2].entry_index]
    # parts [u1] [a1 r1 a2 u2 a3]; chunks [u1] [a1] [r1] [a2 u2 a3]
    assert [mk.entry_index for mk in marks[MarkKind.PART_BOUNDARY]] == [rows[0].entry_index, rows[1].entry_index]
    assert [mk.payload.tokens for mk in marks[MarkKind.PART_BOUNDARY]] == [1, 42_806]
    chunks = marks[MarkKind.CHUNK_BOUNDARY]
    assert [mk.entry_index for mk in chunks] == [rows[i].entry_index for i in (0, 1, 2, 3)]
    assert [mk.payload.tokens for mk in chunks] == [c.tokens for c in plan.chunking.chunks]
    assert chunks[0].payload.label.startswith("chunk 1/4 · ")
    assert _ids(s, marks[MarkKind.CUT_POINT]) == [kept]

