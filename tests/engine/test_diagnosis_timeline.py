"""The timeline engine on the hand-built runaway session (figures worked out in `test_diagnosis_fixtures`)."""

from __future__ import annotations

import pytest
from test_diagnosis_fixtures import ESTIMATES, PROMPTS, build_over_window, build_runaway, write_config

from inspector.figures.diagnosis.calls import walk_calls
from inspector.figures.diagnosis.timeline import TimelineOptions, build_timeline
from inspector.figures.session_figures import WindowOptions, session_stats
from inspector.host.openclaw_config import load_openclaw_config
from inspector.rules.openclaw_2026_4_12.compaction.settings import resolve_reserve_tokens
from inspector.session.context import build_context
from inspector.session.session import open_session


def timeline_of(path, window=None, config=None, **kw):
    s = open_session(path)
    data = load_openclaw_config(config).data if config else None
    return s, build_timeline(s, s.context(), TimelineOptions(window=WindowOptions(config=data, override=window), **kw))


@pytest.fixture
def runaway(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    return tmp_path / "s.jsonl", ids


def test_calls_prompts_estimates_and_overhead(runaway):
    path, ids = runaway
    _, tl = timeline_of(path)
    calls = tl.calls
    assert [c.entry_id for c in calls] == [ids[n] for n in ("A1", "A2", "A3", "A4", "A5", "A6", "A7", "A9")]
    assert [c.index for c in calls] == list(range(8))
    assert [c.prompt_tokens for c in calls] == PROMPTS
    assert [c.transcript_estimate for c in calls] == ESTIMATES
    assert [c.not_in_transcript for c in calls] == [4900] + [5000] * 7
    row = calls[1].to_json()
    assert (row["prompt_tokens"], row["output_tokens"], row["cache_read"], row["cache_write"]) == (7107, 50, 5000, 2100)
    assert row["transcript_estimate"] == 2107 and row["not_in_transcript"] == 5000
    assert row["cost_source"] == "recorded"
    assert row["cost"] == pytest.approx((3 * 7 + 15 * 50 + 0.3 * 5000 + 3.75 * 2100) / 1e6)
    assert calls[6].compaction_id == ids["K"] and calls[5].compaction_id is None


def test_skipped_calls_are_counted_and_named(runaway):
    path, ids = runaway
    _, tl = timeline_of(path)
    skipped = tl.to_json()["skipped"]
    assert skipped["synthetic"] == 1 and skipped["synthetic_entry_ids"] == [ids["G"]]
    assert skipped["zero_usage"] == 1 and skipped["zero_usage_entry_ids"] == [ids["A8"]]
    assert tl.walk.unsent_messages == 1  # A8, aborted: pi-ai never sends it


def test_jumps_ranked_with_their_causes(runaway):
    path, ids = runaway
    _, tl = timeline_of(path)
    jumps = tl.to_json()["jumps"]
    assert [(j["entry_id"], j["delta_tokens"]) for j in jumps] == [
        (ids["A6"], 10008), (ids["A2"], 2107), (ids["A3"], 2007), (ids["A4"], 15), (ids["A5"], 15), (ids["A9"], 15)
    ]
    assert jumps[0]["cause_entry_ids"] == [ids["R5"], ids["A5"]]
    assert jumps[0]["explained_tokens"] == 10008
    assert jumps[1]["cause_entry_ids"] == [ids["R1"], ids["A1"]]
    assert jumps[-1]["cause_entry_ids"] == [ids["U3"], ids["A7"]]  # A8 (aborted) was not sent
    assert not any(j["across_compaction"] for j in jumps)
    _, top2 = timeline_of(path, top_jumps=2)
    assert [j.entry_id for j in top2.jumps] == [ids["A6"], ids["A2"]]


def test_markers_compaction_and_branch_point(runaway):
    path, ids = runaway
    _, tl = timeline_of(path)
    markers = [m.to_json() for m in tl.walk.markers]
    assert [(m["kind"], m["entry_id"], m["before_call"]) for m in markers] == [
        ("compaction", ids["K"], 6),
        ("branch_point", ids["U3"], 7),
    ]
    assert markers[0]["first_kept_entry_id"] == ids["U2"] and markers[0]["tokens_before"] == 19200
    assert markers[1]["follows_entry_id"] == ids["A9"] and markers[1]["other_children"] == [ids["X"]]


def test_thresholds_crossed(runaway, tmp_path):
    """Window 20000, reserveTokens 4000 without the floor: early 10000 and 14000, compaction 16000."""
    path, ids = runaway
    config = write_config(tmp_path / "openclaw.json", compaction={"reserveTokens": 4000, "reserveTokensFloor": 0})
    _, tl = timeline_of(path, window=20000, config=config)
    crossed = {t["name"]: t for t in tl.to_json()["thresholds_crossed"]}
    assert list(crossed) == ["early_0.5", "early_0.7", "compaction", "window"]
    assert [crossed[n]["tokens"] for n in crossed] == [10000, 14000, 16000, 20000]
    for name in ("early_0.5", "early_0.7", "compaction"):
        assert crossed[name]["entry_id"] == ids["A6"] and crossed[name]["call_index"] == 5 and crossed[name]["times"] == 1
        assert crossed[name]["prompt_tokens"] == 19152
    assert crossed["compaction"]["pi_decision_entry_id"] == ids["A6"]
    assert crossed["window"]["crossed"] is False and crossed["window"]["entry_id"] is None
    _, low = timeline_of(path, window=19000, config=config)
    assert {t.name: t.entry_id for t in low.thresholds}["window"] == ids["A6"]


def test_compaction_reserve_follows_openclaw():
    def reserve(compaction):
        r = resolve_reserve_tokens({"agents": {"defaults": {"compaction": compaction}}} if compaction is not None else None)
        return r.reserve_tokens, r.source, r.floor_source

    assert reserve(None) == (20000, "floor", "openclaw default")  # floor over pi's 16384
    assert reserve({"reserveTokens": 30000}) == (30000, "config:agents.defaults.compaction.reserveTokens", "openclaw default")
    assert reserve({"reserveTokens": 5000}) == (20000, "floor", "openclaw default")
    assert reserve({"reserveTokensFloor": 0}) == (16384, "pi default", "config:agents.defaults.compaction.reserveTokensFloor")
    assert reserve({"reserveTokens": -3}) == (20000, "floor", "openclaw default")
    assert reserve({"reserveTokens": 4000, "reserveTokensFloor": 4000.7})[:2] == (4000, "config:agents.defaults.compaction.reserveTokens")


def test_overhead_summary(runaway):
    path, ids = runaway
    _, tl = timeline_of(path)
    o = tl.to_json()["overhead"]
    assert o["derived"] is True and "derived" in o["method"]
    assert (o["calls_used"], o["first_entry_id"], o["last_entry_id"]) == (8, ids["A1"], ids["A9"])
    assert (o["latest"], o["min"], o["median"], o["max"]) == (5000, 4900, 5000, 5000)
    assert o["latest_share_of_prompt"] == round(5000 / 5165, 4)
    # slope of [4900, 5000 x 7] over 0..7: Σ(x - 3.5)(y - 4987.5) / Σ(x - 3.5)² = 350 / 42
    assert o["trend"]["slope_tokens_per_call"] == 8.33 and o["trend"]["direction"] == "rising"


def test_cache_hit_ratio_and_ttl_expiry(runaway, tmp_path):
    path, ids = runaway
    _, tl = timeline_of(path)
    cache = tl.to_json()["cache"]
    assert (cache["prompt_tokens"], cache["cache_read"], cache["hit_ratio"]) == (68961, 35394, 0.5132)
    assert cache["ttl_ms"] == 300000
    assert [w["entry_id"] for w in cache["expiry_writes"]] == [ids["A5"]]
    w = cache["expiry_writes"][0]
    assert w["gap_ms"] > 400000 and w["cache_write"] == 9134 and w["rewritten_tokens"] == 9114
    assert w["cost"] == pytest.approx(0.0342525)
    assert tl.calls[1].cache_hit_ratio == round(5000 / 7107, 4)
    # A 10-minute TTL from openclaw.json: the 400 s gap no longer expires the cache.
    config = write_config(tmp_path / "openclaw.json", pruning={"mode": "cache-ttl", "ttl": "10m"})
    _, longer = timeline_of(path, config=config)
    assert longer.cache.ttl_ms == 600000 and longer.cache.expiry_writes == []


def test_totals_agree_with_stats(runaway):
    path, _ = runaway
    s, tl = timeline_of(path)
    active = session_stats(s, WindowOptions(), None)["usage"]["active_path"]
    data = tl.to_json()["totals"]
    for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"):
        assert data["calls"][k] + data["skipped"][k] == active[k]
    assert data["calls"]["assistant_calls"] + data["skipped"]["assistant_calls"] == active["assistant_calls"]
    assert data["calls"]["cost"]["total"] == pytest.approx(tl.cost.total)


def test_estimate_matches_a_full_rebuild_before_every_call(runaway):
    """The incremental walk gives the same estimate as `build_context` at each call's parent."""
    path, _ = runaway
    s = open_session(path)
    ctx = s.context()
    for call in walk_calls(s, ctx).calls:
        parent = ctx.path[call.path_position - 1]
        rebuilt = build_context(s.tree, parent)
        expected = sum(
            r.estimates["pi"]
            for r in rebuilt.messages
            if r.estimates and not (s.entries[r.entry_index].stop_reason in ("error", "aborted"))
        )
        assert call.transcript_estimate == expected


def test_leaf_option_walks_another_branch(runaway):
    path, ids = runaway
    s = open_session(path)
    tl = build_timeline(s, s.context(ids["X"]))
    assert tl.calls[-1].entry_id == ids["X"] and ids["A9"] not in [c.entry_id for c in tl.calls]
    assert tl.calls[-1].transcript_estimate == 100 + 50 + 5 + 10


def test_over_the_window_state_apart_from_the_guard(tmp_path):
    build_over_window(tmp_path / "o.jsonl")
    _, tl = timeline_of(tmp_path / "o.jsonl", window=100000)
    fill = tl.to_json()["fill"]
    assert fill["level"] == "over_window" and fill["over_window"] is True
    assert fill["fill"] == 1.3002  # (130000 prompt + 20 output) / 100000, as stats' context_fill
    assert "OVER THE WINDOW" in fill["message"] and "30,020 over" in fill["message"]
    assert fill["guard_level"] == "ok" and tl.guard["level"] == "ok"
    crossed = {t.name: t.call_index for t in tl.thresholds}
    assert crossed["window"] == 0


def test_fill_levels(runaway, tmp_path):
    path, _ = runaway
    _, ok = timeline_of(path, window=200000)
    assert ok.fill.level == "ok"
    _, early = timeline_of(path, window=10000)  # 5175 > 5000 (0.5), the reserve floor puts compaction below 0
    assert early.fill.level == "compaction_due"
    config = write_config(tmp_path / "openclaw.json", compaction={"reserveTokens": 1000, "reserveTokensFloor": 0})
    _, warn = timeline_of(path, window=10000, config=config)
    assert warn.fill.level == "early_warning" and warn.fill.threshold == "early_0.5"


def test_empty_session(tmp_path):
    path = tmp_path / "e.jsonl"
    path.write_text('{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n')
    _, tl = timeline_of(path)
    data = tl.to_json()
    assert data["calls"] == [] and data["jumps"] == [] and data["repeats"] == []
    assert data["overhead"]["calls_used"] == 0 and data["cache"]["hit_ratio"] is None
    assert all(not t["crossed"] for t in data["thresholds_crossed"])
