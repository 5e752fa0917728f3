"""The summarizer protocol: a request, a stream of text deltas, cancellation, typed errors.

A `Summarizer` turns a `SummaryRequest` (the messages of one stage, the previous summary, and the exact prompt
an LLM would be sent) into a `SummaryStream`: iterate it for text deltas as they arrive; when it is exhausted,
`stream.result` holds the whole text and the token usage the provider reported. `summarize()` runs a stream to
the end. A `CancelToken` stops a stream at any moment (`SummaryCancelled` is raised, within `POLL_S`).

Every failure is a `ProviderError`: which provider, the HTTP status if any, `retryable` (the runner retries
those: rate limits, 5xx, dropped connections, malformed bodies), `timeout` (never retried, as OpenClaw's
`retryAsync` does not retry timeouts), `context_overflow` (pi-ai's overflow patterns: the input is too large,
retrying the same request is pointless), `incomplete` (the stream ended before its end: retried) or `too_large`
(over a cap: not retried). Its message is scrubbed of keys (`redact.scrub_secrets`), cut to
`ERROR_TEXT_MAX_CHARS` (marked as cut) and made inert (`textsafe.make_inert`: a server's escape sequences
become visible text); it carries no reference to the SDK exception (which holds the request, and so the key).

What a server sends is bounded: a summary may not pass `SUMMARY_MAX_CHARS` (an error, never a truncated summary),
and `pump` holds at most `PUMP_QUEUE_ITEMS` pieces a reader has not taken yet.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from inspector.base.textsafe import cut, make_inert
from inspector.write.redact import scrub_secrets

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.compaction.prompts import SummaryPrompt
    from inspector.rules.ruleset import RuleSet

Purpose = Literal["history", "turn_prefix", "merge", "dropped"]
POLL_S = 0.05

SUMMARY_MAX_CHARS = 1_000_000
"""The longest summary a server may stream for one call. OpenClaw asks for at most 0.8 x reserveTokens (13,107
tokens, ~52,000 characters, with the default 16,384), the largest single replies models give today are ~128k
tokens (~500,000 characters), and the written summary is cut to 16,000 characters anyway: a reply past this
is a server gone wrong, and an error."""
ERROR_TEXT_MAX_CHARS = 300
"""What is kept (and shown) of an error text a server sent; the rest is cut, with a note saying how much."""
PUMP_QUEUE_ITEMS = 64
"""How many streamed pieces may wait for the reader (`pump`)."""


def is_context_overflow_text(text: str) -> bool:
    """pi-ai's test for an overflow error message (one home: the `triggers` part of the rules; the default rule set's:
    a provider's error text does not depend on which release wrote the session)."""
    from inspector.rules.ruleset import rule_set

    return bool(rule_set().triggers.is_context_overflow_error(text))


ErrorKind = Literal["http", "timeout", "connection", "malformed", "auth", "config", "empty", "incomplete", "too_large"]


class ProviderError(Exception):
    """A summarizer call failed (see the module docstring). The message never contains a key."""

    def __init__(
        self,
        provider: str,
        message: str,
        *,
        kind: ErrorKind = "http",
        status: int | None = None,
        retryable: bool = False,
        context_overflow: bool = False,
        secrets: tuple[str | None, ...] = (),
    ) -> None:
        self.provider = provider
        self.kind = kind
        self.status = status
        self.retryable = retryable
        self.context_overflow = context_overflow
        self.message = make_inert(cut(scrub_secrets(message, secrets), ERROR_TEXT_MAX_CHARS), keep_newlines=False)
        super().__init__(self.message)

    @property
    def timeout(self) -> bool:
        """True for a timeout (never retried)."""
        return self.kind == "timeout"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for events and `--json` output."""
        return {
            "provider": self.provider,
            "kind": self.kind,
            "status": self.status,
            "retryable": self.retryable,
            "context_overflow": self.context_overflow,
            "message": self.message,
        }


class SummaryCancelled(Exception):
    """The caller cancelled the summary."""


class CancelToken:
    """A flag the caller sets to stop a summary (thread-safe)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        """Ask every stream watching this token to stop."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once `cancel()` was called."""
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        """Raise `SummaryCancelled` when cancelled."""
        if self._event.is_set():
            raise SummaryCancelled("cancelled")

    def wait(self, seconds: float) -> bool:
        """Sleep up to `seconds`; True when cancelled meanwhile."""
        return self._event.wait(seconds)


