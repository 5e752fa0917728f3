"""What each call cost: the recorded `usage.cost`, or a price from the release's model catalog.

The prices are those of pi-ai 0.66.1's model catalog (`inspector.rules.openclaw_2026_4_12.model_catalog`: `cost` of
every model in `models.generated.js`, USD per million tokens, dated and with its source in the data file). A
computed cost follows pi-ai's `calculateCost` exactly (`KnownModel.cost_of`): `(price / 1000000) * tokens` per
kind, summed input + output + cacheRead + cacheWrite, left to right.

Which one wins, per call (`cost_source`):
- `recorded`: `usage.cost.total` is a number, and it is not a 0 that contradicts the table (see below);
- `price_table`: nothing usable was recorded, or the recorded total is 0 although tokens were used and the table
  prices this model above 0 (OpenClaw writes 0 for models whose cost it was not configured with);
- `unknown`: nothing recorded and the model is not in the table (cost 0, counted apart).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.model_catalog import ModelCatalog

COST_RECORDED = "recorded"
COST_PRICE_TABLE = "price_table"
COST_UNKNOWN = "unknown"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True, slots=True)
class CallCost:
    """The cost of one call, where it came from, and its cache-write part (used for TTL-expiry costs)."""

    total: float
    source: str
    cache_write: float
    recorded_total: float | None
    price_key: str | None


def cost_of_call(
    usage: dict[str, Any],
    provider: str | None,
    model: str | None,
    table: ModelCatalog,
) -> CallCost:
    """The cost of one assistant call from its recorded `usage` (see the module docstring for the rule), priced
    by `table` (the session's rules' model catalog)."""
    tokens = [_number(usage.get(k)) or 0.0 for k in ("input", "output", "cacheRead", "cacheWrite")]
    cost = usage.get("cost")
    recorded = _number(cost.get("total")) if isinstance(cost, dict) else None
    recorded_cw = _number(cost.get("cacheWrite")) if isinstance(cost, dict) else None
    price = table.lookup(provider, model)
    used_tokens = any(tokens)
    contradicted = recorded == 0 and used_tokens and price is not None and not price.is_free()
    if recorded is not None and not contradicted:
        cw = recorded_cw if recorded_cw is not None else (price.cost_of(0, 0, 0, tokens[3]) if price else 0.0)
        return CallCost(recorded, COST_RECORDED, cw, recorded, price.key if price else None)
    if price is not None:
        return CallCost(price.cost_of(*tokens), COST_PRICE_TABLE, price.cost_of(0, 0, 0, tokens[3]), recorded, price.key)
    return CallCost(0.0, COST_UNKNOWN, 0.0, recorded, None)


def priced_cost(calls: list[tuple[dict[str, Any], str | None, str | None]], table: ModelCatalog) -> dict[str, Any]:
    """Σ cost of `calls` (each its recorded usage, provider and model) by the rule `cost_of_call` gives each call, as
    `timeline` sums it (`cost.total` there): `input`, `output`, `cacheRead`, `cacheWrite` and `total` in USD (the
    price-table share split by kind, a recorded cost in `total` only), the calls by where their cost came from, and
    the price table's source. For sessions whose files record no cost (Claude Code, Codex)."""
    kinds = dict.fromkeys(("input", "output", "cacheRead", "cacheWrite"), 0.0)
    total = 0.0
    sources = {COST_RECORDED: 0, COST_PRICE_TABLE: 0, COST_UNKNOWN: 0}
    for usage, provider, model in calls:
        cost = cost_of_call(usage, provider, model, table)
        total += cost.total
        sources[cost.source] += 1
        price = table.lookup(provider, model) if cost.source == COST_PRICE_TABLE else None
        if price is not None:
            for i, kind in enumerate(kinds):
                tokens = [0.0] * 4
                tokens[i] = _number(usage.get(kind)) or 0.0
                kinds[kind] += price.cost_of(*tokens)
    out: dict[str, Any] = {k: round(v, 10) for k, v in kinds.items()}
    out["total"] = round(total, 10)
    return {**out, "calls_by_source": sources, "price_table_source": table.describe()}

