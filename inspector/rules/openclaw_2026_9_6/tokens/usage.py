"""Recorded usage in OpenClaw 2026.9.6's agent core: `calculateContextTokens` and `estimateContextTokens`.

[OC9] `packages/agent-core/src/harness/compaction/compaction.ts` changed three rules of pi 0.66.1's
(`inspector.rules.openclaw_2026_4_12.tokens.usage`):

* `calculateContextTokens(usage)` is `usage.contextUsage.totalTokens` when `usage.contextUsage.state` is
  `"available"` (the provider's measured context), else pi's `totalTokens || input + output + cacheRead + cacheWrite`;
* an assistant usage counts only when that figure is > 0, and never when its `contextUsage.state` is
  `"unavailable"`;
* an assistant message whose usage says the context is unknown is a barrier: `api: "cli"` with no
  `contextUsage`, or `contextUsage.state: "unavailable"` with a figure of exactly 0. Walking back from the last
  message, a barrier ends the search: there is then no usage at all and every message is estimated.

`context_tokens_from_end` is 2026.4.12's walk over `UsageRow`s from the last message backwards, given these rules (it
reads past a barrier only to sum the estimates); `estimate_context_tokens` feeds it whole messages, `usage_rows_from_end`
the index's metadata: the packed usage with its `contextUsage` figure, the flags with its state and `api: "cli"`
(`inspector.model.entries.usage_flags`, `FLAG_API_CLI`).

What the index cannot give back: a standard usage field that is not a number (null, a string) reads as absent, not
as JavaScript's `+` takes it, and a non-numeric `contextUsage.totalTokens` as absent; such a usage may count (or
be a barrier) where the full message's would not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from inspector.js.jsjson import js_truthy
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens import usage as april
from inspector.rules.openclaw_2026_4_12.tokens.usage import NON_OBJECT_USAGE, ContextTokens
from inspector.rules.openclaw_2026_4_12.tokens.usage import calculate_context_tokens as april_context_tokens
from inspector.rules.openclaw_2026_9_6.tokens.estimators import pi_estimate_tokens

__all__ = [
    "NON_OBJECT_USAGE",
    "ContextTokens",
    "UsageRow",
    "calculate_context_tokens",
    "context_tokens_from_end",
    "estimate_context_tokens",
    "is_unavailable_context_barrier",
    "is_valid_assistant_usage",
    "message_usage_row",
    "usage_row",
    "usage_rows_from_end",
]

_NAN = math.nan


def _js_num(value: Any) -> float:
    """A usage field as JavaScript's `+` sees it: a number itself, null 0, a boolean 0/1, anything else NaN."""
    if value is None:
        return 0
    if type(value) is bool:
        return int(value)
    if isinstance(value, (int, float)):
        return value
    return _NAN


def _context_tokens_js(usage: Any) -> float:
    """`calculateContextTokens(usage)` as JavaScript computes it: may be NaN (a missing field) or infinite."""
    if type(usage) is not dict:
        return _NAN
    context_usage = usage.get("contextUsage")
    if type(context_usage) is dict and context_usage.get("state") == "available":
        return _js_num(context_usage.get("totalTokens")) if "totalTokens" in context_usage else _NAN
    total = _js_num(usage.get("totalTokens")) if "totalTokens" in usage else _NAN
    if total == total and total != 0:
        return total
    parts = [_js_num(usage[k]) if k in usage else _NAN for k in ("input", "output", "cacheRead", "cacheWrite")]
    return sum(parts)


def calculate_context_tokens(usage: dict[str, Any] | None) -> int:
    """The agent core's `calculateContextTokens(usage)`: `contextUsage.totalTokens` when its `state` is
    `"available"`, else pi's `totalTokens || input + output + cacheRead + cacheWrite` (2026.4.12's function: a
    missing or non-numeric field counts 0, a usage that is not an object gives 0)."""
    if type(usage) is not dict:
        return 0
    context_usage = usage.get("contextUsage")
    if type(context_usage) is dict and context_usage.get("state") == "available":
        return april_context_tokens({"totalTokens": context_usage.get("totalTokens")})
    return april_context_tokens(usage)


class UsageRow(NamedTuple):
    """One context message as `estimateContextTokens` sees it: `usage` is the recorded `usage` value as stored (None
    when absent), `pi_tokens` the agent core's `estimateTokens`, `api` the message's `api` (for the `cli` barrier;
    None when unknown). The first four fields are 2026.4.12's `UsageRow`'s."""

    role: Any
    stop_reason: Any
    usage: Any
    pi_tokens: int
    api: Any = None


_CONTEXT_STATES = {
    m.CONTEXT_USAGE_OTHER: None,
    m.CONTEXT_USAGE_UNAVAILABLE: "unavailable",
    m.CONTEXT_USAGE_AVAILABLE: "available",
}


