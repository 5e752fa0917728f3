"""Context-window resolution and the context-window guard of OpenClaw 2026.9.6.

Mirrors `src/agents/context-window-guard.ts` (`resolveContextWindowInfo`, `evaluateContextWindowGuard`, the two
message formatters), `src/agents/context-resolution.ts` (`resolveConfiguredContextTokenLimits`,
`resolveAnthropicFixedContextWindow`), `src/config/legacy.context-budget.ts` (applied when the config is read) and
`embedded-agent-runner/run/setup.ts` (`resolveEffectiveRuntimeModel`). What changed since 2026.4.12:

1. `--context-window` flag of this tool (not an OpenClaw step; wins outright);
2. the configured row `models.providers[<p>].models[<id>]`: the provider key matches after trim (exactly first,
   then lower-cased: no aliases any more), the id exactly, trimmed, or after the plugins' id normalization
   (`model_ids`). Its `contextTokens` counts, lowered to the row's `contextWindow` or, for Anthropic models with a
   native 1M window (`anthropic`, `anthropic-vertex`; `claude-cli` only for `[1m]` ids or `params.context1m: true`
   in `agents.defaults.models["<p>/<id>"]` / `agents.defaults.params`), to 1,000,000 ("fixed window"): the smaller
   one wins. Without `contextTokens`, the row's `contextWindow`;
3. the model's own window (`model_catalog.window_model(...).runtime_window`: the manifest's `contextTokens`, else the
   default `contextWindows` option, else `contextWindow`; an id without a known provider: the smallest window of
   every provider listing it, as the Gateway's context cache keeps it);
4. `DEFAULT_CONTEXT_TOKENS` (200000).

`agents.defaults.contextTokens` (and per-agent `contextTokens`) is a legacy key: the config loader deletes it, so
it caps nothing any more; a provider-level `contextTokens`/`contextWindow` is copied into the provider's model rows
that lack it. The guard's floors are now 4000 (block) and 8000 (warn), raised to 10% / 20% of the window; a window
that is not a positive number warns and blocks; the messages name the source and, for a local endpoint
(`localhost`, `127.0.0.1`, `::1`, `*.localhost`, `*.local`, `*.internal` base URL), add a hint.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12 import window_guard as _april
from inspector.rules.openclaw_2026_4_12.window_guard import (
    DEFAULT_CONTEXT_TOKENS,
    GuardLevel,
    flag_window_tokens,
    normalize_positive_int,
)
from inspector.rules.openclaw_2026_9_6.model_catalog import window_model
from inspector.rules.openclaw_2026_9_6.model_ids import (
    claude_opus_5_identity,
    claude_sonnet_5_identity,
    lower_trimmed,
    model_key,
    normalize_configured_provider_catalog_model_id,
    normalize_provider_id,
    strip_self_provider_model_prefix,
    supports_claude_1m_context,
)

__all__ = ["ANTHROPIC_CONTEXT_1M_TOKENS", "CONTEXT_WINDOW_HARD_MIN_RATIO", "CONTEXT_WINDOW_HARD_MIN_TOKENS",
           "CONTEXT_WINDOW_WARN_BELOW_RATIO", "CONTEXT_WINDOW_WARN_BELOW_TOKENS", "DEFAULT_CONTEXT_TOKENS", "ContextWindow",
           "Guard", "GuardLevel", "evaluate_context_window_guard", "is_local_endpoint", "migrate_legacy_context_budget",
           "normalize_positive_int", "normalize_provider_id", "resolve_context_window"]

CONTEXT_WINDOW_HARD_MIN_TOKENS = 4_000
CONTEXT_WINDOW_WARN_BELOW_TOKENS = 8_000
CONTEXT_WINDOW_HARD_MIN_RATIO = 0.1
CONTEXT_WINDOW_WARN_BELOW_RATIO = 0.2
ANTHROPIC_CONTEXT_1M_TOKENS = 1_000_000
"""The fixed window of Anthropic's 1M models (Fable 5, Mythos 5, Opus 5.x, Sonnet 5, and the 1M-capable 4.x)."""

