"""When compaction would run: pi's threshold and overflow checks, OpenClaw's pre-prompt route, early warnings.

Sources (read in the compiled code of the pinned versions):

- pi 0.66.1 `dist/core/agent-session.js` `_checkCompaction` (skip aborted, skip messages older than the latest
  compaction, overflow from the same model, else the threshold `contextTokens > contextWindow - reserveTokens`
  with `calculateContextTokens(usage)`, or `estimateContextTokens` for an error message), `shouldCompact`;
  pi-ai 0.66.1 `dist/utils/overflow.js` `isContextOverflow` (error patterns, silent overflow by usage).
- OpenClaw 2026.4 `dist/pi-embedded-runner-*.js` (`run/preemptive-compaction.ts`):
  `shouldPreemptivelyCompactBeforePrompt` / `estimatePrePromptTokens`, with the tool-result reduction
  potential of `inspector.rules.openclaw_2026_4_12.compaction.toolresults`.

Settings, mode and context engine come from `inspector.rules.openclaw_2026_4_12.compaction.settings`.
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.js.timeutil import iso_to_ms
from inspector.js.utf16 import JS_WHITESPACE_CLASS
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.compaction.safeguard import SAFETY_MARGIN
from inspector.rules.openclaw_2026_4_12.compaction.toolresults import (
    ReductionPotential,
    estimate_reduction_potential,
    tool_result_text,
)
from inspector.rules.openclaw_2026_4_12.tokens.context_usage import last_context_usage
from inspector.rules.openclaw_2026_4_12.tokens.measure import CHARS_PER_TOKEN_ESTIMATE
from inspector.session.session import Session

DEFAULT_EARLY_THRESHOLDS = (0.5, 0.7)
"""Fractions of the window for the early warnings: flush/upload early, force cleanup late."""

THRESHOLD_LABEL = "pi threshold"
"""The name of the agent core's threshold trigger (`threshold_trigger`) in the `plan` text and the app: pi's."""

TRUNCATION_ROUTE_BUFFER_TOKENS = 512
MIN_PROMPT_BUDGET_TOKENS = 8000
MIN_PROMPT_BUDGET_RATIO = 0.5

_FLAGS = re.IGNORECASE | re.ASCII
OVERFLOW_PATTERNS = tuple(
    re.compile(p, _FLAGS)
    for p in (
        r"prompt is too long",
        r"request_too_large",
        r"input is too long for requested model",
        r"exceeds the context window",
        r"input token count.*exceeds the maximum",
        r"maximum prompt length is \d+",
        r"reduce the length of the messages",
        r"maximum context length is \d+ tokens",
        r"exceeds the limit of \d+",
        r"exceeds the available context size",
        r"greater than the context length",
        r"context window exceeds limit",
        r"exceeded model token limit",
        r"too large for model with \d+ maximum context length",
        r"model_context_window_exceeded",
        r"prompt too long; exceeded (?:max )?context length",
        r"context[_ ]length[_ ]exceeded",
        r"too many tokens",
        r"token limit exceeded",
        rf"\A4(?:00|13){JS_WHITESPACE_CLASS}*(?:status code)?{JS_WHITESPACE_CLASS}*\(no body\)",
    )
)
"""pi-ai `OVERFLOW_PATTERNS` (JavaScript `/i` regexes: ASCII case folding, `.` stops at line terminators)."""
NON_OVERFLOW_PATTERNS = tuple(
    re.compile(p, _FLAGS) for p in (r"\A(Throttling error|Service unavailable):", r"rate limit", r"too many requests")
)
"""pi-ai `NON_OVERFLOW_PATTERNS`."""
_JS_DOT_FIX = re.compile(r"[\r\u2028\u2029]")


def _js_search(pattern: re.Pattern[str], text: str) -> bool:
    """`pattern.test(text)` for these patterns: JavaScript's `.` also refuses `\\r`, U+2028 and U+2029."""
    return pattern.search(_JS_DOT_FIX.sub("\n", text) if ".*" in pattern.pattern else text) is not None


def is_context_overflow_error(error_message: str) -> bool:
    """pi-ai `isContextOverflow` case 1: an error text matching an overflow pattern and no non-overflow pattern."""
    if any(_js_search(p, error_message) for p in NON_OVERFLOW_PATTERNS):
        return False
    return any(_js_search(p, error_message) for p in OVERFLOW_PATTERNS)


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan
    return float(value)


