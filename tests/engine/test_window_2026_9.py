"""OpenClaw 2026.9.6's window guard, window resolution and model catalog (`inspector/rules/openclaw_2026_9_6/
window_guard.py`, `model_ids.py`, `model_catalog.py`): each rule where it differs from 2026.4.12's, the rule set's
parts, the figures reading them through a 2026.9 session's rules, and the committed catalog equal to what the
generator makes of the installed package. The real functions are compared in test_window_2026_9_oracle.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from oracle.gen_model_catalog_2026_9 import TARGET, build_catalog
from oracle.openclaw_2026_9 import oracle_dir

from inspector.rules.openclaw_2026_4_12 import model_catalog as april_catalog
from inspector.rules.openclaw_2026_4_12 import window_guard as april
from inspector.rules.openclaw_2026_9_6 import model_catalog as sept_catalog
from inspector.rules.openclaw_2026_9_6 import window_guard as sept
from inspector.rules.ruleset import rule_set

SEPT = rule_set("openclaw-2026.9.6")


def providers(key: str, *models: dict[str, Any], **provider: Any) -> dict[str, Any]:
    return {"models": {"providers": {key: {**provider, "models": list(models)}}}}


def test_the_rule_set_holds_its_own_guard_and_catalog() -> None:
    assert SEPT.owns("window_guard") and SEPT.owns("model_catalog")
    assert SEPT.window_guard is sept and SEPT.model_catalog is sept_catalog
    assert rule_set("openclaw-2026.4.12").window_guard is april
    assert sept.DEFAULT_CONTEXT_TOKENS is april.DEFAULT_CONTEXT_TOKENS and sept.normalize_positive_int is april.normalize_positive_int
    for name in ("resolve_context_window", "evaluate_context_window_guard", "ContextWindow", "Guard", "normalize_provider_id",
                 "CONTEXT_WINDOW_HARD_MIN_TOKENS", "CONTEXT_WINDOW_WARN_BELOW_TOKENS"):
        assert hasattr(sept, name), name
    for name in ("load_catalog", "window_catalog", "known_model", "ModelCatalog", "KnownModel"):
        assert hasattr(sept_catalog, name), name


# --- the guard ---

def test_floors_are_4000_and_8000_raised_to_a_tenth_and_a_fifth_of_the_window() -> None:
    assert (sept.CONTEXT_WINDOW_HARD_MIN_TOKENS, sept.CONTEXT_WINDOW_WARN_BELOW_TOKENS) == (4_000, 8_000)
    assert (april.CONTEXT_WINDOW_HARD_MIN_TOKENS, april.CONTEXT_WINDOW_WARN_BELOW_TOKENS) == (16_000, 32_000)
    small = sept.evaluate_context_window_guard(12_000)
    assert (small.level, small.hard_min, small.warn_below) == ("ok", 4_000, 8_000)
    assert april.evaluate_context_window_guard(12_000).level == "block"
    big = sept.evaluate_context_window_guard(272_000)
    assert (big.hard_min, big.warn_below, big.level) == (27_200, 54_400, "ok")
    assert sept.evaluate_context_window_guard(6_000).level == "warn"
    assert sept.evaluate_context_window_guard(3_999.9).level == "block"


def test_the_default_hard_minimum_follows_the_reference_window_but_not_above_the_window() -> None:
    # a budget of 30000 out of a 1M reference window: 10% of 1M is 100000, but never more than max(tokens, 4000)
    guard = sept.evaluate_context_window_guard(30_000, reference_tokens=1_000_000)
    assert (guard.hard_min, guard.warn_below, guard.level) == (30_000, 200_000, "warn")


@pytest.mark.parametrize("tokens", [0, -1, None, float("nan")])
def test_a_window_that_is_not_a_positive_number_blocks(tokens: Any) -> None:
    guard = sept.evaluate_context_window_guard(tokens, source="model")
    assert (guard.tokens, guard.level, guard.hard_min) == (0, "block", 4_000)
    assert guard.message == "Model context window too small (0 tokens; source=model). Minimum is 4000."
    if tokens is not None:
        assert april.evaluate_context_window_guard(max(0, tokens) if tokens == tokens else 0).level == "ok"


def test_messages_name_the_source_and_hint_for_local_endpoints() -> None:
    window = sept.ContextWindow(6_000, "config:models.providers.ollama.models[llama].contextWindow")
    assert sept.evaluate_context_window_guard(window, provider="ollama", model_id="llama").message == (
        "low context window: ollama/llama ctx=6000 (warn<8000) source=modelsConfig")
    local = sept.evaluate_context_window_guard(window, provider="ollama", model_id="llama", base_url="http://127.0.0.1:11434")
    assert local.message == ("low context window: ollama/llama ctx=6000 (warn<8000) source=modelsConfig; OpenClaw is using the "
                             "configured model context limit for this model, so raise contextWindow/contextTokens if it is set too low")
    model = sept.ContextWindow(3_000, "model:lmstudio/qwen", base_url="http://gpu.local:1234/v1")
    assert sept.evaluate_context_window_guard(model).message == (
        "Model context window too small (3000 tokens; source=model). Minimum is 4000. This looks like a local model endpoint. "
        "Raise the server/model context limit or choose a larger model. OpenClaw local/self-hosted runs work best at 8000+ tokens.")
    assert sept.evaluate_context_window_guard(sept.ContextWindow(3_000, "default"), base_url="https://api.openai.com").message == (
        "Model context window too small (3000 tokens; source=default). Minimum is 4000.")


@pytest.mark.parametrize(("url", "local"), [("http://localhost:11434", True), ("127.0.0.1:8080", True), ("http://[::1]/v1", True),
                                            ("https://box.internal", True), ("https://api.openai.com/v1", False), ("", False),
                                            (None, False), ("http://192.168.1.2", False)])
def test_local_endpoints(url: str | None, local: bool) -> None:
    assert sept.is_local_endpoint(url) is local


# --- the resolution ---

def test_agents_default_context_tokens_no_longer_caps() -> None:
    config = {"agents": {"defaults": {"contextTokens": 50_000}}}
    assert sept.resolve_context_window("anthropic", "claude-haiku-4-5", config) == sept.ContextWindow(200_000, "model:anthropic/claude-haiku-4-5")
    assert april.resolve_context_window("anthropic", "claude-haiku-4-5", config).tokens == 50_000


def test_configured_context_tokens_is_lowered_to_the_rows_window() -> None:
    config = providers("local", {"id": "m", "contextTokens": 150_000, "contextWindow": 128_000})
    window = sept.resolve_context_window("local", "m", config)
    where = "config:models.providers.local.models[m]"
    assert window == sept.ContextWindow(128_000, f"{where}.contextTokens", f"{where}.contextWindow", 150_000)
    assert window.openclaw_source == "modelsConfig"
    assert april.resolve_context_window("local", "m", config).tokens == 150_000


def test_anthropic_fixed_window_lowers_configured_context_tokens() -> None:
    config = providers("anthropic", {"id": "claude-opus-4-6", "contextTokens": 3_000_000, "contextWindow": 5_000_000})
    window = sept.resolve_context_window("anthropic", "claude-opus-4-6", config)
    assert (window.tokens, window.capped_by, window.uncapped_tokens) == (1_000_000, sept.FIXED_WINDOW, 3_000_000)
    # claude-cli only for [1m] ids or params.context1m
    cli = providers("claude-cli", {"id": "claude-opus-4-6", "contextTokens": 3_000_000})
    assert sept.resolve_context_window("claude-cli", "claude-opus-4-6", cli).tokens == 3_000_000
    cli["agents"] = {"defaults": {"models": {"claude-cli/claude-opus-4-6": {"params": {"context1m": True}}}}}
    assert sept.resolve_context_window("claude-cli", "claude-opus-4-6", cli).tokens == 1_000_000
    assert sept.fixed_context_window("claude-cli", "claude-opus-4-6[1m]") == 1_000_000
    assert sept.fixed_context_window("anthropic", "claude-haiku-4-5") is None


def test_provider_aliases_are_gone_and_model_ids_are_canonicalized() -> None:
    config = providers("Z.AI", {"id": "glm-4.6", "contextWindow": 99_000})
    assert april.resolve_context_window("zai", "glm-4.6", config).tokens == 99_000
    assert sept.resolve_context_window("zai", "glm-4.6", config).source == "default"
    aliased = providers(" Anthropic ", {"id": "opus", "contextWindow": 64_000})
    window = sept.resolve_context_window("anthropic", "claude-opus-5", aliased)
    assert window.source == "config:models.providers.Anthropic.models[opus].contextWindow" and window.tokens == 64_000
    prefixed = providers("openai", {"id": "openai/gpt-5.4", "contextWindow": 70_000})
    assert sept.resolve_context_window("openai", "gpt-5.4", prefixed).tokens == 70_000


def test_legacy_provider_budget_is_copied_into_its_rows() -> None:
    config = providers("local", {"id": "a"}, {"id": "b", "contextWindow": 90_000}, contextWindow=40_000)
    assert sept.resolve_context_window("local", "a", config).tokens == 40_000
    assert sept.resolve_context_window("local", "b", config).tokens == 90_000
    migrated = sept.migrate_legacy_context_budget({**config, "agents": {"defaults": {"contextTokens": 1}}})
    assert migrated is not None and "contextTokens" not in migrated["agents"]["defaults"]
    assert "contextWindow" not in migrated["models"]["providers"]["local"] and "contextWindow" in config["models"]["providers"]["local"]


def test_the_model_step_reads_the_manifest_runtime_window() -> None:
    gpt = sept.resolve_context_window("openai", "gpt-5.6-sol", None)
    assert gpt == sept.ContextWindow(272_000, "model:openai/gpt-5.6-sol", "model:openai/gpt-5.6-sol.contextTokens", 1_050_000)
    # a configured window above the model's default contextWindows option falls back to that option
    config = providers("anthropic", {"id": "claude-opus-5", "contextWindow": 1_500_000})
    assert sept.resolve_context_window("anthropic", "claude-opus-5", config) == sept.ContextWindow(1_000_000, "model:anthropic/claude-opus-5")
    assert sept.resolve_context_window("nobody", "no-such-model", None) == sept.ContextWindow(200_000, "default")
    assert sept.resolve_context_window("openai", "gpt-5.4", None, override=9_000) == sept.ContextWindow(9_000, "flag")


# --- the catalog ---

def test_catalog_is_the_plugin_manifests() -> None:
    table = sept_catalog.load_catalog()
    described = table.describe()
    assert described["models"] == 113 and "OpenClaw 2026.9.6" in described["source"] and "plugin" in described["source"]
    assert described["source_published"] == "2026-09-23"
    assert sum(not m.is_free() for m in table.models) == 55  # 79 have a cost field; Google, NVIDIA and a few more list zeros
    assert april_catalog.load_catalog().describe()["models"] == 833
    sol = sept_catalog.known_model("openai", "gpt-5.6-sol")
    assert sol is not None and (sol.context_window, sol.context_tokens, sol.runtime_window) == (1_050_000, 272_000, 272_000)
    assert sol.cost_of(1_000_000, 1_000_000, 0, 0) == 35.0
    assert sept_catalog.known_model("openai", "gpt-4o") is None and april_catalog.known_model("openai", "gpt-4o") is not None
    assert sept_catalog.window_catalog() is table


def test_committed_catalog_is_what_the_generator_makes() -> None:
    base, why = oracle_dir()
    if base is None:
        pytest.skip(f"OpenClaw 2026.9.6 not installed: {why}")
    committed = json.loads(TARGET.read_text(encoding="utf-8"))
    committed.pop("extracted")
    assert committed == build_catalog(base / "node_modules" / "openclaw")


# --- the figures read them through the session's rules ---

def test_figures_use_the_sessions_guard_and_catalog(tmp_path: Path) -> None:
    from inspector.figures.pruning.savings import cache_write_price
    from inspector.figures.rules_of import rules_of
    from inspector.figures.session_figures import WindowOptions, window_for, window_guard
    from inspector.samples.fixtures import SessionBuilder
    from inspector.session.session import open_session

    b = SessionBuilder(seed=1)
    b.header(version=3)
    b.model_change("openai", "gpt-5.6-sol")
    b.user("hi")
    path = b.write(tmp_path / "s.jsonl")
    for rules_id, tokens, hard_min, priced in (("openclaw-2026.9.6", 272_000, 27_200, True), ("openclaw-2026.4.12", 200_000, 16_000, False)):
        s = open_session(path, rules_id)
        ctx = s.context()
        rules = rules_of(s)
        assert rules.id == rules_id
        window = window_for(rules, ctx, WindowOptions())
        assert window.tokens == tokens, rules_id
        assert window_guard(rules, window, ctx.model).hard_min == hard_min
        got = cache_write_price(s, ctx, "openai", "gpt-5.6-luna")  # a model only 2026.9.6's catalog prices
        assert (got.usd_per_token is not None) is priced, (rules_id, got)
