"""The reasoning a 2026.9.6 compaction's summary calls ask for, and the request fields that carry it.

A summarizer's model is described by a mapping in OpenClaw's model shape (`SummaryModel`: `provider`, `id`, `api`,
`reasoning`, optional `baseUrl`, `maxTokens`, `thinkingLevelMap`). Ported from 2026.9.6:

* `compaction_thinking_level`: `resolveEmbeddedCompactionThinkingLevel` (`compaction-runtime-context.ts`): the level
  `agents.defaults.compaction.thinkingLevel` asks for (`inherit`: the session's; unset: the provider's compaction
  default, native Ollama's `off` (`extensions/ollama/provider-policy-api.ts` `normalizeResolvedModel`), else
  `low`), clamped to the model's thinking profile (`resolveSupportedThinkingLevel`, `src/auto-reply/thinking.ts`).
  Profiles ported: the Claude profiles (`provider-claude-thinking.ts`, for provider `anthropic` / `claude-cli` and for
  any `anthropic-messages` model), Ollama's, and the generic one (off..high, xhigh/max only when the model's
  `thinkingLevelMap` names them; `off` only for a non-reasoning model). Not ported: the OpenAI, xAI, GitHub Copilot
  and OpenCode Go plugins' own profiles (those providers get the generic profile here).
* `reasoning_option`: agent core `resolveAgentReasoningOption` (an `off` level is still sent as `off`), only for a
  reasoning model (`createSummarizationOptions`).
* `summary_request_reasoning`: what `@openclaw/ai`'s `streamSimple` makes of that option in the request body:
  `anthropic-messages` (`streamSimpleAnthropic`, `buildAnthropicGenerationParams`): `thinking` disabled / budgeted
  (with `max_tokens` raised by the budget) / adaptive with `output_config.effort`; `openai-completions`
  (`streamSimpleOpenAICompletions`, `resolveOpenAIRequestReasoning`): `reasoning_effort` clamped to the model's
  efforts (the GPT-5 families' tables), `none` for `off` on a model without a table, `reasoning: {effort}` for
  OpenRouter, nothing where the endpoint takes no effort (Z.AI, Together, Mistral, xAI). Compat overrides from a
  catalog (`compat.*`) are not read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

SummaryModel = Mapping[str, Any]
"""A summarizer's model in OpenClaw's shape: `provider`, `id`, `api`, `reasoning`, optional `baseUrl`, `maxTokens`,
`thinkingLevelMap`."""

DEFAULT_COMPACTION_THINKING = "low"
RANKS = {"off": 0, "minimal": 10, "low": 20, "medium": 30, "high": 40, "adaptive": 30, "xhigh": 60, "max": 70, "ultra": 80}
BASE_LEVELS = ("off", "minimal", "low", "medium", "high")
CATALOG_LEVELS = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
ANTHROPIC_MIN_THINKING_BUDGET = 1024
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "max": 32768}
_ENABLED_EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")
_NO_EFFORT_PROVIDERS = ("zai", "together", "mistral", "xai")


@dataclass(frozen=True)
class Profile:
    """A model's thinking profile: its levels (by rank) and default level."""

    levels: tuple[str, ...]
    default: str | None = None
    keep_when_not_reasoning: bool = False


# ---------------------------------------------------------------------------------------------- Claude identities


def _claude_id(model: SummaryModel) -> str:
    """`resolveClaudeModelIdentity`."""
    params: Mapping[str, Any] = model["params"] if isinstance(model.get("params"), dict) else {}
    raw = params.get("canonicalModelId") if isinstance(params.get("canonicalModelId"), str) else model.get("id")
    n = str(raw or "").strip().lower()
    n = re.sub(r"[._\s]+", "-", n[10:] if n.startswith("anthropic/") else n)
    m = re.search(r"(?:^|[-/])(claude-[^/]+)$", n)
    return m.group(1) if m else n


def _family(model: SummaryModel, name: str) -> bool:
    return re.search(rf"(?:^|-)claude-{name}(?=$|[^a-z0-9])", _claude_id(model)) is not None


def _opus55(model: SummaryModel) -> bool:
    n = _claude_id(model)
    return n == "opus-5-5" or re.match(r"claude-opus-5-5(?=$|[^a-z0-9])", n) is not None


def _opus5(model: SummaryModel) -> bool:
    return _opus55(model) or _claude_id(model) in ("opus", "opus-5") or _family(model, "opus-5")


def _sonnet5(model: SummaryModel) -> bool:
    return _family(model, "sonnet-5")


def _fable5(model: SummaryModel) -> bool:
    return _family(model, "fable-5")


