"""Context-window resolution and the context-window guard (spec §5).

Mirrors OpenClaw ``src/agents/context-window-guard.ts`` (``resolveContextWindowInfo``,
``evaluateContextWindowGuard``) as of 2026.4:

1. ``--context-window`` flag of this tool (not an OpenClaw step; wins outright and is never capped);
2. ``models.providers[<provider>].models[id == modelId]``: ``contextTokens``, else ``contextWindow``. The provider key
   is matched after ``normalizeProviderId`` (trim, lower-case, aliases such as ``z.ai`` -> ``zai``); the model id must
   be equal exactly. Only the first model with that id is looked at;
3. the model's own window (here: :func:`inspector.rules.openclaw_2026_4_12.model_catalog.known_model`);
4. ``DEFAULT_CONTEXT_TOKENS`` (200000, ``src/agents/defaults.ts``);

then ``agents.defaults.contextTokens`` caps the result when it is smaller. Numbers go through
``normalizePositiveInt``: finite numbers only (no strings, no booleans), floored, and kept only when > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.model_catalog import known_model

DEFAULT_CONTEXT_TOKENS = 200_000
CONTEXT_WINDOW_HARD_MIN_TOKENS = 16_000
CONTEXT_WINDOW_WARN_BELOW_TOKENS = 32_000

CAP_KEY = "agents.defaults.contextTokens"


# OpenClaw's provider-id aliases (``src/agents/provider-id.ts`` normalizeProviderId, 2026.4).
_PROVIDER_ALIASES: dict[str, str] = {
    "modelstudio": "qwen",
    "qwencloud": "qwen",
    "z.ai": "zai",
    "z-ai": "zai",
    "opencode-zen": "opencode",
    "opencode-go-auth": "opencode-go",
    "kimi": "kimi",
    "kimi-code": "kimi",
    "kimi-coding": "kimi",
    "nvidia-api": "nvidia",
    "bedrock": "amazon-bedrock",
    "aws-bedrock": "amazon-bedrock",
    "bytedance": "volcengine",
    "doubao": "volcengine",
}

GuardLevel = Literal["ok", "warn", "block"]


def normalize_provider_id(provider: Any) -> str:
    """OpenClaw's ``normalizeProviderId``: non-strings become ``""``; trim, lower-case, then resolve aliases."""
    normalized = js_trim(provider).lower() if isinstance(provider, str) else ""
    return _PROVIDER_ALIASES.get(normalized, normalized)


