"""`estimate_all` for OpenClaw 2026.9.6: the four per-message estimates of one message, for the indexer.

A plain implementation (each estimator walks the message on its own), not a fused pass like 2026.4.12's
`inspector.rules.openclaw_2026_4_12.tokens.fused`; the order of the tuple is `ESTIMATORS`' (`pi`, `openclaw_prune`,
`openclaw_compaction`, `tool_guard`).
"""

from __future__ import annotations

from typing import Any

from inspector.rules.openclaw_2026_9_6.tokens.estimators import (
    RUNTIME_CONTEXT_CUSTOM_TYPE,
    openclaw_prune_chars,
    pi_estimate_tokens,
    tool_guard_chars,
)

__all__ = ["estimate_all"]


def estimate_all(msg: dict[str, Any]) -> tuple[int, int, int, int]:
    """(`pi_estimate_tokens`, `openclaw_prune_chars`, `openclaw_compaction_tokens`, `tool_guard_chars`) of `msg`;
    the compaction estimate reuses the agent core's, which it equals except for the runtime-context message."""
    pi = pi_estimate_tokens(msg)
    hidden = type(msg) is dict and msg.get("role") == "custom" and msg.get("customType") == RUNTIME_CONTEXT_CUSTOM_TYPE
    return pi, openclaw_prune_chars(msg), 0 if hidden else pi, tool_guard_chars(msg)