def _mandatory_adaptive(model: SummaryModel) -> bool:
    """`requiresClaudeMandatoryAdaptiveThinking`."""
    return _opus55(model) or _fable5(model) or _family(model, "mythos-5") or _family(model, "mythos-preview")


def _gen(model: SummaryModel, pattern: str) -> bool:
    return _opus5(model) or re.search(rf"(?:^|-)claude-(?:{pattern})(?=$|[^a-z0-9])", _claude_id(model)) is not None


def supports_adaptive(model: SummaryModel) -> bool:
    """`supportsClaudeAdaptiveThinking`."""
    return _gen(model, "fable-5|mythos-(?:5|preview)|opus-4-(?:6|7|8)|sonnet-(?:5|4-6)")


def _native_max(model: SummaryModel) -> bool:
    return _gen(model, "fable-5|mythos-5|opus-4-(?:6|7|8)|sonnet-(?:5|4-6)")


def _native_xhigh(model: SummaryModel) -> bool:
    return _gen(model, "fable-5|mythos-5|opus-4-(?:7|8)|sonnet-5")


def _claude_level_map(model: SummaryModel) -> dict[str, Any] | None:
    """`resolveClaudeNativeThinkingLevelMap`."""
    if model.get("thinkingLevelMap") is not None:
        return dict(model["thinkingLevelMap"])
    return {"xhigh": "xhigh" if _native_xhigh(model) else None, "max": "max"} if _native_max(model) else None


_SONNET5 = Profile(("off", "minimal", "low", "medium", "high", "xhigh", "adaptive", "max"), "high")
_FABLE5 = Profile(("low", "medium", "high", "xhigh", "max"), "medium", True)


def claude_profile(model: SummaryModel) -> Profile:
    """`resolveClaudeThinkingProfile(id, _, {includeNativeMax: true})`."""
    base = BASE_LEVELS
    if _opus55(model) or _fable5(model):
        return _FABLE5
    if _family(model, "mythos-5"):
        return Profile(_FABLE5.levels, "high", True)
    if _opus5(model) or _sonnet5(model):
        return _SONNET5
    if _mandatory_adaptive(model):
        return Profile((*base[1:], "adaptive"), "adaptive", True)
    if _native_xhigh(model):
        return Profile((*base, "xhigh", "adaptive", "max"), "off")
    if supports_adaptive(model):
        return Profile((*base, "adaptive", "max"), "adaptive")
    return Profile(base)


# ---------------------------------------------------------------------------------------------- the level


def _provider(model: SummaryModel) -> str:
    return str(model.get("provider") or "").strip().lower()


def _is_cloud_model_ref(model_id: str) -> bool:
    n = model_id.strip().lower()
    sep = n.rfind(":")
    if sep >= 0 and n[sep + 1:] == "cloud":
        return ":" not in n[:sep] or n[n[:sep].rfind(":") + 1:sep] not in ("cloud", "local")
    return sep >= 0 and "/" not in n[sep + 1:] and n.endswith("-cloud")


def provider_compaction_default(model: SummaryModel) -> str | None:
    """A provider's own compaction thinking default: `off` for a native (`api: "ollama"`) Ollama model that is not
    hosted (`ollama-cloud`, a `:cloud` model, `https://ollama.com`)."""
    if _provider(model) != "ollama" or model.get("api") != "ollama":
        return None
    url = str(model.get("baseUrl") or "")
    hosted = _is_cloud_model_ref(str(model.get("id") or "")) or (url and f"{urlparse(url).scheme}://{urlparse(url).netloc}" == "https://ollama.com")
    return None if hosted else "off"


def _normalize(profile: Profile, level_map: Mapping[str, Any] | None) -> Profile:
    """`normalizeThinkingProfile` (no OpenAI-compat mapped levels)."""
    levels = [lv for lv in dict.fromkeys(profile.levels) if lv in ("adaptive", "ultra") or (level_map or {}).get(lv, 0) is not None]
    levels.sort(key=lambda lv: RANKS[lv])
    default = profile.default if profile.default in levels else None
    return Profile(tuple(levels), default)


