"""The part the SDK-backed summarizers share: the client's settings, the streaming loop in a pump thread, the
mapping of SDK errors to `ProviderError`, and pi-ai's surrogate sanitizing.

`SdkSummarizer.stream` runs the provider's streaming call in `pump` (cancel, idle timeout, abort by closing the
response); a subclass says how to build its client and body (`_make_client`, `build_body`), how to open the stream
(`_open`) and how to read one streamed event (`_on_event`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from inspector.write.summarizers.base import (
    CancelToken,
    ErrorKind,
    ProviderError,
    SummaryRequest,
    SummaryResult,
    SummaryStream,
    is_context_overflow_text,
    pump,
)
from inspector.write.summarizers.keys import ProviderConfig

DEFAULT_TIMEOUT_S = 120.0
_LONE_SURROGATE = re.compile("[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]")

Put = Callable[[Any], None]
"""Hands one text delta to the reader of the stream."""


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


class SdkSummarizer:
    """Base of the summarizers that call a provider through its official SDK (see the module docstring).

    `usage` collected while streaming: `input`, `output` (token counts), `stop` (the stop reason) and `model`
    (the one the server names), each optional.
    """

    name = "sdk"
    uses_network = True

    def __init__(self, config: ProviderConfig, *, timeout_s: float = DEFAULT_TIMEOUT_S, idle_timeout_s: float | None = None) -> None:
        self.config = config
        self.provider = config.provider
        self.model: str | None = config.model
        self.timeout_s = timeout_s
        self.idle_timeout_s = idle_timeout_s or timeout_s
        self._sdk, self._client = self._make_client(config, timeout_s)

    def _make_client(self, config: ProviderConfig, timeout_s: float) -> tuple[Any, Any]:
        """The SDK module (imported only when this summarizer is used) and its client, with SDK retries off."""
        raise NotImplementedError

    def build_body(self, request: SummaryRequest) -> dict[str, Any]:
        """The JSON body pi-ai would send for this request."""
        raise NotImplementedError

    def _open(self, body: dict[str, Any]) -> Any:
        """Start the streaming call; returns the SDK's stream (iterable of events, with `close()`)."""
        raise NotImplementedError

    def _on_event(self, event: Any, put: Put, usage: dict[str, Any]) -> None:
        """Read one streamed event: text deltas to `put`, usage facts into `usage`."""
        raise NotImplementedError

    def stream(self, request: SummaryRequest, cancel: CancelToken | None = None) -> SummaryStream:
        """Stream the summary's text."""
        if cancel is not None:
            cancel.raise_if_cancelled()
        body = self.build_body(request)
        usage: dict[str, Any] = {}
        holder: dict[str, Any] = {}
        secrets = (self.config.api_key, *self.config.headers.values())

        def produce(put: Put, stop: threading.Event) -> None:
            try:
                response = self._open(body)
                holder["response"] = response
                for event in response:
                    if stop.is_set():
                        break
                    self._on_event(event, put, usage)
            except BaseException as exc:
                raise map_sdk_error(self.provider, exc, secrets, self._sdk) from None

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
