"""Context-pruning settings: OpenClaw's defaults, normalization, ttl parsing, globs, config and flags (spec §3.1)."""

from __future__ import annotations

import math

import pytest

from inspector.rules.openclaw_2026_4_12.pruning.settings import (
    DurationError,
    SettingsOverrides,
    compute_effective_settings,
    parse_duration_ms,
    resolve_settings,
)
from inspector.rules.openclaw_2026_4_12.pruning.tools import compile_glob_pattern, make_tool_prunable_predicate


def test_defaults_under_openclaw_names():
    s = compute_effective_settings({"mode": "cache-ttl"})
    assert s is not None
    assert s.to_json() == {
        "mode": "cache-ttl",
        "ttlMs": 300_000,
        "keepLastAssistants": 3,
        "softTrimRatio": 0.3,
        "hardClearRatio": 0.5,
        "minPrunableToolChars": 50_000,
        "tools": {},
        "softTrim": {"maxChars": 4000, "headChars": 1500, "tailChars": 1500},
        "hardClear": {"enabled": True, "placeholder": "[Old tool result content cleared]"},
    }


@pytest.mark.parametrize("mode", [None, "off", "Cache-TTL", "on", 1])
def test_any_mode_but_cache_ttl_disables(mode):
    assert compute_effective_settings({"mode": mode}) is None
    assert compute_effective_settings("cache-ttl") is None


def test_normalization_clamps_and_floors():
    s = compute_effective_settings(
        {
            "mode": "cache-ttl",
            "keepLastAssistants": 2.9,
            "softTrimRatio": 1.7,
            "hardClearRatio": -0.2,
            "minPrunableToolChars": -5,
            "softTrim": {"maxChars": 100.99, "headChars": -1, "tailChars": "20"},
            "hardClear": {"enabled": "no", "placeholder": "  <cleared>  "},
        }
    )
    assert s.keep_last_assistants == 2
    assert s.soft_trim_ratio == 1 and s.hard_clear_ratio == 0
    assert s.min_prunable_tool_chars == 0
    assert (s.soft_trim.max_chars, s.soft_trim.head_chars, s.soft_trim.tail_chars) == (100, 0, 1500)
    assert s.hard_clear.enabled is True  # not a boolean: ignored
    assert s.hard_clear.placeholder == "<cleared>"


def test_non_numbers_and_non_finite_values_are_ignored():
    s = compute_effective_settings(
        {"mode": "cache-ttl", "keepLastAssistants": True, "softTrimRatio": math.nan, "hardClearRatio": math.inf,
         "hardClear": {"placeholder": "   "}}
    )
    assert s.keep_last_assistants == 3 and s.soft_trim_ratio == 0.3 and s.hard_clear_ratio == 0.5
    assert s.hard_clear.placeholder == "[Old tool result content cleared]"


@pytest.mark.parametrize(
    "raw,ms",
    [("5m", 300_000), ("1h", 3_600_000), ("90s", 90_000), ("1.5h", 5_400_000), ("5", 300_000), (" 5M ", 300_000),
     ("10ms", 10), ("2d", 172_800_000), ("0", 0), ("0.0001s", 0), ("0.0005s", 1)],
)
def test_parse_duration_ms(raw, ms):
    assert parse_duration_ms(raw) == ms


@pytest.mark.parametrize("raw", ["", "5 m", "-5m", "abc", "5min", "1e3", "５m"])
def test_parse_duration_rejects(raw):
    with pytest.raises(DurationError):
        parse_duration_ms(raw)


def test_ttl_invalid_or_not_a_string_keeps_default():
    assert compute_effective_settings({"mode": "cache-ttl", "ttl": "soon"}).ttl_ms == 300_000
    assert compute_effective_settings({"mode": "cache-ttl", "ttl": 60}).ttl_ms == 300_000
    assert compute_effective_settings({"mode": "cache-ttl", "ttl": "30"}).ttl_ms == 1_800_000


# ------------------------------------------------------------------------------------------------- globs


def test_glob_compilation_kinds():
    assert compile_glob_pattern("*").kind == "all"
    assert compile_glob_pattern(" Read ").kind == "exact" and compile_glob_pattern(" Read ").value == "read"
    assert compile_glob_pattern("web_*").kind == "regex"
    assert compile_glob_pattern(42).value == ""


