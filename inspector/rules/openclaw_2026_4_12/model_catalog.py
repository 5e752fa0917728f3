"""The model catalog of pi-ai 0.66.1 (the version OpenClaw 2026.4 pins): every model's context window and prices.

One table, ``model_catalog.json`` beside this module, from ``packages/ai/src/models.generated.ts`` (built as
``dist/models.generated.js`` in the ``@mariozechner/pi-ai@0.66.1`` npm package): provider, id, ``contextWindow``,
``maxTokens`` and ``cost.{input,output,cacheRead,cacheWrite}`` (US dollars per million tokens) of all 833 models.
Two lookups read it:

- the "model" step of the window resolution (spec §5, ``known_model``) knows the providers ``anthropic``,
  ``openai``, ``openai-codex``, ``google``, ``github-copilot``, ``xai``, ``zai``, ``kimi-coding`` and ``minimax``
  (old Gemini 1.5/live, Gemma 3, Grok 2 and vision-beta entries left out: ``window_catalog``);
- the cost of a call (``inspector.figures.diagnosis.cost``) is priced from every entry (``load_catalog``).

The same model id can have a different window per provider (``github-copilot`` serves smaller windows,
``openai-codex`` caps GPT-5.x at 272k), so the provider is part of the key. To refresh: ``npm pack
@mariozechner/pi-ai@<version>``, import ``MODELS`` from ``dist/models.generated.js`` with node, and dump
``provider, id, contextWindow, maxTokens, cost.{input,output,cacheRead,cacheWrite}`` sorted by provider then id.
The file is read on first use, not on import.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, cast

import orjson

PI_AI_VERSION = "0.66.1"
CATALOG_FILE = "model_catalog.json"


@dataclass(frozen=True)
class KnownModel:
    """One catalog entry: a model's context window and per-million-token prices."""

    provider: str
    model_id: str
    context_window: int
    max_tokens: int
    input_cost: float
    output_cost: float
    cache_read_cost: float
    cache_write_cost: float

    @property
    def key(self) -> str:
        """``provider/model_id``, as OpenClaw and pi write model refs."""
        return f"{self.provider}/{self.model_id}"

    def cost_of(self, input: float, output: float, cache_read: float, cache_write: float) -> float:
        """pi-ai `calculateCost`: each kind priced per million, then summed in pi-ai's order."""
        c_in = (self.input_cost / 1000000) * input
        c_out = (self.output_cost / 1000000) * output
        c_cr = (self.cache_read_cost / 1000000) * cache_read
        c_cw = (self.cache_write_cost / 1000000) * cache_write
        return c_in + c_out + c_cr + c_cw

    def is_free(self) -> bool:
        """Every price is 0 (local models, or a catalog entry without prices)."""
        return not (self.input_cost or self.output_cost or self.cache_read_cost or self.cache_write_cost)


# The providers whose models the window step knows.
_WINDOW_PROVIDERS = ("anthropic", "openai", "google", "xai", "zai", "kimi-coding", "minimax", "openai-codex", "github-copilot")
# When only the id matches: these providers first (first-party APIs before resellers), then any in catalog order.
_PREFERRED_PROVIDERS = ("anthropic", "openai", "google", "xai", "mistral", "zai", "kimi-coding", "minimax", "openai-codex")
# Models of those providers the window step leaves out: retired Gemini 1.5, Gemini Live and Gemma 3, Grok 2 and betas.
_WINDOW_LEFT_OUT = frozenset(
    {
        ("google", "gemini-1.5-flash"),
        ("google", "gemini-1.5-flash-8b"),
        ("google", "gemini-1.5-pro"),
        ("google", "gemini-live-2.5-flash"),
        ("google", "gemini-live-2.5-flash-preview-native-audio"),
        ("google", "gemma-3-27b-it"),
        ("xai", "grok-2"),
        ("xai", "grok-2-1212"),
        ("xai", "grok-2-latest"),
        ("xai", "grok-2-vision"),
        ("xai", "grok-2-vision-1212"),
        ("xai", "grok-2-vision-latest"),
        ("xai", "grok-beta"),
        ("xai", "grok-vision-beta"),
    }
)


