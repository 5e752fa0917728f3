"""How much OpenClaw's tool-result truncation could save: the input of the pre-prompt route.

A port of OpenClaw 2026.4 `src/agents/pi-embedded-runner/tool-result-truncation.ts` as compiled in
`dist/model-context-tokens-*.js`: `estimateToolResultReductionPotential`, `buildToolResultReplacementPlan`,
`buildOversizedToolResultReplacements`, `buildAggregateToolResultReplacements`, `truncateToolResultMessage`,
`truncateToolResultText`, `hasImportantTail`, `calculateMaxToolResultChars`. Lengths are JavaScript's (UTF-16
code units): texts are handled as "unit strings", one Python character per UTF-16 code unit.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.tokens.measure import CHARS_PER_TOKEN_ESTIMATE

MAX_TOOL_RESULT_CONTEXT_SHARE = 0.3
DEFAULT_MAX_LIVE_TOOL_RESULT_CHARS = 40000
RECOVERY_MIN_KEEP_CHARS = 0
MIDDLE_OMISSION_MARKER = "\n\n\u26a0\ufe0f [... middle content omitted \u2014 showing head and tail ...]\n\n"
_ERROR_WORDS = re.compile(r"\b(error|exception|failed|fatal|traceback|panic|stack trace|errno|exit code)\b", re.ASCII)
_DONE_WORDS = re.compile(r"\b(total|summary|result|complete|finished|done)\b", re.ASCII)


def truncation_notice(truncated_chars: float) -> str:
    """OpenClaw `formatContextLimitTruncationNotice`: `[... N more characters truncated]`."""
    return f"[... {max(1, math.floor(truncated_chars))} more characters truncated]"


RECOVERY_MIN_TRUNCATED_TEXT_CHARS = RECOVERY_MIN_KEEP_CHARS + len(truncation_notice(1))


def to_units(text: str) -> str:
    """`text` with one character per UTF-16 code unit (astral characters become their two surrogates)."""
    if text.isascii():
        return text
    raw = text.encode("utf-16-le", "surrogatepass")
    if len(raw) == 2 * len(text):
        return text  # no astral character: one code unit each already
    return "".join(map(chr, memoryview(raw).cast("H")))


def calculate_max_tool_result_chars(context_window_tokens: int) -> int:
    """OpenClaw `calculateMaxToolResultChars`: `min(floor(ctx * 0.3) * 4, 40000)`."""
    return min(math.floor(context_window_tokens * MAX_TOOL_RESULT_CONTEXT_SHARE) * CHARS_PER_TOKEN_ESTIMATE, DEFAULT_MAX_LIVE_TOOL_RESULT_CHARS)


def has_important_tail(text: str) -> bool:
    """OpenClaw `hasImportantTail`: errors, a closing brace or a result word in the last 2000 characters."""
    tail = js_trim(text[-2000:]).lower()
    return bool(_ERROR_WORDS.search(tail)) or js_trim(tail).endswith("}") or bool(_DONE_WORDS.search(tail))


def truncate_tool_result_text(text: str, max_chars: int, min_keep_chars: int) -> str:
    """OpenClaw `truncateToolResultText` (default suffix) on a unit string."""
    if len(text) <= max_chars:
        return text
    default_suffix = truncation_notice(max(1, len(text) - max_chars))
    budget = max(min_keep_chars, max_chars - len(default_suffix))
    if has_important_tail(text) and budget > min_keep_chars * 2:
        tail_budget = min(math.floor(budget * 0.3), 4000)
        head_budget = budget - tail_budget - 63
        if head_budget > min_keep_chars:
            head_cut = head_budget
            head_newline = text.rfind("\n", 0, head_budget + 1)
            if head_newline > head_budget * 0.8:
                head_cut = head_newline
            tail_start = len(text) - tail_budget
            tail_newline = text.find("\n", tail_start)
            if tail_newline != -1 and tail_newline < tail_start + tail_budget * 0.2:
                tail_start = tail_newline + 1
            kept = text[:head_cut] + MIDDLE_OMISSION_MARKER + text[tail_start:]
            return kept + truncation_notice(max(1, len(text) - len(kept)))
    cut = budget
    last_newline = text.rfind("\n", 0, budget + 1)
    if last_newline > budget * 0.8:
        cut = last_newline
    kept = text[:cut]
    return kept + truncation_notice(max(1, len(text) - len(kept)))


@dataclass(slots=True)
class ToolResultText:
    """A tool result's text blocks (unit strings; `None` for a text block whose `text` is not a string).

    `length` is OpenClaw's `getToolResultTextLength` (the sum of the text blocks' lengths).
    """

    index: int
    blocks: list[str | None]
    length: int = field(init=False)

    def __post_init__(self) -> None:
        self.length = sum(len(b) for b in self.blocks if b is not None)


def tool_result_text(index: int, message: Any) -> ToolResultText | None:
    """The text blocks of a `toolResult` message (None when it is not one, or its content is not an array)."""
    if type(message) is not dict or message.get("role") != "toolResult" or type(message.get("content")) is not list:
        return None
    blocks: list[str | None] = []
    for block in message["content"]:
        if type(block) is dict and block.get("type") == "text":
            text = block.get("text")
            blocks.append(to_units(text) if type(text) is str else None)
    return ToolResultText(index, blocks)


def truncate_tool_result_message(msg: ToolResultText, max_chars: int, min_keep_chars: int) -> ToolResultText:
    """OpenClaw `truncateToolResultMessage`: each text block cut to its share of `max_chars`."""
    total = msg.length
    if total <= max_chars:
        return msg
    out: list[str | None] = []
    for text in msg.blocks:
        if text is None:
            out.append(None)
            continue
        share = len(text) / total
        suffix = truncation_notice(max(1, len(text) - math.floor(max_chars * share)))
        block_budget = max(min_keep_chars + len(suffix), math.floor(max_chars * share))
        out.append(truncate_tool_result_text(text, block_budget, min_keep_chars))
    return ToolResultText(msg.index, out)


@dataclass(frozen=True, slots=True)
class ReductionPotential:
    """OpenClaw `estimateToolResultReductionPotential`'s figures (characters)."""

    max_chars: int
    aggregate_budget_chars: int
    tool_result_count: int
    total_tool_result_chars: int
    oversized_count: int
    oversized_reducible_chars: int
    aggregate_reducible_chars: int

    @property
    def max_reducible_chars(self) -> int:
        return self.oversized_reducible_chars + self.aggregate_reducible_chars

    def to_json(self) -> dict[str, int]:
        return {
            "max_chars": self.max_chars,
            "aggregate_budget_chars": self.aggregate_budget_chars,
            "tool_result_count": self.tool_result_count,
            "total_tool_result_chars": self.total_tool_result_chars,
            "oversized_count": self.oversized_count,
            "oversized_reducible_chars": self.oversized_reducible_chars,
            "aggregate_reducible_chars": self.aggregate_reducible_chars,
            "max_reducible_chars": self.max_reducible_chars,
        }


