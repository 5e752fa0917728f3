"""The cache-TTL gate, the last-touch reader and provider eligibility (spec §3.1, §3.2)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from inspector.js.timeutil import iso_from_ms, ms_from_iso
from inspector.rules.openclaw_2026_4_12.pruning.ttl import (
    SOURCE_CACHE_TTL_ENTRY,
    SOURCE_LAST_ASSISTANT,
    SOURCE_NONE,
    evaluate_ttl_gate,
    is_cache_ttl_eligible,
    js_number,
    project_ttl_gate,
    read_last_cache_touch,
    result_expiry,
    ttl_expired,
)
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z
TTL = 300_000


def custom(data, custom_type="openclaw.cache-ttl", eid="e", line=1):
    return SimpleNamespace(type="custom", id=eid, line=line, data={"customType": custom_type, "data": data})


def test_iso_round_trip_like_to_iso_string():
    assert iso_from_ms(T0) == "2026-01-01T00:00:00.000Z"
    assert iso_from_ms(T0 + 1234.9) == "2026-01-01T00:00:01.234Z"
    assert ms_from_iso("2026-01-01T00:00:01.234Z") == T0 + 1234
    assert ms_from_iso("2026-01-01T01:00:00+01:00") == T0
    assert ms_from_iso("2026-01-01T00:00:00") == T0


def test_last_touch_is_last_in_file_not_newest():
    entries = [
        custom({"timestamp": T0 + 50_000, "provider": "anthropic", "modelId": "m"}, eid="a", line=2),
        custom({"timestamp": T0, "provider": "anthropic", "modelId": "m"}, eid="b", line=3),
    ]
    touch = read_last_cache_touch(entries, "anthropic", "m")
    assert touch is not None and touch.entry_id == "b" and touch.timestamp_ms == T0


def test_touch_matching_is_trimmed_and_case_insensitive_and_skips_others():
    entries = [
        custom({"timestamp": T0, "provider": " Anthropic ", "modelId": "Claude-X"}, eid="match"),
        custom({"timestamp": T0 + 1, "provider": "openai", "modelId": "claude-x"}, eid="other-provider"),
        custom({"timestamp": T0 + 2, "provider": "anthropic"}, eid="no-model"),
        custom({"timestamp": T0 + 3, "provider": "anthropic", "modelId": "claude-x"}, custom_type="model-snapshot"),
        SimpleNamespace(type="message", id="msg", line=9, data=None),
    ]
    assert read_last_cache_touch(entries, "anthropic", "claude-x").entry_id == "match"
    # a context without a model id does not compare model ids
    assert read_last_cache_touch(entries, "anthropic", None).entry_id == "no-model"
    # no context at all matches everything
    assert read_last_cache_touch(entries).entry_id == "no-model"


@pytest.mark.parametrize("bad", ["1767225600000", 0, None, True, float("inf"), float("nan")])
def test_touch_with_unusable_timestamp_is_skipped(bad):
    entries = [
        custom({"timestamp": T0, "provider": "anthropic", "modelId": "m"}, eid="good"),
        custom({"timestamp": bad, "provider": "anthropic", "modelId": "m"}, eid="bad"),
    ]
    assert read_last_cache_touch(entries, "anthropic", "m").entry_id == "good"


def test_touch_without_data_is_skipped():
    assert read_last_cache_touch([custom(None)], "anthropic", "m") is None
    assert read_last_cache_touch([custom("x")]) is None


def touch_at(ms):
    return read_last_cache_touch([custom({"timestamp": ms, "provider": "p", "modelId": "m"}, eid="t")], "p", "m")


def test_gate_opens_exactly_at_ttl():
    touch = touch_at(T0)
    closed = evaluate_ttl_gate(now_ms=T0 + TTL - 1, ttl_ms=TTL, touch=touch)
    assert not closed.open and closed.source == SOURCE_CACHE_TTL_ENTRY and "still warm" in closed.reason
    opened = evaluate_ttl_gate(now_ms=T0 + TTL, ttl_ms=TTL, touch=touch)
    assert opened.open and opened.expires_at == T0 + TTL and opened.elapsed_ms == TTL
    assert opened.to_json()["last_cache_touch_at"] == "2026-01-01T00:00:00.000Z"


def test_gate_never_opens_with_zero_ttl():
    assert not evaluate_ttl_gate(now_ms=T0 + 10**9, ttl_ms=0, touch=touch_at(T0)).open


def test_without_a_touch_openclaw_keeps_the_gate_closed():
    """extension.ts: `if (!lastTouch || ttlMs <= 0) return;` with lastCacheTouchAt null: closed, however late."""
    g = evaluate_ttl_gate(now_ms=T0 + 10**12, ttl_ms=TTL, touch=None)
    assert not g.open and g.source == SOURCE_NONE and g.last_cache_touch_at is None and g.scenario == "now"
    j = g.to_json()
    assert j["open"] is False and j["last_cache_touch_at"] is None and j["expires_at"] is None
    assert "lastCacheTouchAt null" in j["reason"] and "prunes nothing" in j["reason"]


def test_projection_uses_the_last_assistant_and_says_so():
    g = project_ttl_gate(now_ms=T0 + TTL, ttl_ms=TTL, reference_ms=T0, reference_entry_id="abc")
    assert g.open and g.source == SOURCE_LAST_ASSISTANT and g.scenario == "if_enabled"
    assert g.reason.startswith("projection:") and "abc" in g.reason
    assert not project_ttl_gate(now_ms=T0 + TTL - 1, ttl_ms=TTL, reference_ms=T0, reference_entry_id="abc").open


def test_projection_without_an_assistant_is_closed():
    g = project_ttl_gate(now_ms=T0, ttl_ms=TTL, reference_ms=None, reference_entry_id=None)
    assert not g.open and g.source == SOURCE_NONE and g.last_cache_touch_at is None


@pytest.mark.parametrize(
    "ref,now,ttl,expired",
    [
        (T0, T0 + TTL, TTL, True),  # now - ref >= ttl
        (T0, T0 + TTL - 1, TTL, False),
        (T0, T0 + 10**9, 0, False),  # ttlMs <= 0: never
        (T0, T0 + 10**9, -5, False),
        (None, T0, TTL, False),  # no touch
        (0, T0, TTL, False),  # !lastTouch: 0 is no touch
        (-1e300, T0, TTL, True),  # a negative touch is truthy and far in the past
        (1e20, T0, TTL, False),  # a touch in the far future: still warm
        (T0, T0 + 3.6e26, 3.6e26, True),  # a huge ttl compares as a number
    ],
)
def test_the_one_expiry_rule(ref, now, ttl, expired):
    assert ttl_expired(ref, now, ttl) is expired


def test_result_expiry_counts_from_the_later_of_touch_and_result():
    assert result_expiry(T0, T0 + 1000, T0 + 1000 + TTL, TTL) == (True, T0 + 1000 + TTL)
    assert result_expiry(T0, T0 + 1000, T0 + 999 + TTL, TTL) == (False, T0 + 1000 + TTL)
    assert result_expiry(T0, None, T0 + TTL, TTL) == (True, T0 + TTL)
    assert result_expiry(None, T0, T0 + TTL, TTL) == (None, None)
    assert result_expiry(T0, None, T0 + 10 * TTL, 0) == (False, T0)


def test_gate_json_survives_times_javascript_cannot_print():
    touch = touch_at(1e20)
    g = evaluate_ttl_gate(now_ms=T0, ttl_ms=TTL, touch=touch)
    j = g.to_json()
    assert not g.open and j["last_cache_touch_at"] is None and j["last_cache_touch_at_ms"] == 1e20
    huge = evaluate_ttl_gate(now_ms=T0, ttl_ms=int(3.6e26), touch=touch_at(T0)).to_json()
    assert huge["expires_at"] is None and huge["ttl_ms"] == 3.6e26 and not huge["open"]


def test_huge_integer_timestamps_are_infinity_in_javascript():
    """JSON.parse turns a 400-digit integer into Infinity: not finite, so the touch is skipped."""
    assert touch_at(10**400) is None
    assert js_number(10**400) is None and js_number(2**60) == float(2**60)


def test_touch_on_an_abandoned_branch_counts(tmp_path):
    b = SessionBuilder(seed=1)
    b.header()
    first = b.user("hi")
    b.assistant("hello")
    b.cache_ttl(timestamp_ms=T0 + 5)  # this touch's branch gets abandoned
    b.branch(first)
    b.assistant("other branch")
    session = open_session(b.write(tmp_path / "s.jsonl"))
    touch = read_last_cache_touch(session.entries, "anthropic", "claude-sonnet-4-5")
    assert touch is not None and touch.timestamp_ms == T0 + 5
    assert session.entries[-1].type == "message"  # the touch is not on the active path


@pytest.mark.parametrize(
    "provider,model,api,eligible",
    [
        ("anthropic", "claude-sonnet-4-5", "anthropic-messages", True),
        ("Anthropic", "anything", None, True),
        ("openai", "gpt-5", "openai-responses", False),
        ("openrouter", "anthropic/claude-sonnet-4.5", "openai-completions", True),
        ("openrouter", "openai/gpt-5", "openai-completions", False),
        ("kilocode", "anthropic/claude-opus-4.1", None, True),
        ("kilocode", "openai/gpt-5", None, False),
        ("amazon-bedrock", "us.anthropic.claude-sonnet-4-5-v1:0", "bedrock-converse-stream", True),
        ("amazon-bedrock", "amazon.nova-pro-v1:0", "bedrock-converse-stream", False),
        ("my-proxy", "claude-x", "anthropic-messages", True),
        ("google", "gemini-2.5-pro", "google-generative-ai", True),
        ("google", "gemini-2.0-flash", "google-generative-ai", False),
        ("zai", "glm-4.6", None, True),
        ("Z-AI", "glm-4.6", "openai-completions", True),  # the Z.AI plugin is found through normalizeProviderId
        ("anthropic-vertex", "claude-sonnet-4-5", None, True),
        ("amazon-bedrock", "arn:aws:bedrock:us-east-1:1:application-inference-profile/my-claude", None, True),
        ("amazon-bedrock", "arn:aws:bedrock:us-east-1:1:application-inference-profile/nova", None, False),
        ("bedrock", "anthropic.claude-3", "openai-completions", False),  # not "amazon-bedrock" once lower-cased
        ("moonshot", "kimi-k2", "openai-completions", False),  # 2026.4.12: no Moonshot hook
        ("moonshot", "kimi-k2", "anthropic-messages", True),
        ("openrouter", "deepseek/deepseek-chat", "openai-completions", False),  # not in 2026.4.12's prefixes
        ("openrouter", "moonshotai/kimi-k2", "openai-completions", True),
        ("openrouter", "openai/gpt-5", "anthropic-messages", False),  # the plugin's answer wins over the api
        ("google", "Gemini-3-pro", "google-generative-ai", True),
        (None, None, None, False),
    ],
)
def test_eligibility(provider, model, api, eligible):
    e = is_cache_ttl_eligible(provider, model, api)
    assert e.eligible is eligible
    assert e.reason
