"""How OpenClaw 2026.9.6 spells provider and model ids when it matches them (a helper of `window_guard`).

- `normalize_provider_id`: `packages/model-catalog-core/src/provider-id.ts` — trim and lower-case, nothing more
  (2026.4.12's aliases such as `z.ai` -> `zai` are gone);
- `strip_self_provider_model_prefix`, `normalize_configured_provider_catalog_model_id`:
  `provider-model-id-normalization.ts` — the plugins' `modelIdNormalization` policies (from the model catalog file),
  then the built-in aliases (Anthropic short names, Google preview ids, OpenRouter/NVIDIA prefixes, xAI aliases, ...);
- `model_key`: `src/shared/model-key.ts`;
- `claude_identity`, `supports_claude_1m_context`, ...: `packages/llm-core/src/model-contracts/anthropic.ts`.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.js.utf16 import JS_WHITESPACE_CLASS, js_trim
from inspector.rules.openclaw_2026_9_6.model_catalog import model_id_normalization


def lower_trimmed(value: Any) -> str:
    """`normalizeLowercaseStringOrEmpty`: a string trimmed and lower-cased, `""` for anything else."""
    return js_trim(value).lower() if isinstance(value, str) else ""


def normalize_provider_id(provider: Any) -> str:
    """`normalizeProviderId` of 2026.9.6: trim and lower-case (non-strings become `""`)."""
    return lower_trimmed(provider)


def strip_self_provider_model_prefix(provider: str, model: str) -> str:
    """`stripSelfProviderModelPrefix`: `model` without a leading `<provider>/` (case-insensitive), trimmed when
    stripped; unchanged otherwise."""
    prefix = f"{lower_trimmed(provider)}/"
    trimmed = js_trim(model)
    return trimmed[len(prefix):] if lower_trimmed(trimmed).startswith(prefix) else model


def model_key(provider: str, model: str) -> str:
    """`modelKey`: `provider/model`, or `model` when it already starts with `provider/`."""
    provider_id, model_id = js_trim(provider), js_trim(model)
    if not provider_id:
        return model_id
    if not model_id:
        return provider_id
    return model_id if lower_trimmed(model_id).startswith(f"{lower_trimmed(provider_id)}/") else f"{provider_id}/{model_id}"


_GOOGLE_PREVIEW = {
    "gemini-3-pro": "gemini-3.1-pro-preview",
    "gemini-3-pro-preview": "gemini-3.1-pro-preview",
    "gemini-3-flash": "gemini-3-flash-preview",
    "gemini-3.1-pro": "gemini-3.1-pro-preview",
    "gemini-3.1-flash-lite-preview": "gemini-3.1-flash-lite",
    "gemini-3.1-flash": "gemini-3-flash-preview",
    "gemini-3.1-flash-preview": "gemini-3-flash-preview",
    "gemma-4-26b": "gemma-4-26b-a4b-it",
}
_ANTHROPIC_ALIASES = {
    "fable": "claude-fable-5-1", "fable-5": "claude-fable-5", "fable-5.1": "claude-fable-5-1", "fable-5-1": "claude-fable-5-1",
    "haiku": "claude-haiku-4-5", "opus-5.5": "claude-opus-5-5", "opus-5-5": "claude-opus-5-5", "opus-5": "claude-opus-5",
    "opus": "claude-opus-5", "opus-4.8": "claude-opus-4-8", "opus-4.7": "claude-opus-4-7", "opus-4.6": "claude-opus-4-6",
    "mythos-5": "claude-mythos-5", "sonnet-5": "claude-sonnet-5", "sonnet": "claude-sonnet-5", "sonnet-4.6": "claude-sonnet-4-6",
}
_VERCEL_ALIASES = {"opus-4.6": "claude-opus-4-6", "sonnet-5": "claude-sonnet-5", "sonnet": "claude-sonnet-4-6", "sonnet-4.6": "claude-sonnet-4-6"}
_XAI_ALIASES = {
    "grok-4.3-latest": "grok-4.3", "grok-4.5-latest": "grok-4.5", "grok-build-latest": "grok-4.5",
    "grok-4-fast-reasoning": "grok-4-fast", "grok-4-1-fast-reasoning": "grok-4-1-fast",
}


def normalize_google_preview_model_id(model_id: str) -> str:
    """`normalizeGooglePreviewModelId` (also inside a `google/` prefix)."""
    if model_id.startswith("google/"):
        inner = normalize_google_preview_model_id(model_id[7:])
        return model_id if inner == model_id[7:] else f"google/{inner}"
    return _GOOGLE_PREVIEW.get(model_id, model_id)


def _with_policies(provider: str, model: str) -> str:
    """`normalizeProviderModelIdWithPolicies` with the plugins' policies (`model` unchanged without a policy)."""
    policy = model_id_normalization().get(lower_trimmed(provider))
    if not policy:
        return model
    model_id = js_trim(model)
    if not model_id:
        return model_id
    for prefix in policy.get("stripPrefixes") or []:
        wanted = lower_trimmed(prefix)
        if wanted and lower_trimmed(model_id).startswith(wanted):
            model_id = model_id[len(wanted):]
            break
    model_id = (policy.get("aliases") or {}).get(lower_trimmed(model_id), model_id)
    if "/" not in model_id:
        for rule in policy.get("prefixWhenBareAfterAliasStartsWith") or []:
            if lower_trimmed(model_id).startswith(rule["modelPrefix"].lower()):
                return _prefixed(rule["prefix"], model_id)
        if policy.get("prefixWhenBare"):
            return _prefixed(policy["prefixWhenBare"], model_id)
    return model_id


