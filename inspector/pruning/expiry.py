"""Which tool results of a context are past the cache TTL, since when, and how old they are (for the transcript).

The reference time is the one the pruning preview's gate uses (`build_preview`): the last `openclaw.cache-ttl`
entry for the session's provider and model, or, for a session that never had pruning enabled, the last
assistant message that was a real LLM call. A tool result's cache entry expires `ttl` after
max(reference, the result's own `message.timestamp`), exactly as `PrunePreview.tool_result_expiry` says, so the
transcript marker and `session-inspector prune --json` (`cache_expired`, `cache_expired_at`) agree. One deliberate
difference: with `ttl` 0 (OpenClaw never prunes) nothing is marked here, where the preview's JSON calls every result
expired.

Cheap: only entry metadata is read (a message is loaded from disk only when its timestamp is not numeric).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from inspector import model as m
from inspector.session import Session

from .preview import last_llm_assistant
from .settings import ContextPruningSettings
from .ttl import TtlGate, evaluate_ttl_gate, format_duration_ms, ms_from_any, read_last_cache_touch


@dataclass(frozen=True, slots=True)
class ExpiryInfo:
    """One expired tool result: when its prompt-cache entry expired and how old the result is.

    `entry_index` is `Entry.index` (file order); `context_index` its position in the context. `timestamp_ms`
    is the result's `message.timestamp` (None when it has none: it then expires with the reference time).
    `age_ms` is `now - timestamp_ms` (or `now - reference` without a timestamp); `expired_for_ms` is
    `now - expired_at_ms`.
    """

    entry_index: int
    context_index: int
    tool_name: str | None
    timestamp_ms: float | None
    expired_at_ms: float
    age_ms: float
    expired_for_ms: float

    @property
    def label(self) -> str:
        """A short marker for a transcript row: `expired 55m 00s ago · age 1h 02m`."""
        return f"expired {format_duration_ms(self.expired_for_ms)} ago · age {format_duration_ms(self.age_ms)}"


def cache_ttl_gate(session: Session, ctx: m.SessionContext, settings: ContextPruningSettings, now_ms: float | None = None) -> TtlGate:
    """The TTL gate at `now_ms` (default: now) exactly as `build_preview` evaluates it (never forced)."""
    now = now_ms if now_ms is not None else time.time_ns() // 1_000_000
    model = ctx.model or {}
    touch = read_last_cache_touch(session.entries, model.get("provider"), model.get("modelId"))
    fallback_ms = fallback_id = None
    last = last_llm_assistant(session, ctx)
    if last is not None:
        stored = last.timestamp or session.load_entry_object(last).get("timestamp")
        fallback_ms = ms_from_any(stored)
        if fallback_ms is None:
            fallback_ms = ms_from_any(last.message_timestamp)
        fallback_id = last.id
    return evaluate_ttl_gate(now_ms=now, ttl_ms=settings.ttl_ms, touch=touch, fallback_ms=fallback_ms, fallback_entry_id=fallback_id)


def expired_tool_results(
    session: Session, ctx: m.SessionContext, settings: ContextPruningSettings, now_ms: float | None = None
) -> dict[int, ExpiryInfo]:
    """Tool results of `ctx` whose cache entry has expired at `now_ms`, keyed by `Entry.index`.

    Empty when there is no reference time (no cache touch and no assistant message) or `ttl` is 0.
    """
    gate = cache_ttl_gate(session, ctx, settings, now_ms)
    ref = gate.last_cache_touch_at
    if ref is None or gate.ttl_ms <= 0:
        return {}
    now = gate.now
    out: dict[int, ExpiryInfo] = {}
    for row in ctx.messages:
        if row.role != "toolResult":
            continue
        ts = ms_from_any(row.message_timestamp)
        if ts is None:
            message = session.load_message(session.entries[row.entry_index]) or {}
            ts = ms_from_any(message.get("timestamp"))
        expires = (max(ref, ts) if ts is not None else ref) + gate.ttl_ms
        if now < expires:
            continue
        age = now - (ts if ts is not None else ref)
        out[row.entry_index] = ExpiryInfo(row.entry_index, row.index, row.tool_name, ts, expires, age, now - expires)
    return out
