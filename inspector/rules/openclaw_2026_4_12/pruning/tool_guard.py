"""OpenClaw's tool-result context guard, as a preview (spec §5).

Source: OpenClaw `src/agents/pi-embedded-runner/tool-result-context-guard.ts` and
`tool-result-char-estimator.ts` (2026.4). Before each LLM call the guard (1) truncates every tool result
whose estimate exceeds `maxSingleToolResultChars` and (2) throws
"Context overflow: estimated context size exceeds safe threshold during tool loop." when the whole context is
still over `maxContextChars`. It works in memory, after the other context transforms (pruning included).
The estimate is `inspector.rules.openclaw_2026_4_12.tokens.tool_guard_chars` (tool results count double, `details` included).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.js.jsjson import js_len
from inspector.js.utf16 import js_last_index_of, js_slice
from inspector.rules.openclaw_2026_4_12.tokens import (
    CHARS_PER_TOKEN_ESTIMATE,
    TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE,
    tool_guard_chars,
)

SINGLE_TOOL_RESULT_CONTEXT_SHARE = 0.5
PREEMPTIVE_OVERFLOW_RATIO = 0.9
TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO = CHARS_PER_TOKEN_ESTIMATE / TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE
CONTEXT_LIMIT_TRUNCATION_NOTICE = "more characters truncated"
PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE = "Context overflow: estimated context size exceeds safe threshold during tool loop."


def format_context_limit_truncation_notice(truncated_chars: float) -> str:
    """`formatContextLimitTruncationNotice`: `[... N more characters truncated]`."""
    return f"[... {max(1, math.floor(truncated_chars))} {CONTEXT_LIMIT_TRUNCATION_NOTICE}]"


def is_tool_result_message(msg: Any) -> bool:
    """`isToolResultMessage`: role `toolResult` or `tool`, or `type: "toolResult"`."""
    if not isinstance(msg, dict):
        return False
    return msg.get("role") in ("toolResult", "tool") or msg.get("type") == "toolResult"


def get_tool_result_text(msg: dict[str, Any]) -> str:
    """`getToolResultText`: the text blocks joined with `\\n` (a string content counts as one block)."""
    if not is_tool_result_message(msg):
        return ""
    content = msg.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    )


@dataclass(slots=True)
class Truncation:
    """How `truncateTextToBudget` cut one text: `cut_point` (UTF-16), whether it moved back to a newline."""

    text: str
    cut_point: int
    omitted_chars: int
    cut_at_newline: bool
    suffix: str


def truncate_text_to_budget(text: str, max_chars: int) -> Truncation:
    """`truncateTextToBudget`: keep a head of at most `max_chars` units including the suffix.

    The body budget is refined four times against the suffix length; the cut moves back to the last newline
    at or before it when that newline lies past 70% of the body budget.
    """
    length = js_len(text)
    if length <= max_chars:
        return Truncation(text, length, 0, False, "")
    if max_chars <= 0:
        notice = format_context_limit_truncation_notice(length)
        return Truncation(notice, 0, length, False, notice)
    body_budget = max_chars
    for _ in range(4):
        estimated_suffix = format_context_limit_truncation_notice(max(1, length - body_budget))
        body_budget = max(0, max_chars - len(estimated_suffix))
    cut_point = body_budget
    newline = js_last_index_of(text, "\n", cut_point)
    at_newline = newline > body_budget * 0.7
    if at_newline:
        cut_point = newline
    omitted = length - cut_point
    suffix = format_context_limit_truncation_notice(omitted)
    return Truncation(js_slice(text, 0, cut_point) + suffix, cut_point, omitted, at_newline, suffix)


def replace_tool_result_text(msg: dict[str, Any], text: str) -> dict[str, Any]:
    """`replaceToolResultText`: content becomes the text (one text block for array content); `details` is dropped."""
    content = msg.get("content")
    replacement: Any = text if isinstance(content, str) or content is None else [{"type": "text", "text": text}]
    out = {k: v for k, v in msg.items() if k != "details"}
    out["content"] = replacement
    return out


@dataclass(slots=True)
class GuardedToolResult:
    """One tool result over the single-result limit, and what the guard would make of it."""

    index: int
    estimate_before: int
    estimate_after: int
    text_budget: int
    raw_text_chars: int
    kind: str  # "truncated", "text_only" (fits once images/details go) or "notice_only" (no text)
    message_after: dict[str, Any]
    truncation: Truncation | None = None

    def to_json(self) -> dict[str, Any]:
        t = self.truncation
        return {
            "index": self.index,
            "estimate_before": self.estimate_before,
            "estimate_after": self.estimate_after,
            "text_budget": self.text_budget,
            "raw_text_chars": self.raw_text_chars,
            "kind": self.kind,
            "cut_point": t.cut_point if t else None,
            "cut_at_newline": t.cut_at_newline if t else None,
            "omitted_chars": t.omitted_chars if t else None,
            "suffix": t.suffix if t else None,
            "details_dropped": True,
        }


@dataclass(slots=True)
class ToolGuardReport:
    """The guard's verdict for one context: limits, truncated results, whole-context estimate and overflow."""

    context_window_tokens: int
    max_context_chars: int
    max_single_tool_result_chars: int
    truncated: list[GuardedToolResult]
    context_chars_before: int
    context_chars_after: int
    overflow: bool
    messages_after: list[dict[str, Any]] = field(default_factory=list)

    @property
    def error(self) -> str | None:
        return PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE if self.overflow else None

    def to_json(self) -> dict[str, Any]:
        return {
            "context_window_tokens": self.context_window_tokens,
            "max_context_chars": self.max_context_chars,
            "max_single_tool_result_chars": self.max_single_tool_result_chars,
            "context_chars_before": self.context_chars_before,
            "context_chars_after": self.context_chars_after,
            "overflow": self.overflow,
            "error": self.error,
            "truncated": [t.to_json() for t in self.truncated],
        }


