"""Prompt-cache figures over the calls: the hit ratio, and the cache writes that a TTL expiry caused.

A call *wrote the cache because it expired* when it has `cacheWrite > 0` and more than the TTL passed between the
previous call's request and this one's (`message.timestamp`, set when pi-ai starts a request: the cache is used,
and its lifetime refreshed, when a request is processed). The TTL
is OpenClaw's context-pruning `ttl` as the session's rules' `pruning_settings.resolve_settings` resolves it from
`openclaw.json` (2026.4.12: 5 minutes by default, 1 hour under the Anthropic auto-default); a `ttl` of 0 disables the check.
The `cost` of such a write is the call's cache-write cost (recorded `usage.cost.cacheWrite`, else priced); the
`rewritten_tokens` are the part that had been cached before (`min(cacheWrite, previous cacheRead + cacheWrite)`),
which a warm cache would have read instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.figures.diagnosis.calls import CallPoint
from inspector.rules.ruleset import RuleSet


@dataclass(frozen=True, slots=True)
class ExpiryWrite:
    """One call whose cache write followed a gap longer than the TTL."""

    call_index: int
    entry_id: str | None
    line: int
    gap_ms: float
    cache_write: int | float
    rewritten_tokens: int | float
    cost: float

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "call_index": self.call_index,
            "entry_id": self.entry_id,
            "line": self.line,
            "gap_ms": self.gap_ms,
            "cache_write": self.cache_write,
            "rewritten_tokens": self.rewritten_tokens,
            "cost": self.cost,
        }


@dataclass(frozen=True, slots=True)
class CacheSummary:
    """Σ cacheRead / Σ prompt over the calls, and the TTL-expiry writes."""

    cache_read: int | float
    cache_write: int | float
    prompt_tokens: int | float
    ttl_ms: int
    ttl_source: str
    expiry_writes: list[ExpiryWrite] = field(default_factory=list)

    @property
    def hit_ratio(self) -> float | None:
        """Σ cacheRead / Σ prompt (None without any prompt)."""
        return round(self.cache_read / self.prompt_tokens, 4) if self.prompt_tokens else None

    @property
    def expiry_write_cost(self) -> float:
        """USD of the cache writes that followed a TTL expiry."""
        return round(sum(w.cost for w in self.expiry_writes), 10)

    @property
    def expiry_write_tokens(self) -> int | float:
        """Tokens written to the cache after a TTL expiry."""
        return sum(w.cache_write for w in self.expiry_writes)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "hit_ratio": self.hit_ratio,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "prompt_tokens": self.prompt_tokens,
            "ttl_ms": self.ttl_ms,
            "ttl_source": self.ttl_source,
            "expiry_writes": [w.to_json() for w in self.expiry_writes],
            "expiry_write_tokens": self.expiry_write_tokens,
            "expiry_write_cost": self.expiry_write_cost,
        }


def cache_ttl(rules: RuleSet, config: dict[str, Any] | None) -> tuple[int, str]:
    """The TTL (ms) and its source, as the pruning settings of `rules` resolve it."""
    resolved = rules.pruning_settings.resolve_settings(config)
    return resolved.settings.ttl_ms, resolved.ttl_source


def summarize_cache(calls: list[CallPoint], ttl_ms: int, ttl_source: str) -> CacheSummary:
    """Hit ratio over `calls` and every cache write after a gap longer than `ttl_ms`."""
    writes: list[ExpiryWrite] = []
    previous: CallPoint | None = None
    for c in calls:
        if (
            previous is not None
            and ttl_ms > 0
            and c.cache_write > 0
            and c.gap_ms is not None
            and c.gap_ms > ttl_ms
        ):
            rewritten = min(c.cache_write, previous.cache_read + previous.cache_write)
            writes.append(ExpiryWrite(c.index, c.entry_id, c.line, c.gap_ms, c.cache_write, rewritten, c.cost.cache_write))
        previous = c
    return CacheSummary(
        cache_read=sum(c.cache_read for c in calls),
        cache_write=sum(c.cache_write for c in calls),
        prompt_tokens=sum(c.prompt_tokens for c in calls),
        ttl_ms=ttl_ms,
        ttl_source=ttl_source,
        expiry_writes=writes,
    )
