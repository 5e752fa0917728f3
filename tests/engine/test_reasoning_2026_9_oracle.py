"""The reasoning of OpenClaw 2026.9.6's compaction summary calls (`compaction/reasoning.py`) against the real code
(`openclaw_2026_9` fixture; skips when absent).

Generated (provider, model, api, reasoning flag, thinkingLevelMap, configured level, session level) cases go through
`resolveEmbeddedCompactionThinkingLevel` (with native Ollama's compaction default); generated (model, level, reserve)
cases through the agent core's real `generateSummary` and `@openclaw/ai`'s `streamSimple` for Anthropic Messages and
OpenAI chat completions, whose recorded request body's reasoning fields (`thinking`, `output_config`, `max_tokens`,
`reasoning_effort`, `reasoning`) must be the ones `summary_request_reasoning` gives. Providers whose plugins carry
their own thinking profile (openai, openrouter, xai, github-copilot, opencode-go, vllm, google, minimax) are not
ported for the level: the level cases use others (the body cases include openai and openrouter: the transport is
ported).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_9_6.compaction import reasoning as R

SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_reasoning.mjs"
LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "adaptive", "max", "ultra", "weird"]
CLAUDE = ["claude-sonnet-4-5", "claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6", "claude-sonnet-5", "claude-opus-5",
          "claude-opus-5-5", "claude-fable-5", "claude-mythos-5", "claude-mythos-preview", "claude-3-7-sonnet-20250219",
          "claude-haiku-4-5", "anthropic/claude-opus-4.8", "opus"]
OTHER = ["qwen3", "llama-3.3-70b", "gpt-oss:120b-cloud", "glm-5.2:cloud", "deepseek-v4-pro-cloud", "deepseek-r1", "gpt-5", "gpt-5.1", "gpt-5.2-pro", "gpt-5-codex",
         "gpt-5.1-codex-mini", "gpt-5-pro", "gpt-5.6", "gpt-6-astra", "gpt-4o", "o3"]
MAPS = [None, None, None, {"xhigh": "xhigh"}, {"max": "max"}, {"xhigh": None}, {"off": None}, {"off": "low"}, {"high": "max"}]


def _model(rng: random.Random, api: str, provider: str) -> dict[str, Any]:
    m: dict[str, Any] = {"provider": provider, "id": rng.choice(CLAUDE if api == "anthropic-messages" else OTHER), "api": api,
                         "reasoning": rng.choice([True, True, False, None])}
    level_map = rng.choice(MAPS)
    if level_map is not None:
        m["thinkingLevelMap"] = level_map
    return m


def _level_cases(rng: random.Random, n: int) -> list[dict[str, Any]]:
    routes = [("anthropic-messages", "anthropic"), ("anthropic-messages", "my-claude-proxy"), ("ollama", "ollama"),
              ("openai-completions", "ollama"), ("openai-completions", "groq"), ("openai-completions", "my-proxy")]
    out = []
    for _ in range(n):
        api, provider = rng.choice(routes)
        model = _model(rng, api, provider)
        if model["reasoning"] is None and provider != "ollama":
            model["reasoning"] = rng.choice([True, False])
        configured = rng.choice([None, None, "inherit", "inherit", *LEVELS])
        config = {} if configured is None else {"agents": {"defaults": {"compaction": {"thinkingLevel": configured}}}}
        out.append({"kind": "level", "config": config, "sessionLevel": rng.choice([None, *LEVELS[:8]]), "model": model})
    return out


def _body_cases(rng: random.Random, n: int) -> list[dict[str, Any]]:
    routes = [("anthropic-messages", "anthropic"), ("anthropic-messages", "my-claude-proxy"), ("openai-completions", "openai"),
              ("openai-completions", "openrouter"), ("openai-completions", "my-proxy"), ("openai-completions", "groq")]
    out = []
    for _ in range(n):
        api, provider = rng.choice(routes)
        model = _model(rng, api, provider)
        if model["reasoning"] is None:
            model["reasoning"] = rng.choice([True, False])
        model["maxTokens"] = rng.choice([None, 4096, 8192, 32000, 64000, 128000])
        out.append({"kind": "body", "model": model, "level": rng.choice([None, *LEVELS[:8]]), "reserve": rng.choice([1000, 4000, 16384, 40000])})
    return out


def test_the_compaction_thinking_level_is_openclaw_s(openclaw_2026_9: Any) -> None:  # noqa: F811
    cases = _level_cases(random.Random(2026_09_06), 500)
    got = openclaw_2026_9.run_script(SCRIPT, cases)
    assert not [g for g in got if "error" in g][:1]
    bad = []
    for case, real in zip(cases, got, strict=True):
        ours = R.compaction_thinking_level(case["config"], case["sessionLevel"], case["model"])
        if ours != real["value"]:
            bad.append((case, real["value"], ours))
    assert not bad[:5], f"{len(bad)} of {len(cases)} differ"
    assert {g["value"] for g in got} >= {"off", "minimal", "low", "medium", "high", "xhigh", "adaptive", "max"}


KEYS = ("thinking", "output_config", "max_tokens", "reasoning_effort", "reasoning")


def test_the_request_s_reasoning_fields_are_openclaw_s(openclaw_2026_9: Any) -> None:  # noqa: F811
    cases = _body_cases(random.Random(96), 500)
    got = openclaw_2026_9.run_script(SCRIPT, cases)
    assert not [g for g in got if "error" in g][:1]
    bad = []
    for case, real in zip(cases, got, strict=True):
        model, body = case["model"], real["value"]
        prompt_max = int(0.8 * case["reserve"]) if model["maxTokens"] is None else min(int(0.8 * case["reserve"]), model["maxTokens"])
        ours = R.summary_request_reasoning({k: v for k, v in model.items() if v is not None or k == "reasoning"}, case["level"], prompt_max)
        want = {k: body[k] for k in KEYS if k in body and (k != "max_tokens" or model["api"] == "anthropic-messages")}
        if ours != want:
            bad.append((case, want, ours))
    assert not bad[:5], f"{len(bad)} of {len(cases)} differ"
    kinds = {(b.get("thinking") or {}).get("type") for b in (g["value"] for g in got)}
    assert kinds >= {None, "disabled", "enabled", "adaptive"}
    assert any("reasoning_effort" in g["value"] for g in got) and any("reasoning" in g["value"] for g in got)
