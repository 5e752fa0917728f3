"""Which tool results of a context are past the cache TTL, since when, and how old they are (for the transcript).

Same references and the same rule as the pruning preview: `reference.cache_references` reads the session's
model, last `openclaw.cache-ttl` touch and last real assistant message, and `ttl.result_expiry` (built on
`ttl.ttl_expired`, the gate's own rule) decides. The reference time is the touch; for a session pruning has
never touched it is the last assistant message, as in the preview's `if_enabled` projection (the prompt cache
expires whether or not OpenClaw prunes). A result's cache entry expires `ttl` after max(reference, the
result's own `message.timestamp`), exactly as `PrunePreview.tool_result_expiry` of the scenario with that
reference says. With `ttl` 0 nothing expires (OpenClaw never prunes).

Cheap: only entry metadata is read (a message is loaded from disk only when its timestamp is not numeric).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from inspector.base.durations import format_duration_ms
from inspector.figures.pruning.reference import cache_references, expiry_reference, resolve_now_ms, session_gates
from inspector.figures.rules_of import rules_of
from inspector.model import entries as m
from inspector.rules.pruning_terms import SOURCE_CACHE_TTL_ENTRY
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings
    from inspector.rules.openclaw_2026_4_12.pruning.ttl import TtlGate


@dataclass(frozen=True, slots=True)
class ExpiryInfo:
    """One expired tool result: when its prompt-cache entry expired and how old the result is.

    `entry_index` is `Entry.index` (file order); `context_index` its position in the context. `timestamp_ms`
    is the result's `message.timestamp` (None when it has none: it then expires with the reference time).
    `age_ms` is `now - timestamp_ms` (or `now - reference` without a timestamp); `expired_for_ms` is
    `now - expired_at_ms`. `reference_source` says what the expiry was counted from: `cache_ttl_entry` (a
    real touch) or `last_assistant_message` (no touch yet: the projection).
    """

    entry_index: int
    context_index: int
    tool_name: str | None
    timestamp_ms: float | None
    expired_at_ms: float
    age_ms: float
    expired_for_ms: float
    reference_source: str = "cache_ttl_entry"

    @property
    def counted_from_touch(self) -> bool:
        """Whether the expiry was counted from a real `openclaw.cache-ttl` touch (else: the projection from the last
        assistant message)."""
        return self.reference_source == SOURCE_CACHE_TTL_ENTRY

    @property
    def label(self) -> str:
        """A short marker for a transcript row: `expired 55m 00s ago · age 1h 02m`."""
        return f"expired {format_duration_ms(self.expired_for_ms)} ago · age {format_duration_ms(self.age_ms)}"


def cache_ttl_gate(session: Session, ctx: m.SessionContext, settings: ContextPruningSettings, now_ms: float | None = None) -> TtlGate:
    """The TTL gate OpenClaw evaluates at `now_ms` (default: now), exactly as `build_preview`'s `gate` (never forced)."""
    gate, _ = session_gates(rules_of(session), cache_references(session, ctx), settings.ttl_ms, resolve_now_ms(now_ms, None))
    return gate


def expired_tool_results(
    session: Session, ctx: m.SessionContext, settings: ContextPruningSettings, now_ms: float | None = None
) -> dict[int, ExpiryInfo]:
    """Tool results of `ctx` whose cache entry has expired at `now_ms` (default: now), keyed by `Entry.index`.

    Empty when there is no reference time (no cache touch and no assistant message) or `ttl` is 0.
    """
    ref, source = expiry_reference(cache_references(session, ctx))
    ttl = rules_of(session).ttl
    if ref is None:
        return {}
    now = resolve_now_ms(now_ms, None)
    out: dict[int, ExpiryInfo] = {}
    for row in ctx.messages:
        if row.role != "toolResult":
            continue
        ts = ttl.ms_from_any(row.message_timestamp)
        if ts is None:
            message = session.load_message(session.entries[row.entry_index]) or {}
            ts = ttl.ms_from_any(message.get("timestamp"))
        expired, expires = ttl.result_expiry(ref, ts, now, settings.ttl_ms)
        if not expired or expires is None:
            continue
        age = now - (ts if ts is not None else ref)
        out[row.entry_index] = ExpiryInfo(row.entry_index, row.index, row.tool_name, ts, expires, age, now - expires, source)
    return out
