"""One summarizer call as OpenClaw's safeguard makes it: retried, behind the circuit breaker, cancellable.

`call_summarizer` is what the runner does for every chunk, part, merge and prefix summary:

1. ask the breaker (`breaker.before_call`); while the circuit is open no request is made at all
   (`BreakerOpen`); a half-open circuit lets this one call through as its trial;
2. stream the summary, emitting `TextStreamed` for every delta;
3. report the outcome to the breaker (each failed attempt counts; a success closes the circuit), emitting
   `BreakerChanged` on every transition;
4. on a failure, retry like OpenClaw's `retryAsync` in `summarizeChunks`: 3 attempts, delay
   `min(500 * 2^(attempt-1), 5000)` ms with ±20% jitter (clamped to 500..5000), `RetryScheduled` before each
   wait; never after a cancel or a timeout. Unlike OpenClaw, errors that cannot succeed on a retry (a context
   overflow, a 4xx other than 408/429, a bad key) are not retried either (`ProviderError.retryable`).

The offline `rules` summarizer skips the breaker (it makes no call to anyone).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.write.breaker import BreakerChange, BreakerDecision, CircuitBreaker
from inspector.write.events import BreakerChanged, RetryScheduled, RunEvent, StageName, TextStreamed
from inspector.write.summarizers.base import (
    CancelToken,
    ProviderError,
    Summarizer,
    SummaryCancelled,
    SummaryRequest,
    SummaryResult,
    summarize,
)


@dataclass(frozen=True)
class RetryPolicy:
    """OpenClaw's `summarizeChunks` retry settings."""

    attempts: int = 3
    min_delay_ms: int = 500
    max_delay_ms: int = 5000
    jitter: float = 0.2

    def delay_ms(self, attempt: int, rng: random.Random) -> int:
        """`retryAsync`'s wait after failed attempt number `attempt` (1-based)."""
        delay = min(self.min_delay_ms * 2 ** (attempt - 1), self.max_delay_ms)
        if self.jitter > 0:
            offset = (rng.random() * 2 - 1) * self.jitter
            delay = max(0, round(delay * (1 + offset)))
        return int(min(max(delay, self.min_delay_ms), self.max_delay_ms))


class BreakerOpen(Exception):
    """The circuit is open (or its trial is taken): no call was made."""

    def __init__(self, decision: BreakerDecision) -> None:
        self.decision = decision
        super().__init__(decision.message)


def _emit_change(emit: Callable[[RunEvent], None], change: BreakerChange | None, clock: Clock) -> None:
    if change is not None:
        emit(BreakerChanged(at_ms=now_ms(clock), session=change.session, provider=change.provider, old=change.old,
                            new=change.new, failures=change.failures, retry_at_ms=change.retry_at_ms, reason=change.reason))


def call_summarizer(
    summarizer: Summarizer,
    request: SummaryRequest,
    *,
    stage: StageName,
    session: Path | str,
    breaker: CircuitBreaker | None = None,
    cancel: CancelToken | None = None,
    emit: Callable[[RunEvent], None] = lambda e: None,
    clock: Clock | None = None,
    policy: RetryPolicy = RetryPolicy(),
    rng: random.Random | None = None,
    call_index: int = 0,
    on_request: Callable[[], None] | None = None,
) -> SummaryResult:
    """Run one summary with OpenClaw's retries behind the breaker (see the module docstring); `on_request` is called
    before each attempt the breaker lets through (what counts the requests a run made)."""
    clock = clock or SystemClock()
    cancel = cancel or CancelToken()
    rng = rng or random.Random()
    guarded = breaker is not None and summarizer.uses_network
    for attempt in range(1, policy.attempts + 1):
        cancel.raise_if_cancelled()
        if guarded:
            assert breaker is not None
            decision = breaker.before_call(session, summarizer.provider)
            _emit_change(emit, decision.change, clock)
            if not decision.allowed:
                raise BreakerOpen(decision)
        if on_request is not None:
            on_request()
        try:
            result = summarize(
                summarizer, request, cancel,
                on_delta=lambda d: emit(TextStreamed(at_ms=now_ms(clock), stage=stage, text=d, call=call_index)),
            )
        except SummaryCancelled:
            raise
        except ProviderError as err:
            if guarded:
                assert breaker is not None
                _, change = breaker.record_failure(session, summarizer.provider, err.message)
                _emit_change(emit, change, clock)
            if attempt >= policy.attempts or err.timeout or not err.retryable:
                raise
            delay = policy.delay_ms(attempt, rng)
            emit(RetryScheduled(at_ms=now_ms(clock), stage=stage, attempt=attempt, max_attempts=policy.attempts,
                                delay_ms=delay, error=err.message, status=err.status))
            if cancel.wait(delay / 1000):
                raise SummaryCancelled("cancelled") from None
            continue
        if guarded:
            assert breaker is not None
            _, change = breaker.record_success(session, summarizer.provider)
            _emit_change(emit, change, clock)
        return result
    raise AssertionError("unreachable")  # pragma: no cover