@dataclass(frozen=True, slots=True)
class ThresholdTrigger:
    """pi's threshold check after the last assistant message: `contextTokens > contextWindow - reserveTokens`.

    `source` is `usage` (`calculateContextTokens` of the last assistant's usage) or `estimate` (an error
    message: last valid usage + chars/4 after it). `skipped` names why pi would not check at all.
    """

    last_assistant_entry_id: str | None
    context_tokens: int | None
    source: str | None
    context_window: int
    reserve_tokens: int
    threshold_tokens: int
    would_compact: bool
    skipped: str | None

    @property
    def tokens_to_threshold(self) -> int | None:
        """Tokens left before the check fires (negative: already past it)."""
        return None if self.context_tokens is None else self.threshold_tokens - self.context_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "last_assistant_entry_id": self.last_assistant_entry_id,
            "context_tokens": self.context_tokens,
            "source": self.source,
            "context_window": self.context_window,
            "reserve_tokens": self.reserve_tokens,
            "threshold_tokens": self.threshold_tokens,
            "tokens_to_threshold": self.tokens_to_threshold,
            "would_compact": self.would_compact,
            "skipped": self.skipped,
        }


@dataclass(frozen=True, slots=True)
class OverflowTrigger:
    """pi's overflow case: the last assistant message is a context overflow (`isContextOverflow`)."""

    last_assistant_entry_id: str | None
    is_overflow: bool
    kind: str | None
    same_model: bool
    stale: bool
    would_compact: bool
    error_message: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "last_assistant_entry_id": self.last_assistant_entry_id,
            "is_overflow": self.is_overflow,
            "kind": self.kind,
            "same_model": self.same_model,
            "stale": self.stale,
            "would_compact": self.would_compact,
            "error_message": self.error_message,
        }


@dataclass(frozen=True, slots=True)
class PrePromptRoute:
    """OpenClaw `shouldPreemptivelyCompactBeforePrompt` for a prompt of `prompt_tokens` (pi estimate).

    `route` is `fits`, `compact_only`, `truncate_tool_results_only` or `compact_then_truncate`. The tool-result
    potential is computed only when the prompt overflows (it reads every tool result of the context); otherwise
    `tool_result_potential` is None, which does not change the route.
    """

    prompt_tokens: int
    messages_tokens: int
    estimated_prompt_tokens: int
    context_token_budget: int
    reserve_tokens: int
    effective_reserve_tokens: int
    prompt_budget_before_reserve: int
    overflow_tokens: int
    truncate_only_threshold_chars: int
    tool_result_potential: ReductionPotential | None
    route: str

    @property
    def should_compact(self) -> bool:
        return self.route in ("compact_only", "compact_then_truncate")

    @property
    def tokens_to_overflow(self) -> int:
        """Prompt tokens (after the 1.2 margin) still available before the route leaves `fits`."""
        return self.prompt_budget_before_reserve - self.estimated_prompt_tokens

    def to_json(self) -> dict[str, Any]:
        pot = self.tool_result_potential
        return {
            "prompt_tokens": self.prompt_tokens,
            "messages_tokens": self.messages_tokens,
            "estimated_prompt_tokens": self.estimated_prompt_tokens,
            "context_token_budget": self.context_token_budget,
            "reserve_tokens": self.reserve_tokens,
            "effective_reserve_tokens": self.effective_reserve_tokens,
            "prompt_budget_before_reserve": self.prompt_budget_before_reserve,
            "overflow_tokens": self.overflow_tokens,
            "tokens_to_overflow": self.tokens_to_overflow,
            "truncate_only_threshold_chars": self.truncate_only_threshold_chars,
            "tool_result_reducible_chars": pot.max_reducible_chars if pot is not None else None,
            "tool_result_potential": pot.to_json() if pot is not None else None,
            "route": self.route,
            "should_compact": self.should_compact,
        }


@dataclass(frozen=True, slots=True)
class EarlyWarning:
    """One early-warning threshold: a fraction of the window, and how many tokens remain to it."""

    fraction: float
    threshold_tokens: int
    context_tokens: int

    @property
    def remaining_tokens(self) -> int:
        return self.threshold_tokens - self.context_tokens

    @property
    def crossed(self) -> bool:
        return self.context_tokens >= self.threshold_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "fraction": self.fraction,
            "threshold_tokens": self.threshold_tokens,
            "context_tokens": self.context_tokens,
            "remaining_tokens": self.remaining_tokens,
            "crossed": self.crossed,
        }


