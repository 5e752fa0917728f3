"""Context-window resolution, cap and guard (inspector/rules/openclaw_2026_4_12/window_guard.py, spec §5) and the model catalog."""

from __future__ import annotations

import pytest

from inspector.rules.openclaw_2026_4_12.model_catalog import known_model, window_catalog
from inspector.rules.openclaw_2026_4_12.window_guard import (
    CONTEXT_WINDOW_HARD_MIN_TOKENS,
    CONTEXT_WINDOW_WARN_BELOW_TOKENS,
    DEFAULT_CONTEXT_TOKENS,
    ContextWindow,
    evaluate_context_window_guard,
    normalize_positive_int,
    normalize_provider_id,
    resolve_context_window,
)

CAP = "agents.defaults.contextTokens"


def provider_config(provider_key: str, *models: dict, cap: object = None) -> dict:
    config: dict = {"models": {"providers": {provider_key: {"models": list(models)}}}}
    if cap is not None:
        config["agents"] = {"defaults": {"contextTokens": cap}}
    return config


def test_constants_match_openclaw() -> None:
    assert DEFAULT_CONTEXT_TOKENS == 200_000
    assert CONTEXT_WINDOW_HARD_MIN_TOKENS == 16_000
    assert CONTEXT_WINDOW_WARN_BELOW_TOKENS == 32_000


def test_flag_wins_over_everything_and_is_not_capped() -> None:
    config = provider_config("local", {"id": "m", "contextTokens": 50_000}, cap=10_000)
    assert resolve_context_window("local", "m", config, override=64_000) == ContextWindow(64_000, "flag")


@pytest.mark.parametrize("bad", [0, -5, True])
def test_flag_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(ValueError):
        resolve_context_window("anthropic", "claude-opus-4-6", None, override=bad)  # type: ignore[arg-type]


def test_config_context_tokens_beats_context_window() -> None:
    config = provider_config("local", {"id": "m", "contextTokens": 50_000, "contextWindow": 128_000})
    window = resolve_context_window("local", "m", config)
    assert window == ContextWindow(50_000, "config:models.providers.local.models[m].contextTokens")
    assert window.openclaw_source == "modelsConfig"


@pytest.mark.parametrize("context_tokens", [None, 0, -1, "50000", float("inf"), True])
def test_config_context_window_used_when_context_tokens_is_not_a_positive_number(context_tokens: object) -> None:
    model = {"id": "m", "contextWindow": 128_000.9}
    if context_tokens is not None:
        model["contextTokens"] = context_tokens
    window = resolve_context_window("local", "m", provider_config("local", model))
    assert window == ContextWindow(128_000, "config:models.providers.local.models[m].contextWindow")


def test_config_provider_key_is_matched_normalized_and_source_names_the_written_key() -> None:
    config = provider_config("  Z.AI ", {"id": "glm-4.6", "contextWindow": 99_000})
    window = resolve_context_window("zai", "glm-4.6", config)
    assert window.tokens == 99_000
    assert window.source == "config:models.providers.  Z.AI .models[glm-4.6].contextWindow"
    assert resolve_context_window("ZAI", "glm-4.6", config).tokens == 99_000


def test_config_model_id_must_match_exactly() -> None:
    config = provider_config("anthropic", {"id": "Claude-Opus-4-6", "contextWindow": 64_000})
    window = resolve_context_window("anthropic", "claude-opus-4-6", config)
    assert window == ContextWindow(1_000_000, "model:anthropic/claude-opus-4-6")


def test_only_the_first_model_with_the_id_is_consulted() -> None:
    config = provider_config("local", {"id": "m"}, {"id": "m", "contextWindow": 77_000})
    # OpenClaw's models.find() returns the first entry; it has no window, so the next steps decide.
    assert resolve_context_window("local", "m", config) == ContextWindow(DEFAULT_CONTEXT_TOKENS, "default")


def test_known_model_window_from_catalog() -> None:
    window = resolve_context_window("anthropic", "claude-opus-4-6", {})
    assert window == ContextWindow(1_000_000, "model:anthropic/claude-opus-4-6")
    assert window.openclaw_source == "model"
    # Same id, other provider, other window.
    assert resolve_context_window("github-copilot", "claude-sonnet-4.5", None).tokens == 144_000
    assert resolve_context_window("openai-codex", "gpt-5.1", None).tokens == 272_000
    assert resolve_context_window("openai", "gpt-5.1", None).tokens == 400_000


