"""What a "context now" figure rests on, the words every release shares (`--json`'s `basis` and the short word on
screen), so two figures shown side by side say whether they are measured or estimated.

* `recorded_usage`: the provider's recorded usage of the last valid assistant reply, nothing after it;
* `estimate_plus_trailing`: that recorded usage plus the estimate of the messages after it (pi's
  `estimateContextTokens` with trailing messages);
* `estimate`: every message estimated, no recorded usage: the context has none, or all it has was recorded before
  the latest compaction (pi's `getContextUsage` then says the size is unknown until the next reply; the figure is the
  estimate of what the next request carries).
"""

from __future__ import annotations

from typing import Any

RECORDED_USAGE = "recorded_usage"
ESTIMATE_PLUS_TRAILING = "estimate_plus_trailing"
ESTIMATE = "estimate"

BASES = (RECORDED_USAGE, ESTIMATE_PLUS_TRAILING, ESTIMATE)

SHORT = {RECORDED_USAGE: "recorded", ESTIMATE_PLUS_TRAILING: "recorded + est.", ESTIMATE: "estimate"}
"""The word shown on screen beside a figure of each basis."""


def basis_of(tokens: dict[str, Any]) -> str:
    """The basis of an `estimateContextTokens` result (`usage_tokens`, `trailing_tokens`, `last_usage_index`)."""
    if tokens.get("last_usage_index") is None:
        return ESTIMATE
    return RECORDED_USAGE if not tokens.get("trailing_tokens") else ESTIMATE_PLUS_TRAILING


def short(basis: str | None) -> str:
    """The on-screen word of `basis` (the basis itself when unknown, "" for None)."""
    return "" if basis is None else SHORT.get(basis, basis)


def context_basis_note(basis: str | None, stale_usage_tokens: int | None = None) -> str:
    """The short word of `basis`, with the usage left out when it predates the latest compaction."""
    if stale_usage_tokens is None:
        return short(basis)
    return f"{short(basis)}; the last recorded usage, {stale_usage_tokens:,}, predates the latest compaction"