FIXED_WINDOW = "anthropic-1m"
"""`ContextWindow.capped_by` when Anthropic's fixed 1M window lowered a configured `contextTokens`."""


@dataclass(frozen=True)
class ContextWindow(_april.ContextWindow):
    """The context window a run would use, and where the number came from (2026.9.6).

    `source` is `"flag"`, `"config:models.providers.<p>.models[<id>].contextTokens"` (or `.contextWindow`; `<p>`
    and `<id>` as written in the config), `"model:<provider>/<id>"` or `"default"`. When the configured row's
    `contextWindow` or Anthropic's fixed window lowered a configured `contextTokens`, `capped_by` names it (the
    row's `config:...contextWindow` or `"anthropic-1m"`) and `uncapped_tokens` holds `contextTokens`; when a
    model's `contextTokens` is below its window, `capped_by` is `"model:<key>.contextTokens"` and `uncapped_tokens`
    its window. `base_url` is the configured base URL of the row or provider (the guard's self-hosted hint).
    """

    base_url: str | None = None

    @property
    def openclaw_source(self) -> str | None:
        """OpenClaw's `ContextWindowSource` (`modelsConfig`, `model`, `default`); None for this tool's flag."""
        if self.source == "flag":
            return None
        if self.source.startswith("config:"):
            return "modelsConfig"
        if self.source.startswith("model:"):
            return "model"
        return "default"


@dataclass(frozen=True)
class Guard(_april.Guard):
    """Outcome of OpenClaw 2026.9.6's context-window guard for one window size.

    `level` is `"block"` when the window is not a positive number or below `hard_min` (OpenClaw refuses the run),
    `"warn"` below `warn_below` (logged), else `"ok"`; `message` is OpenClaw's text for it (the error for block,
    the log line for warn), `""` for ok.
    """


def _get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None


# --- the config as OpenClaw reads it ---

def _has_legacy_budget(root: dict[str, Any]) -> bool:
    providers = _get(root.get("models"), "providers")
    if isinstance(providers, dict) and any(isinstance(p, dict) and ("contextTokens" in p or "contextWindow" in p) for p in providers.values()):
        return True
    agents = root.get("agents")
    if not isinstance(agents, dict):
        return False
    if isinstance(agents.get("defaults"), dict) and "contextTokens" in agents["defaults"]:
        return True
    entries = agents.get("entries")
    if isinstance(entries, dict) and any(isinstance(e, dict) and "contextTokens" in e for e in entries.values()):
        return True
    return isinstance(agents.get("list"), list) and any(isinstance(e, dict) and "contextTokens" in e for e in agents["list"])


