"""The cache-TTL gate, the last-touch reader and provider eligibility (spec §3.1, §3.2)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from inspector.samples.fixtures import SessionBuilder
from inspector.pruning.ttl import (
    SOURCE_CACHE_TTL_ENTRY,
    SOURCE_LAST_ASSISTANT,
    SOURCE_NONE,
    evaluate_ttl_gate,
    is_cache_ttl_eligible,
    iso_from_ms,
    ms_from_iso,
    read_last_cache_touch,
)
from inspector.session import open_session

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


def test_gate_falls_back_to_last_assistant_and_says_so():
    g = evaluate_ttl_gate(now_ms=T0 + TTL, ttl_ms=TTL, touch=None, fallback_ms=T0, fallback_entry_id="abc")
    assert g.open and g.source == SOURCE_LAST_ASSISTANT
    assert "no openclaw.cache-ttl entry" in g.reason and "abc" in g.reason


def test_gate_without_any_reference_is_closed():
    g = evaluate_ttl_gate(now_ms=T0, ttl_ms=TTL, touch=None)
    assert not g.open and g.source == SOURCE_NONE and g.last_cache_touch_at is None


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
        (None, None, None, False),
    ],
)
def test_eligibility(provider, model, api, eligible):
    e = is_cache_ttl_eligible(provider, model, api)
    assert e.eligible is eligible
    assert e.reason
