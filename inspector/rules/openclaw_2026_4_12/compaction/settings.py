"""The compaction settings OpenClaw 2026.4 runs pi with, its compaction mode and the context engine.

Sources (OpenClaw 2026.4 compiled `dist/`):

- `pi-settings-*.js` `applyPiCompactionSettingsFromConfig`: `reserveTokens = max(configured ?? pi's 16384,
  floor)`, the floor being `agents.defaults.compaction.reserveTokensFloor` (a finite number >= 0) or 20000;
  `keepRecentTokens = configured (a positive number) ?? pi's 20000`.
- `io-*.js` `materializeRuntimeConfig`: `applyAgentDefaults` always creates `agents.defaults`, then
  `applyCompactionDefaults` sets `compaction.mode = "safeguard"` unless a mode is set; `model-context-tokens-*.js`
  `resolveCompactionMode`: `safeguard` when `compaction.provider` is set or the mode is `safeguard`, else
  `default` (pi's own summarizer).
- `registry-*.js` `resolveContextEngine`: `plugins.slots.contextEngine` (trimmed, non-empty) or `legacy`.
- `model-context-tokens-*.js` `buildEmbeddedExtensionFactories`: the safeguard runtime's `maxHistoryShare`
  (default 0.5), `recentTurnsPreserve` (default 3, at most 12), `provider`, `qualityGuard`.

pi's own settings files (`~/.pi/agent/settings.json`, project settings) are not read: pi's defaults stand for them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.compaction.prepare import (
    DEFAULT_KEEP_RECENT_TOKENS,
    DEFAULT_RESERVE_TOKENS,
    CompactionSettings,
)
from inspector.rules.openclaw_2026_4_12.compaction.safeguard import DEFAULT_MAX_HISTORY_SHARE, resolve_recent_turns_preserve

DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR = 20000
"""OpenClaw `DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR`."""
LEGACY_CONTEXT_ENGINE = "legacy"
_CFG = "agents.defaults.compaction"


def _get(mapping: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _non_negative_int(value: Any) -> int | None:
    """OpenClaw `toNonNegativeInt`."""
    return math.floor(value) if _finite(value) and value >= 0 else None


def _positive_int(value: Any) -> int | None:
    """OpenClaw `toPositiveInt`."""
    return math.floor(value) if _finite(value) and value > 0 else None


@dataclass(frozen=True, slots=True)
class EffectiveSettings:
    """The settings a compaction would use, each with where it came from."""

    keep_recent_tokens: int
    keep_recent_source: str
    reserve_tokens: int
    reserve_source: str
    reserve_floor: int
    reserve_floor_source: str
    max_history_share: float
    recent_turns_preserve: int
    provider: str | None
    quality_guard: bool

    def compaction_settings(self) -> CompactionSettings:
        """pi's `CompactionSettings` for `prepareCompaction`."""
        return CompactionSettings(self.keep_recent_tokens, self.reserve_tokens, True)

    def to_json(self) -> dict[str, Any]:
        return {
            "keepRecentTokens": {"value": self.keep_recent_tokens, "source": self.keep_recent_source},
            "reserveTokens": {
                "value": self.reserve_tokens,
                "source": self.reserve_source,
                "floor": self.reserve_floor,
                "floor_source": self.reserve_floor_source,
            },
            "maxHistoryShare": self.max_history_share,
            "recentTurnsPreserve": self.recent_turns_preserve,
            "provider": self.provider,
            "qualityGuard": self.quality_guard,
        }


@dataclass(frozen=True, slots=True)
class ReserveTokens:
    """OpenClaw's effective pi `reserveTokens`, where it came from, and the floor it was held to.

    `source` is `"flag"` (this tool's `--reserve-tokens`, the floor not applied), `"config:agents.defaults.compaction.reserveTokens"`,
    `"pi default"` (pi's 16384) or `"floor"` (the floor was larger); `floor_source` is
    `"config:agents.defaults.compaction.reserveTokensFloor"` or `"openclaw default"` (20000). `configured` is the
    config's `reserveTokens` as OpenClaw reads it (`toNonNegativeInt`), None when absent or unusable.
    """

    reserve_tokens: int
    source: str
    configured: int | None
    floor: int
    floor_source: str

    def to_json(self) -> dict[str, Any]:
        """The JSON form of the timeline's `compaction_reserve` (stable field names)."""
        return {
            "reserve_tokens": self.reserve_tokens,
            "configured": self.configured,
            "floor": self.floor,
            "source": self.source,
            "floor_source": self.floor_source,
        }

    def describe(self) -> str:
        """Where the reserve came from, for a person: `floor: openclaw default 20,000`, `pi default`, ..."""
        if self.source == "floor":
            return f"floor: {self.floor_source} {self.floor:,}"
        return self.source


