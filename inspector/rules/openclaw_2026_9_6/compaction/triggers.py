"""When OpenClaw 2026.9.6 would compact: the agent core's threshold (off in safeguard mode), overflow recovery, and
the pre-prompt route with its measured estimate.

Sources (OpenClaw 2026.9.6 compiled `dist/`):

- `settled-turn-finalization-result-*.mjs` (`run/preemptive-compaction.ts`) `shouldPreemptivelyCompactBeforePrompt`:
  `estimatedPromptTokens = measured + ceil(1.2 x (Σ estimateMessageTokenPressure of the messages after the
  measured one + the rendered prompt)) + the tool schemas (only without a measurement)`, where the measurement is
  the latest assistant's `usage.contextUsage.totalTokens` when `state` is `available` (a `cli` assistant without
  `contextUsage`, or an `unavailable` one with no tokens, is a barrier: nothing before it is measured); the
  reserve is capped at a quarter of the budget (`resolveEffectiveCompactionReserveTokens`).
- `resource-loader-*.mjs` `estimateMessageTokenPressure`, `estimateRenderedPromptTokens` (12 tokens per message
  boundary, 6 per content block, tool results at 2 chars per token at least, JSON at 3, images 2000 tokens).
- `compaction-*.mjs` `shouldCompact`: false for a window that is not a positive finite number.
- the overflow recovery (`recoverEmbeddedRunOverflow`) classifies an error text with the release's own tables
  (`compaction/overflow.py`), not pi-ai's patterns, and has the `stopReason: "length"` case.

The prompt is given as a token count (`prompt_tokens`: its rendered estimate is `12 + prompt_tokens`); the system
prompt is not in the session, so it counts 0. String sizes use the estimator of the index's rule set.
New names: `PrePromptRoute` (2026.4.12's plus the measurement), `estimate_message_token_pressure`,
`measured_boundary`, `MESSAGE_BOUNDARY_OVERHEAD_TOKENS`, `CONTENT_BLOCK_OVERHEAD_TOKENS`.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import JSStringifyError, js_stringify
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.compaction.triggers import (
    DEFAULT_EARLY_THRESHOLDS,
    MIN_PROMPT_BUDGET_RATIO,
    MIN_PROMPT_BUDGET_TOKENS,
    TRUNCATION_ROUTE_BUFFER_TOKENS,
    EarlyWarning,
    OverflowTrigger,
    ThresholdTrigger,
    Triggers,
    context_tool_result_potential,
    early_warnings,
)
from inspector.rules.openclaw_2026_4_12.compaction.triggers import PrePromptRoute as _AprilRoute
from inspector.rules.openclaw_2026_4_12.compaction.triggers import overflow_trigger as _april_overflow
from inspector.rules.openclaw_2026_4_12.compaction.triggers import threshold_trigger as _april_threshold
from inspector.rules.openclaw_2026_4_12.tokens.measure import CHARS_PER_TOKEN_ESTIMATE, estimate_string_chars
from inspector.rules.openclaw_2026_4_12.tokens.text import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    bash_execution_to_text,
)
from inspector.rules.openclaw_2026_9_6.compaction.overflow import is_context_overflow_error
from inspector.rules.openclaw_2026_9_6.compaction.safeguard import SAFETY_MARGIN
from inspector.rules.openclaw_2026_9_6.compaction.settings import cap_reserve_tokens
from inspector.session.session import Session

__all__ = [
    "DEFAULT_EARLY_THRESHOLDS",
    "MIN_PROMPT_BUDGET_RATIO",
    "MIN_PROMPT_BUDGET_TOKENS",
    "THRESHOLD_LABEL",
    "TRUNCATION_ROUTE_BUFFER_TOKENS",
    "EarlyWarning",
    "OverflowTrigger",
    "ThresholdTrigger",
    "Triggers",
    "context_tool_result_potential",
    "early_warnings",
    "is_context_overflow_error",
    "overflow_trigger",
]

MESSAGE_BOUNDARY_OVERHEAD_TOKENS = 12
CONTENT_BLOCK_OVERHEAD_TOKENS = 6
TOOL_RESULT_CHARS_PER_TOKEN = 2
JSON_PAYLOAD_CHARS_PER_TOKEN = 3
IMAGE_BLOCK_TOKENS = 2000

THRESHOLD_LABEL = "agent threshold"
"""The name of the agent core's threshold trigger (`threshold_trigger`) in the `plan` text and the app: OpenClaw
2026.9's own agent core, no longer pi's."""


def should_compact(context_tokens: float, context_window: float, reserve_tokens: int, enabled: bool = True) -> bool:
    """2026.9 `shouldCompact`: never for a window that is not a positive finite number."""
    if not enabled or not math.isfinite(context_window) or context_window <= 0:
        return False
    return context_tokens > context_window - reserve_tokens


def threshold_trigger(
    session: Session, ctx: m.SessionContext, window: int, reserve: int, enabled: bool = True, disabled_reason: str | None = None
) -> ThresholdTrigger:
    """The agent core's threshold check (2026.4.12's `threshold_trigger`); when it is off, `disabled_reason`
    (who turned it off) is what `skipped` says."""
    got = _april_threshold(session, ctx, window, reserve, enabled)
    if not enabled and disabled_reason:
        return ThresholdTrigger(got.last_assistant_entry_id, None, None, window, reserve, window - reserve, False, disabled_reason)
    return got


def overflow_trigger(session: Session, ctx: m.SessionContext, window: int, enabled: bool = True) -> OverflowTrigger:
    """2026.4.12's overflow check with 2026.9.6's classification of the error text (`is_context_overflow_error`:
    the agent core's patterns, else the failover classifier's `isLikelyContextOverflowError`) and the length case;
    no silent case: the recovery (`recoverEmbeddedRunOverflow`, the agent core's `checkCompaction`) only looks at an
    assistant that stopped with `error` or `length`."""
    return _april_overflow(
        session, ctx, window, enabled, length_case=True, is_overflow_error=is_context_overflow_error, silent_case=False
    )


def _string_pressure(text: str, chars_per_token: float = CHARS_PER_TOKEN_ESTIMATE, tool_result: bool = False) -> int:
    """`estimateStringTokenPressure`."""
    tokens = math.ceil(estimate_string_chars(text) / chars_per_token)
    if tool_result:
        return max(math.ceil(len(text.encode("utf-16-le", "surrogatepass")) // 2 / TOOL_RESULT_CHARS_PER_TOKEN), tokens)
    return tokens


def _json_pressure(value: Any, chars_per_token: float = JSON_PAYLOAD_CHARS_PER_TOKEN, tool_result: bool = False) -> int:
    """`estimateJsonPayloadTokenPressure` (1 for `undefined`, 256 when it throws)."""
    try:
        text = js_stringify(value)
    except (JSStringifyError, RecursionError, TypeError, ValueError):
        return 256
    return _string_pressure(text, chars_per_token, tool_result)


def _identifier_pressure(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return _string_pressure(value, JSON_PAYLOAD_CHARS_PER_TOKEN)
    if isinstance(value, (bool, int, float)):
        return _string_pressure(js_stringify(value), JSON_PAYLOAD_CHARS_PER_TOKEN)
    return _json_pressure(value)


def _block_pressure(block: Any, tool_result: bool = False) -> int:
    if isinstance(block, str):
        return _string_pressure(block, CHARS_PER_TOKEN_ESTIMATE, tool_result)
    if type(block) is not dict:
        return _json_pressure(block, CHARS_PER_TOKEN_ESTIMATE, tool_result)
    kind = block.get("type")
    text = block.get("text") if kind == "text" else block.get("thinking") if kind == "thinking" else None
    if isinstance(text, str):
        return CONTENT_BLOCK_OVERHEAD_TOKENS + _string_pressure(text, CHARS_PER_TOKEN_ESTIMATE, tool_result)
    if kind == "image":
        return IMAGE_BLOCK_TOKENS
    return CONTENT_BLOCK_OVERHEAD_TOKENS + _json_pressure(block, CHARS_PER_TOKEN_ESTIMATE, tool_result)


def _content_pressure(content: Any, tool_result: bool = False) -> int:
    if isinstance(content, str):
        return _string_pressure(content, CHARS_PER_TOKEN_ESTIMATE, tool_result)
    if isinstance(content, list):
        return sum(_block_pressure(b, tool_result) for b in content)
    if content is not None:
        return _json_pressure(content, CHARS_PER_TOKEN_ESTIMATE if tool_result else JSON_PAYLOAD_CHARS_PER_TOKEN, tool_result)
    return 0


def _tool_call_pressure(block: dict[str, Any]) -> int:
    args: Any = next((block[k] for k in ("arguments", "input", "args") if block.get(k) is not None), {})
    return CONTENT_BLOCK_OVERHEAD_TOKENS + _identifier_pressure(block.get("name")) + _json_pressure(args)


def estimate_message_token_pressure(message: dict[str, Any]) -> int:
    """OpenClaw `estimateMessageTokenPressure`: 12 per message, plus its content by kind (see the module docstring)."""
    if message.get("excludeFromContext") is True:
        return 0
    tokens = MESSAGE_BOUNDARY_OVERHEAD_TOKENS
    role = message.get("role")
    if role == "toolResult" or role == "tool" or message.get("type") == "toolResult":
        tokens += _content_pressure(message.get("content"), True)
        name = message.get("toolName")
        return tokens + _identifier_pressure(name if name is not None else message.get("tool_name"))
    if role == "bashExecution":
        return tokens + _string_pressure(bash_execution_to_text(message))
    if role in ("branchSummary", "compactionSummary"):
        prefix, suffix = (BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX) if role == "branchSummary" else (COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX)
        summary = message.get("summary")
        return tokens + _string_pressure(prefix + (summary if isinstance(summary, str) else js_stringify(summary)) + suffix)
    if role == "assistant":
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if type(block) is dict and block.get("type") in ("toolCall", "tool_use"):
                    tokens += _tool_call_pressure(block)
                else:
                    tokens += _block_pressure(block)
        else:
            tokens += _content_pressure(content)
        calls = message.get("toolCalls", message.get("tool_calls"))
        if isinstance(calls, list):
            tokens += sum(_tool_call_pressure(c) if type(c) is dict else _json_pressure(c) for c in calls)
        return tokens
    return tokens + _content_pressure(message.get("content"))


def _usage_tokens(usage: dict[str, Any]) -> float:
    """`calculateContextTokens`: `contextUsage.totalTokens` when available, else totalTokens or the sum."""
    cu = usage.get("contextUsage")
    if type(cu) is dict and cu.get("state") == "available":
        return cu.get("totalTokens") or 0
    total = usage.get("totalTokens")
    if total:
        return total
    return sum(v for v in (usage.get(k) for k in ("input", "output", "cacheRead", "cacheWrite")) if isinstance(v, (int, float)))


def measured_boundary(messages: list[dict[str, Any]]) -> tuple[int, int] | None:
    """`resolveProviderContextBoundary`: `(index, ceil(totalTokens))` of the latest assistant whose
    `usage.contextUsage` is available with a positive total; None past a barrier or without one."""
    for index in range(len(messages) - 1, -1, -1):
        msg = messages[index]
        usage = msg.get("usage") if msg.get("role") == "assistant" else None
        if type(usage) is not dict or not usage:
            continue
        cu = usage.get("contextUsage")
        if (msg.get("api") == "cli" and cu is None) or (type(cu) is dict and cu.get("state") == "unavailable" and _usage_tokens(usage) == 0):
            return None
        total = cu.get("totalTokens") if type(cu) is dict and cu.get("state") == "available" else None
        if isinstance(total, (int, float)) and not isinstance(total, bool) and math.isfinite(total) and total > 0:
            return index, math.ceil(total)
    return None


@dataclass(frozen=True, slots=True)
class PrePromptRoute(_AprilRoute):
    """2026.4.12's `PrePromptRoute` plus 2026.9's estimate: `measured_tokens` (the provider's count at context
    row `measured_index`, None without one), `pressure_source` (`provider_context_usage` or `transcript_estimate`),
    `tool_schema_tokens`. `messages_tokens` is the pressure estimate of the messages after the measurement."""

    measured_tokens: int | None = None
    measured_index: int | None = None
    pressure_source: str = "transcript_estimate"
    tool_schema_tokens: int = 0

    def to_json(self) -> dict[str, Any]:
        out = _AprilRoute.to_json(self)
        out.update(
            measured_tokens=self.measured_tokens,
            measured_index=self.measured_index,
            pressure_source=self.pressure_source,
            tool_schema_tokens=self.tool_schema_tokens,
        )
        return out


_PRESSURES: weakref.WeakKeyDictionary[Session, dict[tuple[Any, ...], tuple[int | None, int | None, int]]] = weakref.WeakKeyDictionary()


def _transcript_pressure(session: Session, ctx: m.SessionContext) -> tuple[int | None, int | None, int]:
    """`(measured tokens, measured row, Σ pressure after it)` for the context, remembered per session."""
    key = (ctx.leaf_id, len(ctx.messages), ctx.compaction_index, session.file_size)
    cache = _PRESSURES.setdefault(session, {})
    if key not in cache:
        if len(cache) > 16:
            cache.clear()
        messages = [m_ if type(m_) is dict else {} for m_ in session.context_messages(ctx)]
        found = measured_boundary(messages)
        after = messages[found[0] + 1 :] if found else messages
        cache[key] = (found[1] if found else None, found[0] if found else None, sum(estimate_message_token_pressure(x) for x in after))
    return cache[key]


def pre_prompt_route(
    session: Session, ctx: m.SessionContext, window: int, reserve: int, prompt_tokens: int = 0, tool_schema_tokens: int = 0
) -> PrePromptRoute:
    """2026.9 `shouldPreemptivelyCompactBeforePrompt` on the context's messages plus a prompt of `prompt_tokens`."""
    measured, measured_index, messages_tokens = _transcript_pressure(session, ctx)
    local = messages_tokens + MESSAGE_BOUNDARY_OVERHEAD_TOKENS + prompt_tokens
    schemas = max(0, tool_schema_tokens)
    estimated = (measured or 0) + math.ceil(local * SAFETY_MARGIN) + (0 if measured is not None else schemas)
    budget = max(1, math.floor(window))
    capped = cap_reserve_tokens(reserve, budget)
    before_reserve = max(1, budget - capped.effective)
    overflow = max(0, estimated - before_reserve)
    overflow_chars = overflow * CHARS_PER_TOKEN_ESTIMATE
    truncate_only = max(overflow_chars + TRUNCATION_ROUTE_BUFFER_TOKENS * CHARS_PER_TOKEN_ESTIMATE, math.ceil(overflow_chars * 1.5))
    potential = None
    route = "fits"
    if overflow > 0:
        potential = context_tool_result_potential(session, ctx, window)
        reducible = potential.max_reducible_chars
        route = "compact_only" if reducible <= 0 else "truncate_tool_results_only" if reducible >= truncate_only else "compact_then_truncate"
    return PrePromptRoute(
        prompt_tokens, messages_tokens, estimated, budget, max(0, math.floor(reserve)), capped.effective, before_reserve, overflow,
        truncate_only, potential, route, measured, measured_index, "provider_context_usage" if measured is not None else "transcript_estimate",
        schemas,
    )