@dataclass(frozen=True, slots=True)
class Triggers:
    """Every trigger with its numbers (see each class)."""

    threshold: ThresholdTrigger
    overflow: OverflowTrigger
    pre_prompt: PrePromptRoute
    early_warnings: list[EarlyWarning] = field(default_factory=list)
    auto_compaction_enabled: bool = True

    @property
    def any_fires(self) -> bool:
        """Whether pi or OpenClaw would compact now (threshold, overflow or the pre-prompt route)."""
        return self.threshold.would_compact or self.overflow.would_compact or self.pre_prompt.should_compact

    def to_json(self) -> dict[str, Any]:
        return {
            "auto_compaction_enabled": self.auto_compaction_enabled,
            "any_fires": self.any_fires,
            "threshold": self.threshold.to_json(),
            "overflow": self.overflow.to_json(),
            "pre_prompt": self.pre_prompt.to_json(),
            "early_warnings": [w.to_json() for w in self.early_warnings],
        }


def should_compact(context_tokens: float, context_window: int, reserve_tokens: int, enabled: bool = True) -> bool:
    """pi `shouldCompact(contextTokens, contextWindow, settings)`."""
    return enabled and context_tokens > context_window - reserve_tokens


def _last_assistant(session: Session, ctx: m.SessionContext) -> tuple[int, m.Entry] | None:
    entries = session.entries
    for pos in range(len(ctx.messages) - 1, -1, -1):
        e = entries[ctx.messages[pos].entry_index]
        if e.type == m.MESSAGE and e.role == "assistant":
            return pos, e
    return None


def _compaction_ms(session: Session, ctx: m.SessionContext) -> int | None:
    if ctx.compaction_index is None:
        return None
    return iso_to_ms(session.entries[ctx.compaction_index].timestamp)


def _before(ts: Any, compaction_ms: int | None) -> bool:
    """`assistantMessage.timestamp <= new Date(compaction.timestamp).getTime()` (false when either is NaN)."""
    return compaction_ms is not None and isinstance(ts, (int, float)) and ts <= compaction_ms


def threshold_trigger(session: Session, ctx: m.SessionContext, window: int, reserve: int, enabled: bool = True) -> ThresholdTrigger:
    """pi `_checkCompaction`'s threshold case for the context's last assistant message."""
    threshold = window - reserve
    found = _last_assistant(session, ctx)
    if not enabled:
        return ThresholdTrigger(found[1].id if found else None, None, None, window, reserve, threshold, False, "compaction disabled")
    if found is None:
        return ThresholdTrigger(None, None, None, window, reserve, threshold, False, "no assistant message in the context yet")
    _, e = found
    if e.stop_reason == "aborted":
        return ThresholdTrigger(e.id, None, None, window, reserve, threshold, False, "the last assistant message was aborted")
    comp_ms = _compaction_ms(session, ctx)
    if _before(e.message_timestamp, comp_ms):
        return ThresholdTrigger(e.id, None, None, window, reserve, threshold, False, "the last assistant message predates the latest compaction")
    if e.stop_reason == "error":
        est = last_context_usage(session, ctx)
        if est["last_usage_index"] is None:
            return ThresholdTrigger(e.id, None, "estimate", window, reserve, threshold, False, "no usage recorded in the context")
        usage_entry = session.entries[ctx.messages[est["last_usage_index"]].entry_index]
        if _before(usage_entry.message_timestamp, comp_ms):
            return ThresholdTrigger(e.id, None, "estimate", window, reserve, threshold, False, "the last usage predates the latest compaction")
        tokens, source = int(est["tokens"]), "estimate"
    else:
        from inspector.rules.openclaw_2026_4_12.tokens import calculate_context_tokens

        tokens, source = calculate_context_tokens(e.usage), "usage"
    return ThresholdTrigger(e.id, tokens, source, window, reserve, threshold, should_compact(tokens, window, reserve), None)


def overflow_trigger(
    session: Session, ctx: m.SessionContext, window: int, enabled: bool = True, *, length_case: bool = False,
    is_overflow_error: Callable[[str], bool] | None = None, silent_case: bool = True,
) -> OverflowTrigger:
    """pi-ai `isContextOverflow(lastAssistant, contextWindow)` and whether pi's overflow recovery would run.

    `length_case`: pi-ai 0.73.1's third case (`stopReason: "length"`, no output, `input + cacheRead` at least 99% of
    the window), kind `length`; 0.66.1 has no such case. `is_overflow_error`: a release's test of an error text
    (default pi-ai's, `is_context_overflow_error`). `silent_case`: whether a `stop` assistant whose input exceeds the
    window counts (kind `silent`; OpenClaw 2026.9's recovery looks only at `error` and `length` assistants)."""
    found = _last_assistant(session, ctx)
    if found is None:
        return OverflowTrigger(None, False, None, False, False, False)
    _, e = found
    model = ctx.model or {}
    same = e.provider == model.get("provider") and e.model == model.get("modelId")
    stale = _before(e.message_timestamp, _compaction_ms(session, ctx))
    kind = None
    error_message = None
    if e.stop_reason == "error":
        msg = session.load_message(e) or {}
        err = msg.get("errorMessage")
        if isinstance(err, str) and err:
            error_message = err
            if (is_overflow_error or is_context_overflow_error)(err):
                kind = "error"
    if kind is None and silent_case and window and e.stop_reason == "stop":
        usage = e.usage or {}
        if _num(usage.get("input")) + _num(usage.get("cacheRead")) > window:
            kind = "silent"
    if kind is None and length_case and window and e.stop_reason == "length":
        usage = e.usage or {}
        output = usage.get("output")
        if type(output) in (int, float) and output == 0 and _num(usage.get("input")) + _num(usage.get("cacheRead")) >= window * 0.99:
            kind = "length"
    is_overflow = kind is not None
    fires = enabled and is_overflow and same and not stale and e.stop_reason != "aborted"
    return OverflowTrigger(e.id, is_overflow, kind, same, stale, fires, error_message)