def resolve_reserve_tokens(config: dict[str, Any] | None, reserve_tokens: int | None = None) -> ReserveTokens:
    """OpenClaw `applyPiCompactionSettingsFromConfig`'s `reserveTokens`: `max(configured ?? pi's 16384, floor)`.

    The floor is `resolveCompactionReserveTokensFloor`: `reserveTokensFloor` when a finite number >= 0, else 20000.
    An explicit `reserve_tokens` (this tool's flag) wins and is not held to the floor.
    """
    comp = _get(config, "agents", "defaults", "compaction")
    configured = _non_negative_int(_get(comp, "reserveTokens"))
    raw_floor = _get(comp, "reserveTokensFloor")
    if _finite(raw_floor) and raw_floor >= 0:
        floor, floor_source = math.floor(raw_floor), f"config:{_CFG}.reserveTokensFloor"
    else:
        floor, floor_source = DEFAULT_PI_COMPACTION_RESERVE_TOKENS_FLOOR, "openclaw default"
    if reserve_tokens is not None:
        return ReserveTokens(reserve_tokens, "flag", configured, floor, floor_source)
    base, base_source = (configured, f"config:{_CFG}.reserveTokens") if configured is not None else (DEFAULT_RESERVE_TOKENS, "pi default")
    reserve, source = (base, base_source) if base >= floor else (floor, "floor")
    return ReserveTokens(reserve, source, configured, floor, floor_source)


def resolve_keep_recent_tokens(comp: Any, keep_recent_tokens: int | None = None, default_source: str = "pi default") -> tuple[int, str]:
    """`keepRecentTokens` and where it came from: the flag, else the `compaction` config's (a positive number), else
    20000 (`default_source`: pi's default; 2026.9's agent core has the same one)."""
    if keep_recent_tokens is not None:
        return keep_recent_tokens, "flag"
    configured_keep = _positive_int(_get(comp, "keepRecentTokens"))
    if configured_keep is not None:
        return configured_keep, f"config:{_CFG}.keepRecentTokens"
    return DEFAULT_KEEP_RECENT_TOKENS, default_source


def resolve_settings(config: dict[str, Any] | None, keep_recent_tokens: int | None = None, reserve_tokens: int | None = None) -> EffectiveSettings:
    """OpenClaw's effective compaction settings; explicit values (this tool's flags) win over everything."""
    comp = _get(config, "agents", "defaults", "compaction")
    reserve = resolve_reserve_tokens(config, reserve_tokens)
    keep, keep_source = resolve_keep_recent_tokens(comp, keep_recent_tokens)
    share = _get(comp, "maxHistoryShare")
    provider = _get(comp, "provider")
    return EffectiveSettings(
        keep_recent_tokens=keep,
        keep_recent_source=keep_source,
        reserve_tokens=reserve.reserve_tokens,
        reserve_source=reserve.source,
        reserve_floor=reserve.floor,
        reserve_floor_source=reserve.floor_source,
        max_history_share=float(share) if _finite(share) else DEFAULT_MAX_HISTORY_SHARE,
        recent_turns_preserve=resolve_recent_turns_preserve(_get(comp, "recentTurnsPreserve")),
        provider=provider if isinstance(provider, str) and provider else None,
        quality_guard=_get(comp, "qualityGuard", "enabled") is True,
    )


@dataclass(frozen=True, slots=True)
class ModeInfo:
    """Which compaction runs: `safeguard` (OpenClaw's extension) or `default` (pi's summarizer), and why."""

    mode: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"mode": self.mode, "reason": self.reason}


def resolve_mode(config: dict[str, Any] | None) -> ModeInfo:
    """OpenClaw's compaction mode for this config (`applyCompactionDefaults` then `resolveCompactionMode`)."""
    comp = _get(config, "agents", "defaults", "compaction")
    if _get(comp, "provider"):
        return ModeInfo("safeguard", f"{_CFG}.provider is set")
    mode = _get(comp, "mode")
    if not mode:
        return ModeInfo("safeguard", f"{_CFG}.mode is unset: OpenClaw's config defaults set it to safeguard")
    if mode == "safeguard":
        return ModeInfo("safeguard", f"{_CFG}.mode is safeguard")
    return ModeInfo("default", f"{_CFG}.mode is {mode!r}: pi's own summarizer runs")


@dataclass(frozen=True, slots=True)
class ContextEngineInfo:
    """Which context engine owns compaction: `legacy` is OpenClaw's built-in; anything else is a plugin."""

    engine: str
    builtin: bool
    note: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.engine, "builtin": self.builtin, "note": self.note}


def resolve_context_engine(config: dict[str, Any] | None) -> ContextEngineInfo:
    """OpenClaw `resolveContextEngine`'s choice: `plugins.slots.contextEngine` or `legacy`."""
    slot = _get(config, "plugins", "slots", "contextEngine")
    engine = js_trim(slot) if isinstance(slot, str) and js_trim(slot) else LEGACY_CONTEXT_ENGINE
    if engine == LEGACY_CONTEXT_ENGINE:
        return ContextEngineInfo(engine, True, None)
    return ContextEngineInfo(
        engine,
        False,
        f"the context engine plugin {engine!r} may own compaction (then pi's auto-compaction is off and the plugin "
        "decides when and how to compact): this forecast is what OpenClaw's built-in engine would do",
    )
