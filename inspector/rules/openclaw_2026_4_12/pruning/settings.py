"""Context-pruning settings with OpenClaw's names, defaults and normalization (spec §3.1).

Sources: OpenClaw `src/agents/pi-hooks/context-pruning/settings.ts` (`DEFAULT_CONTEXT_PRUNING_SETTINGS`,
`computeEffectiveSettings`), `src/cli/parse-duration.ts` (`parseDurationMs`) and
`extensions/anthropic/config-defaults.ts` (`applyAnthropicConfigDefaults`: mode `cache-ttl`, ttl `1h`).

Command-line overrides are merged into the raw `contextPruning` object *before* normalization, so a flag
value is clamped exactly as the same value in `openclaw.json` would be.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.js.jsjson import js_number_to_string
from inspector.js.utf16 import js_trim

MODE_CACHE_TTL = "cache-ttl"
ANTHROPIC_DEFAULT_TTL = "1h"
CLAUDE_CLI_BACKEND_ID = "claude-cli"

DEFAULT_TTL_MS = 5 * 60 * 1000
DEFAULT_KEEP_LAST_ASSISTANTS = 3
DEFAULT_SOFT_TRIM_RATIO = 0.3
DEFAULT_HARD_CLEAR_RATIO = 0.5
DEFAULT_MIN_PRUNABLE_TOOL_CHARS = 50_000
DEFAULT_SOFT_TRIM_MAX_CHARS = 4_000
DEFAULT_SOFT_TRIM_HEAD_CHARS = 1_500
DEFAULT_SOFT_TRIM_TAIL_CHARS = 1_500
DEFAULT_HARD_CLEAR_PLACEHOLDER = "[Old tool result content cleared]"

CONFIG_KEYS: tuple[str, ...] = (
    "ttl", "keepLastAssistants", "softTrimRatio", "hardClearRatio", "minPrunableToolChars", "softTrim.maxChars",
    "softTrim.headChars", "softTrim.tailChars", "hardClear.enabled", "hardClear.placeholder", "tools.allow", "tools.deny",
)
"""The `contextPruning` keys besides `mode` a user may set (the settings panel's fields), in its order."""

from inspector.rules.durations import MAX_SAFE_INTEGER, DurationError, parse_duration_ms


def js_json_number(value: int | float) -> int | float:
    """A number with the value and digits JavaScript's `JSON.stringify` would write: an integer past 2**53 is
    the nearest double (`2**60` -> `1152921504606847000`, `10**300` -> `1e+300`)."""
    if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
        text = js_number_to_string(value)
        return int(text) if text.lstrip("-").isdigit() else float(text)
    return value


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (for reading optional config sections)."""
    return value if isinstance(value, dict) else {}


def _is_js_number(value: Any) -> bool:
    """`typeof value === "number" && Number.isFinite(value)` for a value parsed from JSON."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _floor_non_negative(value: float) -> int:
    return max(0, math.floor(value))


def _clamp01(value: float) -> float:
    return min(1, max(0, value))


@dataclass(slots=True)
class SoftTrimSettings:
    """`softTrim`: trim tool results longer than `max_chars` to head + tail."""

    max_chars: int = DEFAULT_SOFT_TRIM_MAX_CHARS
    head_chars: int = DEFAULT_SOFT_TRIM_HEAD_CHARS
    tail_chars: int = DEFAULT_SOFT_TRIM_TAIL_CHARS


@dataclass(slots=True)
class HardClearSettings:
    """`hardClear`: replace whole old tool results with a placeholder."""

    enabled: bool = True
    placeholder: str = DEFAULT_HARD_CLEAR_PLACEHOLDER


@dataclass(slots=True)
class ContextPruningSettings:
    """OpenClaw's `EffectiveContextPruningSettings`, in snake_case; `to_json()` gives the camelCase form."""

    mode: str = MODE_CACHE_TTL
    ttl_ms: int = DEFAULT_TTL_MS
    keep_last_assistants: int = DEFAULT_KEEP_LAST_ASSISTANTS
    soft_trim_ratio: float = DEFAULT_SOFT_TRIM_RATIO
    hard_clear_ratio: float = DEFAULT_HARD_CLEAR_RATIO
    min_prunable_tool_chars: int = DEFAULT_MIN_PRUNABLE_TOOL_CHARS
    tools: Any = field(default_factory=dict)
    soft_trim: SoftTrimSettings = field(default_factory=SoftTrimSettings)
    hard_clear: HardClearSettings = field(default_factory=HardClearSettings)

    def to_json(self) -> dict[str, Any]:
        """The settings under OpenClaw's own names (`ttlMs`, `keepLastAssistants`, `softTrim.maxChars`, ...)."""
        n = js_json_number
        return {
            "mode": self.mode,
            "ttlMs": n(self.ttl_ms),
            "keepLastAssistants": n(self.keep_last_assistants),
            "softTrimRatio": self.soft_trim_ratio,
            "hardClearRatio": self.hard_clear_ratio,
            "minPrunableToolChars": n(self.min_prunable_tool_chars),
            "tools": copy.deepcopy(self.tools),
            "softTrim": {
                "maxChars": n(self.soft_trim.max_chars),
                "headChars": n(self.soft_trim.head_chars),
                "tailChars": n(self.soft_trim.tail_chars),
            },
            "hardClear": {"enabled": self.hard_clear.enabled, "placeholder": self.hard_clear.placeholder},
        }


DEFAULT_CONTEXT_PRUNING_SETTINGS = ContextPruningSettings()


def compute_effective_settings(raw: Any) -> ContextPruningSettings | None:
    """OpenClaw `computeEffectiveSettings`: None unless `raw.mode == "cache-ttl"`; otherwise defaults + raw, normalized."""
    if not isinstance(raw, dict) or raw.get("mode") != MODE_CACHE_TTL:
        return None
    s = ContextPruningSettings()
    ttl = raw.get("ttl")
    if isinstance(ttl, str):
        try:
            s.ttl_ms = parse_duration_ms(ttl, default_unit="m")
        except (DurationError, OverflowError):
            pass  # keep the default ttl, as OpenClaw does
    if _is_js_number(raw.get("keepLastAssistants")):
        s.keep_last_assistants = _floor_non_negative(raw["keepLastAssistants"])
    if _is_js_number(raw.get("softTrimRatio")):
        s.soft_trim_ratio = _clamp01(raw["softTrimRatio"])
    if _is_js_number(raw.get("hardClearRatio")):
        s.hard_clear_ratio = _clamp01(raw["hardClearRatio"])
    if _is_js_number(raw.get("minPrunableToolChars")):
        s.min_prunable_tool_chars = _floor_non_negative(raw["minPrunableToolChars"])
    if _js_truthy(raw.get("tools")):
        s.tools = copy.deepcopy(raw["tools"])
    soft = raw.get("softTrim")
    if isinstance(soft, dict):
        if _is_js_number(soft.get("maxChars")):
            s.soft_trim.max_chars = _floor_non_negative(soft["maxChars"])
        if _is_js_number(soft.get("headChars")):
            s.soft_trim.head_chars = _floor_non_negative(soft["headChars"])
        if _is_js_number(soft.get("tailChars")):
            s.soft_trim.tail_chars = _floor_non_negative(soft["tailChars"])
    hard = raw.get("hardClear")
    if isinstance(hard, dict):
        if isinstance(hard.get("enabled"), bool):
            s.hard_clear.enabled = hard["enabled"]
        placeholder = hard.get("placeholder")
        if isinstance(placeholder, str) and js_trim(placeholder):
            s.hard_clear.placeholder = js_trim(placeholder)
    return s


def _js_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


# ---------------------------------------------------------------------------------------------------------
# Where the raw object comes from: openclaw.json, the Anthropic plugin's defaults, command-line flags.


@dataclass(slots=True)
class AnthropicAutoDefault:
    """Whether OpenClaw's bundled Anthropic plugin would fill in `mode: "cache-ttl"` (and `ttl: "1h"`)."""

    applies: bool
    auth_mode: str | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"applies": self.applies, "auth_mode": self.auth_mode, "ttl": ANTHROPIC_DEFAULT_TTL, "reason": self.reason}


