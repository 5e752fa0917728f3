"""What pruning saves, in tokens by each estimator and in prompt-cache write cost.

The pruner's own figure is characters (`PruneResult`); here the same messages are counted with pi's
`estimateTokens`, OpenClaw's compaction estimate and tiktoken, before and after, and priced at the model's
cache-write rate (the first request after the TTL re-writes the whole prompt to the cache).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspector.counting.counter import get_token_counter
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens import openclaw_compaction_tokens, pi_estimate_tokens
from inspector.session.session import Session


@dataclass(slots=True)
class CacheWritePrice:
    """USD per token for a prompt-cache write, and where the price came from."""

    usd_per_token: float | None
    source: str


def _positive(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0


def cache_write_price(session: Session, ctx: m.SessionContext, provider: Any, model_id: Any) -> CacheWritePrice:
    """USD per cache-written token: from the latest recorded `usage.cost.cacheWrite / usage.cacheWrite` of this
    model on the path, else from the model catalog, else unknown."""
    for row in reversed(ctx.messages):
        e = session.entries[row.entry_index]
        if e.role != "assistant" or not isinstance(e.usage, dict):
            continue
        if e.provider != provider or e.model != model_id:
            continue
        tokens = e.usage.get("cacheWrite")
        cost = e.usage.get("cost")
        usd = cost.get("cacheWrite") if isinstance(cost, dict) else None
        if isinstance(tokens, (int, float)) and isinstance(usd, (int, float)) and _positive(tokens) and _positive(usd):
            return CacheWritePrice(usd / tokens, f"recorded usage of entry {e.id} (line {e.line})")
    from inspector.figures.rules_of import rules_of

    km = rules_of(session).model_catalog.known_model(provider, model_id)
    if km is not None and km.cache_write_cost > 0:
        return CacheWritePrice(km.cache_write_cost / 1e6, f"model catalog {km.key}")
    return CacheWritePrice(None, "no recorded cache-write cost and no catalog price for this model")


@dataclass(slots=True)
class TokenCounts:
    """Per-message token counts of the unpruned context, by estimator (`tiktoken` None when disabled)."""

    pi: list[int]
    openclaw_compaction: list[int]
    tiktoken: list[int | None] | None
    tiktoken_info: dict[str, Any]
    counter: Any = None

    def totals(self, after: list[dict[str, Any]] | None, changed: list[int]) -> tuple[dict[str, int | None], dict[str, int | None]]:
        """(before, after) sums per estimator; only the `changed` messages of `after` are counted again."""
        before: dict[str, int | None] = {"pi": sum(self.pi), "openclaw_compaction": sum(self.openclaw_compaction)}
        pi_after = list(self.pi)
        oc_after = list(self.openclaw_compaction)
        tk_after = list(self.tiktoken) if self.tiktoken is not None else None
        for i in changed:
            assert after is not None
            pi_after[i] = pi_estimate_tokens(after[i])
            oc_after[i] = openclaw_compaction_tokens(after[i])
            if tk_after is not None:
                tk_after[i] = self.counter.count_message(after[i])
        result_after: dict[str, int | None] = {"pi": sum(pi_after), "openclaw_compaction": sum(oc_after)}
        if self.tiktoken is None or tk_after is None:
            before["tiktoken"] = result_after["tiktoken"] = None
        else:
            before["tiktoken"] = sum(x or 0 for x in self.tiktoken)
            result_after["tiktoken"] = sum(x or 0 for x in tk_after)
        return before, result_after


def count_tokens(
    messages: list[dict[str, Any]],
    encoding: str | None,
    entry_indices: list[int],
    tiktoken_cache: dict[tuple[str, int], int | None] | None,
) -> TokenCounts:
    """Count every message once with each estimator; tiktoken counts are cached by (encoding, `Entry.index`)."""
    pi = [pi_estimate_tokens(msg) for msg in messages]
    oc = [openclaw_compaction_tokens(msg) for msg in messages]
    if encoding is None:
        return TokenCounts(pi, oc, None, {"enabled": False})
    counter = get_token_counter(encoding)
    info = {"enabled": counter.available, "encoding": counter.name, "notice": counter.notice}
    if not counter.available:
        return TokenCounts(pi, oc, None, info)
    if tiktoken_cache is None:
        tk: list[int | None] = [counter.count_message(msg) for msg in messages]
    else:
        tk = []
        for idx, msg in zip(entry_indices, messages):
            key = (counter.name, idx)
            if key not in tiktoken_cache:
                tiktoken_cache[key] = counter.count_message(msg)
            tk.append(tiktoken_cache[key])
    return TokenCounts(pi, oc, tk, info, counter)
