"""Context-pruning settings of OpenClaw 2026.9.6: only `mode`, `ttl`, `tools.{allow,deny}` and `hardClear` are settings.

Sources: `resolveCacheTtlPruningSettings` (`src/agents/embedded-agent-runner/tool-result-truncation.ts`), the
config schema (`zod-schema`: `contextPruning` is `.strict()` with `mode`, `ttl`, `tools.{allow,deny}`,
`hardClear.{enabled,placeholder}`) and `RETIRED_AGENT_TUNING_PATHS` (`openclaw doctor` deletes
`keepLastAssistants`, `softTrimRatio`, `hardClearRatio`, `minPrunableToolChars` and `softTrim`). Those five are
built in now: 3 assistants kept, ratios 0.3 / 0.5, 50,000 prunable chars, soft trim over 4,000 chars to
1,500 + 1,500. `ContextPruningSettings` keeps 2026.4.12's shape, with the built-in values fixed, so the preview
reads one shape for either release.

Unchanged from 2026.4.12 and imported from there: `parseDurationMs`, the Anthropic plugin's auto-default (mode
`cache-ttl`, ttl `1h`) and reading the raw object from openclaw.json.

New names: `CONFIG_KEYS` (the dotted keys a user may set; 2026.4.12's module has the same name, listing all of
its keys), `RETIRED_KEYS`, `retired_keys(raw)`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import Any, TypeGuard

from inspector.js.jsjson import js_truthy
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.pruning.settings import (
    ANTHROPIC_DEFAULT_TTL,
    DEFAULT_HARD_CLEAR_PLACEHOLDER,
    DEFAULT_TTL_MS,
    MAX_SAFE_INTEGER,
    MODE_CACHE_TTL,
    AnthropicAutoDefault,
    ContextPruningSettings,
    DurationError,
    HardClearSettings,
    ResolvedSettings,
    SoftTrimSettings,
    anthropic_auth_mode,
    anthropic_auto_default,
    as_dict,
    js_json_number,
    parse_duration_ms,
    raw_context_pruning,
    resolve_raw_settings,
)
from inspector.rules.openclaw_2026_4_12.pruning.settings import SettingsOverrides as _AprilOverrides

__all__ = [
    "ANTHROPIC_DEFAULT_TTL",
    "CONFIG_KEYS",
    "DEFAULT_CONTEXT_PRUNING_SETTINGS",
    "MAX_SAFE_INTEGER",
    "MODE_CACHE_TTL",
    "RETIRED_KEYS",
    "AnthropicAutoDefault",
    "ContextPruningSettings",
    "DurationError",
    "HardClearSettings",
    "ResolvedSettings",
    "SettingsOverrides",
    "SoftTrimSettings",
    "anthropic_auth_mode",
    "anthropic_auto_default",
    "as_dict",
    "compute_effective_settings",
    "js_json_number",
    "parse_duration_ms",
    "raw_context_pruning",
    "resolve_settings",
    "retired_keys",
]

CONFIG_KEYS: tuple[str, ...] = ("ttl", "hardClear.enabled", "hardClear.placeholder", "tools.allow", "tools.deny")
"""The `contextPruning` keys besides `mode` that 2026.9.6's schema accepts (the settings panel's fields)."""
RETIRED_KEYS: tuple[str, ...] = ("keepLastAssistants", "softTrimRatio", "hardClearRatio", "minPrunableToolChars", "softTrim")
"""`contextPruning` keys of 2026.4.12 that 2026.9.6 rejects (`.strict()`) and `openclaw doctor` deletes."""

DEFAULT_CONTEXT_PRUNING_SETTINGS = ContextPruningSettings()
"""The built-in values (2026.4.12's defaults, now fixed) and the defaults of the settings that remain."""


def retired_keys(raw: Any) -> list[str]:
    """The retired keys present in a raw `contextPruning` object (the schema would reject the config)."""
    return [key for key in RETIRED_KEYS if isinstance(raw, dict) and key in raw]


def _reads_ttl(ttl: Any) -> TypeGuard[str]:
    """A `ttl` 2026.9 reads: a non-empty string (2026.4.12 reads an empty one too, and finds it invalid)."""
    return isinstance(ttl, str) and ttl != ""


def compute_effective_settings(raw: Any) -> ContextPruningSettings | None:
    """`resolveCacheTtlPruningSettings(config)`: None unless `mode == "cache-ttl"`; only `ttl`, `tools` and
    `hardClear` are read, every other value is the built-in one.

    `ttl` is parsed when truthy (a bad one keeps 5 minutes); `hardClear.enabled ?? true`; the placeholder is
    trimmed, an empty one gives the default; `tools` is kept as written (its globs are compiled when matched).
    """
    if not isinstance(raw, dict) or raw.get("mode") != MODE_CACHE_TTL:
        return None
    s = ContextPruningSettings()
    ttl = raw.get("ttl")
    s.ttl_ms = DEFAULT_TTL_MS
    if _reads_ttl(ttl):
        try:
            s.ttl_ms = parse_duration_ms(ttl, default_unit="m")
        except (DurationError, OverflowError):
            pass
    tools = raw.get("tools")
    if isinstance(tools, dict):
        s.tools = {k: copy.deepcopy(tools[k]) for k in ("allow", "deny") if k in tools}
    hard = as_dict(raw.get("hardClear"))
    enabled = hard.get("enabled")
    if enabled is not None:
        s.hard_clear.enabled = enabled if isinstance(enabled, bool) else js_truthy(enabled)
    placeholder = hard.get("placeholder")
    if isinstance(placeholder, str) and js_trim(placeholder):
        s.hard_clear.placeholder = js_trim(placeholder)
    else:
        s.hard_clear.placeholder = DEFAULT_HARD_CLEAR_PLACEHOLDER
    return s


@dataclass(slots=True)
class SettingsOverrides(_AprilOverrides):
    """Command-line overrides, in the raw `contextPruning` shape (None = not given); only 2026.9.6's settings.

    2026.4.12's overrides (its fields and its `apply`), of which the retired settings must stay None:
    `unsupported()` names the ones that are set, and `apply` refuses them."""

    _RETIRED = (
        ("keep_last_assistants", "keepLastAssistants"),
        ("soft_trim_ratio", "softTrimRatio"),
        ("hard_clear_ratio", "hardClearRatio"),
        ("min_prunable_tool_chars", "minPrunableToolChars"),
        ("soft_trim_max_chars", "softTrim.maxChars"),
        ("soft_trim_head_chars", "softTrim.headChars"),
        ("soft_trim_tail_chars", "softTrim.tailChars"),
    )

    def unsupported(self) -> list[str]:
        """The config names of the retired settings given (2026.9.6 has no such setting)."""
        return [name for attr, name in self._RETIRED if getattr(self, attr) is not None]

    def apply(self, raw: dict[str, Any]) -> list[str]:
        """Merge into `raw` (mutated); returns the dotted names that were overridden. Retired settings raise."""
        if self.unsupported():
            raise ValueError(f"not a setting in OpenClaw 2026.9.6: {', '.join(self.unsupported())}")
        return _AprilOverrides.apply(self, raw)


@dataclass(slots=True)
class ResolvedSettings2026_9(ResolvedSettings):
    """2026.4.12's `ResolvedSettings` plus the retired keys found in the config (`retired_keys`)."""

    retired: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """2026.4.12's object with `retired_keys` and `configurable` (the keys 2026.9.6 accepts)."""
        return ResolvedSettings.to_json(self) | {"retired_keys": list(self.retired), "configurable": ["mode", *CONFIG_KEYS]}


def resolve_settings(config: dict[str, Any] | None, overrides: SettingsOverrides | None = None) -> ResolvedSettings2026_9:
    """Effective settings from openclaw.json (+ the Anthropic plugin default, ttl `1h`) and command-line overrides
    (2026.4.12's steps, `resolve_raw_settings`, with this release's `compute_effective_settings`)."""
    base = resolve_raw_settings(config, overrides or SettingsOverrides(), compute_effective_settings, _reads_ttl)
    return ResolvedSettings2026_9(**{f.name: getattr(base, f.name) for f in fields(ResolvedSettings)}, retired=retired_keys(base.raw))