def usage_row(entry: m.Entry) -> UsageRow:
    """The entry as `estimateContextTokens` sees it, from the index: 2026.4.12's row (`april.usage_row`) with the
    usage's `contextUsage` (its state, and its figure when `"available"`) and the `api` (`"cli"` or None) put back."""
    if entry.role != "assistant":
        return UsageRow(entry.role, entry.stop_reason, None, entry.estimate("pi") or 0)
    flags = entry.layout.flags(entry.nums)
    usage: Any = None
    packed = entry.usage_packed
    if packed is not None:
        usage = m.unpack_usage(packed)
        state = flags & m.CONTEXT_USAGE_MASK
        if state:
            context_usage: dict[str, Any] = {}
            if _CONTEXT_STATES[state] is not None:
                context_usage["state"] = _CONTEXT_STATES[state]
            figure = m.unpack_context_tokens(packed) if state == m.CONTEXT_USAGE_AVAILABLE else None
            if figure is not None:
                context_usage["totalTokens"] = figure
            usage["contextUsage"] = context_usage
    elif flags & m.FLAG_NON_OBJECT_USAGE:
        usage = NON_OBJECT_USAGE
    api = "cli" if flags & m.FLAG_API_CLI else None
    return UsageRow("assistant", entry.stop_reason, usage, entry.estimate("pi") or 0, api)


def usage_rows_from_end(entries: Sequence[m.Entry], ctx: m.SessionContext) -> Iterator[UsageRow]:
    """The context's messages as `usage_row`s, from the last one backwards, from the index alone (no message
    re-read): 2026.4.12's lazy walk (`april.usage_rows_from_end`) with this release's rows."""
    return april.usage_rows_from_end(entries, ctx, usage_row)


def is_unavailable_context_barrier(role: Any, usage: Any, api: Any) -> bool:
    """compaction.ts `isUnavailableContextBarrier`: an assistant message with a truthy usage that leaves the context
    unknown: `api: "cli"` without `contextUsage`, or `contextUsage.state: "unavailable"` and a figure of exactly 0."""
    if role != "assistant" or not js_truthy(usage):
        return False
    context_usage = usage.get("contextUsage") if type(usage) is dict else None
    if api == "cli" and (type(usage) is not dict or "contextUsage" not in usage):
        return True
    if type(context_usage) is not dict or context_usage.get("state") != "unavailable":
        return False
    return _context_tokens_js(usage) == 0


def is_valid_assistant_usage(role: Any, stop_reason: Any, usage: Any) -> bool:
    """compaction.ts `getAssistantUsage` and the `lastUsage` test: an assistant message, neither aborted nor an error,
    with a truthy usage whose `calculateContextTokens` is > 0 and whose `contextUsage.state` is not `"unavailable"`."""
    if role != "assistant" or stop_reason == "aborted" or stop_reason == "error" or not js_truthy(usage):
        return False
    if not _context_tokens_js(usage) > 0:
        return False
    context_usage = usage.get("contextUsage") if type(usage) is dict else None
    return not (type(context_usage) is dict and context_usage.get("state") == "unavailable")


def context_tokens_from_end(rows_from_end: Iterable[Any], count: int) -> ContextTokens:
    """The agent core's `estimateContextTokens` over `count` messages given as rows from the LAST one backwards.

    The usage of the last valid assistant message (`is_valid_assistant_usage`) plus the estimates of every later
    message; when none is found, or a barrier (`is_unavailable_context_barrier`) comes first, the sum over all
    messages. Rows are consumed up to the usage found (all of them otherwise). A row without `api` (2026.4.12's
    `UsageRow`) is never a `cli` barrier.
    """
    return april.context_tokens_from_end(rows_from_end, count, is_valid_assistant_usage, calculate_context_tokens, _is_barrier)


def _is_barrier(row: Any) -> bool:
    return is_unavailable_context_barrier(row.role, row.usage, getattr(row, "api", None))


def message_usage_row(msg: Any) -> UsageRow:
    """The `UsageRow` of a full message dict."""
    if type(msg) is not dict:
        return UsageRow(None, None, None, pi_estimate_tokens(msg))
    return UsageRow(msg.get("role"), msg.get("stopReason"), msg.get("usage"), pi_estimate_tokens(msg), msg.get("api"))


def estimate_context_tokens(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The agent core's `estimateContextTokens(messages)` (compaction's `tokensBefore`): `{"tokens",
    "usage_tokens", "trailing_tokens", "last_usage_index"}` (index None without usage); see
    `context_tokens_from_end`."""
    return april.estimate_context_tokens(messages, message_usage_row, context_tokens_from_end)
