"""The part the SDK-backed summarizers share: the client's settings, the streaming loop in a pump thread, the
mapping of SDK errors to `ProviderError`, and pi-ai's surrogate sanitizing.

`SdkSummarizer.stream` runs the provider's streaming call in `pump` (cancel, idle timeout, abort by closing the
response); a subclass says how to build its client and body (`_make_client`, `build_body`), how to open the stream
(`_open`), how to read one streamed event (`_on_event`) and whether the stream reached its end (`_complete`).

Everything a server sends is untrusted:

* a stream that stops before its end (the connection closed, no end event) is an `incomplete` error, retried
  like a dropped connection, never a summary;
* a summary past `SUMMARY_MAX_CHARS` is a `too_large` error, and so is a reply past the byte caps of
  `http_caps` (which also bounds what is read of an error body);
* the summary text is scrubbed of the key the summarizer sent and its other headers (and every other known
  secret, `redact.secret_values`) as it streams, before anyone sees a piece of it (`redact.StreamScrubber`);
  the server's model name and stop reason are scrubbed and cut too.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import Any

from inspector.base.textsafe import cut
from inspector.write.redact import StreamScrubber, scrub_secrets, scrub_values, secret_values
from inspector.write.summarizers.base import (
    SUMMARY_MAX_CHARS,
    CancelToken,
    ErrorKind,
    ProviderError,
    SummaryCancelled,
    SummaryRequest,
    SummaryResult,
    SummaryStream,
    is_context_overflow_text,
    pump,
)
from inspector.write.summarizers.keys import LOCAL_PLACEHOLDER_KEY, ProviderConfig

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
    from inspector.write.summarizers.http_caps import ResponseRefused, ResponseTooLarge

    if isinstance(exc, ResponseTooLarge):
        return ProviderError(provider, f"{provider}: {exc}; refused", kind="too_large", secrets=secrets)
    if isinstance(exc, ResponseRefused):
        return ProviderError(provider, f"{provider}: {exc}; refused", kind="malformed", secrets=secrets)
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
        """The SDK module (imported only when this summarizer is used) and its client, with SDK retries off,
        `http_caps.capped_http_client` as its HTTP client and `http_caps.NO_COMPRESSION` among its headers."""
        raise NotImplementedError

    @property
    def secrets(self) -> tuple[str, ...]:
        """What this summarizer sends that must never come back out: its key and its configured headers."""
        key = self.config.api_key if self.config.api_key != LOCAL_PLACEHOLDER_KEY else None
        return tuple(v for v in (key, *self.config.headers.values()) if v)

    def build_body(self, request: SummaryRequest) -> dict[str, Any]:
        """The JSON body pi-ai would send for this request."""
        raise NotImplementedError

    def _open(self, body: dict[str, Any]) -> Any:
        """Start the streaming call; returns the SDK's stream (iterable of events, with `close()`)."""
        raise NotImplementedError

    def _on_event(self, event: Any, put: Put, usage: dict[str, Any]) -> None:
        """Read one streamed event: text deltas to `put`, usage facts into `usage`."""
        raise NotImplementedError

    def _complete(self, usage: dict[str, Any], response: Any) -> bool:
        """Whether the stream that just ended reached its end (its final event), rather than being cut short."""
        raise NotImplementedError

    def stream(self, request: SummaryRequest, cancel: CancelToken | None = None) -> SummaryStream:
        """Stream the summary's text."""
        if cancel is not None:
            cancel.raise_if_cancelled()
        body = self.build_body(request)
        usage: dict[str, Any] = {}
        holder: dict[str, Any] = {}
        secrets = self.secrets
        values = secret_values(secrets)
        provider = self.provider

        def produce(put: Put, stop: threading.Event) -> None:
            chars = 0

            def counted(text: Any) -> None:
                nonlocal chars
                if not isinstance(text, str):
                    raise ProviderError(provider, f"{provider}: unreadable response (text of type {type(text).__name__})", kind="malformed",
                                        retryable=True)
                chars += len(text)
                if chars > SUMMARY_MAX_CHARS:
                    raise ProviderError(provider, f"{provider}: the summary passed {SUMMARY_MAX_CHARS:,} characters; refused",
                                        kind="too_large")
                put(text)

            try:
                response = self._open(body)
                holder["response"] = response
                for event in response:
                    if stop.is_set():
                        return
                    self._on_event(event, counted, usage)
                if not stop.is_set() and not self._complete(usage, response):
                    raise ProviderError(provider, f"{provider}: the stream ended before its end (cut short); nothing of it is used",
                                        kind="incomplete", retryable=True)
            except SummaryCancelled:
                raise
            except BaseException as exc:
                raise map_sdk_error(provider, exc, secrets, self._sdk) from None
            finally:
                abort()  # a refused stream (over a cap, cut short) is not read any further: the server sees it closed

        def abort() -> None:
            resp = holder.get("response")
            if resp is not None:
                try:
                    resp.close()
                except Exception:
                    pass

        def scrubbed() -> Iterator[str]:
            scrubber = StreamScrubber(values)
            for delta in pump(
                produce,
                cancel,
                idle_timeout_s=self.idle_timeout_s,
                on_timeout=lambda: ProviderError(provider, f"{provider}: no data for {self.idle_timeout_s:g} s (timed out)", kind="timeout"),
                abort=abort,
            ):
                shown = scrubber.feed(delta)
                if shown:
                    yield shown
            rest = scrubber.flush()
            if rest:
                yield rest

        def fact(key: str) -> str | None:
            value = usage.get(key)
            return cut(scrub_secrets(value, secrets), 200) if isinstance(value, str) else None

        def count(key: str) -> int | None:
            value = usage.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**53 else None

        def finish(text: str) -> SummaryResult:
            return SummaryResult(scrub_values(text, values), count("input"), count("output"), fact("stop"), fact("model") or self.model)

        return SummaryStream(scrubbed(), finish)
