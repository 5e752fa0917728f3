"""Triggers (pi threshold and overflow, OpenClaw's pre-prompt route, early warnings), settings, mode, engine.

Sessions are real files written by the fixture builder; expected numbers are worked out by hand from pi
0.66.1 `_checkCompaction` / `isContextOverflow` and OpenClaw 2026.4 `shouldPreemptivelyCompactBeforePrompt`,
`applyPiCompactionSettingsFromConfig`, `resolveCompactionMode`, `resolveContextEngine`.
"""

from __future__ import annotations

import pytest

from inspector.rules.openclaw_2026_4_12.compaction.settings import resolve_context_engine, resolve_mode, resolve_settings
from inspector.rules.openclaw_2026_4_12.compaction.toolresults import (
    calculate_max_tool_result_chars,
    estimate_reduction_potential,
    tool_result_text,
    truncate_tool_result_text,
)
from inspector.rules.openclaw_2026_4_12.compaction.triggers import (
    early_warnings,
    is_context_overflow_error,
    overflow_trigger,
    pre_prompt_route,
    threshold_trigger,
)
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage
from inspector.session.session import open_session


def _usage(total: int) -> dict:
    return make_usage(10, 90, total - 100, 0)


def _open(b: SessionBuilder, tmp_path):
    s = open_session(b.write(tmp_path / "s.jsonl"))
    return s, s.context()


def _builder() -> SessionBuilder:
    b = SessionBuilder(seed=3, track_context=False)
    b.header()
    return b


# -- settings, mode, engine ----------------------------------------------------------------------------------------


def test_settings_defaults_and_floor():
    s = resolve_settings({})
    assert (s.keep_recent_tokens, s.keep_recent_source) == (20000, "pi default")
    assert (s.reserve_tokens, s.reserve_source, s.reserve_floor) == (20000, "floor", 20000)  # max(16384, 20000)
    assert (s.max_history_share, s.recent_turns_preserve, s.provider, s.quality_guard) == (0.5, 3, None, False)


def test_settings_from_config():
    cfg = {"agents": {"defaults": {"compaction": {"reserveTokens": 30000.7, "keepRecentTokens": 8000, "maxHistoryShare": 0.3,
                                                  "recentTurnsPreserve": 20, "provider": "p1", "qualityGuard": {"enabled": True}}}}}
    s = resolve_settings(cfg)
    assert (s.reserve_tokens, s.reserve_source) == (30000, "config:agents.defaults.compaction.reserveTokens")
    assert (s.keep_recent_tokens, s.keep_recent_source) == (8000, "config:agents.defaults.compaction.keepRecentTokens")
    assert (s.max_history_share, s.recent_turns_preserve, s.provider, s.quality_guard) == (0.3, 12, "p1", True)
    # a configured reserve below the floor is lifted to it; floor 0 lets pi's 16384 through
    low = {"agents": {"defaults": {"compaction": {"reserveTokens": 1000}}}}
    assert resolve_settings(low).reserve_tokens == 20000
    no_floor = {"agents": {"defaults": {"compaction": {"reserveTokensFloor": 0}}}}
    assert (resolve_settings(no_floor).reserve_tokens, resolve_settings(no_floor).reserve_source) == (16384, "pi default")
    # keepRecentTokens must be positive; reserveTokens may be 0 (then the floor applies)
    bad = {"agents": {"defaults": {"compaction": {"keepRecentTokens": 0, "reserveTokens": -5}}}}
    assert (resolve_settings(bad).keep_recent_tokens, resolve_settings(bad).reserve_tokens) == (20000, 20000)
    # explicit flags win over everything, the floor included
    assert resolve_settings(cfg, keep_recent_tokens=5, reserve_tokens=7).to_json()["reserveTokens"]["value"] == 7


@pytest.mark.parametrize(
    ("compaction", "mode"),
    [(None, "safeguard"), ({}, "safeguard"), ({"mode": "default"}, "default"), ({"mode": "safeguard"}, "safeguard"),
     ({"mode": "default", "provider": "x"}, "safeguard"), ({"mode": ""}, "safeguard")],
)
def test_mode(compaction, mode):
    cfg = {} if compaction is None else {"agents": {"defaults": {"compaction": compaction}}}
    assert resolve_mode(cfg).mode == mode


def test_context_engine():
    assert resolve_context_engine({}).to_json() == {"id": "legacy", "builtin": True, "note": None}
    assert resolve_context_engine({"plugins": {"slots": {"contextEngine": " legacy "}}}).builtin
    eng = resolve_context_engine({"plugins": {"slots": {"contextEngine": "lossless-claw"}}})
    assert (eng.engine, eng.builtin) == ("lossless-claw", False) and "may own compaction" in eng.note


