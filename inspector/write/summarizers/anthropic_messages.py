"""Summaries from the Anthropic Messages API (or a compatible server) through the official `anthropic` SDK.

The request is the one pi-ai 0.66.1's `anthropic` provider sends for pi's `generateSummary` with an API key:
`{model, messages: [{role: "user", content: [{type: "text", text: <prompt>, cache_control: {type:
"ephemeral"}}]}], max_tokens: N, stream: true, system: [{type: "text", text: <system prompt>, cache_control:
{type: "ephemeral"}}]}` (the last user block carries the cache marker, as pi-ai puts it on the last user
message). Under OpenClaw 2026.9.6 the rule set's `prompts.summary_request_reasoning` adds what `@openclaw/ai` sends for
the compaction's thinking level: `thinking` (disabled, a budget that raises `max_tokens`, or adaptive with
`output_config.effort`). The SDK's own retries are off; the runner retries.
"""

from __future__ import annotations

from typing import Any

from inspector.rules.ruleset import rule_set
from inspector.write.summarizers.base import SummaryRequest
from inspector.write.summarizers.keys import ProviderConfig
from inspector.write.summarizers.sdk_stream import Put, SdkSummarizer, sanitize_surrogates


class AnthropicMessagesSummarizer(SdkSummarizer):
    """The `anthropic` summarizer (see the module docstring)."""

    name = "anthropic"

    def _make_client(self, config: ProviderConfig, timeout_s: float) -> tuple[Any, Any]:
        import anthropic

        from inspector.write.summarizers.http_caps import NO_COMPRESSION, capped_http_client

        client = anthropic.Anthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            max_retries=0,
            timeout=timeout_s,
            # pi-ai (through its SDK) authenticates with `x-api-key`; this SDK sends `Authorization: Bearer`.
            # Both are sent, so Anthropic-compatible proxies that only read one of them accept the call.
            default_headers={**NO_COMPRESSION, "x-api-key": config.api_key or "", **dict(config.headers)},
            http_client=capped_http_client(anthropic),
        )
        return anthropic, client

    def build_body(self, request: SummaryRequest) -> dict[str, Any]:
        """The JSON body pi-ai would send for this request."""
        p = request.prompt
        cache = {"type": "ephemeral"}
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [{"role": "user", "content": [{"type": "text", "text": sanitize_surrogates(p.text), "cache_control": cache}]}],
            "max_tokens": p.max_tokens or 4096,
            "stream": True,
            "system": [{"type": "text", "text": sanitize_surrogates(p.system), "cache_control": cache}],
        }
        prompts = (request.rules or rule_set()).prompts
        if hasattr(prompts, "summary_request_reasoning"):  # OpenClaw 2026.9.6: @openclaw/ai's thinking fields
            model = {**self.config.summary_model(), "api": "anthropic-messages", "reasoning": p.reasoning or self.config.reasoning}
            body.update(prompts.summary_request_reasoning(model, request.thinking_level, p.max_tokens or 4096))
        return body

    def _open(self, body: dict[str, Any]) -> Any:
        extra = {k: body[k] for k in ("thinking", "output_config") if k in body}
        return self._client.messages.create(
            model=body["model"], messages=body["messages"], max_tokens=body["max_tokens"], system=body["system"], stream=True,
            **({"extra_body": extra} if extra else {}),
        )

    def _on_event(self, event: Any, put: Put, usage: dict[str, Any]) -> None:
        etype = getattr(event, "type", None)
        if etype == "message_start":
            msg = getattr(event, "message", None)
            usage["input"] = getattr(getattr(msg, "usage", None), "input_tokens", None)
            usage["model"] = getattr(msg, "model", None)
        elif etype == "content_block_delta":
            delta = getattr(event, "delta", None)
            text = getattr(delta, "text", None) if getattr(delta, "type", None) == "text_delta" else None
            if text:
                put(text)
        elif etype == "message_delta":
            out_tokens = getattr(getattr(event, "usage", None), "output_tokens", None)
            if out_tokens is not None:
                usage["output"] = out_tokens
            usage["stop"] = getattr(getattr(event, "delta", None), "stop_reason", None)
        elif etype == "message_stop":
            usage["message_stop"] = True

    def _complete(self, usage: dict[str, Any], response: Any) -> bool:
        """A Messages stream ends with `message_stop`."""
        return bool(usage.get("message_stop"))