def normalize_positive_int(value: Any) -> int | None:
    """OpenClaw's ``normalizePositiveInt``: a finite JS number, floored, if > 0; else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    floored = math.floor(value)
    return floored if floored > 0 else None


@dataclass(frozen=True)
class ContextWindow:
    """The context window a run would use, and where the number came from.

    ``source`` is one of ``"flag"``, ``"config:models.providers.<p>.models[<id>].contextTokens"`` (or
    ``.contextWindow``; ``<p>`` is the key as written in the config), ``"model:<provider>/<id>"`` (catalog entry
    that matched) or ``"default"``. When ``agents.defaults.contextTokens`` lowered the value, ``capped_by`` is
    ``"agents.defaults.contextTokens"``, ``source`` still names the uncapped value's origin and
    ``uncapped_tokens`` holds it.
    """

    tokens: int
    source: str
    capped_by: str | None = None
    uncapped_tokens: int | None = None

    @property
    def openclaw_source(self) -> str | None:
        """OpenClaw's own ``ContextWindowSource`` name (as in its logs); None for this tool's flag."""
        if self.capped_by:
            return "agentContextTokens"
        if self.source == "flag":
            return None
        if self.source.startswith("config:"):
            return "modelsConfig"
        if self.source.startswith("model:"):
            return "model"
        return "default"


def _get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None


def _from_models_config(config: dict[str, Any] | None, provider: str, model_id: str) -> ContextWindow | None:
    providers = _get(_get(config, "models"), "providers")
    if not isinstance(providers, dict):
        return None
    wanted = normalize_provider_id(provider)
    provider_key = next((key for key in providers if normalize_provider_id(key) == wanted), None)
    if provider_key is None:
        return None
    models = _get(providers[provider_key], "models")
    if not isinstance(models, list):
        return None
    match = next((m for m in models if isinstance(m, dict) and m.get("id") == model_id), None)
    if match is None:
        return None
    for field_name in ("contextTokens", "contextWindow"):
        tokens = normalize_positive_int(match.get(field_name))
        if tokens:
            return ContextWindow(tokens, f"config:models.providers.{provider_key}.models[{model_id}].{field_name}")
    return None


def flag_window_tokens(override: Any) -> int:
    """This tool's `--context-window`: a positive integer (`ValueError` otherwise), which wins outright in every
    release."""
    tokens = normalize_positive_int(override)
    if tokens is None:
        raise ValueError(f"context window override must be a positive integer, got {override!r}")
    return tokens


def resolve_context_window(
    provider: str | None,
    model_id: str | None,
    config: dict[str, Any] | None,
    override: int | None = None,
) -> ContextWindow:
    """Resolve the context window for ``provider``/``model_id`` the way OpenClaw does (see module docstring).

    ``config`` is the parsed OpenClaw config (``LoadedConfig.data``) or None. ``override`` is this tool's
    explicit ``--context-window``; it must be a positive integer (``ValueError`` otherwise).
    """
    if override is not None:
        return ContextWindow(flag_window_tokens(override), "flag")

    base = _from_models_config(config, provider or "", model_id or "")
    if base is None:
        model = known_model(provider, model_id)
        if model is not None:
            base = ContextWindow(model.context_window, f"model:{model.key}")
        else:
            base = ContextWindow(DEFAULT_CONTEXT_TOKENS, "default")

    cap = normalize_positive_int(_get(_get(_get(config, "agents"), "defaults"), "contextTokens"))
    if cap and cap < base.tokens:
        return ContextWindow(cap, base.source, capped_by=CAP_KEY, uncapped_tokens=base.tokens)
    return base


@dataclass(frozen=True)
class Guard:
    """Outcome of OpenClaw's context-window guard for one window size.

    ``level`` is ``"block"`` when ``0 < tokens < hard_min`` (OpenClaw refuses the run), ``"warn"`` when
    ``0 < tokens < warn_below`` (logged), else ``"ok"`` (also for 0: OpenClaw only judges positive sizes).
    ``message`` is OpenClaw's own text for that case (the error for block, the log line for warn), ``""`` for ok.
    """

    tokens: int
    level: GuardLevel
    warn_below: int
    hard_min: int
    message: str

    @property
    def should_warn(self) -> bool:
        """OpenClaw's ``shouldWarn`` (true for block too)."""
        return self.level != "ok"

    @property
    def should_block(self) -> bool:
        """OpenClaw's ``shouldBlock``."""
        return self.level == "block"


def evaluate_context_window_guard(
    tokens: int | float | ContextWindow,
    *,
    provider: str | None = None,
    model_id: str | None = None,
    source: str | None = None,
    warn_below_tokens: int | None = None,
    hard_min_tokens: int | None = None,
) -> Guard:
    """OpenClaw's ``evaluateContextWindowGuard`` plus the messages ``run.ts`` logs/throws.

    ``tokens`` may be a :class:`ContextWindow`; then its OpenClaw source name is used in the warning unless
    ``source`` is given. Thresholds default to ``CONTEXT_WINDOW_WARN_BELOW_TOKENS`` / ``..._HARD_MIN_TOKENS``
    and are floored and kept >= 1, as in OpenClaw.
    """
    if isinstance(tokens, ContextWindow):
        source = source if source is not None else (tokens.openclaw_source or tokens.source)
        tokens = tokens.tokens
    if warn_below_tokens is None:
        warn_below_tokens = CONTEXT_WINDOW_WARN_BELOW_TOKENS
    if hard_min_tokens is None:
        hard_min_tokens = CONTEXT_WINDOW_HARD_MIN_TOKENS
    warn_below = max(1, math.floor(warn_below_tokens))
    hard_min = max(1, math.floor(hard_min_tokens))
    value = max(0, math.floor(tokens))
    if 0 < value < hard_min:
        message = f"Model context window too small ({value} tokens). Minimum is {hard_min}."
        return Guard(value, "block", warn_below, hard_min, message)
    if 0 < value < warn_below:
        ref = f"{provider or 'unknown'}/{model_id or 'unknown'}"
        message = f"low context window: {ref} ctx={value} (warn<{warn_below}) source={source or 'unknown'}"
        return Guard(value, "warn", warn_below, hard_min, message)
    return Guard(value, "ok", warn_below, hard_min, "")
