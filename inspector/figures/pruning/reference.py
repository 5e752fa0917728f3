"""What the cache-TTL gate of one session goes by: the model, the last cache touch, the last assistant message.

The one place the preview (`build_preview`) and the transcript's expiry marker (`expired_tool_results`) read
these from a session, so both see the same reference times and call the same gate functions (`ttl.py`).

The model is the one the next run would use, as far as the file tells: the context's model (pi's
`buildSessionContext`: the last `model_change` or assistant message on the path), except that OpenClaw's
synthetic assistants (`provider: "openclaw"`, delivery mirrors and gateway injections) are not model calls,
so the last real assistant's provider/model stands in for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from inspector.base.clock import Clock, SystemClock
from inspector.figures.rules_of import rules_of
from inspector.model import entries as m
from inspector.rules.pruning_terms import SOURCE_CACHE_TTL_ENTRY, SOURCE_LAST_ASSISTANT, SOURCE_NONE
from inspector.rules.ruleset import RuleSet
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.pruning.ttl import CacheTouch, TtlGate

SYNTHETIC_PROVIDER = "openclaw"  # delivery mirrors / gateway injections: not LLM calls, no cache touch
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_ONE_MS = timedelta(milliseconds=1)


def clock_ms(clock: Clock) -> int:
    """The clock's time as `Date.now()`: whole epoch milliseconds, computed exactly (no float rounding)."""
    now = clock.now()
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    return (now - _EPOCH) // _ONE_MS



def resolve_now_ms(now_ms: float | None, clock: Clock | None) -> float:
    """An explicit `now_ms` wins; else the clock (default: the system clock)."""
    if now_ms is not None:
        return now_ms
    return clock_ms(clock if clock is not None else SystemClock())


def last_llm_assistant(session: Session, ctx: m.SessionContext) -> m.Entry | None:
    """The last assistant entry on the path that was a real LLM call (not an OpenClaw delivery mirror)."""
    for row in reversed(ctx.messages):
        e = session.entries[row.entry_index]
        if e.role == "assistant" and e.provider != SYNTHETIC_PROVIDER:
            return e
    return None


@dataclass(slots=True)
class CacheReferences:
    """The model the gate is evaluated for, its last cache touch, and the last real assistant message.

    `model_source` is `context` (pi's context model) or `last_assistant` (the context model was an OpenClaw
    synthetic one). `assistant_ms` is the last real assistant's time: its entry timestamp (when it was written,
    after the response, as a touch would be), else its `message.timestamp`.
    """

    provider: Any
    model_id: Any
    model_source: str
    touch: CacheTouch | None
    assistant: m.Entry | None
    assistant_ms: float | None

    @property
    def assistant_id(self) -> str | None:
        """The last real assistant's entry id."""
        return self.assistant.id if self.assistant is not None else None

    def to_json(self) -> dict[str, Any]:
        """The model the gate was evaluated for and where it came from."""
        return {"provider": self.provider, "modelId": self.model_id, "source": self.model_source}


def cache_references(session: Session, ctx: m.SessionContext) -> CacheReferences:
    """Read the model, the last `openclaw.cache-ttl` touch for it and the last real assistant of `ctx`."""
    assistant = last_llm_assistant(session, ctx)
    model = ctx.model or {}
    provider, model_id, source = model.get("provider"), model.get("modelId"), "context"
    if provider == SYNTHETIC_PROVIDER and assistant is not None:
        provider, model_id, source = assistant.provider, assistant.model, "last_assistant"
    ttl = rules_of(session).ttl
    touch = ttl.read_last_cache_touch(session.entries, provider, model_id)
    assistant_ms = None
    if assistant is not None:
        stored = assistant.timestamp or session.load_entry_object(assistant).get("timestamp")
        assistant_ms = ttl.ms_from_any(stored)
        if assistant_ms is None:
            assistant_ms = ttl.ms_from_any(assistant.message_timestamp)
    return CacheReferences(provider, model_id, source, touch, assistant, assistant_ms)


def session_gates(rules: RuleSet, refs: CacheReferences, ttl_ms: int, now_ms: float) -> tuple[TtlGate, TtlGate | None]:
    """(the gate the rules evaluate now, the `if_enabled` projection or None when the session has a touch)."""
    gate = rules.ttl.evaluate_ttl_gate(now_ms=now_ms, ttl_ms=ttl_ms, touch=refs.touch)
    if refs.touch is not None:
        return gate, None
    projected = rules.ttl.project_ttl_gate(now_ms=now_ms, ttl_ms=ttl_ms, reference_ms=refs.assistant_ms, reference_entry_id=refs.assistant_id)
    return gate, projected


def expiry_reference(refs: CacheReferences) -> tuple[float | None, str]:
    """The time tool results' cache entries are aged from: the touch, else (projection) the last assistant."""
    if refs.touch is not None:
        return refs.touch.timestamp_ms, SOURCE_CACHE_TTL_ENTRY
    if refs.assistant_ms is not None:
        return refs.assistant_ms, SOURCE_LAST_ASSISTANT
    return None, SOURCE_NONE
