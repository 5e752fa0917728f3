"""The openclaw.json snippet round-trips to the settings it was made from; config edits apply where they should."""

from __future__ import annotations

import copy

import json5
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.pruning.settings import (
    DEFAULT_CONTEXT_PRUNING_SETTINGS,
    ContextPruningSettings,
    HardClearSettings,
    SoftTrimSettings,
    parse_duration_ms,
    resolve_settings,
)
from inspector.rules.openclaw_2026_4_12.pruning.snippet import (
    context_pruning_object,
    duration_setting,
    settings_snippet,
    with_context_pruning_edits,
)

ANTHROPIC_AUTH = {"auth": {"profiles": {"anthropic:default": {"provider": "anthropic", "mode": "api_key"}}}}


def resolved_from_snippet(text: str, extra: dict | None = None):
    """Parse the snippet as OpenClaw would (JSON5), merge it into `extra`, and resolve the settings."""
    config = copy.deepcopy(extra or {})
    config.update(json5.loads(text))
    return resolve_settings(config)


def test_duration_setting_reads_back_exactly():
    cases = {300_000: "5m", 3_600_000: "1h", 90_000: "90s", 1_500: "1500ms", 86_400_000: "1d", 0: "0m", 1: "1ms", 7_200_000: "2h"}
    for ms, text in cases.items():
        assert duration_setting(ms) == text
        assert parse_duration_ms(text) == ms


def test_default_settings_full_and_minimal():
    full = context_pruning_object(DEFAULT_CONTEXT_PRUNING_SETTINGS)
    assert full == {
        "mode": "cache-ttl",
        "ttl": "5m",
        "keepLastAssistants": 3,
        "softTrimRatio": 0.3,
        "hardClearRatio": 0.5,
        "minPrunableToolChars": 50000,
        "softTrim": {"maxChars": 4000, "headChars": 1500, "tailChars": 1500},
        "hardClear": {"enabled": True, "placeholder": "[Old tool result content cleared]"},
    }
    assert context_pruning_object(DEFAULT_CONTEXT_PRUNING_SETTINGS, minimal=True) == {"mode": "cache-ttl"}
    text = settings_snippet(DEFAULT_CONTEXT_PRUNING_SETTINGS)
    assert text.startswith('{\n  "agents": {\n    "defaults": {\n      "contextPruning": {\n        "mode": "cache-ttl"')


def test_minimal_snippet_beats_the_anthropic_auto_default():
    """With Anthropic auth and no mode, OpenClaw would use ttl 1h; the snippet sets mode, so 5m stays 5m."""
    assert resolve_settings(ANTHROPIC_AUTH | {"agents": {"defaults": {}}}).settings.ttl_ms == 3_600_000
    for minimal in (False, True):
        r = resolved_from_snippet(settings_snippet(DEFAULT_CONTEXT_PRUNING_SETTINGS, minimal=minimal), ANTHROPIC_AUTH)
        assert r.enabled and r.settings.ttl_ms == 300_000
        assert r.settings.to_json() == DEFAULT_CONTEXT_PRUNING_SETTINGS.to_json()


def test_non_ascii_placeholder_and_globs_round_trip():
    s = ContextPruningSettings(
        ttl_ms=90_000,
        tools={"allow": ["read*", "exec"], "deny": ["read_secret"]},
        hard_clear=HardClearSettings(False, '«清除» "quoted" \\ back\nslash'),
        soft_trim=SoftTrimSettings(10_000, 2_000, 0),
    )
    text = settings_snippet(s)
    assert "«清除»" in text  # kept as is, not \u-escaped
    assert resolved_from_snippet(text).settings.to_json() == s.to_json()
    minimal = json5.loads(settings_snippet(s, minimal=True))["agents"]["defaults"]["contextPruning"]
    assert minimal == {
        "mode": "cache-ttl",
        "ttl": "90s",
        "softTrim": {"maxChars": 10000, "headChars": 2000, "tailChars": 0},
        "hardClear": {"enabled": False, "placeholder": '«清除» "quoted" \\ back\nslash'},
        "tools": {"allow": ["read*", "exec"], "deny": ["read_secret"]},
    }


placeholders = st.text(min_size=1, max_size=40).map(js_trim).filter(bool)
globs = st.lists(st.text(alphabet="abcxyz_*-.", min_size=1, max_size=8), max_size=3)


@st.composite
def effective_settings(draw) -> ContextPruningSettings:
    tools: dict = {}
    allow, deny = draw(globs), draw(globs)
    if allow:
        tools["allow"] = allow
    if deny:
        tools["deny"] = deny
    return ContextPruningSettings(
        ttl_ms=draw(st.one_of(st.integers(0, 10**10), st.sampled_from([300_000, 3_600_000, 90_000, 1]))),
        keep_last_assistants=draw(st.integers(0, 50)),
        soft_trim_ratio=draw(st.floats(0, 1)),
        hard_clear_ratio=draw(st.floats(0, 1)),
        min_prunable_tool_chars=draw(st.integers(0, 10**7)),
        tools=tools,
        soft_trim=SoftTrimSettings(draw(st.integers(0, 10**6)), draw(st.integers(0, 10**5)), draw(st.integers(0, 10**5))),
        hard_clear=HardClearSettings(draw(st.booleans()), draw(placeholders)),
    )


@settings(max_examples=150, deadline=None)
@given(effective_settings(), st.booleans(), st.booleans())
def test_snippet_round_trips_through_resolve_settings(s, minimal, anthropic):
    r = resolved_from_snippet(settings_snippet(s, minimal=minimal), ANTHROPIC_AUTH if anthropic else None)
    assert r.enabled and r.configured_mode == "cache-ttl"
    assert r.settings.to_json() == s.to_json()


def test_edits_apply_to_a_copy_and_empty_lists_remove_keys():
    config = {
        "models": {"providers": {}},
        "agents": {"defaults": {"model": "x", "contextPruning": {"mode": "cache-ttl", "tools": {"allow": ["read"], "deny": ["exec"]}}}},
    }
    before = copy.deepcopy(config)
    out = with_context_pruning_edits(config, {"softTrim.maxChars": 10_000, "tools.allow": [], "ttl": "1h", "hardClear.enabled": False})
    assert config == before
    cp = out["agents"]["defaults"]["contextPruning"]
    assert cp == {"mode": "cache-ttl", "tools": {"deny": ["exec"]}, "softTrim": {"maxChars": 10000}, "ttl": "1h", "hardClear": {"enabled": False}}
    assert out["models"] == {"providers": {}} and out["agents"]["defaults"]["model"] == "x"
    s = resolve_settings(out).settings
    assert s.soft_trim.max_chars == 10_000 and s.tools == {"deny": ["exec"]} and s.ttl_ms == 3_600_000 and not s.hard_clear.enabled
    assert with_context_pruning_edits(None, {"ttl": None}) == {"agents": {"defaults": {"contextPruning": {}}}}
