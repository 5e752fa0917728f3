"""What each call cost: the recorded `usage.cost`, or a price from the bundled table (`inspector/data/prices.json`).

The table is pi-ai 0.66.1's model catalog (`cost` of every model in `models.generated.js`, USD per million tokens),
dated and with its source in the file itself. A computed cost follows pi-ai's `calculateCost` exactly:
`(price / 1000000) * tokens` per kind, summed input + output + cacheRead + cacheWrite, left to right.

Which one wins, per call (`cost_source`):
- `recorded`: `usage.cost.total` is a number, and it is not a 0 that contradicts the table (see below);
- `price_table`: nothing usable was recorded, or the recorded total is 0 although tokens were used and the table
  prices this model above 0 (OpenClaw writes 0 for models whose cost it was not configured with);
- `unknown`: nothing recorded and the model is not in the table (cost 0, counted apart).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

COST_RECORDED = "recorded"
COST_PRICE_TABLE = "price_table"
COST_UNKNOWN = "unknown"

# Providers preferred when a model id is looked up without its provider (first-party first).
_FALLBACK_PROVIDER_ORDER = ("anthropic", "openai", "google", "xai", "mistral", "zai", "kimi-coding", "minimax", "openai-codex")


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """USD per million tokens of one model, as pi-ai's `model.cost` holds them."""

    provider: str
    model: str
    input: float
    output: float
    cache_read: float
    cache_write: float

    @property
    def key(self) -> str:
        """`provider/model`."""
        return f"{self.provider}/{self.model}"

    def cost_of(self, input: float, output: float, cache_read: float, cache_write: float) -> float:
        """pi-ai `calculateCost`: each kind priced per million, then summed in pi-ai's order."""
        c_in = (self.input / 1000000) * input
        c_out = (self.output / 1000000) * output
        c_cr = (self.cache_read / 1000000) * cache_read
        c_cw = (self.cache_write / 1000000) * cache_write
        return c_in + c_out + c_cr + c_cw

    def is_free(self) -> bool:
        """Every price is 0 (local models, or a catalog entry without prices)."""
        return not (self.input or self.output or self.cache_read or self.cache_write)


@dataclass(frozen=True, slots=True)
class PriceTable:
    """The bundled price table: its source, dates and one `ModelPrice` per (provider, model)."""

    source: str
    source_published: str
    extracted: str
    units: str
    prices: dict[tuple[str, str], ModelPrice]

    def lookup(self, provider: str | None, model: str | None) -> ModelPrice | None:
        """Exact provider and model; provider case-folded; then the model id alone, first-party providers first."""
        if not model:
            return None
        if provider:
            hit = self.prices.get((provider, model)) or self.prices.get((provider.strip().lower(), model))
            if hit is not None:
                return hit
        for p in _FALLBACK_PROVIDER_ORDER:
            hit = self.prices.get((p, model))
            if hit is not None:
                return hit
        for (_, m), price in self.prices.items():
            if m == model:
                return price
        return None

    def describe(self) -> dict[str, Any]:
        """Where the prices come from (for `--json` and the footers)."""
        return {
            "source": self.source,
            "source_published": self.source_published,
            "extracted": self.extracted,
            "units": self.units,
            "models": len(self.prices),
        }


@lru_cache(maxsize=1)
def load_price_table() -> PriceTable:
    """The table bundled as `inspector/data/prices.json` (read once)."""
    raw = json.loads(resources.files("inspector").joinpath("data/prices.json").read_text(encoding="utf-8"))
    prices = {
        (p, m): ModelPrice(p, m, float(i), float(o), float(cr), float(cw)) for p, m, i, o, cr, cw in raw["models"]
    }
    return PriceTable(raw["source"], raw["source_published"], raw["extracted"], raw["units"], prices)


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
    table: PriceTable | None = None,
) -> CallCost:
    """The cost of one assistant call from its recorded `usage` (see the module docstring for the rule)."""
    table = table or load_price_table()
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
