"""pi 0.73.1's compaction triggers: pi 0.66.1's (2026.4.12's module, imported) with pi-ai 0.73.1's third overflow case.

pi-ai 0.73.1 `dist/utils/overflow.js` `isContextOverflow`: besides an overflow error text and a `stop` whose prompt
exceeds the window, a `length` stop with no output and `input + cacheRead >= 0.99 x window` is an overflow (kind
`length`). The error patterns are 0.66.1's, byte for byte.
"""

from __future__ import annotations

from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.compaction import triggers as _pi_0_66
from inspector.rules.openclaw_2026_4_12.compaction.triggers import (
    DEFAULT_EARLY_THRESHOLDS,
    MIN_PROMPT_BUDGET_RATIO,
    MIN_PROMPT_BUDGET_TOKENS,
    NON_OVERFLOW_PATTERNS,
    OVERFLOW_PATTERNS,
    THRESHOLD_LABEL,
    TRUNCATION_ROUTE_BUFFER_TOKENS,
    EarlyWarning,
    OverflowTrigger,
    PrePromptRoute,
    ThresholdTrigger,
    Triggers,
    context_tool_result_potential,
    early_warnings,
    is_context_overflow_error,
    pre_prompt_route,
    should_compact,
    threshold_trigger,
)
from inspector.session.session import Session

__all__ = [
    "DEFAULT_EARLY_THRESHOLDS",
    "MIN_PROMPT_BUDGET_RATIO",
    "MIN_PROMPT_BUDGET_TOKENS",
    "NON_OVERFLOW_PATTERNS",
    "OVERFLOW_PATTERNS",
    "THRESHOLD_LABEL",
    "TRUNCATION_ROUTE_BUFFER_TOKENS",
    "EarlyWarning",
    "OverflowTrigger",
    "PrePromptRoute",
    "ThresholdTrigger",
    "Triggers",
    "context_tool_result_potential",
    "early_warnings",
    "is_context_overflow_error",
    "overflow_trigger",
    "pre_prompt_route",
    "should_compact",
    "threshold_trigger",
]


def overflow_trigger(session: Session, ctx: m.SessionContext, window: int, enabled: bool = True) -> OverflowTrigger:
    """pi-ai 0.73.1 `isContextOverflow(lastAssistant, contextWindow)`: 0.66.1's two cases and the `length` one."""
    return _pi_0_66.overflow_trigger(session, ctx, window, enabled, length_case=True)