def pre_prompt_route(
    session: Session, ctx: m.SessionContext, window: int, reserve: int, prompt_tokens: int = 0
) -> PrePromptRoute:
    """OpenClaw `shouldPreemptivelyCompactBeforePrompt` on the context's messages plus a prompt.

    The system prompt estimates 0 (pi's `estimateTokens` has no `system` role), so only the history and the
    prompt count: `ceil((Σ estimateTokens + prompt) * 1.2)` against `budget - min(reserve, budget - min(8000, budget/2))`.
    """
    messages_tokens = sum(r.estimate("openclaw_compaction") or 0 for r in ctx.messages)
    estimated = max(0, math.ceil((messages_tokens + prompt_tokens) * SAFETY_MARGIN))
    budget = max(1, math.floor(window))
    requested = max(0, math.floor(reserve))
    min_prompt_budget = min(MIN_PROMPT_BUDGET_TOKENS, max(1, math.floor(budget * MIN_PROMPT_BUDGET_RATIO)))
    effective_reserve = min(requested, max(0, budget - min_prompt_budget))
    before_reserve = max(1, budget - effective_reserve)
    overflow = max(0, estimated - before_reserve)
    overflow_chars = overflow * CHARS_PER_TOKEN_ESTIMATE
    buffer_chars = TRUNCATION_ROUTE_BUFFER_TOKENS * CHARS_PER_TOKEN_ESTIMATE
    truncate_only = max(overflow_chars + buffer_chars, math.ceil(overflow_chars * 1.5))
    potential = None
    route = "fits"
    if overflow > 0:
        potential = context_tool_result_potential(session, ctx, window)
        reducible = potential.max_reducible_chars
        if reducible <= 0:
            route = "compact_only"
        elif reducible >= truncate_only:
            route = "truncate_tool_results_only"
        else:
            route = "compact_then_truncate"
    return PrePromptRoute(
        prompt_tokens, messages_tokens, estimated, budget, requested, effective_reserve, before_reserve, overflow, truncate_only, potential, route
    )


_POTENTIALS: weakref.WeakKeyDictionary[Session, dict[tuple[Any, ...], ReductionPotential]] = weakref.WeakKeyDictionary()


def context_tool_result_potential(session: Session, ctx: m.SessionContext, window: int) -> ReductionPotential:
    """`estimateToolResultReductionPotential` over the context's messages (tool results are read from disk).

    It depends only on the context and the window, so it is remembered per session: re-planning with other
    settings does not read the tool results again.
    """
    key = (ctx.leaf_id, len(ctx.messages), ctx.compaction_index, session.file_size, window)
    cache = _POTENTIALS.setdefault(session, {})
    if key not in cache:
        if len(cache) > 16:
            cache.clear()
        cache[key] = _potential(session, ctx, window)
    return cache[key]


def _potential(session: Session, ctx: m.SessionContext, window: int) -> ReductionPotential:
    entries = session.entries
    results = []
    for row in ctx.messages:
        e = entries[row.entry_index]
        if e.type != m.MESSAGE or e.role != "toolResult":
            continue
        text = tool_result_text(row.index, session.load_message(e))
        if text is not None:
            results.append(text)
    return estimate_reduction_potential(results, window)


def early_warnings(context_tokens: int, window: int, fractions: Sequence[float] = DEFAULT_EARLY_THRESHOLDS) -> list[EarlyWarning]:
    """The early-warning thresholds (`floor(fraction * window)`), in the order given."""
    return [EarlyWarning(f, math.floor(f * window), context_tokens) for f in fractions]