def test_unknown_model_falls_back_to_default() -> None:
    window = resolve_context_window("my-proxy", "mystery-model", None)
    assert window == ContextWindow(200_000, "default")
    assert window.openclaw_source == "default"


def test_agents_default_context_tokens_caps_a_larger_window() -> None:
    config = {"agents": {"defaults": {"contextTokens": 100_000.7}}}
    window = resolve_context_window("anthropic", "claude-opus-4-6", config)
    assert window == ContextWindow(100_000, "model:anthropic/claude-opus-4-6", CAP, 1_000_000)
    assert window.openclaw_source == "agentContextTokens"


def test_cap_applies_to_config_and_default_sources_and_only_when_smaller() -> None:
    config = provider_config("local", {"id": "m", "contextWindow": 150_000}, cap=120_000)
    assert resolve_context_window("local", "m", config).capped_by == "agents.defaults.contextTokens"
    assert resolve_context_window("x", "y", config) == ContextWindow(120_000, "default", CAP, 200_000)
    larger = provider_config("local", {"id": "m", "contextWindow": 150_000}, cap=150_000)
    expected = ContextWindow(150_000, "config:models.providers.local.models[m].contextWindow")
    assert resolve_context_window("local", "m", larger) == expected


@pytest.mark.parametrize("cap", [0, -10, "1000", False, float("nan")])
def test_invalid_cap_is_ignored(cap: object) -> None:
    assert resolve_context_window("x", "y", {"agents": {"defaults": {"contextTokens": cap}}}).capped_by is None


def test_odd_config_shapes_do_not_crash() -> None:
    for config in (
        {"models": []},
        {"models": {"providers": {"local": []}}},
        {"models": {"providers": {"local": {"models": {}}}}},
        provider_config("local", None, "m", 3),
        {"agents": []},
    ):
        assert resolve_context_window("local", "m", config).source == "default"


@pytest.mark.parametrize(
    ("tokens", "level"),
    [(15_999, "block"), (16_000, "warn"), (31_999, "warn"), (32_000, "ok"), (1, "block"), (0, "ok"), (-3, "ok")],
)
def test_guard_thresholds(tokens: int, level: str) -> None:
    guard = evaluate_context_window_guard(tokens)
    assert guard.level == level
    assert guard.warn_below == 32_000 and guard.hard_min == 16_000
    assert guard.should_block == (level == "block")
    assert guard.should_warn == (level in ("warn", "block"))


def test_guard_messages_are_openclaws() -> None:
    block = evaluate_context_window_guard(15_999.9)
    assert block.tokens == 15_999
    assert block.message == "Model context window too small (15999 tokens). Minimum is 16000."
    warn = evaluate_context_window_guard(
        ContextWindow(20_000, "config:models.providers.local.models[m].contextWindow"), provider="local", model_id="m"
    )
    assert warn.message == "low context window: local/m ctx=20000 (warn<32000) source=modelsConfig"
    assert evaluate_context_window_guard(200_000).message == ""


def test_guard_custom_thresholds_are_floored_and_at_least_one() -> None:
    assert evaluate_context_window_guard(50, warn_below_tokens=100.9, hard_min_tokens=0).level == "warn"
    assert evaluate_context_window_guard(50, hard_min_tokens=0).hard_min == 1


def test_normalizers() -> None:
    assert normalize_positive_int(1.9) == 1
    assert normalize_positive_int(0.5) is None
    assert normalize_positive_int(True) is None
    assert normalize_positive_int(float("-inf")) is None
    assert normalize_provider_id(" AWS-Bedrock ") == "amazon-bedrock"
    assert normalize_provider_id(None) == ""


def test_catalog_lookup_rules() -> None:
    known = window_catalog().models
    assert len(known) == 150
    exact = known_model("openai", "gpt-4o")
    assert exact is not None and exact.context_window == 128_000 and exact.input_cost == 2.5
    assert known_model("OpenAI", "gpt-4o") == exact
    # Id-only fallback prefers the first-party provider over resellers.
    fallback = known_model("some-proxy", "claude-sonnet-4-5")
    assert fallback is not None and fallback.provider == "anthropic"
    by_id = known_model(None, "gpt-5.4")
    assert by_id is not None and by_id.provider == "openai"
    assert known_model("openai", "no-such-model") is None
    assert known_model("openai", None) is None
    assert len({(m.provider, m.model_id) for m in known}) == len(known)
    assert known_model("google", "gemini-1.5-pro") is None  # in the catalog, left out of the window step
