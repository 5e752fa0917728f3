"""The price table of a Claude Code / Codex session (`agent_price_table`): the session's rules' model catalog, then
the current OpenClaw release's for the models it lacks (these agents run models newer than the older catalog)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from inspector.rules.ruleset import rule_set

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.model_catalog import ModelCatalog


AGENT_PRICE_RULES = "openclaw-2026.9.6"
"""The rule set whose catalog prices the models the session's rules lack on a Claude Code / Codex session: the
current OpenClaw release's (the `modelCatalog` of its bundled provider manifests: the newest Claude and OpenAI
models, e.g. `gpt-5.5`)."""


class CatalogChain:
    """Prices looked up in several catalogs in turn: the first that prices the model (not all 0) wins, else the first
    that knows it. Used on Claude Code / Codex sessions (`agent_price_table`)."""

    def __init__(self, *catalogs: ModelCatalog) -> None:
        self.catalogs = catalogs

    def lookup(self, provider: str | None, model_id: str | None) -> Any:
        """The entry for `provider`/`model_id` (see the class docstring); None when no catalog knows it."""
        found = [hit for c in self.catalogs if (hit := c.lookup(provider, model_id)) is not None]
        return next((hit for hit in found if not hit.is_free()), found[0] if found else None)

    def describe(self) -> dict[str, Any]:
        """The first catalog's source, with every catalog's in `chain` (in lookup order)."""
        described = [c.describe() for c in self.catalogs]
        return {**described[0], "chain": described}


def agent_price_table(catalog: ModelCatalog) -> ModelCatalog:
    """The price table of a Claude Code / Codex session: the session's rules' `catalog`, then the current release's
    (`AGENT_PRICE_RULES`) for the models it lacks or prices at 0."""
    return cast("ModelCatalog", CatalogChain(catalog, rule_set(AGENT_PRICE_RULES).model_catalog.load_catalog()))