def thinking_profile(model: SummaryModel) -> Profile:
    """`resolveThinkingProfile` for the model (see the module docstring for the profiles ported)."""
    provider, reasoning = _provider(model), model.get("reasoning")
    level_map = model.get("thinkingLevelMap") if isinstance(model.get("thinkingLevelMap"), dict) else None
    plugin: Profile | None = None
    if provider in ("anthropic", "claude-cli"):
        plugin = Profile(("off",), "off") if provider == "claude-cli" and _family(model, "mythos-5") else claude_profile(model)
    elif provider in ("ollama", "ollama-cloud"):
        mid = str(model.get("id") or "")
        cloud = provider == "ollama-cloud" or _is_cloud_model_ref(mid)
        cloud_id = re.sub(r"(?::cloud|-cloud)$", "", mid.strip().lower())
        full = reasoning is True or (reasoning is None and cloud and (cloud_id == "glm-5.2" or re.fullmatch(r"deepseek-v4-(?:flash|pro)", cloud_id)))
        plugin = Profile(("off", "low", "medium", "high", "max"), "off") if full else Profile(("off",), "off")
    elif model.get("api") == "anthropic-messages":
        plugin = claude_profile(model)
    if plugin is not None and (reasoning is not False or plugin.keep_when_not_reasoning):
        return _normalize(plugin, level_map)
    if reasoning is False:
        return Profile(("off",), "off")
    extra = tuple(lv for lv in ("xhigh", "max") if level_map and level_map.get(lv) is not None)
    extra += ("ultra",) if "max" in extra else ()  # the built-in (openclaw) runtime adds ultra above max
    return _normalize(Profile((*BASE_LEVELS, *extra)), level_map)


def clamp_to_profile(profile: Profile, level: str) -> str:
    """`resolveSupportedThinkingLevelFromProfile`."""
    if level in profile.levels:
        return level
    if level == "adaptive" and profile.default and profile.default != "off":
        return profile.default
    rank = RANKS.get(level, math.nan)
    ranked = sorted(profile.levels, key=lambda lv: -RANKS[lv])
    below = [lv for lv in ranked if lv != "off" and RANKS[lv] <= rank]
    enabled = [lv for lv in ranked if lv != "off"]
    return below[0] if below else (enabled[-1] if enabled else "off")


def compaction_thinking_level(config: dict[str, Any] | None, session_level: str | None, model: SummaryModel | None = None) -> str:
    """`resolveEmbeddedCompactionThinkingLevel`: the configured level (`inherit`: the session's), else the model's
    provider default, else `low`; clamped to the model's profile when `model` is given."""
    defaults = ((config or {}).get("agents") or {}).get("defaults") or {}
    comp = defaults.get("compaction") if isinstance(defaults, dict) else None
    configured = comp.get("thinkingLevel") if isinstance(comp, dict) else None
    if configured == "inherit":
        requested = session_level
    else:
        requested = configured if configured is not None else (provider_compaction_default(model) if model else None) or DEFAULT_COMPACTION_THINKING
    if not requested:
        return "off"
    return clamp_to_profile(thinking_profile(model), requested) if model else requested


def agent_reasoning_option(thinking_level: str | None, model: SummaryModel | None = None) -> str | None:
    """Agent core `resolveAgentReasoningOption(model, level)` (`off`: the model's `thinkingLevelMap.off`, Fable's
    `low`, else `off` unless the map says `off: null`)."""
    level = thinking_level or DEFAULT_COMPACTION_THINKING
    if level != "off":
        return level
    m = model or {}
    level_map = m.get("thinkingLevelMap") if isinstance(m.get("thinkingLevelMap"), dict) else None
    claude_api = m.get("api") in ("anthropic-messages", "bedrock-converse-stream")
    fallback = (level_map or {}).get("off") or ("low" if claude_api and _fable5(m) else None)
    if fallback in _ENABLED_EFFORTS:
        return str(fallback)
    if level_map is None or level_map.get("off", 0) is not None or (m.get("api") == "anthropic-messages" and (_sonnet5(m) or _opus5(m))):
        return "off"
    return None


# ---------------------------------------------------------------------------------------------- the request

_MISSING = object()
_GPT_EFFORTS = {
    "5": ("minimal", "low", "medium", "high"),
    "51": ("none", "low", "medium", "high"),
    "52": ("none", "low", "medium", "high", "xhigh"),
    "56": ("none", "low", "medium", "high", "xhigh", "max"),
    "6-astra": ("low", "medium", "high", "xhigh", "max"),
    "codex": ("low", "medium", "high", "xhigh"),
    "pro": ("medium", "high", "xhigh"),
    "5-pro": ("high",),
    "51-codex-max": ("none", "medium", "high", "xhigh"),
    "51-codex-mini": ("medium",),
}
GENERIC_EFFORTS = ("low", "medium", "high")
_OPENAI_APIS = ("openai-completions", "openai-responses", "openai-chatgpt-responses", "azure-openai-responses")


