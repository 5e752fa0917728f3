"""Summaries from any OpenAI-compatible chat-completions server (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM).

The request is the one pi-ai 0.66.1's `openai-completions` provider sends for pi's `generateSummary`:
`{model, messages: [{role: "system"|"developer", content: <system prompt>}, {role: "user", content: [{type:
"text", text: <prompt>}]}], stream: true, stream_options: {include_usage: true}, store: false,
max_completion_tokens: N}` (`developer` for reasoning models: the prompt's `reasoning` or the configured model's;
lone surrogates removed as pi-ai's `sanitizeSurrogates` does). A reasoning model also gets `reasoning_effort`, the
rule set's `prompts.summary_reasoning` of the compaction's thinking level (`SummaryRequest.thinking_level`): "high"
under pi 0.66.1, the session's level under pi 0.73.1 (none when "off"), the configured compaction level (default
low) under pi; "xhigh" is sent as "high", as pi-ai clamps it for a model without an xhigh mapping. Under OpenClaw
2026.9.6 the rule set's `prompts.summary_request_reasoning` gives the fields instead (`@openclaw/ai`'s mapping: the
level clamped to the model's efforts, `none` for `off`, OpenRouter's `reasoning: {effort}`). The official `openai` SDK makes the call, with its own
retries off (the runner retries, so request counts are exact) and a timeout.
"""

from __future__ import annotations

from typing import Any

from inspector.rules.ruleset import rule_set
from inspector.write.summarizers.base import SummaryRequest
from inspector.write.summarizers.keys import ProviderConfig
from inspector.write.summarizers.sdk_stream import DEFAULT_TIMEOUT_S, Put, SdkSummarizer, map_sdk_error, sanitize_surrogates

__all__ = ["DEFAULT_TIMEOUT_S", "OpenAIChatSummarizer", "map_sdk_error", "sanitize_surrogates"]


class OpenAIChatSummarizer(SdkSummarizer):
    """The `openai` summarizer (see the module docstring)."""

    name = "openai"

    def _make_client(self, config: ProviderConfig, timeout_s: float) -> tuple[Any, Any]:
        import openai  # the SDK is imported only when an LLM summarizer is used

        from inspector.write.summarizers.http_caps import NO_COMPRESSION, capped_http_client

        client = openai.OpenAI(
            api_key=config.api_key,
            base_url=config.base_url,
            max_retries=0,
            timeout=timeout_s,
            default_headers={**NO_COMPRESSION, **dict(config.headers)},
            http_client=capped_http_client(openai),
        )
        return openai, client

    def build_body(self, request: SummaryRequest) -> dict[str, Any]:
        """The JSON body pi-ai would send for this request."""
        p = request.prompt
        model_reasoning = p.reasoning or self.config.reasoning
        role = "developer" if model_reasoning and self.config.supports_store else "system"
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [
                {"role": role, "content": sanitize_surrogates(p.system)},
                {"role": "user", "content": [{"type": "text", "text": sanitize_surrogates(p.text)}]},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self.config.supports_store:
            body["store"] = False
        if p.max_tokens:
            body[self.config.max_tokens_field] = p.max_tokens
        prompts = (request.rules or rule_set()).prompts
        if hasattr(prompts, "summary_request_reasoning"):  # OpenClaw 2026.9.6: @openclaw/ai's mapping
            model = {**self.config.summary_model(), "api": "openai-completions", "reasoning": model_reasoning}
            body.update(prompts.summary_request_reasoning(model, request.thinking_level, p.max_tokens))
            return body
        effort = prompts.summary_reasoning(model_reasoning, request.thinking_level)
        if effort:
            body["reasoning_effort"] = "high" if effort == "xhigh" else effort  # pi-ai's clamp: no xhigh without the model's map
        return body

    def _open(self, body: dict[str, Any]) -> Any:
        kwargs = {k: v for k, v in body.items() if k not in ("model", "messages", "stream")}
        return self._client.chat.completions.create(model=body["model"], messages=body["messages"], stream=True, **kwargs)

    def _on_event(self, event: Any, put: Put, usage: dict[str, Any]) -> None:
        if getattr(event, "usage", None) is not None:
            usage["input"] = getattr(event.usage, "prompt_tokens", None)
            usage["output"] = getattr(event.usage, "completion_tokens", None)
        for choice in getattr(event, "choices", None) or []:
            delta = getattr(choice, "delta", None)
            text = getattr(delta, "content", None) if delta is not None else None
            if text:
                put(text)
            if getattr(choice, "finish_reason", None):
                usage["stop"] = choice.finish_reason
        if getattr(event, "model", None):
            usage["model"] = event.model

    def _complete(self, usage: dict[str, Any], response: Any) -> bool:
        """A chat-completions stream ends with a `finish_reason` (then usage and `data: [DONE]`)."""
        from inspector.write.summarizers.http_caps import capped_body

        body = capped_body(response)
        return bool(usage.get("stop")) or (body is not None and body.saw_done)
