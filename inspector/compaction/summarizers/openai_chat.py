"""Summaries from any OpenAI-compatible chat-completions server (OpenAI, OpenRouter, Ollama, llama.cpp, vLLM).

The request is the one pi-ai 0.66.1's `openai-completions` provider sends for pi's `generateSummary`:
`{model, messages: [{role: "system"|"developer", content: <system prompt>}, {role: "user", content: [{type:
"text", text: <prompt>}]}], stream: true, stream_options: {include_usage: true}, store: false,
max_completion_tokens: N}` (`developer` for reasoning models, which also get `reasoning_effort: "high"`; lone
surrogates removed as pi-ai's `sanitizeSurrogates` does). The official `openai` SDK makes the call, with its own
retries off (the runner retries, so request counts are exact) and a timeout.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from .base import (
    CancelToken,
    ErrorKind,
    ProviderError,
    SummaryRequest,
    SummaryResult,
    SummaryStream,
    is_context_overflow_text,
    pump,
)
from .keys import ProviderConfig

DEFAULT_TIMEOUT_S = 120.0
_LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """pi-ai `sanitizeSurrogates`: drop unpaired surrogate code units."""
    return _LONE_SURROGATE.sub("", text) if any("\ud800" <= ch <= "\udfff" for ch in text) else text


def map_sdk_error(provider: str, exc: BaseException, secrets: tuple[str | None, ...], module: Any) -> ProviderError:
    """An `openai`/`anthropic` SDK exception as a `ProviderError` (the two SDKs share their error classes' names)."""
    if isinstance(exc, ProviderError):
        return exc
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    text = str(getattr(exc, "message", None) or exc) or name
    overflow = is_context_overflow_text(text)
    if isinstance(exc, module.APITimeoutError) or "Timeout" in name:
        return ProviderError(provider, f"{provider}: request timed out", kind="timeout", secrets=secrets)
    if isinstance(exc, module.APIConnectionError):
        return ProviderError(provider, f"{provider}: connection failed ({text})", kind="connection", retryable=True, secrets=secrets)
    if isinstance(exc, module.APIStatusError) and status is not None:
        retryable = (status == 429 or status >= 500 or status == 408) and not overflow
        kind: ErrorKind = "auth" if status in (401, 403) else "http"
        return ProviderError(provider, f"{provider}: HTTP {status}: {text}", kind=kind, status=status, retryable=retryable,
                             context_overflow=overflow, secrets=secrets)
    return ProviderError(provider, f"{provider}: unreadable response ({name}: {text})", kind="malformed", retryable=True,
                         context_overflow=overflow, secrets=secrets)


class OpenAIChatSummarizer:
    """The `openai` summarizer (see the module docstring)."""

    name = "openai"
    uses_network = True

    def __init__(self, config: ProviderConfig, *, timeout_s: float = DEFAULT_TIMEOUT_S, idle_timeout_s: float | None = None) -> None:
        import openai  # the SDK is imported only when an LLM summarizer is used

        self._sdk = openai
        self.config = config
        self.provider = config.provider
        self.model: str | None = config.model
        self.timeout_s = timeout_s
        self.idle_timeout_s = idle_timeout_s or timeout_s
        self._client = openai.OpenAI(
            api_key=config.api_key,
            base_url=config.base_url,
            max_retries=0,
            timeout=timeout_s,
            default_headers=dict(config.headers) or None,
        )

    def build_body(self, request: SummaryRequest) -> dict[str, Any]:
        """The JSON body pi-ai would send for this request."""
        p = request.prompt
        role = "developer" if p.reasoning and self.config.supports_store else "system"
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
        if p.reasoning:
            body["reasoning_effort"] = "high"
        return body

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
                kwargs = {k: v for k, v in body.items() if k not in ("model", "messages", "stream")}
                response = self._client.chat.completions.create(model=body["model"], messages=body["messages"], stream=True, **kwargs)
                holder["response"] = response
                for chunk in response:
                    if stop.is_set():
                        break
                    if getattr(chunk, "usage", None) is not None:
                        usage["input"] = getattr(chunk.usage, "prompt_tokens", None)
                        usage["output"] = getattr(chunk.usage, "completion_tokens", None)
                    for choice in getattr(chunk, "choices", None) or []:
                        delta = getattr(choice, "delta", None)
                        text = getattr(delta, "content", None) if delta is not None else None
                        if text:
                            put(text)
                        if getattr(choice, "finish_reason", None):
                            usage["stop"] = choice.finish_reason
                    if getattr(chunk, "model", None):
                        usage["model"] = chunk.model
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