def migrate_legacy_context_budget(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """`migrateLegacyContextBudgetConfig`, which the config loader applies: a provider's `contextTokens` /
    `contextWindow` goes into each of its model rows that lacks the key (then off the provider); the agents'
    `contextTokens` are deleted. Returns a changed copy, or `config` itself when nothing is legacy."""
    if not isinstance(config, dict) or not _has_legacy_budget(config):
        return config
    out = copy.deepcopy(config)
    providers = _get(out.get("models"), "providers")
    for provider in providers.values() if isinstance(providers, dict) else ():
        if not isinstance(provider, dict):
            continue
        for key in ("contextTokens", "contextWindow"):
            if key not in provider:
                continue
            models = provider.get("models")
            for model in models if isinstance(models, list) else ():
                if isinstance(model, dict) and key not in model:  # `model[key] !== void 0`: a null stays
                    model[key] = provider[key]
            del provider[key]
    agents = out.get("agents")
    if isinstance(agents, dict):
        records = [agents.get("defaults")]
        records += list(agents["entries"].values()) if isinstance(agents.get("entries"), dict) else []
        records += agents["list"] if isinstance(agents.get("list"), list) else []
        for record in records:
            if isinstance(record, dict):
                record.pop("contextTokens", None)
    return out


def _merged_provider(config: Any, provider: str) -> tuple[str, dict[str, Any]] | None:
    """`resolveMergedModelProviderEntry`: (key, merged config) of the provider `provider` names."""
    requested = js_trim(provider)
    if not normalize_provider_id(requested):
        return None
    providers = _get(_get(config, "models"), "providers")
    if not isinstance(providers, dict):
        return None
    exact = next((k for k in providers if js_trim(k) == requested), None)
    fallback = next((k for k in providers if normalize_provider_id(k) == normalize_provider_id(requested)), None)
    key = js_trim(exact if exact is not None else fallback or "")
    if not key:
        return None
    matched: dict[str, Any] | None = None
    for provider_id, value in providers.items():
        if js_trim(provider_id) != key or not isinstance(value, dict):
            continue
        if matched is None:
            matched = value
        else:
            models = value.get("models")
            matched = {**matched, **value, "models": models if models is not None else matched.get("models")}
    return None if matched is None else (key, matched)


def _configured_row(config: Any, provider: str, model: str) -> tuple[str, dict[str, Any]] | None:
    """`resolveConfiguredProviderModel`: (provider key, row) of the configured model `provider`/`model` names."""
    entry = _merged_provider(config, provider)
    if entry is None:
        return None
    key, provider_config = entry
    rows: dict[str, dict[str, Any]] = {}  # `resolveMergedModelProviderModels`: the first row of an id wins
    models = provider_config.get("models")
    for row in models if isinstance(models, list) else ():
        if isinstance(row, dict) and isinstance(row.get("id"), str) and (row_id := js_trim(row["id"])):
            rows[row_id] = {**row, **rows[row_id]} if row_id in rows else row

    def canonicalize(model_id: str) -> str:
        if strip_self_provider_model_prefix(provider, model_id) != model_id:
            return model_id
        return js_trim(normalize_configured_provider_catalog_model_id(provider, model_id)) or model_id

    lookup: dict[str, dict[str, Any]] = {}
    for candidate, row in rows.items():
        lookup.setdefault(canonicalize(candidate), row)
    lookup.update(rows)
    bare = strip_self_provider_model_prefix(provider, model)
    for spelling in [model] if bare == model else [model, bare]:
        wanted = js_trim(spelling)
        canonical = canonicalize(wanted)
        found = lookup.get(wanted)
        found = lookup.get(canonical) if found is None else found
        if found is None:
            for candidate, row in lookup.items():
                legacy = strip_self_provider_model_prefix(provider, candidate)
                if legacy != candidate and (legacy == wanted or canonicalize(js_trim(legacy)) == canonical):
                    found = row
                    break
        if found is not None:
            return key, found
    return None


def _context_1m(config: Any, provider: str, model: str) -> bool:
    """`params.context1m === true` for this model (`agents.defaults.models["<p>/<id>"].params`, else
    `agents.defaults.params`), as `resolveModelExtraParamSources` finds it."""
    defaults = _get(_get(config, "agents"), "defaults")
    models = _get(defaults, "models")
    model_params = None
    if model:
        canonical = model_key(provider, model)
        legacy = f"{js_trim(provider)}/{js_trim(model)}"
        model_params = _get(_get(models, canonical), "params")
        if model_params is None and legacy != canonical:
            model_params = _get(_get(models, legacy), "params")
    if isinstance(model_params, dict) and "context1m" in model_params:
        return model_params["context1m"] is True
    return _get(_get(defaults, "params"), "context1m") is True


def fixed_context_window(provider: str, model: str, *, claude_cli_1m: bool = False) -> int | None:
    """`resolveAnthropicFixedContextWindow`: 1,000,000 for Anthropic's 1M models, else None."""
    normalized = lower_trimmed(model)
    model_id = normalized.split("/")[-1] if "/" in normalized else normalized
    if provider not in ("anthropic", "anthropic-vertex", "claude-cli"):
        return None
    if re.match(r"claude-fable-5(?=\Z|[^a-z0-9])", model_id):
        return ANTHROPIC_CONTEXT_1M_TOKENS
    if provider != "claude-cli" and re.match(r"claude-mythos-5(?=\Z|[^a-z0-9])", model_id):
        return ANTHROPIC_CONTEXT_1M_TOKENS
    if claude_opus_5_identity(model_id) or claude_sonnet_5_identity(model_id):
        return ANTHROPIC_CONTEXT_1M_TOKENS
    if not supports_claude_1m_context(model_id):
        return None
    if provider == "claude-cli" and not model_id.endswith("[1m]") and not claude_cli_1m:
        return None
    return ANTHROPIC_CONTEXT_1M_TOKENS


def _from_models_config(config: Any, provider: str, model_id: str) -> ContextWindow | None:
    """`resolveConfiguredContextTokenLimits`' `effectiveConfiguredTokens ?? configuredContextWindow`."""
    provider, model_id = js_trim(provider), js_trim(model_id)
    found = _configured_row(config, provider, model_id)
    if found is None:
        return None
    key, row = found
    where = f"config:models.providers.{key}.models[{row.get('id')}]"
    base_url = next((u for u in (row.get("baseUrl"), _get((_merged_provider(config, provider) or ("", {}))[1], "baseUrl"))
                     if isinstance(u, str)), None)
    fixed = fixed_context_window(normalize_provider_id(provider), model_id, claude_cli_1m=_context_1m(config, normalize_provider_id(provider), model_id))
    tokens = normalize_positive_int(row.get("contextTokens"))
    window = normalize_positive_int(row.get("contextWindow"))
    limit = fixed if fixed is not None else window
    if tokens is not None:
        if limit is not None and limit < tokens:
            capped_by = FIXED_WINDOW if fixed is not None else f"{where}.contextWindow"
            return ContextWindow(limit, f"{where}.contextTokens", capped_by, tokens, base_url)
        return ContextWindow(tokens, f"{where}.contextTokens", base_url=base_url)
    if window is not None:
        return ContextWindow(window, f"{where}.contextWindow", base_url=base_url)
    return None


def resolve_context_window(
    provider: str | None,
    model_id: str | None,
    config: dict[str, Any] | None,
    override: int | None = None,
) -> ContextWindow:
    """Resolve the context window for `provider`/`model_id` the way OpenClaw 2026.9.6 does (module docstring).

    `config` is the parsed OpenClaw config (`LoadedConfig.data`) or None, read as OpenClaw reads it (legacy budget
    keys migrated). `override` is this tool's explicit `--context-window` (a positive integer, else `ValueError`).
    """
    if override is not None:
        return ContextWindow(flag_window_tokens(override), "flag")
    config = migrate_legacy_context_budget(config)
    model = window_model(provider, model_id)
    resolved = _from_models_config(config, provider or "", model_id or "")
    if resolved is None and model is not None:
        if model.context_tokens is not None and model.context_tokens < model.context_window:
            resolved = ContextWindow(model.runtime_window, f"model:{model.key}", f"model:{model.key}.contextTokens", model.context_window)
        else:
            resolved = ContextWindow(model.runtime_window, f"model:{model.key}")
    if resolved is None:
        resolved = ContextWindow(DEFAULT_CONTEXT_TOKENS, "default")
    if model is not None and model.default_window is not None and resolved.tokens > model.default_window:
        return ContextWindow(model.default_window, f"model:{model.key}")  # the default `contextWindows` option's size
    return resolved


def is_local_endpoint(base_url: str | None) -> bool:
    """`resolveProviderEndpoint(baseUrl).endpointClass === "local"`: the URL's host is `localhost`, `127.0.0.1`,
    `::1` or ends in `.localhost`, `.local`, `.internal` (no plugin manifest declares a local endpoint)."""
    trimmed = js_trim(base_url) if isinstance(base_url, str) else ""
    if not trimmed:
        return False
    candidate = f"https://{trimmed}" if re.fullmatch(r"[a-z0-9.\[\]-]+(?::\d+)?(?:[/?#].*)?", trimmed, re.I | re.S) else trimmed
    try:
        parts = urlsplit(candidate)
        host = parts.hostname
    except ValueError:
        return False
    if not parts.scheme or not host or (parts.scheme in ("http", "https") and not parts.netloc):
        return False
    return host in ("localhost", "127.0.0.1", "::1") or host.endswith((".localhost", ".local", ".internal"))


def guard_thresholds(window_tokens: Any) -> tuple[int, int]:
    """`resolveContextWindowGuardThresholds`: (hard minimum, warn below) for a window of `window_tokens`."""
    tokens = normalize_positive_int(window_tokens) or 0
    return (max(CONTEXT_WINDOW_HARD_MIN_TOKENS, math.floor(tokens * CONTEXT_WINDOW_HARD_MIN_RATIO)),
            max(CONTEXT_WINDOW_WARN_BELOW_TOKENS, math.floor(tokens * CONTEXT_WINDOW_WARN_BELOW_RATIO)))


def evaluate_context_window_guard(
    tokens: int | float | ContextWindow | None,
    *,
    provider: str | None = None,
    model_id: str | None = None,
    source: str | None = None,
    warn_below_tokens: int | None = None,
    hard_min_tokens: int | None = None,
    reference_tokens: int | None = None,
    base_url: str | None = None,
) -> Guard:
    """OpenClaw 2026.9.6's `evaluateContextWindowGuard` plus the messages `run/setup.ts` logs and throws.

    `tokens` may be a `ContextWindow` (its OpenClaw source name and base URL are used unless `source` /
    `base_url` are given). Thresholds default to the window's (`guard_thresholds` of `reference_tokens`, else of
    `tokens`); the default hard minimum never exceeds `max(tokens, 4000)`; explicit ones are floored, kept >= 1.
    New beside 2026.4.12: `reference_tokens`, `base_url` (a local endpoint adds OpenClaw's self-hosted hint).
    """
    if isinstance(tokens, ContextWindow):
        source = source if source is not None else (tokens.openclaw_source or tokens.source)
        base_url = base_url if base_url is not None else tokens.base_url
        tokens = tokens.tokens
    elif isinstance(tokens, _april.ContextWindow):
        source = source if source is not None else tokens.source
        tokens = tokens.tokens
    normalized = normalize_positive_int(tokens)
    value = normalized or 0
    hard_default, warn_default = guard_thresholds(normalize_positive_int(reference_tokens) or value)
    warn_below = max(1, math.floor(warn_below_tokens if warn_below_tokens is not None else warn_default))
    hard_min = max(1, math.floor(hard_min_tokens if hard_min_tokens is not None else min(hard_default, max(value, CONTEXT_WINDOW_HARD_MIN_TOKENS))))
    source = source or "unknown"
    local = is_local_endpoint(base_url)
    level: GuardLevel = "block" if not normalized or value < hard_min else "warn" if value < warn_below else "ok"
    if level == "block":
        message = f"Model context window too small ({value} tokens; source={source}). Minimum is {hard_min}."
        if local and source == "modelsConfig":
            message += " OpenClaw is using the configured model context limit for this model. Raise contextWindow/contextTokens or choose a larger model."
        elif local:
            message += (" This looks like a local model endpoint. Raise the server/model context limit or choose a larger model."
                        f" OpenClaw local/self-hosted runs work best at {warn_below}+ tokens.")
        return Guard(value, "block", warn_below, hard_min, message)
    if level == "warn":
        message = f"low context window: {provider or 'unknown'}/{model_id or 'unknown'} ctx={value} (warn<{warn_below}) source={source}"
        if local and source == "modelsConfig":
            message += "; OpenClaw is using the configured model context limit for this model, so raise contextWindow/contextTokens if it is set too low"
        elif local:
            message += (f"; local/self-hosted runs work best at {warn_below}+ tokens and may show weaker tool use or more compaction"
                        " until the server/model context limit is raised")
        return Guard(value, "warn", warn_below, hard_min, message)
    return Guard(value, "ok", warn_below, hard_min, "")