@dataclass(frozen=True)
class ModelCatalog:
    """A set of catalog entries, where they come from, and the lookup by provider and id."""

    source: str
    source_published: str
    extracted: str
    units: str
    models: tuple[KnownModel, ...]
    by_key: dict[tuple[str, str], KnownModel] = field(repr=False, compare=False)
    by_id: dict[str, KnownModel] = field(repr=False, compare=False)

    @classmethod
    def of(cls, models: tuple[KnownModel, ...], source: str, source_published: str, extracted: str, units: str) -> ModelCatalog:
        """A catalog of `models` (in catalog order) with its lookup tables."""
        by_key = {(m.provider, m.model_id): m for m in models}
        by_id: dict[str, KnownModel] = {}
        for provider in _PREFERRED_PROVIDERS:
            for m in models:
                if m.provider == provider:
                    by_id.setdefault(m.model_id, m)
        for m in models:
            by_id.setdefault(m.model_id, m)
        return cls(source, source_published, extracted, units, models, by_key, by_id)

    def lookup(self, provider: str | None, model_id: str | None) -> KnownModel | None:
        """The entry for ``provider``/``model_id``.

        Order: exact provider and id; provider case-folded and stripped (ids stay exact, as pi-ai's lookups are);
        then the id alone, first-party providers first (``_PREFERRED_PROVIDERS``), then any in catalog order.
        """
        if not model_id:
            return None
        if provider:
            hit = self.by_key.get((provider, model_id)) or self.by_key.get((provider.strip().lower(), model_id))  # ours, not a JS trim
            if hit is not None:
                return hit
        return self.by_id.get(model_id)

    def describe(self) -> dict[str, Any]:
        """Where the prices come from (for `--json` and the footers)."""
        return {
            "source": self.source,
            "source_published": self.source_published,
            "extracted": self.extracted,
            "units": self.units,
            "models": len(self.models),
        }


def read_catalog_file(path: str) -> dict[str, Any]:
    """A release's `model_catalog.json` at `path`, parsed (`source`, `source_published`, `extracted`, `units`,
    `models`: one row of `KnownModel` fields per model, ...)."""
    with open(path, "rb") as f:
        return cast(dict[str, Any], orjson.loads(f.read()))


def catalog_from(raw: dict[str, Any], model: Callable[..., KnownModel], keep: Callable[[str, str], bool]) -> ModelCatalog:
    """The catalog of the rows of `raw` (`read_catalog_file`) that `keep(provider, model_id)`, each made by `model(*row)`."""
    models = tuple(model(*row) for row in raw["models"] if keep(row[0], row[1]))
    return ModelCatalog.of(models, raw["source"], raw["source_published"], raw["extracted"], raw["units"])


@lru_cache(maxsize=1)
def _catalog_file() -> dict[str, Any]:
    """``model_catalog.json``, parsed (read on first use, not on import: most commands never need it)."""
    return read_catalog_file(os.path.join(os.path.dirname(__file__), CATALOG_FILE))


def _catalog_of(keep: Callable[[str, str], bool]) -> ModelCatalog:
    return catalog_from(_catalog_file(), KnownModel, keep)


@lru_cache(maxsize=1)
def load_catalog() -> ModelCatalog:
    """Every pi-ai model with its window and prices (the prices of a call's cost)."""
    return _catalog_of(lambda provider, model_id: True)


@lru_cache(maxsize=1)
def window_catalog() -> ModelCatalog:
    """The entries the window step knows: the providers of ``_WINDOW_PROVIDERS``, less ``_WINDOW_LEFT_OUT``.

    Built from the same rows as ``load_catalog`` (equal entries), without building the other 683.
    """
    return _catalog_of(lambda provider, model_id: provider in _WINDOW_PROVIDERS and (provider, model_id) not in _WINDOW_LEFT_OUT)


def known_model(provider: str | None, model_id: str | None) -> KnownModel | None:
    """The window step's entry for ``provider``/``model_id`` (see ``ModelCatalog.lookup``); None when unknown."""
    return window_catalog().lookup(provider, model_id)