def anthropic_auth_mode(config: dict[str, Any]) -> str | None:
    """`resolveAnthropicDefaultAuthMode` from the config's auth profiles only (`api_key`, `oauth` or None).

    OpenClaw also looks at the gateway's `ANTHROPIC_OAUTH_TOKEN` / `ANTHROPIC_API_KEY`; this tool does not read
    environment credentials, so that case is reported as unknown by the caller.
    """
    auth = as_dict(config.get("auth"))
    profiles = as_dict(auth.get("profiles"))
    order = as_dict(auth.get("order"))
    ordered: list[Any] = []
    for key in ("anthropic", CLAUDE_CLI_BACKEND_ID):
        if isinstance(order.get(key), list):
            ordered.extend(order[key])
    for profile_id in ordered:
        entry = profiles.get(profile_id) if isinstance(profile_id, str) else None
        if not isinstance(entry, dict) or entry.get("provider") not in ("anthropic", CLAUDE_CLI_BACKEND_ID):
            continue
        if entry.get("provider") == CLAUDE_CLI_BACKEND_ID:
            return "oauth"
        if entry.get("mode") == "api_key":
            return "api_key"
        if entry.get("mode") in ("oauth", "token"):
            return "oauth"
    anthropic_profiles = [
        p for p in profiles.values() if isinstance(p, dict) and p.get("provider") in ("anthropic", CLAUDE_CLI_BACKEND_ID)
    ]
    has_api_key = any(p.get("provider") == "anthropic" and p.get("mode") == "api_key" for p in anthropic_profiles)
    has_oauth = any(
        p.get("provider") == CLAUDE_CLI_BACKEND_ID or p.get("mode") in ("oauth", "token") for p in anthropic_profiles
    )
    if has_api_key and not has_oauth:
        return "api_key"
    if has_oauth and not has_api_key:
        return "oauth"
    return None