def guard_limits(context_window_tokens: float) -> tuple[int, int, int]:
    """(window, maxContextChars, maxSingleToolResultChars) as `installToolResultContextGuard` computes them."""
    window = max(1, math.floor(context_window_tokens))
    max_context = max(1024, math.floor(window * CHARS_PER_TOKEN_ESTIMATE * PREEMPTIVE_OVERFLOW_RATIO))
    max_single = max(
        1024, math.floor(window * TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE * SINGLE_TOOL_RESULT_CONTEXT_SHARE)
    )
    return window, max_context, max_single


def truncate_tool_result_to_chars(
    index: int, msg: dict[str, Any], max_chars: int, estimate: Callable[[Any], int]
) -> GuardedToolResult | None:
    """`truncateToolResultToChars`; None when the result is within `max_chars`."""
    if not is_tool_result_message(msg):
        return None
    estimated = estimate(msg)
    if estimated <= max_chars:
        return None
    raw_text = get_tool_result_text(msg)
    text_budget = max(0, math.floor(max_chars / TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO))
    raw_len = js_len(raw_text)
    truncation: Truncation | None = None
    if not raw_text:
        omitted = max(1, max(0, math.floor(max(estimated - max_chars, 1) / TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO)))
        after = replace_tool_result_text(msg, format_context_limit_truncation_notice(omitted))
        kind = "notice_only"
    elif text_budget <= 0:
        after = replace_tool_result_text(msg, format_context_limit_truncation_notice(raw_len))
        kind = "notice_only"
    elif raw_len <= text_budget:
        after = replace_tool_result_text(msg, raw_text)
        kind = "text_only"
    else:
        truncation = truncate_text_to_budget(raw_text, text_budget)
        after = replace_tool_result_text(msg, truncation.text)
        kind = "truncated"
    return GuardedToolResult(index, estimated, estimate(after), text_budget, raw_len, kind, after, truncation)


def evaluate_tool_result_context_guard(
    messages: Sequence[dict[str, Any]],
    context_window_tokens: float,
    *,
    estimate: Callable[[Any], int] = tool_guard_chars,
) -> ToolGuardReport:
    """Run the guard's two steps on `messages` (not mutated) for a window of `context_window_tokens`."""
    window, max_context, max_single = guard_limits(context_window_tokens)
    before_total = sum(estimate(m) for m in messages)
    out = list(messages)
    truncated: list[GuardedToolResult] = []
    for i, msg in enumerate(messages):
        g = truncate_tool_result_to_chars(i, msg, max_single, estimate)
        if g is not None:
            truncated.append(g)
            out[i] = g.message_after
    after_total = sum(estimate(m) for m in out) if truncated else before_total
    return ToolGuardReport(
        context_window_tokens=window,
        max_context_chars=max_context,
        max_single_tool_result_chars=max_single,
        truncated=truncated,
        context_chars_before=before_total,
        context_chars_after=after_total,
        overflow=after_total > max_context,
        messages_after=out,
    )