def _prefixed(prefix: str, model_id: str) -> str:
    return f"{prefix.rstrip('/')}/{model_id.lstrip('/')}"  # ours, not a JS trim: slashes only


def _built_in(provider: str, model: str) -> str:
    """`normalizeBuiltInProviderModelId`."""
    if provider in ("google", "google-gemini-cli", "google-vertex"):
        return normalize_google_preview_model_id(model)
    if provider in ("openrouter", "nvidia"):
        trimmed = js_trim(model)
        return f"{provider}/{trimmed}" if trimmed and "/" not in trimmed else model
    if provider == "anthropic":
        provider_model = strip_self_provider_model_prefix(provider, model)
        return _ANTHROPIC_ALIASES.get(lower_trimmed(provider_model), provider_model)
    if provider == "vercel-ai-gateway":
        aliased = _VERCEL_ALIASES.get(lower_trimmed(model), model)
        return f"anthropic/{aliased}" if lower_trimmed(aliased).startswith("claude-") else aliased
    if provider == "huggingface":
        return model[12:] if lower_trimmed(model).startswith("huggingface/") else model
    if provider == "xai":
        return _XAI_ALIASES.get(lower_trimmed(model), model)
    if provider == "together":
        return "moonshotai/Kimi-K2.6" if model == "moonshotai/Kimi-K2.5" else model
    return model


def _parse_catalog_ref(value: str) -> tuple[str, str] | None:
    """`parseModelCatalogRef`: `(provider lower-cased, model)` of `provider/model`, None when not one."""
    trimmed = js_trim(value)
    slash = trimmed.find("/")
    if slash <= 0 or slash >= len(trimmed) - 1:
        return None
    provider, model = js_trim(trimmed[:slash]), js_trim(trimmed[slash + 1:])
    return (normalize_provider_id(provider), model) if provider and model else None


def normalize_configured_provider_catalog_model_id(provider: str, model: str) -> str:
    """`normalizeConfiguredProviderCatalogModelId` with the plugins' policies loaded (as in the gateway)."""
    normalized_provider = lower_trimmed(provider)
    ref = _built_in(normalized_provider, _with_policies(normalized_provider, model))
    if not ref.startswith("google/"):
        parsed = _parse_catalog_ref(ref)
        if parsed is None or not parsed[1].startswith("google/"):
            return ref
        inner = normalize_google_preview_model_id(parsed[1])
        return ref if inner == parsed[1] else f"{parsed[0]}/{inner}"
    inner = normalize_google_preview_model_id(ref[7:])
    return ref if inner == ref[7:] else f"google/{inner}"


# --- Claude model identities (anthropic.ts) ---

_CLAUDE_SEPARATORS = re.compile(r"(?:[._]|" + JS_WHITESPACE_CLASS + ")+")
_CLAUDE_TAIL = re.compile(r"(?:^|[-/])(claude-[^/]+)\Z")
_CLAUDE_1M = re.compile(r"(?:^|-)claude-(?:fable-5|mythos-(?:5|preview)|opus-4-(?:6|7|8)|sonnet-(?:5|4-6))(?=\Z|[^a-z0-9])")


def claude_identity(model_id: str) -> str:
    """`resolveClaudeModelIdentity`: lower-cased, without `anthropic/`, `.`/`_`/spaces as `-`, from `claude-` on."""
    normalized = js_trim(model_id).lower()
    normalized = _CLAUDE_SEPARATORS.sub("-", normalized[10:] if normalized.startswith("anthropic/") else normalized)
    found = _CLAUDE_TAIL.search(normalized)
    return found.group(1) if found else normalized


def _family_tail(model_id: str, family: str) -> str | None:
    normalized = claude_identity(model_id)
    found = re.search(r"(?:^|-)" + family + r"(?=\Z|[^a-z0-9])", normalized)
    if not found:
        return None
    return normalized[found.start() + (1 if found.group(0).startswith("-") else 0):]


def claude_opus_55_identity(model_id: str) -> str | None:
    """`resolveClaudeOpus55ModelIdentity`."""
    normalized = claude_identity(model_id)
    if normalized == "opus-5-5":
        return "claude-opus-5-5"
    return normalized if re.match(r"claude-opus-5-5(?=\Z|[^a-z0-9])", normalized) else None


def claude_opus_5_identity(model_id: str) -> str | None:
    """`resolveClaudeOpus5ModelIdentity` (Opus 5.5 included)."""
    opus55 = claude_opus_55_identity(model_id)
    if opus55:
        return opus55
    if claude_identity(model_id) in ("opus", "opus-5"):
        return "claude-opus-5"
    return _family_tail(model_id, "claude-opus-5")


def claude_sonnet_5_identity(model_id: str) -> str | None:
    """`resolveClaudeSonnet5ModelIdentity`."""
    return _family_tail(model_id, "claude-sonnet-5")


def supports_claude_1m_context(model_id: str) -> bool:
    """`supportsClaude1MContext`: Opus 5.x, Fable 5, Mythos 5/preview, Opus 4.6-4.8, Sonnet 5 and 4.6."""
    return claude_opus_5_identity(model_id) is not None or _CLAUDE_1M.search(claude_identity(model_id)) is not None
