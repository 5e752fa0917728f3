"""The split of `not_in_transcript` into overhead and estimator error (`figures.diagnosis.attribution`).

`build_planted(path, growth)` writes a known-answer session: 20 calls, each recorded prompt = a planted overhead (the
system prompt and tools) + tiktoken's exact count of the messages sent before it (so the provider/tiktoken ratio is
exactly 1). Between calls a tool result of English text is added; before call 6 a Chinese page (chars/4 undercounts
it about threefold); before call 14 the overhead grows by `growth` (a skill injected into the system prompt).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.counting.counter import get_token_counter
from inspector.figures.diagnosis.attribution import FLAG_HIGH, calibrate, misestimated
from inspector.figures.diagnosis.timeline import TimelineOptions, build_timeline
from inspector.samples.demo import demo_session_path
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage
from inspector.session.session import open_session

BASE_OVERHEAD = 3000
GROWTH_CALL = 14
CJK_CALL = 6
CALLS = 20
CJK_PAGE = "速率限制器在高并发下会丢失请求，我们需要把计数器迁移到共享存储并为每个租户设置独立的配额。" * 60
LARGE_SESSION = Path("/work/shared/corpus/pi/large-session.v1.jsonl")


def english(n: int) -> str:
    """A tool output of plain English lines (chars/4 is close to tiktoken on it)."""
    return "\n".join(f"line {n}.{i}: the request handler returned status ok after checking the quota" for i in range(40))


def build_planted(path: Path, growth: int) -> dict[str, object]:
    """Write the module docstring's session; return its planted figures (overheads, tokenizer sums, ids)."""
    counter = get_token_counter("cl100k_base")
    b = SessionBuilder(seed=31)
    b.header(cwd="/work")
    sent = 0
    overheads: list[int] = []
    sums: list[int] = []
    ids: dict[str, str] = {}

    def add(entry_id: str) -> None:
        nonlocal sent
        sent += counter.count_message(b.by_id(entry_id)["message"]) or 0

    add(b.user("check the rate limiter and fix what is wrong with it"))
    for i in range(CALLS):
        overhead = BASE_OVERHEAD + (growth if i >= GROWTH_CALL else 0)
        overheads.append(overhead)
        sums.append(sent)
        call = b.assistant([b.tool_call("web_fetch" if i == CJK_CALL - 1 else "exec", {"n": i})], usage=make_usage(overhead + sent, 20))
        ids[f"A{i}"] = call
        add(call)
        result = b.tool_result(b.last_tool_call_ids[0], "web_fetch" if i == CJK_CALL - 1 else "exec", CJK_PAGE if i == CJK_CALL - 1 else english(i))
        ids[f"R{i}"] = result
        add(result)
    b.write(path)
    return {"overheads": overheads, "sums": sums, "ids": ids}


def timeline_of(path: Path, **kw):
    s = open_session(path)
    return build_timeline(s, s.context(), TimelineOptions(**kw))


@pytest.fixture
def planted(tmp_path):
    path = tmp_path / "planted.jsonl"
    return path, build_planted(path, growth=5000)


def test_tokenizer_sums_and_the_split_match_what_was_planted(planted):
    path, plan = planted
    tl = timeline_of(path)
    calls = tl.calls
    assert [c.transcript_tokens for c in calls] == plan["sums"]
    assert tl.attribution.calibration.ratio == 1.0 and tl.attribution.calibration.source == "session_calls"
    assert [c.overhead_tokens for c in calls] == plan["overheads"]
    assert [c.estimator_error_tokens for c in calls] == [t - c.transcript_estimate for t, c in zip(plan["sums"], calls)]
    assert all(c.overhead_tokens + c.estimator_error_tokens == c.not_in_transcript for c in calls)


