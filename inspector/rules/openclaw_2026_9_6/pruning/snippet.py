"""Context-pruning settings back into openclaw.json, as OpenClaw 2026.9.6 accepts them.

2026.9.6's schema is `.strict()`: `contextPruning` holds `mode`, `ttl`, `tools.{allow,deny}` and
`hardClear.{enabled,placeholder}` only, so the snippet carries nothing else (a retired key would make OpenClaw
reject the whole config). `duration_setting`, `with_context_pruning_edits`, the `hardClear` object and the JSON
document are 2026.4.12's.
"""

from __future__ import annotations

import copy
from typing import Any

from inspector.rules.openclaw_2026_4_12.pruning.snippet import (
    config_snippet,
    duration_setting,
    hard_clear_object,
    with_context_pruning_edits,
)
from inspector.rules.openclaw_2026_9_6.pruning.settings import (
    DEFAULT_CONTEXT_PRUNING_SETTINGS,
    MODE_CACHE_TTL,
    ContextPruningSettings,
)

__all__ = ["context_pruning_object", "duration_setting", "settings_snippet", "with_context_pruning_edits"]


def context_pruning_object(settings: ContextPruningSettings, *, minimal: bool = False) -> dict[str, Any]:
    """The `contextPruning` object that resolves to `settings` (`minimal`: `mode` plus what differs from the
    defaults). `tools` holds only `allow` / `deny`, and only when one of them is set."""
    d = DEFAULT_CONTEXT_PRUNING_SETTINGS
    out: dict[str, Any] = {"mode": MODE_CACHE_TTL}
    ttl = duration_setting(settings.ttl_ms)
    if not minimal or ttl != duration_setting(d.ttl_ms):
        out["ttl"] = ttl
    hard = hard_clear_object(settings, d, minimal=minimal)
    if hard:
        out["hardClear"] = hard
    tools = settings.tools if isinstance(settings.tools, dict) else {}
    kept = {k: copy.deepcopy(tools[k]) for k in ("allow", "deny") if isinstance(tools.get(k), list) and tools[k]}
    if kept:
        out["tools"] = kept
    return out


def settings_snippet(settings: ContextPruningSettings, *, minimal: bool = False) -> str:
    """`{"agents": {"defaults": {"contextPruning": {...}}}}` as 2-space indented JSON (non-ASCII kept as is)."""
    return config_snippet(context_pruning_object(settings, minimal=minimal))