def _aggregate_reduction(results: list[ToolResultText], budget: int, min_keep_chars: int) -> int:
    """OpenClaw `buildAggregateToolResultReplacements` + `calculateReplacementReduction`: chars saved."""
    min_truncated = min_keep_chars + len(truncation_notice(1))
    candidates = [r for r in results if r.length > 0]
    if len(candidates) < 2:
        return 0
    total = sum(r.length for r in candidates)
    if total <= budget:
        return 0
    remaining = total - budget
    saved = 0
    for cand in sorted(candidates, key=lambda r: (-r.index, -r.length)):
        if remaining <= 0:
            break
        length = cand.length
        reducible = max(0, length - min_truncated)
        if reducible <= 0:
            continue
        target = max(min_truncated, length - min(reducible, remaining))
        new_length = truncate_tool_result_message(cand, target, min_keep_chars).length
        actual = max(0, length - new_length)
        if actual <= 0:
            continue
        saved += actual
        remaining -= actual
    return saved


def estimate_reduction_potential(results: list[ToolResultText], context_window_tokens: int) -> ReductionPotential:
    """OpenClaw `estimateToolResultReductionPotential(messages, contextWindowTokens)` over the context's tool results.

    `results` are the context's `toolResult` messages in order (`index` = context position); other messages do
    not take part.
    """
    max_chars = calculate_max_tool_result_chars(context_window_tokens)
    aggregate_budget = max(max_chars, RECOVERY_MIN_TRUNCATED_TEXT_CHARS)
    count = sum(1 for r in results if r.length > 0)
    total = sum(r.length for r in results if r.length > 0)
    oversized_saved = 0
    oversized_count = 0
    trimmed: list[ToolResultText] = []
    for r in results:
        if r.length > max_chars:
            cut = truncate_tool_result_message(r, max_chars, RECOVERY_MIN_KEEP_CHARS)
            oversized_count += 1
            oversized_saved += max(0, r.length - cut.length)
            trimmed.append(cut)
        else:
            trimmed.append(r)
    aggregate_saved = _aggregate_reduction(trimmed, aggregate_budget, RECOVERY_MIN_KEEP_CHARS)
    return ReductionPotential(max_chars, aggregate_budget, count, total, oversized_count, oversized_saved, aggregate_saved)
