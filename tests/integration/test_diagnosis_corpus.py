"""The timeline on real transcripts (the shared corpus) and on the bundled demo session."""

from __future__ import annotations

import pytest
from conftest import ROOT, corpus_file

from inspector.figures.diagnosis.timeline import build_timeline
from inspector.figures.session_figures import WindowOptions, session_stats
from inspector.session.session import open_session

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
USAGE_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")


def timeline(path):
    s = open_session(path)
    return s, build_timeline(s, s.context())


def assert_totals_agree(s, tl):
    active = session_stats(s, WindowOptions(), None)["usage"]["active_path"]
    data = tl.to_json()["totals"]
    for k in USAGE_FIELDS:
        assert data["calls"][k] + data["skipped"][k] == active[k], k
    assert data["calls"]["cost"]["total"] + data["skipped"]["cost"]["total"] == pytest.approx(active["cost"]["total"])


def test_demo_not_in_transcript_is_about_54k():
    """The issue's figure: about 54k tokens of the demo's prompt are not in the transcript (the last call)."""
    s, tl = timeline(DEMO)
    o = tl.overhead
    assert len(tl.calls) == 54 and o.calls_used == 54
    assert o.latest == 54006 and o.last_entry_id == tl.calls[-1].entry_id
    assert o.minimum == 23000  # the first call: the demo's 23,000-token system prompt, nothing in the transcript yet
    assert o.trend.direction == "rising"  # the demo's usage stand-in counts 3 chars a token, pi's estimate 4
    assert_totals_agree(s, tl)


def test_demo_jumps_markers_and_repeats():
    _, tl = timeline(DEMO)
    top = tl.jumps[0]
    assert (top.entry_id, top.delta_tokens) == ("0e57c0bc", 16343)
    assert top.causes[0].tool_name == "web_fetch" and top.causes[0].entry_id == "606f54e6"
    kinds = [(mk.kind, mk.entry_id, mk.before_call) for mk in tl.walk.markers]
    assert kinds[0] == ("compaction", "8e9c8bb6", 30)
    assert ("branch_point", "387c3749", 31) in kinds and ("branch_summary", "0b9efd47", 31) in kinds
    assert [(r.kind, r.subject, r.count, r.tokens) for r in tl.repeats] == [("command_repeat", "npm test 2>&1 | tail -n 300", 2, 4283)]
    assert tl.fill.level == "early_warning" and tl.fill.fill == 0.6112
    assert len(tl.cache.expiry_writes) == 10


@pytest.mark.corpus
def test_before_compaction_v1():
    s, tl = timeline(corpus_file("pi", "before-compaction.v1.jsonl"))
    data = tl.to_json()
    assert len(tl.calls) == 471 and data["skipped"]["zero_usage"] == 13 and data["skipped"]["synthetic"] == 0
    assert [(m["kind"], m["entry_id"], m["before_call"]) for m in data["markers"]] == [
        ("compaction", "v1-L360", 171),
        ("compaction", "v1-L629", 294),
    ]
    crossed = {t["name"]: t for t in data["thresholds_crossed"]}
    assert crossed["compaction"]["entry_id"] == "v1-L622" and crossed["compaction"]["pi_decision_entry_id"] == "v1-L622"
    assert crossed["early_0.5"]["times"] == 3  # once per compaction segment
    assert data["fill"]["level"] == "compaction_due"
    top = data["repeats"][0]
    assert top["kind"] == "command_repeat" and top["count"] == 17 and top["wasted_tokens"] == top["tokens"] == 9274
    # the largest re-read came back after the compaction that summarized the first read away: not sent twice
    reread = next(r for r in data["repeats"] if r["kind"] == "file_reread" and r["subject"].endswith("/src/tui/tui-renderer.ts"))
    assert reread["tokens"] == 12817 and reread["wasted_tokens"] == 0 and reread["earlier_in_context"] == [None, False]
    # after each compaction the first call's transcript is the summary plus the kept tail, far below the one before
    for m in data["markers"]:
        before, after = tl.calls[m["before_call"] - 1], tl.calls[m["before_call"]]
        assert after.transcript_estimate < before.transcript_estimate / 2
        assert after.compaction_id == m["entry_id"]
    assert_totals_agree(s, tl)


@pytest.mark.corpus
def test_large_session_v1_without_total_tokens():
    s, tl = timeline(corpus_file("pi", "large-session.v1.jsonl"))
    assert len(tl.calls) == 439 and len(tl.walk.skipped_zero_usage) == 14
    last = tl.calls[-1]
    assert "totalTokens" not in last.usage and last.context_tokens == last.prompt_tokens + last.output_tokens
    assert tl.fill.level == "early_warning" and tl.fill.threshold == "early_0.7"
    assert tl.repeats[0].kind == "command_repeat" and tl.repeats[0].count == 34
    assert any(r.kind == "error_repeat" and r.subject == "Command exited with code #" for r in tl.repeats)
    assert_totals_agree(s, tl)


@pytest.mark.corpus
def test_pi_session_info_v3_single_call():
    s, tl = timeline(corpus_file("pi", "pi-session-info.v3.jsonl"))
    assert len(tl.calls) == 1 and tl.jumps == [] and tl.repeats == []
    call = tl.calls[0]
    assert call.cost.source == "recorded" and call.cost.total == pytest.approx(0.002435)
    assert tl.overhead.trend.direction == "unknown"
    assert_totals_agree(s, tl)