def test_each_planted_cause_is_attributed_to_its_own(planted):
    path, plan = planted
    data = timeline_of(path).to_json()
    jumps = {j["call_index"]: j for j in data["jumps"]}
    growth, cjk = jumps[GROWTH_CALL], jumps[CJK_CALL]
    assert growth["attributed_to"] == "overhead" and growth["overhead_change"] == 5000
    assert cjk["attributed_to"] == "transcript" and cjk["overhead_change"] == 0
    page = cjk["causes"][0]
    assert page["entry_id"] == plan["ids"][f"R{CJK_CALL - 1}"] and page["tool_name"] == "web_fetch"
    assert page["tokenizer_tokens"] > FLAG_HIGH * page["estimate_tokens"]
    assert cjk["estimator_error_change"] == cjk["tokenizer_tokens"] - cjk["explained_tokens"]
    flagged = data["attribution"]["misestimated"]
    assert flagged[0]["entry_id"] == page["entry_id"] and flagged[0]["direction"] == "under" and flagged[0]["ratio"] >= FLAG_HIGH
    assert data["attribution"]["overhead_trend"]["direction"] == "rising"
    assert data["attribution"]["overhead_change"] == 5000 and data["attribution"]["baseline_overhead"] == BASE_OVERHEAD
    first = data["calls"][1]
    assert {"transcript_tokens", "overhead_tokens", "estimator_error_tokens", "not_in_transcript"} <= set(first)


def test_without_growth_the_overhead_is_flat_and_only_the_estimator_errs(tmp_path):
    path = tmp_path / "flat.jsonl"
    build_planted(path, growth=0)
    tl = timeline_of(path)
    at = tl.attribution
    assert at.overhead_trend.direction == "flat" and at.overhead_change == 0
    assert all(c.overhead_tokens == BASE_OVERHEAD for c in tl.calls)
    step = tl.calls[CJK_CALL].estimator_error_tokens - tl.calls[CJK_CALL - 1].estimator_error_tokens
    assert step > 1000  # the Chinese page: chars/4 undercounts it
    assert at.method == "tokenizer_ratio"


def test_estimator_option_drives_the_transcript_estimate(planted):
    path, plan = planted
    pi = timeline_of(path)
    tok = timeline_of(path, estimator="tiktoken")
    prune = timeline_of(path, estimator="openclaw_prune")
    assert [c.transcript_estimate for c in tok.calls] == plan["sums"]
    assert all(c.estimator_error_tokens == 0 for c in tok.calls)
    assert [c.overhead_tokens for c in tok.calls] == [c.overhead_tokens for c in pi.calls]
    assert [c.transcript_estimate for c in prune.calls] != [c.transcript_estimate for c in pi.calls]
    assert tok.jumps[0].explained_tokens == tok.jumps[0].tokenizer_tokens


def test_calibration_ignores_one_odd_step_and_falls_back_without_steps(planted):
    path, plan = planted
    calls = timeline_of(path).calls
    doubled = [2 * n for n in plan["sums"]]
    assert calibrate(calls, doubled).ratio == 0.5
    assert calibrate(calls[:2], plan["sums"][:2]).source == "as_is"


def test_misestimated_thresholds():
    assert misestimated(1000, 3000) == 3.0
    assert misestimated(1000, 1200) is None
    assert misestimated(100, 250) is None  # under FLAG_MIN_TOKENS apart
    assert misestimated(1200, 24) == 0.02


def test_demo_largest_jump_is_the_chinese_page_with_its_tokenizer_count():
    data = timeline_of(demo_session_path()).to_json()
    top = data["jumps"][0]
    page = top["causes"][0]
    assert (page["tool_name"], page["estimate_tokens"], page["tokenizer_tokens"]) == ("web_fetch", 5604, 18110)
    assert top["attributed_to"] == "transcript" and top["tokenizer_tokens"] >= top["delta_tokens"]
    assert data["attribution"]["misestimated"][0]["entry_id"] == page["entry_id"]
    assert data["attribution"]["baseline_overhead"] == 23000
    assert data["attribution"]["overhead_trend"]["direction"] == "flat"
    assert data["overhead"]["trend"]["direction"] == "rising"  # the undivided gap still rises


@pytest.mark.skipif(not LARGE_SESSION.exists(), reason="the shared corpus is not here")
def test_large_session_overhead_flat_estimator_error_grows():
    at = timeline_of(LARGE_SESSION).attribution
    assert at.overhead_trend.direction == "flat"
    assert at.error_trend.direction == "rising"
    assert at.latest_error > 5 * abs(at.overhead_change)