def anthropic_auto_default(config: dict[str, Any] | None) -> AnthropicAutoDefault:
    """Would `applyAnthropicConfigDefaults` set `contextPruning.mode = "cache-ttl"` (ttl default `1h`)?"""
    config = config if isinstance(config, dict) else {}
    agents = config.get("agents") if isinstance(config.get("agents"), dict) else None
    defaults = agents.get("defaults") if agents is not None else None
    if not isinstance(defaults, dict):
        return AnthropicAutoDefault(False, None, "no agents.defaults in the config: the Anthropic plugin adds nothing")
    cp = defaults.get("contextPruning")
    if isinstance(cp, dict) and "mode" in cp:  # `mode === undefined`: a JSON null counts as set
        return AnthropicAutoDefault(False, None, f"contextPruning.mode is set ({cp.get('mode')!r})")
    mode = anthropic_auth_mode(config)
    if mode is None:
        return AnthropicAutoDefault(
            False,
            None,
            "no Anthropic auth profile in the config (OpenClaw would still apply it if the gateway's environment "
            "has ANTHROPIC_API_KEY or ANTHROPIC_OAUTH_TOKEN; not checked)",
        )
    return AnthropicAutoDefault(True, mode, f"Anthropic auth ({mode}) configured and contextPruning.mode unset")