# -- pi threshold ---------------------------------------------------------------------------------------------------


def test_threshold_strictly_above_window_minus_reserve(tmp_path):
    b = _builder()
    b.user("hi")
    b.assistant("ok", usage=_usage(180_000))
    s, ctx = _open(b, tmp_path)
    th = threshold_trigger(s, ctx, 200_000, 20_000)
    assert (th.context_tokens, th.source, th.threshold_tokens, th.would_compact, th.tokens_to_threshold) == (180_000, "usage", 180_000, False, 0)
    b.user("more")
    b.assistant("ok", usage=_usage(180_001))
    s, ctx = _open(b, tmp_path)
    assert threshold_trigger(s, ctx, 200_000, 20_000).would_compact


def test_threshold_skips_aborted_and_estimates_errors(tmp_path):
    b = _builder()
    b.user("hi")
    b.assistant("ok", usage=_usage(150_000))
    b.user("x" * 400)  # 100 tokens
    b.assistant("partial", usage=_usage(999_999), stop_reason="aborted")
    s, ctx = _open(b, tmp_path)
    assert threshold_trigger(s, ctx, 200_000, 20_000).skipped == "the last assistant message was aborted"
    b.assistant([], usage=_usage(0), stop_reason="error", error_message="overloaded")
    s, ctx = _open(b, tmp_path)
    th = threshold_trigger(s, ctx, 200_000, 20_000)
    # last valid usage (150000) + estimateTokens of what follows: 100 + ceil(7/4)=2 (aborted "partial") + 0 (error)
    assert (th.source, th.context_tokens, th.would_compact) == ("estimate", 150_102, False)


def test_threshold_ignores_messages_older_than_the_compaction(tmp_path):
    b = _builder()
    u = b.user("hi")
    b.assistant("ok", usage=_usage(199_000))
    b.compaction("summary", u, 199_000)
    s, ctx = _open(b, tmp_path)
    th = threshold_trigger(s, ctx, 200_000, 20_000)
    assert th.skipped == "the last assistant message predates the latest compaction" and not th.would_compact


# -- overflow ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "overflow"),
    [
        ("prompt is too long: 213462 tokens > 200000 maximum", True),
        ('413 {"error":{"type":"request_too_large"}}', True),
        ("The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)", True),
        ("input token count 5\r exceeds the maximum", False),  # JS `.` does not cross \r
        ("400 status code (no body)", True),
        ("413\u00a0(no body)", True),
        (" 400 status code (no body)", False),  # anchored at the start
        ("ThrottlingException: Too many tokens, please wait", True),
        ("Throttling error: Too many tokens, please wait", False),  # a non-overflow pattern wins
        ("rate limit: too many tokens", False),
        ("PROMPT IS TOO LONG", True),
        ("overloaded", False),
    ],
)
def test_overflow_patterns(text, overflow):
    assert is_context_overflow_error(text) is overflow


def test_overflow_trigger(tmp_path):
    b = _builder()
    b.user("hi")
    b.assistant([], usage=_usage(0), stop_reason="error", error_message="prompt is too long: 213462 tokens > 200000 maximum")
    s, ctx = _open(b, tmp_path)
    ov = overflow_trigger(s, ctx, 200_000)
    assert (ov.is_overflow, ov.kind, ov.same_model, ov.would_compact) == (True, "error", True, True)
    # a model switch since: the overflow came from another model and is ignored
    b.model_change("openai", "gpt-5")
    s, ctx = _open(b, tmp_path)
    ov = overflow_trigger(s, ctx, 200_000)
    assert (ov.is_overflow, ov.same_model, ov.would_compact) == (True, False, False)


def test_silent_overflow(tmp_path):
    b = _builder()
    b.user("hi")
    b.assistant("ok", usage=make_usage(100, 5, 150_000, 0))  # input + cacheRead = 150100 > 100000
    s, ctx = _open(b, tmp_path)
    assert overflow_trigger(s, ctx, 100_000).kind == "silent"
    assert not overflow_trigger(s, ctx, 200_000).is_overflow


# -- OpenClaw pre-prompt route -----------------------------------------------------------------------------------------


def _big(tmp_path, user_chars: int, result_chars: int = 0):
    b = _builder()
    b.user("u" * user_chars)
    if result_chars:
        call = b.tool_call("exec", {"c": 1})  # 4 + 7 = 11 chars -> 3 tokens
        b.assistant([call], usage=_usage(1000))
        b.tool_result(call["id"], "exec", "r" * result_chars)
    b.assistant("ok", usage=_usage(1000))  # 1 token
    return _open(b, tmp_path)