@dataclass(frozen=True)
class SummaryRequest:
    """One summarization call: what to summarize (for the rules summarizer) and what an LLM is sent."""

    purpose: Purpose
    messages: tuple[dict[str, Any], ...]
    prompt: SummaryPrompt
    previous_summary: str | None = None
    label: str = ""
    rules: RuleSet | None = None
    """The rule set of the session being compacted (its required summary sections...; None: the default)."""
    thinking_level: str | None = None
    """The session's thinking level (`SessionContext.thinking_level`): what the rules' `prompts.summary_reasoning`
    may ask a reasoning model for (None: unknown)."""
    max_chars: int | None = None
    """The characters OpenClaw's assembly leaves this summary within its 16,000-character cap (None: no bound): the
    `rules` summarizer fits its sections into it; a model is not told (OpenClaw does not tell it either)."""
    section_max_chars: int | None = None
    """With 2026.9.6's quality guard on, the most `## Pending user asks` and `## Exact identifiers` may each hold
    before the guard's retention plan cuts them (None: no bound); the `rules` summarizer keeps them within it."""


@dataclass
class SummaryResult:
    """A finished summary: the text and what the provider said it cost."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    stop_reason: str | None = None
    model: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return dict(self.__dict__)


@dataclass
class SummaryStream:
    """Text deltas as they arrive; `result` is set once the iteration ends normally."""

    _deltas: Iterator[str]
    _finish: Callable[[str], SummaryResult]
    result: SummaryResult | None = None
    _parts: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[str]:
        for delta in self._deltas:
            if delta:
                self._parts.append(delta)
                yield delta
        self.result = self._finish("".join(self._parts))


class Summarizer(Protocol):
    """Anything that summarizes: `rules` (offline), `openai`, `anthropic`."""

    name: str
    """`rules`, `openai` or `anthropic`."""
    provider: str
    """The provider id the circuit breaker counts failures under (`rules` for the offline one)."""
    model: str | None
    uses_network: bool

    def stream(self, request: SummaryRequest, cancel: CancelToken | None = None) -> SummaryStream:
        """Start summarizing; iterate the stream for text deltas."""
        ...


def summarize(
    summarizer: Summarizer,
    request: SummaryRequest,
    cancel: CancelToken | None = None,
    on_delta: Callable[[str], None] | None = None,
) -> SummaryResult:
    """Run a summary to the end; `on_delta` sees every piece of text as it streams."""
    stream = summarizer.stream(request, cancel)
    for delta in stream:
        if on_delta is not None:
            on_delta(delta)
    assert stream.result is not None
    if not stream.result.text.strip():
        raise ProviderError(summarizer.provider, f"{summarizer.provider} returned an empty summary", kind="empty", retryable=True)
    return stream.result


# ---------------------------------------------------------------------------------------------------- threads

_DONE = object()


def pump(
    produce: Callable[[Callable[[Any], None], threading.Event], None],
    cancel: CancelToken | None,
    *,
    idle_timeout_s: float,
    on_timeout: Callable[[], Exception],
    abort: Callable[[], None] = lambda: None,
) -> Iterator[Any]:
    """Run `produce(put, stop)` in a daemon thread and yield what it puts, watching cancel and an idle timeout.

    SDK streams block in socket reads that another thread cannot interrupt reliably, so the blocking part runs
    in its own thread; this generator gives up on it at once when the token is cancelled or nothing arrived for
    `idle_timeout_s` (then `abort()` closes the response so the thread ends soon). Exceptions raised by
    `produce` are re-raised here. At most `PUMP_QUEUE_ITEMS` items wait for the reader: `put` blocks while the
    queue is full (a server cannot fill memory faster than the reader takes its text), and raises
    `SummaryCancelled` in the producer once the reader has stopped.
    """
    q: queue.Queue[Any] = queue.Queue(maxsize=PUMP_QUEUE_ITEMS)
    stop = threading.Event()

    def put(item: Any) -> None:
        # Blocks while the reader is behind (so an endless stream is read no faster than it is used), and gives
        # up once the reader is gone.
        while not stop.is_set():
            try:
                q.put(item, timeout=POLL_S)
                return
            except queue.Full:
                continue
        raise SummaryCancelled("the reader stopped")

    def offer(item: Any) -> None:
        try:
            put(item)
        except SummaryCancelled:
            pass

    def run() -> None:
        try:
            produce(put, stop)
        except BaseException as exc:
            offer(("__error__", exc))
        finally:
            offer(_DONE)

    thread = threading.Thread(target=run, name="summarizer-stream", daemon=True)
    thread.start()
    last = time.monotonic()
    try:
        while True:
            if cancel is not None and cancel.cancelled:
                raise SummaryCancelled("cancelled")
            try:
                item = q.get(timeout=POLL_S)
            except queue.Empty:
                if time.monotonic() - last > idle_timeout_s:
                    raise on_timeout() from None
                continue
            last = time.monotonic()
            if item is _DONE:
                return
            if isinstance(item, tuple) and len(item) == 2 and item[0] == "__error__":
                raise item[1]
            yield item
    finally:
        stop.set()
        if thread.is_alive():
            try:
                abort()
            except Exception:
                pass
