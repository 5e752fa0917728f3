"""A whole OpenClaw 2026.9.6 compaction run sends the reasoning `@openclaw/ai` would send for the summarizer's model
(`prompts.compaction_thinking_level` with the model's clamp, `prompts.summary_request_reasoning`): checked on the
bodies a fake server receives. The mapping itself is checked against the real code in
tests/engine/test_reasoning_2026_9_oracle.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from llm_servers import AnthropicServer, OpenAIServer

from inspector.figures.forecast.plan import PlanOptions
from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.write.runner import RunOptions, run_compaction
from inspector.write.summarizers import make_summarizer


def _session(tmp_path: Path, level: str | None) -> Path:
    b = SessionBuilder(seed=9)
    b.header()
    if level is not None:
        b.thinking_level_change(level)
    for i in range(6):
        b.user(f"question {i} " + "words " * 300)
        b.assistant(f"answer {i} " + "more " * 300)
    return b.write(tmp_path / "s.jsonl")


def _config(provider: str, api: str, base_url: str, model: str, reasoning: bool, level: str | None) -> dict[str, Any]:
    entry = {"baseUrl": base_url, "api": api, "apiKey": "sk-test-123456", "models": [{"id": model, "reasoning": reasoning, "maxTokens": 64000}]}
    cfg: dict[str, Any] = {"models": {"providers": {provider: entry}}}
    if level is not None:
        cfg["agents"] = {"defaults": {"compaction": {"thinkingLevel": level}}}
    return cfg


def _bodies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules_id: str, kind: str, config: dict[str, Any], provider: str,
            session_level: str | None = None) -> list[dict[str, Any]]:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "state"))
    path = _session(tmp_path, session_level)
    server = AnthropicServer if kind == "anthropic" else OpenAIServer
    with server(reply="## Decisions\nok") as srv:
        for entry in config["models"]["providers"].values():
            entry["baseUrl"] = srv.base_url
        summarizer = make_summarizer(kind, provider=provider, config=config, env={})  # type: ignore[arg-type]
        res = run_compaction(path, RunOptions(summarizer=summarizer, rules_id=rules_id, plan=PlanOptions(keep_recent_tokens=200, config=config)))
        bodies = [r["body"] for r in srv.requests]
    assert res.status == "committed", res.reason
    assert bodies
    return bodies


@pytest.mark.parametrize(("model", "level", "want"), [
    ("claude-sonnet-4-5", None, ({"type": "enabled", "budget_tokens": 2048, "display": "summarized"}, None)),  # default low
    ("claude-sonnet-4-5", "off", ({"type": "disabled"}, None)),
    ("claude-opus-4-7", "high", ({"type": "adaptive", "display": "summarized"}, {"effort": "high"})),
    ("claude-opus-4-7", "xhigh", ({"type": "adaptive", "display": "summarized"}, {"effort": "xhigh"})),
    ("claude-sonnet-4-5", "xhigh", ({"type": "enabled", "budget_tokens": 16384, "display": "summarized"}, None)),  # clamped to high
])
def test_anthropic_thinking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, level: str | None, want: tuple[Any, Any]) -> None:
    config = _config("anthropic", "anthropic-messages", "", model, True, level)
    for body in _bodies(tmp_path, monkeypatch, "openclaw-2026.9.6", "anthropic", config, "anthropic"):
        assert (body.get("thinking"), body.get("output_config")) == want
        budget = (body.get("thinking") or {}).get("budget_tokens", 0)
        assert body["max_tokens"] > budget  # the budget raised the output cap


def test_the_older_release_sends_no_thinking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = _config("anthropic", "anthropic-messages", "", "claude-sonnet-4-5", True, "high")
    for body in _bodies(tmp_path, monkeypatch, "openclaw-2026.4.12", "anthropic", config, "anthropic"):
        assert "thinking" not in body


@pytest.mark.parametrize(("provider", "model", "level", "session_level", "want"), [
    ("groq", "qwen3", None, None, "low"),
    ("groq", "qwen3", "inherit", "medium", "medium"),
    ("groq", "qwen3", "xhigh", None, "high"),  # no xhigh without the model's map
    ("groq", "gpt-5.1", "off", None, "none"),  # GPT-5.1 takes "none"
    ("groq", "gpt-5", "off", None, None),  # GPT-5 does not
    ("groq", "gpt-5", "minimal", None, "minimal"),
])
def test_openai_reasoning_effort(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, model: str, level: str | None,
                                 session_level: str | None, want: str | None) -> None:
    config = _config(provider, "openai-completions", "", model, True, level)
    for body in _bodies(tmp_path, monkeypatch, "openclaw-2026.9.6", "openai", config, provider, session_level):
        assert body.get("reasoning_effort") == want


def test_native_ollama_compacts_without_thinking() -> None:
    P = rule_set("openclaw-2026.9.6").prompts
    native = {"provider": "ollama", "id": "qwen3", "api": "ollama", "reasoning": True, "baseUrl": "http://127.0.0.1:11434"}
    assert P.compaction_thinking_level(None, "high", native) == "off"
    assert P.compaction_thinking_level(None, "high", {**native, "id": "qwen3:cloud"}) == "low"  # hosted: the usual default
    assert P.compaction_thinking_level(None, "high", {**native, "api": "openai-completions"}) == "low"
    assert P.compaction_thinking_level({"agents": {"defaults": {"compaction": {"thinkingLevel": "medium"}}}}, None, native) == "medium"
    assert P.compaction_thinking_level(None, None, {**native, "reasoning": False, "api": "openai-completions"}) == "off"  # clamped
