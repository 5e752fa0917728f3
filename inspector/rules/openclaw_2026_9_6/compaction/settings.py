"""The compaction settings OpenClaw 2026.9.6 runs its agent core with, its compaction mode, and who compacts.

Sources (OpenClaw 2026.9.6 compiled `dist/`):

- `openclaw-runtime-agent-*.mjs` `applyAgentCompactionSettingsFromConfig`: `reserveTokens = max(the agent core's
  16384, 20000)`, capped by `agent-compaction-constants-*.mjs` `resolveEffectiveCompactionReserveTokens` at
  `floor(0.25 x window)`; `keepRecentTokens = configured (a positive number) ?? 20000`. The config keys
  `compaction.reserveTokens`, `reserveTokensFloor` and `maxHistoryShare` are retired (`legacy-*.mjs`
  `RETIRED_AGENT_TUNING_PATHS`: doctor deletes them), so they no longer change anything; the safeguard's
  `maxHistoryShare` is fixed at 0.5 (`runtime?.maxHistoryShare ?? .5`, never set).
- `builtin-openclaw-*.mjs` (the safeguard runtime): `qualityGuard.enabled ?? true` (on unless disabled).
- `openclaw-runtime-agent-*.mjs` `resolveEffectiveCompactionMode` (a provider forces safeguard; config defaults
  still set `mode: "safeguard"` when unset), `shouldDisableAgentAutoCompaction` (the agent core's own threshold
  compaction is off when a context engine owns compaction, in safeguard mode, or for a silent-overflow-prone
  model) and `isSilentOverflowProneModel` (provider `zai`, a `z-ai/` / `openrouter/z-ai/` or bare `glm-` model id).
- Manual compaction is the Gateway's `sessions.compact` RPC (`openclaw sessions compact KEY [--max-lines N]`,
  which needs a running Gateway).

New names here: `MAX_COMPACTION_RESERVE_RATIO`, `cap_reserve_tokens` / `CappedReserve` (the reserve cap),
`RETIRED_KEYS`, `is_silent_overflow_prone_model`, `resolve_compactor` / `Compactor` (who compacts).
Unchanged: `resolve_context_engine`, `ContextEngineInfo`, `ModeInfo`, `resolve_mode` (2026.4.12's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inspector.rules.openclaw_2026_4_12.compaction.prepare import DEFAULT_RESERVE_TOKENS
from inspector.rules.openclaw_2026_4_12.compaction.safeguard import resolve_recent_turns_preserve
from inspector.rules.openclaw_2026_4_12.compaction.settings import (
    DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR,
    ContextEngineInfo,
    ModeInfo,
    ReserveTokens,
    _get,
    resolve_context_engine,
    resolve_keep_recent_tokens,
    resolve_mode,
)
from inspector.rules.openclaw_2026_4_12.compaction.settings import EffectiveSettings as _AprilSettings

__all__ = [
    "ContextEngineInfo",
    "ModeInfo",
    "ReserveTokens",
    "resolve_context_engine",
    "resolve_mode",
]

DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR = DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR
"""OpenClaw 2026.9's name (`DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR`, no longer configurable) of 2026.4.12's
floor: the same 20000."""
MAX_COMPACTION_RESERVE_RATIO = 0.25
"""OpenClaw `MAX_COMPACTION_RESERVE_RATIO`: the reserve is at most a quarter of the window."""
MAX_HISTORY_SHARE = 0.5
"""The safeguard's `maxHistoryShare` (fixed: the config key is retired)."""
RETIRED_KEYS = ("reserveTokens", "reserveTokensFloor", "maxHistoryShare")
"""`agents.defaults.compaction` keys 2026.9 retired (`RETIRED_AGENT_TUNING_PATHS`): read no more."""
MANUAL_COMPACTION = "the Gateway's sessions.compact RPC (openclaw sessions compact KEY [--max-lines N]; needs a running Gateway)"
_CFG = "agents.defaults.compaction"


def _retired(config: dict[str, Any] | None) -> list[str]:
    comp = _get(config, "agents", "defaults", "compaction")
    return [k for k in RETIRED_KEYS if isinstance(comp, dict) and k in comp]


def resolve_reserve_tokens(config: dict[str, Any] | None, reserve_tokens: int | None = None) -> ReserveTokens:
    """OpenClaw 2026.9 `applyAgentCompactionSettingsFromConfig`'s requested reserve, before the window cap.

    `max(16384, 20000)` = 20000 whatever the config says (`reserveTokens` / `reserveTokensFloor` are retired);
    an explicit `reserve_tokens` (this tool's flag) stands for the requested reserve. `cap_reserve_tokens`
    applies the window cap.
    """
    floor = DEFAULT_AGENT_COMPACTION_RESERVE_TOKENS_FLOOR
    if reserve_tokens is not None:
        return ReserveTokens(reserve_tokens, "flag", None, floor, "openclaw default")
    reserve, source = (DEFAULT_RESERVE_TOKENS, "agent core default") if DEFAULT_RESERVE_TOKENS >= floor else (floor, "floor")
    return ReserveTokens(reserve, source, None, floor, "openclaw default")


@dataclass(frozen=True, slots=True)
class CappedReserve:
    """OpenClaw `resolveEffectiveCompactionReserveTokens`: `min(max(0, floor(requested)), floor(budget * 0.25))`."""

    requested: int
    cap: int
    effective: int

    @property
    def capped(self) -> bool:
        """Whether the window cap lowered the reserve."""
        return self.effective < max(0, self.requested)

    def to_json(self) -> dict[str, Any]:
        return {"requested": self.requested, "cap": self.cap, "effective": self.effective, "capped": self.capped}


