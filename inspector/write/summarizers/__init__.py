"""Summarizers for compaction: `rules` (offline, the default), `openai` (any OpenAI-compatible server) and
`anthropic` (the Messages API), behind one protocol (`base.Summarizer`: a request in, a cancellable stream of
text deltas out, typed `ProviderError`s). `keys`
resolves server, model and key from arguments, the environment and `openclaw.json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from inspector.write.summarizers.base import (
    CancelToken,
    ProviderError,
    Summarizer,
    SummaryCancelled,
    SummaryRequest,
    SummaryResult,
    SummaryStream,
    summarize,
)
from inspector.write.summarizers.keys import ProviderConfig, ProviderConfigError, resolve_provider
from inspector.write.summarizers.rule_based import RulesSummarizer

SummarizerName = Literal["rules", "openai", "anthropic"]
SUMMARIZER_NAMES: tuple[str, ...] = ("rules", "openai", "anthropic")

__all__ = [
    "SUMMARIZER_NAMES",
    "CancelToken",
    "ProviderConfig",
    "ProviderConfigError",
    "ProviderError",
    "RulesSummarizer",
    "Summarizer",
    "SummaryCancelled",
    "SummaryRequest",
    "SummaryResult",
    "SummaryStream",
    "make_summarizer",
    "resolve_provider",
    "summarize",
]


def make_summarizer(
    name: SummarizerName,
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    config: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    session_model: tuple[str | None, str | None] | None = None,
    timeout_s: float | None = None,
    idle_timeout_s: float | None = None,
) -> Summarizer:
    """A summarizer by name; the LLM ones resolve their endpoint with `keys.resolve_provider`."""
    if name == "rules":
        return RulesSummarizer()
    if name not in ("openai", "anthropic"):
        raise ValueError(f"unknown summarizer {name!r} (choose from {', '.join(SUMMARIZER_NAMES)})")
    cfg = resolve_provider(name, provider=provider, model=model, base_url=base_url, api_key=api_key, config=config, env=env,
                           session_model=session_model)
    kwargs: dict[str, Any] = {}
    if timeout_s is not None:
        kwargs["timeout_s"] = timeout_s
    if idle_timeout_s is not None:
        kwargs["idle_timeout_s"] = idle_timeout_s
    if name == "openai":
        from inspector.write.summarizers.openai_chat import OpenAIChatSummarizer

        return OpenAIChatSummarizer(cfg, **kwargs)
    from inspector.write.summarizers.anthropic_messages import AnthropicMessagesSummarizer

    return AnthropicMessagesSummarizer(cfg, **kwargs)