def test_pre_prompt_fits(tmp_path):
    s, ctx = _big(tmp_path, 4000)  # 1000 + 1 tokens
    pp = pre_prompt_route(s, ctx, 100_000, 20_000, prompt_tokens=500)
    # ceil((1001 + 500) * 1.2) = 1802; budget 100000 - min(20000, 100000 - min(8000, 50000)) = 80000
    assert (pp.messages_tokens, pp.estimated_prompt_tokens, pp.effective_reserve_tokens, pp.prompt_budget_before_reserve) == (1001, 1802, 20000, 80000)
    assert (pp.overflow_tokens, pp.route, pp.tool_result_potential, pp.tokens_to_overflow) == (0, "fits", None, 78198)


def test_pre_prompt_compact_only_without_tool_results(tmp_path):
    s, ctx = _big(tmp_path, 280_000)  # 70000 + 1 tokens
    pp = pre_prompt_route(s, ctx, 100_000, 20_000)
    # ceil(70001 * 1.2) = 84002 (84001.2 up) - 80000 = 4002 over; nothing to truncate
    assert (pp.estimated_prompt_tokens, pp.overflow_tokens, pp.route) == (84002, 4002, "compact_only")
    assert pp.tool_result_potential.max_reducible_chars == 0 and pp.should_compact


def test_pre_prompt_truncate_only_and_compact_then_truncate(tmp_path):
    # 180000 chars of user (45000) + 3 (call) + 100000 chars of result (25000) + 1 = 70004 tokens
    s, ctx = _big(tmp_path, 180_000, 100_000)
    pp = pre_prompt_route(s, ctx, 100_000, 20_000)
    assert (pp.messages_tokens, pp.estimated_prompt_tokens, pp.overflow_tokens) == (70004, 84005, 4005)
    # the 100000-char result cut to 40000 chars saves 60000 >= max(4005*4 + 2048, ceil(16020*1.5)) = 24030
    assert (pp.tool_result_potential.max_reducible_chars, pp.truncate_only_threshold_chars, pp.route) == (60000, 24030, "truncate_tool_results_only")
    s, ctx = _big(tmp_path, 300_000, 100_000)  # 75000 + 3 + 25000 + 1 = 100004 -> 120005 - 80000 = 40005 over
    pp = pre_prompt_route(s, ctx, 100_000, 20_000)
    assert (pp.overflow_tokens, pp.truncate_only_threshold_chars, pp.route) == (40005, 240030, "compact_then_truncate")


def test_small_window_keeps_a_prompt_budget(tmp_path):
    s, ctx = _big(tmp_path, 40)
    pp = pre_prompt_route(s, ctx, 10_000, 20_000)
    # min prompt budget = min(8000, 5000) = 5000: the reserve shrinks to 10000 - 5000
    assert (pp.effective_reserve_tokens, pp.prompt_budget_before_reserve) == (5000, 5000)


# -- tool-result truncation potential ------------------------------------------------------------------------------------


def test_truncate_tool_result_text_head_only():
    # 100000 x's to 40000: suffix "[... 60000 more characters truncated]" (37) -> keep 39963, new suffix for 60037
    out = truncate_tool_result_text("x" * 100_000, 40_000, 0)
    assert out == "x" * 39_963 + "[... 60037 more characters truncated]" and len(out) == 40_000


def test_truncate_tool_result_text_head_and_tail():
    text = "a" * 50_000 + "\n" + "b" * 9_000 + "\nexit code 1"
    out = truncate_tool_result_text(text, 10_000, 0)
    # 59013 chars; budget 10000 - 37 = 9963; tail min(floor(2988.9), 4000) = 2988; head 9963 - 2988 - 63 = 6912
    # (63 = the marker's JS length); the tail starts at 59013 - 2988 (the newline is too far to move it)
    assert out.startswith("a" * 6912 + "\n\n\u26a0\ufe0f [... middle content omitted")
    assert out.split("...]\n\n", 1)[1] == "b" * 2976 + "\nexit code 1[... 49050 more characters truncated]"


def test_reduction_potential_counts_utf16():
    # ctx 10000: maxChars min(3000*4, 40000) = 12000. 7000 emoji = 14000 UTF-16 units
    texts = [tool_result_text(0, {"role": "toolResult", "content": [{"type": "text", "text": "😀" * 7000}]})]
    assert calculate_max_tool_result_chars(10_000) == 12_000
    pot = estimate_reduction_potential(texts, 10_000)
    assert (pot.total_tool_result_chars, pot.oversized_count, pot.oversized_reducible_chars) == (14_000, 1, 2_000)


def test_early_warnings():
    w = early_warnings(120_000, 200_000, (0.5, 0.7))
    assert [(x.threshold_tokens, x.remaining_tokens, x.crossed) for x in w] == [(100_000, -20_000, True), (140_000, 20_000, False)]