def cap_reserve_tokens(reserve_tokens: float, context_window: float) -> CappedReserve:
    """The reserve OpenClaw 2026.9 uses for a window of `context_window` tokens (see `CappedReserve`)."""
    budget = max(1, math.floor(context_window))
    cap = math.floor(budget * MAX_COMPACTION_RESERVE_RATIO)
    requested = math.floor(reserve_tokens)
    return CappedReserve(requested, cap, min(max(0, requested), cap))


@dataclass(frozen=True, slots=True)
class EffectiveSettings(_AprilSettings):
    """2026.4.12's `EffectiveSettings` plus what 2026.9 adds: the reserve before the window cap
    (`reserve_requested`), the cap (`reserve_cap`, None without a window) and the retired config keys present."""

    reserve_requested: int = 0
    reserve_cap: int | None = None
    retired_keys: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = _AprilSettings.to_json(self)
        out["reserveTokens"]["requested"] = self.reserve_requested
        out["reserveTokens"]["cap"] = self.reserve_cap
        out["reserveTokens"]["capped"] = self.reserve_cap is not None and self.reserve_tokens < self.reserve_requested
        out["retiredKeys"] = list(self.retired_keys)
        return out


def resolve_settings(
    config: dict[str, Any] | None,
    keep_recent_tokens: int | None = None,
    reserve_tokens: int | None = None,
    context_window: int | None = None,
) -> EffectiveSettings:
    """OpenClaw 2026.9's effective compaction settings; explicit values (this tool's flags) win over the config.

    With `context_window` the reserve is capped at a quarter of it (as every embedded run does)."""
    comp = _get(config, "agents", "defaults", "compaction")
    reserve = resolve_reserve_tokens(config, reserve_tokens)
    capped = cap_reserve_tokens(reserve.reserve_tokens, context_window) if context_window is not None else None
    keep, keep_source = resolve_keep_recent_tokens(comp, keep_recent_tokens, "default")
    provider = _get(comp, "provider")
    effective = capped.effective if capped is not None else reserve.reserve_tokens
    return EffectiveSettings(
        keep_recent_tokens=keep,
        keep_recent_source=keep_source,
        reserve_tokens=effective,
        reserve_source=reserve.source + (" (capped at a quarter of the window)" if capped is not None and capped.capped else ""),
        reserve_floor=reserve.floor,
        reserve_floor_source=reserve.floor_source,
        max_history_share=MAX_HISTORY_SHARE,
        recent_turns_preserve=resolve_recent_turns_preserve(_get(comp, "recentTurnsPreserve")),
        provider=provider if isinstance(provider, str) and provider else None,
        quality_guard=_get(comp, "qualityGuard", "enabled") is not False,
        reserve_requested=reserve.reserve_tokens,
        reserve_cap=capped.cap if capped is not None else None,
        retired_keys=tuple(_retired(config)),
    )


def is_silent_overflow_prone_model(provider: Any, model_id: Any, base_url: Any = None) -> bool:
    """OpenClaw `isSilentOverflowProneModel`: provider `zai` (trimmed, lower-cased), or a model id starting
    `z-ai/`, `openrouter/z-ai/` or `glm-` (case-insensitive). `base_url` counts when its host is z.ai's (OpenClaw's
    `zai-native` endpoint class)."""
    if isinstance(provider, str) and provider.strip().lower() == "zai":
        return True
    if isinstance(base_url, str) and base_url:
        from urllib.parse import urlparse

        host = (urlparse(base_url).hostname or "").lower()
        if host == "z.ai" or host.endswith(".z.ai"):
            return True
    if isinstance(model_id, str) and model_id:
        low = model_id.lower()
        return low.startswith(("z-ai/", "openrouter/z-ai/", "glm-"))
    return False


@dataclass(frozen=True, slots=True)
class Compactor:
    """Who compacts this session under OpenClaw 2026.9.

    `agent_threshold` says whether the agent core's own threshold compaction (`contextTokens > window - reserve`
    after a turn) still runs, with `agent_threshold_reason`; the pre-prompt route and overflow recovery always
    run; `manual` is how a person compacts (the Gateway RPC)."""

    agent_threshold: bool
    agent_threshold_reason: str
    manual: str = MANUAL_COMPACTION

    def to_json(self) -> dict[str, Any]:
        return {
            "agent_threshold": self.agent_threshold,
            "agent_threshold_reason": self.agent_threshold_reason,
            "pre_prompt_route": True,
            "overflow_recovery": True,
            "manual": self.manual,
        }


def resolve_compactor(config: dict[str, Any] | None, model: dict[str, Any] | None = None) -> Compactor:
    """OpenClaw `shouldDisableAgentAutoCompaction` for this config and model (`{"provider", "modelId"}`)."""
    engine = resolve_context_engine(config)
    mode = resolve_mode(config)
    model = model or {}
    if not engine.builtin:
        return Compactor(False, f"the context engine plugin {engine.engine!r} owns compaction")
    if mode.mode == "safeguard":
        return Compactor(False, "safeguard mode: the agent core's own threshold compaction is off")
    if is_silent_overflow_prone_model(model.get("provider"), model.get("modelId"), model.get("baseUrl")):
        return Compactor(False, "a z.ai / GLM model (silent overflow): the agent core's own threshold compaction is off")
    if _get(config, "agents", "defaults", "compaction", "enabled") is False:
        return Compactor(False, f"{_CFG}.enabled is false")
    return Compactor(True, "default mode: the agent core compacts when the context passes window - reserve")
