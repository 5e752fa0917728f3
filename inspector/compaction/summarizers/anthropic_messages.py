"""Summaries from the Anthropic Messages API (or a compatible server) through the official `anthropic` SDK.

The request is the one pi-ai 0.66.1's `anthropic` provider sends for pi's `generateSummary` with an API key:
`{model, messages: [{role: "user", content: [{type: "text", text: <prompt>, cache_control: {type:
"ephemeral"}}]}], max_tokens: N, stream: true, system: [{type: "text", text: <system prompt>, cache_control:
{type: "ephemeral"}}]}` (the last user block carries the cache marker, as pi-ai puts it on the last user
message). The SDK's own retries are off; the runner retries.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .base import CancelToken, ProviderError, SummaryRequest, SummaryResult, SummaryStream, pump
from .keys import ProviderConfig
from .openai_chat import DEFAULT_TIMEOUT_S, map_sdk_error, sanitize_surrogates


class AnthropicMessagesSummarizer:
    """The `anthropic` summarizer (see the module docstring)."""

    name = "anthropic"
    uses_network = True

    def __init__(self, config: ProviderConfig, *, timeout_s: float = DEFAULT_TIMEOUT_S, idle_timeout_s: float | None = None) -> None:
        import anthropic

        self._sdk = anthropic
        self.config = config
        self.provider = config.provider
        self.model: str | None = config.model
        self.timeout_s = timeout_s
        self.idle_timeout_s = idle_timeout_s or timeout_s
        self._client = anthropic.Anthropic(
            api_key=config.api_key,
            base_url=config.base_url,
            max_retries=0,
            timeout=timeout_s,
            # pi-ai (through its SDK) authenticates with `x-api-key`; this SDK sends `Authorization: Bearer`.
            # Both are sent, so Anthropic-compatible proxies that only read one of them accept the call.
            default_headers={"x-api-key": config.api_key or "", **dict(config.headers)},
        )

    def build_body(self, request: SummaryRequest) -> dict[str, Any]:
        """The JSON body pi-ai would send for this request."""
        p = request.prompt
        cache = {"type": "ephemeral"}
        return {
            "model": self.config.model,
            "messages": [{"role": "user", "content": [{"type": "text", "text": sanitize_surrogates(p.text), "cache_control": cache}]}],
            "max_tokens": p.max_tokens or 4096,
            "stream": True,
            "system": [{"type": "text", "text": sanitize_surrogates(p.system), "cache_control": cache}],
        }

    def stream(self, request: SummaryRequest, cancel: CancelToken | None = None) -> SummaryStream:
        """Stream the summary's text."""
        if cancel is not None:
            cancel.raise_if_cancelled()
        body = self.build_body(request)
        usage: dict[str, Any] = {}
        holder: dict[str, Any] = {}
        secrets = (self.config.api_key, *self.config.headers.values())
        sdk = self._sdk

        def produce(put: Callable[[Any], None], stop: threading.Event) -> None:
            try:
                response = self._client.messages.create(
                    model=body["model"], messages=body["messages"], max_tokens=body["max_tokens"], system=body["system"], stream=True
                )
                holder["response"] = response
                for event in response:
                    if stop.is_set():
                        break
                    etype = getattr(event, "type", None)
                    if etype == "message_start":
                        msg = getattr(event, "message", None)
                        u = getattr(msg, "usage", None)
                        usage["input"] = getattr(u, "input_tokens", None)
                        usage["model"] = getattr(msg, "model", None)
                    elif etype == "content_block_delta":
                        delta = getattr(event, "delta", None)
                        text = getattr(delta, "text", None) if getattr(delta, "type", None) == "text_delta" else None
                        if text:
                            put(text)
                    elif etype == "message_delta":
                        u = getattr(event, "usage", None)
                        out_tokens = getattr(u, "output_tokens", None)
                        if out_tokens is not None:
                            usage["output"] = out_tokens
                        usage["stop"] = getattr(getattr(event, "delta", None), "stop_reason", None)
            except BaseException as exc:
                raise map_sdk_error(self.provider, exc, secrets, sdk) from None

        def abort() -> None:
            resp = holder.get("response")
            if resp is not None:
                resp.close()

        deltas = pump(
            produce,
            cancel,
            idle_timeout_s=self.idle_timeout_s,
            on_timeout=lambda: ProviderError(self.provider, f"{self.provider}: no data for {self.idle_timeout_s:g} s (timed out)", kind="timeout"),
            abort=abort,
        )

        def finish(text: str) -> SummaryResult:
            return SummaryResult(text, usage.get("input"), usage.get("output"), usage.get("stop"), usage.get("model") or self.model)

        return SummaryStream(deltas, finish)