def test_tool_predicate_deny_wins_case_insensitive():
    pred = make_tool_prunable_predicate({"allow": ["read*", "EXEC"], "deny": ["*secret*"]})
    assert pred("Read_File") and pred("exec") and pred(" exec ")
    assert not pred("read_secret_file")  # allowed by read*, denied by *secret*
    assert not pred("grep")  # not in allow
    assert not pred(None)


def test_tool_predicate_empty_allow_means_all_and_specials_are_literal():
    pred = make_tool_prunable_predicate({"deny": ["a.b", "x+"]})
    assert pred("anything") and pred(None)
    assert not pred("a.b") and pred("axb")  # "." is literal
    assert not pred("x+") and pred("xx")
    assert make_tool_prunable_predicate({"allow": "read"})("grep")  # not a list: no allow patterns
    assert make_tool_prunable_predicate(None)("grep")


def test_glob_star_does_not_cross_line_terminators_like_javascript():
    pred = make_tool_prunable_predicate({"deny": ["a*b"]})
    assert not pred("a-b") and pred("a\nb") and pred("a\u2028b")


# ------------------------------------------------------------------------------ config, auto-default, flags


def test_resolve_from_config_and_flags():
    config = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "10m", "keepLastAssistants": 5,
                                                         "softTrim": {"maxChars": 9000}}}}}
    r = resolve_settings(
        config,
        SettingsOverrides(keep_last_assistants=1, soft_trim_head_chars=100, hard_clear_enabled=False,
                          tools_deny=["exec"], tools_allow=["*"]),
    )
    s = r.settings
    assert r.enabled and r.configured_mode == "cache-ttl" and r.ttl_source == "config"
    assert s.ttl_ms == 600_000 and s.keep_last_assistants == 1
    assert (s.soft_trim.max_chars, s.soft_trim.head_chars) == (9000, 100)
    assert s.hard_clear.enabled is False
    assert s.tools == {"deny": ["exec"], "allow": ["*"]}
    assert set(r.overridden) == {"keepLastAssistants", "softTrim.headChars", "hardClear.enabled", "tools.deny", "tools.allow"}


def test_flag_ttl_and_negative_flag_are_normalized_like_config():
    r = resolve_settings({}, SettingsOverrides(ttl="2h", keep_last_assistants=-4, soft_trim_ratio=3.0))
    assert r.settings.ttl_ms == 7_200_000 and r.ttl_source == "flag"
    assert r.settings.keep_last_assistants == 0 and r.settings.soft_trim_ratio == 1


def test_no_config_previews_with_defaults_but_reports_disabled():
    r = resolve_settings(None)
    assert not r.enabled and r.configured_mode is None
    assert r.settings.ttl_ms == 300_000
    assert not r.anthropic_auto_default.applies


ANTHROPIC_AUTH = {"auth": {"profiles": {"anthropic:default": {"provider": "anthropic", "mode": "api_key"}}}}


def test_anthropic_auto_default_sets_cache_ttl_and_one_hour():
    r = resolve_settings({**ANTHROPIC_AUTH, "agents": {"defaults": {}}})
    assert r.anthropic_auto_default.applies and r.anthropic_auto_default.auth_mode == "api_key"
    assert r.enabled and r.settings.ttl_ms == 3_600_000 and r.ttl_source == "anthropic-default"


def test_anthropic_auto_default_keeps_a_configured_ttl():
    r = resolve_settings({**ANTHROPIC_AUTH, "agents": {"defaults": {"contextPruning": {"ttl": "30m"}}}})
    assert r.anthropic_auto_default.applies and r.settings.ttl_ms == 1_800_000


def test_anthropic_auto_default_does_not_override_an_explicit_mode():
    r = resolve_settings({**ANTHROPIC_AUTH, "agents": {"defaults": {"contextPruning": {"mode": "off"}}}})
    assert not r.anthropic_auto_default.applies and not r.enabled
    assert r.settings.ttl_ms == 300_000


def test_anthropic_auto_default_needs_agents_defaults_and_anthropic_auth():
    assert not resolve_settings(ANTHROPIC_AUTH).anthropic_auto_default.applies
    other = {"auth": {"profiles": {"o": {"provider": "openai", "mode": "api_key"}}}, "agents": {"defaults": {}}}
    assert not resolve_settings(other).anthropic_auto_default.applies
    oauth = {"auth": {"profiles": {"c": {"provider": "claude-cli"}}}, "agents": {"defaults": {}}}
    auto = resolve_settings(oauth).anthropic_auto_default
    assert auto.applies and auto.auth_mode == "oauth"
