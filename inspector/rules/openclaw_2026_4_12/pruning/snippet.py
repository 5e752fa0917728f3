"""Context-pruning settings back into openclaw.json: the "copy as snippet" text, and edits applied to a config.

`settings_snippet(settings)` is the `agents.defaults.contextPruning` object for the effective settings of a
preview, as a JSON document (valid JSON5, which is what OpenClaw parses openclaw.json with) ready to merge into
the user's config. By default it carries **every** value, `mode: "cache-ttl"` included: pasted into any config
it gives exactly the settings that were previewed, whatever OpenClaw's defaults or the Anthropic plugin's
auto-default (`ttl: "1h"`) would otherwise be. `minimal=True` keeps `mode` plus only the values that differ from
OpenClaw's defaults (`DEFAULT_CONTEXT_PRUNING_SETTINGS`); once `mode` is set the Anthropic auto-default no longer
applies, so the minimal form resolves to the same settings too. Both round-trip through `resolve_settings`.

`with_context_pruning_edits(config, edits)` is the other direction: a copy of a parsed openclaw.json with some
`contextPruning` values replaced (what the UI's settings panel feeds the preview). Unlike command-line
overrides it can also empty a `tools.allow` / `tools.deny` list.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from inspector.rules.durations import duration_setting
from inspector.rules.openclaw_2026_4_12.pruning.settings import (
    DEFAULT_CONTEXT_PRUNING_SETTINGS,
    MODE_CACHE_TTL,
    ContextPruningSettings,
    as_dict,
)


def context_pruning_object(settings: ContextPruningSettings, *, minimal: bool = False) -> dict[str, Any]:
    """The `contextPruning` object (OpenClaw's raw config names) that resolves to `settings`.

    `tools` is written only when it is non-empty (an absent `tools` is OpenClaw's default, `{}`).
    """
    d = DEFAULT_CONTEXT_PRUNING_SETTINGS
    out: dict[str, Any] = {"mode": MODE_CACHE_TTL}

    def put(key: str, value: Any, default: Any) -> None:
        if not minimal or value != default:
            out[key] = value

    put("ttl", duration_setting(settings.ttl_ms), duration_setting(d.ttl_ms))
    put("keepLastAssistants", settings.keep_last_assistants, d.keep_last_assistants)
    put("softTrimRatio", settings.soft_trim_ratio, d.soft_trim_ratio)
    put("hardClearRatio", settings.hard_clear_ratio, d.hard_clear_ratio)
    put("minPrunableToolChars", settings.min_prunable_tool_chars, d.min_prunable_tool_chars)
    soft: dict[str, Any] = {}
    for key, value, default in (
        ("maxChars", settings.soft_trim.max_chars, d.soft_trim.max_chars),
        ("headChars", settings.soft_trim.head_chars, d.soft_trim.head_chars),
        ("tailChars", settings.soft_trim.tail_chars, d.soft_trim.tail_chars),
    ):
        if not minimal or value != default:
            soft[key] = value
    if soft:
        out["softTrim"] = soft
    hard = hard_clear_object(settings, DEFAULT_CONTEXT_PRUNING_SETTINGS, minimal=minimal)
    if hard:
        out["hardClear"] = hard
    if settings.tools:
        out["tools"] = copy.deepcopy(settings.tools)
    return out


def hard_clear_object(settings: ContextPruningSettings, defaults: ContextPruningSettings, *, minimal: bool = False) -> dict[str, Any]:
    """The `hardClear` object of `settings` (`minimal`: only what differs from `defaults`; may be empty)."""
    hard: dict[str, Any] = {}
    if not minimal or settings.hard_clear.enabled != defaults.hard_clear.enabled:
        hard["enabled"] = settings.hard_clear.enabled
    if not minimal or settings.hard_clear.placeholder != defaults.hard_clear.placeholder:
        hard["placeholder"] = settings.hard_clear.placeholder
    return hard


def config_snippet(context_pruning: dict[str, Any]) -> str:
    """`{"agents": {"defaults": {"contextPruning": {...}}}}` as 2-space indented JSON (non-ASCII kept as is)."""
    return json.dumps({"agents": {"defaults": {"contextPruning": context_pruning}}}, indent=2, ensure_ascii=False)


def settings_snippet(settings: ContextPruningSettings, *, minimal: bool = False) -> str:
    """`{"agents": {"defaults": {"contextPruning": {...}}}}` as 2-space indented JSON (non-ASCII kept as is)."""
    return config_snippet(context_pruning_object(settings, minimal=minimal))


def with_context_pruning_edits(config: dict[str, Any] | None, edits: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of `config` whose `agents.defaults.contextPruning` has the dotted `edits` applied.

    Keys are OpenClaw's names (`ttl`, `softTrim.maxChars`, `hardClear.enabled`, `tools.allow`, ...). A value of
    None, or an empty list, removes the key (so OpenClaw's default applies). Other keys of the config are kept.
    """
    out = copy.deepcopy(config) if isinstance(config, dict) else {}
    agents = out["agents"] = as_dict(out.get("agents"))
    defaults = agents["defaults"] = as_dict(agents.get("defaults"))
    raw = defaults["contextPruning"] = as_dict(defaults.get("contextPruning"))
    for path, value in edits.items():
        *parents, leaf = path.split(".")
        node = raw
        for p in parents:
            if not isinstance(node.get(p), dict):
                node[p] = {}
            node = node[p]
        if value is None or (isinstance(value, list) and not value):
            node.pop(leaf, None)
        else:
            node[leaf] = copy.deepcopy(value)
    return out