def raw_context_pruning(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """`agents.defaults.contextPruning` from a parsed openclaw.json, or None."""
    if not isinstance(config, dict):
        return None
    agents = config.get("agents")
    defaults = agents.get("defaults") if isinstance(agents, dict) else None
    cp = defaults.get("contextPruning") if isinstance(defaults, dict) else None
    return cp if isinstance(cp, dict) else None


@dataclass(slots=True)
class SettingsOverrides:
    """Command-line overrides, in the raw `contextPruning` shape (None = not given)."""

    ttl: str | None = None
    keep_last_assistants: float | None = None
    soft_trim_ratio: float | None = None
    hard_clear_ratio: float | None = None
    min_prunable_tool_chars: float | None = None
    soft_trim_max_chars: float | None = None
    soft_trim_head_chars: float | None = None
    soft_trim_tail_chars: float | None = None
    hard_clear_enabled: bool | None = None
    hard_clear_placeholder: str | None = None
    tools_allow: list[str] | None = None
    tools_deny: list[str] | None = None

    def apply(self, raw: dict[str, Any]) -> list[str]:
        """Merge into `raw` (mutated); returns the dotted names that were overridden."""
        touched: list[str] = []

        def put(path: str, value: Any) -> None:
            if value is None:
                return
            *parents, leaf = path.split(".")
            node = raw
            for p in parents:
                if not isinstance(node.get(p), dict):
                    node[p] = {}
                node = node[p]
            node[leaf] = value
            touched.append(path)

        put("ttl", self.ttl)
        put("keepLastAssistants", self.keep_last_assistants)
        put("softTrimRatio", self.soft_trim_ratio)
        put("hardClearRatio", self.hard_clear_ratio)
        put("minPrunableToolChars", self.min_prunable_tool_chars)
        put("softTrim.maxChars", self.soft_trim_max_chars)
        put("softTrim.headChars", self.soft_trim_head_chars)
        put("softTrim.tailChars", self.soft_trim_tail_chars)
        put("hardClear.enabled", self.hard_clear_enabled)
        put("hardClear.placeholder", self.hard_clear_placeholder)
        put("tools.allow", list(self.tools_allow) if self.tools_allow else None)
        put("tools.deny", list(self.tools_deny) if self.tools_deny else None)
        return touched


@dataclass(slots=True)
class ResolvedSettings:
    """The effective settings for a preview, and where they came from.

    `configured_mode` is the mode OpenClaw would run with (after the Anthropic auto-default); `enabled` is True
    only when that is `cache-ttl`. The preview itself always uses cache-ttl settings, so a session can be
    previewed "before enabling it".
    """

    settings: ContextPruningSettings
    raw: dict[str, Any]
    configured_mode: Any
    enabled: bool
    anthropic_auto_default: AnthropicAutoDefault
    overridden: list[str]
    ttl_source: str

    def to_json(self) -> dict[str, Any]:
        return {
            "configured_mode": self.configured_mode,
            "enabled": self.enabled,
            "anthropic_auto_default": self.anthropic_auto_default.to_json(),
            "overridden_by_flags": list(self.overridden),
            "ttl_source": self.ttl_source,
        }


def resolve_settings(config: dict[str, Any] | None, overrides: SettingsOverrides | None = None) -> ResolvedSettings:
    """Effective settings from openclaw.json (+ the Anthropic plugin default) and command-line overrides."""
    return resolve_raw_settings(config, overrides, compute_effective_settings, lambda ttl: isinstance(ttl, str))


def resolve_raw_settings(
    config: dict[str, Any] | None,
    overrides: SettingsOverrides | None,
    compute: Callable[[Any], ContextPruningSettings | None],
    reads_ttl: Callable[[Any], bool],
) -> ResolvedSettings:
    """The steps every release's `resolve_settings` takes: the raw object from openclaw.json, the Anthropic
    auto-default, the overrides (`overrides.apply`), where the ttl came from, then `compute(raw)` in cache-ttl mode.
    `reads_ttl(value)` says whether the release reads that `ttl` (a string; 2026.9: a non-empty one)."""
    raw = copy.deepcopy(raw_context_pruning(config) or {})
    auto = anthropic_auto_default(config)
    ttl_source = "config" if reads_ttl(raw.get("ttl")) else "default"
    if auto.applies:
        raw["mode"] = MODE_CACHE_TTL
        if raw.get("ttl") is None:
            raw["ttl"] = ANTHROPIC_DEFAULT_TTL
            ttl_source = "anthropic-default"
    configured_mode = raw.get("mode")
    overridden = (overrides or SettingsOverrides()).apply(raw)
    if "ttl" in overridden:
        ttl_source = "flag"
    if reads_ttl(raw.get("ttl")):
        try:
            parse_duration_ms(raw["ttl"], default_unit="m")
        except (DurationError, OverflowError):
            ttl_source = f"default ({ttl_source} ttl {raw['ttl']!r} is invalid)"
    effective_raw = dict(raw)
    effective_raw["mode"] = MODE_CACHE_TTL
    settings = compute(effective_raw)
    assert settings is not None
    return ResolvedSettings(
        settings=settings,
        raw=raw,
        configured_mode=configured_mode,
        enabled=configured_mode == MODE_CACHE_TTL,
        anthropic_auto_default=auto,
        overridden=overridden,
        ttl_source=ttl_source,
    )