def _level_map(model: SummaryModel) -> Mapping[str, Any] | None:
    """`resolveThinkingLevelMap`: Claude's native map on `anthropic-messages`, else the model's."""
    own = model.get("thinkingLevelMap") if isinstance(model.get("thinkingLevelMap"), dict) else None
    return (_claude_level_map(model) or own) if model.get("api") == "anthropic-messages" else own


def openai_model_efforts(model: SummaryModel) -> tuple[str, ...] | None:
    """`resolveOpenAIModelReasoningEfforts` (no compat): the efforts a known GPT model takes, None for another."""
    mid = re.sub(r"-\d{4}-\d{2}-\d{2}$", "", str(model.get("id") or "").strip().lower())
    api = str(model.get("api") or "")
    wide = api != "openai-completions"
    if mid in ("gpt-6-astra", "gpt-6-sol", "gpt-6-luna") and api != "azure-openai-responses":
        return (_GPT_EFFORTS["6-astra"] if wide else _GPT_EFFORTS["codex"]) if mid == "gpt-6-astra" else _GPT_EFFORTS["56" if wide else "52"]
    table = (
        (r"gpt-5\.6(?:-|$)", "56" if wide else "52"), (r"gpt-5\.1-codex-mini$", "51-codex-mini"), (r"gpt-5\.1-codex-max$", "51-codex-max"),
        (r"gpt-5(?:\.\d+)?-codex(?:-|$)", "codex"), (r"gpt-5-pro$", "5-pro"), (r"gpt-5\.[2-9](?:\.\d+)?-pro(?:-|$)", "pro"),
        (r"gpt-5\.[2-9](?:\.\d+)?(?:-|$)", "52"), (r"gpt-5\.1(?:-|$)", "51"), (r"gpt-5(?:-|$)", "5"),
    )
    return next((_GPT_EFFORTS[key] for pattern, key in table if re.match(pattern, mid)), None)


def supported_levels(model: SummaryModel) -> list[str]:
    """`getSupportedThinkingLevels`."""
    if not model.get("reasoning") and not (model.get("api") == "anthropic-messages" and _mandatory_adaptive(model)):
        return ["off"]
    level_map = _level_map(model) or {}
    efforts = openai_model_efforts(model) if model.get("api") in _OPENAI_APIS else None
    out = []
    for level in CATALOG_LEVELS:
        mapped = level_map.get(level, _MISSING)
        if mapped is None:
            continue
        if level in ("xhigh", "max") and not (efforts != () and (mapped is not _MISSING or (efforts is not None and level in efforts))):
            continue
        out.append(level)
    return out


def clamp_thinking_level(model: SummaryModel, level: str) -> str:
    """`@openclaw/ai` `clampThinkingLevel`."""
    available = supported_levels(model)
    if level in available:
        return level
    if level not in CATALOG_LEVELS:
        return available[0] if available else "off"
    i = CATALOG_LEVELS.index(level)
    lower, upper = list(reversed(CATALOG_LEVELS[:i])), list(CATALOG_LEVELS[i:])
    lower_first = level in ("xhigh", "max") and (_level_map(model) or {}).get(level, _MISSING) is None
    order = lower + upper if lower_first else upper + lower
    return next((lv for lv in order if lv in available), available[0] if available else "off")


def _openai_effort(model: SummaryModel, reasoning: str | None) -> str | None:
    """`resolveOpenAIRequestReasoning(...).effort` without compat overrides."""
    requested = (reasoning or "off").strip()
    requested = requested.lower() if requested.lower() in ("none", "off", *_ENABLED_EFFORTS) else requested
    own: Mapping[str, Any] = model["thinkingLevelMap"] if isinstance(model.get("thinkingLevelMap"), dict) else {}
    mapped = own.get(requested, _MISSING) if requested in CATALOG_LEVELS else _MISSING
    intent = (mapped.strip() if isinstance(mapped, str) else None) if mapped is not _MISSING else (None if reasoning is None else requested)
    supported = openai_model_efforts(model)
    if not model.get("reasoning") or supported == () or intent is None:
        return None
    if supported is None:
        return intent if mapped is not _MISSING else ("none" if requested == "off" else requested)
    if intent in supported:
        return intent
    if requested == "off" and "none" in supported:
        return "none"
    if requested in ("none", "off") or intent in ("none", "off"):
        return None
    rank = _ENABLED_EFFORTS.index(intent) if intent in _ENABLED_EFFORTS else -1
    ranked = [e for e in _ENABLED_EFFORTS if e in supported]
    below = [e for e in ranked if _ENABLED_EFFORTS.index(e) <= rank]
    pick = None if rank < 0 else (below[-1] if below else (ranked[0] if ranked else None))
    return pick or next((e for e in supported if e not in ("none", "off")), None)


