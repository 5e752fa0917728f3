"""What a pruning preview adds under OpenClaw 2026.9.6: the projections earlier rounds left (replayed whatever the
gate) and the server-side `clear_tool_uses_20250919` edit of a direct Anthropic request.

Both come from the rule set's own names (`rules.pruner.read_projection_snapshot`, `rules.ttl.server_tool_clearing`);
a release without them (2026.4.12) gets nothing here, so its preview and its JSON are what they were.
"""

from __future__ import annotations

import math
from typing import Any

from inspector.model import entries as m
from inspector.rules.ruleset import RuleSet
from inspector.session.session import Session


def release_inputs(
    rules: RuleSet,
    session: Session,
    ctx: m.SessionContext,
    messages: list[dict[str, Any]],
    *,
    configured_mode: Any,
    config: dict[str, Any] | None,
    provider: Any,
    api: str | None,
    window_tokens: int | None,
    tools: Any,
) -> tuple[dict[str, Any], Any]:
    """(extra keyword arguments of the rule set's `prune_context_messages`, the server-side clearing or None)."""
    extra: dict[str, Any] = {}
    clearing = None
    if hasattr(rules.pruner, "read_projection_snapshot"):  # what was pruned stays pruned
        extra["projections"] = rules.pruner.read_projection_snapshot([session.entries[i] for i in ctx.path])
    if hasattr(rules.ttl, "server_tool_clearing"):  # direct Anthropic API-key requests
        clearing = rules.ttl.server_tool_clearing(
            configured_mode=configured_mode,
            provider=provider,
            model_api=api,
            auth_mode=rules.pruning_settings.anthropic_auth_mode(config or {}),
            context_window_tokens=window_tokens,
            tools=tools,
            messages=messages,
            message_tokens=[math.ceil(rules.pruner.cache_ttl_message_chars(msg) / rules.tokens.CHARS_PER_TOKEN_ESTIMATE) for msg in messages],
        )
        extra["new_rounds"] = not (clearing is not None and clearing.applies is True)
    return extra, clearing


def release_json(result: Any, replayed: dict[int, str] | None, clearing: Any) -> dict[str, Any]:
    """The `prune --json` keys of a release with sticky projections (`projections`, `server_tool_clearing`); none
    for one without."""
    if replayed is None:
        return {}
    snapshot = getattr(result, "snapshot", None)
    return {
        "projections": {
            "snapshot": snapshot.to_json() if snapshot is not None else None,
            "replayed": {str(i): mode for i, mode in sorted(replayed.items())},
            "note": "what earlier rounds pruned stays pruned: replayed on every request, whatever the gate",
        },
        "server_tool_clearing": clearing.to_json() if clearing is not None else None,
    }