def _anthropic_effort(model: SummaryModel, level: str | None) -> str:
    """`resolveAnthropicThinkingEffort`."""
    requested = level or ("medium" if _opus55(model) or _fable5(model) else None)
    native = _claude_level_map(model)
    clamp_model = {**model, **({"thinkingLevelMap": native} if native else {})}
    resolved = clamp_thinking_level(clamp_model, requested) if requested else None
    mapped = (native or {}).get(resolved) if resolved else None
    if isinstance(mapped, str):
        return mapped
    if resolved in ("off", "minimal", "low"):
        return "low"
    if resolved == "medium":
        return "medium"
    if resolved == "xhigh":
        return "xhigh" if _native_xhigh(model) else "high"
    if resolved == "max":
        return "max" if _native_max(model) else "high"
    return "high"


def _anthropic_fields(model: SummaryModel, option: str | None, max_tokens: int) -> dict[str, Any]:
    """`streamSimpleAnthropic` → `streamAnthropic` → `buildAnthropicGenerationParams`: `thinking`, `output_config`
    and `max_tokens`."""
    model_max = model.get("maxTokens") if isinstance(model.get("maxTokens"), int) else None
    base = max(1, min(max_tokens, model_max if model_max is not None else max_tokens))
    mandatory = _mandatory_adaptive(model)
    effort: str | None = None
    budget: int | None = None
    out_tokens = base
    if option == "off" and not mandatory:
        enabled = False
    else:
        level = ("low" if mandatory else "high") if option == "off" else option
        if _opus5(model) or _sonnet5(model) or (level and supports_adaptive(model)):
            enabled, effort = True, _anthropic_effort(model, level)
        elif not level:
            enabled = mandatory
        else:
            budget = THINKING_BUDGETS.get({"xhigh": "high"}.get(level, level))  # none for another level: no thinking
            if budget is not None:
                out_tokens = min(base + budget, model_max if model_max is not None else base)
                if out_tokens <= budget:
                    budget = max(0, out_tokens - 1024)
            enabled = budget is not None and budget >= ANTHROPIC_MIN_THINKING_BUDGET
            out_tokens, budget = (out_tokens, budget) if enabled else (base, None)
    if enabled and not supports_adaptive(model) and not ANTHROPIC_MIN_THINKING_BUDGET <= (budget or 1024) < out_tokens:
        enabled, budget = False, None  # normalizeAnthropicThinkingOptions
    fields: dict[str, Any] = {"max_tokens": out_tokens}
    if not (mandatory or model.get("reasoning") or supports_adaptive(model)):
        return fields
    if not (mandatory or enabled):
        fields["thinking"] = {"type": "disabled"}
    elif supports_adaptive(model):
        fields["thinking"] = {"type": "adaptive", "display": "summarized"}
        effort = effort or (_anthropic_effort(model, None) if mandatory else None)
        if effort:
            fields["output_config"] = {"effort": effort}
    else:
        fields["thinking"] = {"type": "enabled", "budget_tokens": budget or 1024, "display": "summarized"}
    return fields


def summary_request_reasoning(model: SummaryModel, thinking_level: str | None, max_tokens: int) -> dict[str, Any]:
    """The body fields a summary call's reasoning puts in the request `@openclaw/ai` sends (see the module
    docstring): for `anthropic-messages` `thinking` / `output_config` / `max_tokens` (always given: the budget raises
    it), for `openai-completions` `reasoning_effort` or OpenRouter's `reasoning`. `thinking_level`: the compaction's
    (`compaction_thinking_level`), `max_tokens`: the prompt's output budget."""
    reasoning_model = bool(model.get("reasoning")) or (model.get("api") in ("anthropic-messages", "bedrock-converse-stream") and _fable5(model))
    option = agent_reasoning_option(thinking_level, model) if reasoning_model and thinking_level else None
    if model.get("api") == "anthropic-messages":
        return _anthropic_fields(model, option, max_tokens)
    clamped = clamp_thinking_level(model, option) if option else None
    effort = _openai_effort(model, clamped) if clamped is not None else None
    if effort is None or not model.get("reasoning"):
        return {}
    url = str(model.get("baseUrl") or "")
    if _provider(model) == "openrouter" or "openrouter.ai" in url:
        return {"reasoning": {"effort": effort}}
    if _provider(model) in _NO_EFFORT_PROVIDERS or any(h in url for h in ("api.together.", "api.z.ai", "api.mistral.ai", "api.x.ai")):
        return {}
    return {"reasoning_effort": effort}
