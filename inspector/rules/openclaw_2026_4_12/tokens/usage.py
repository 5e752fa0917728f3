"""Recorded usage: pi's `calculateContextTokens` and `estimateContextTokens` ([PI66] `compaction/compaction.ts`).

`estimateContextTokens` has one implementation here, `context_tokens_from_end`, which walks per-message rows
(`UsageRow`: role, stop reason, recorded usage, pi tokens) from the last message backwards. Two callers feed it:
`estimate_context_tokens(messages)` from full messages, and `inspector.rules.openclaw_2026_4_12.tokens.context_usage.last_context_usage` from the
index's packed metadata (no message re-read from disk). Walking backwards lets both stop at the last valid usage:
only the messages after it are estimated.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from inspector.js.jsjson import js_truthy
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens.estimators import pi_estimate_tokens

__all__ = [
    "NON_OBJECT_USAGE",
    "ContextTokens",
    "UsageRow",
    "calculate_context_tokens",
    "context_tokens_from_end",
    "estimate_context_tokens",
    "is_valid_assistant_usage",
    "message_usage_row",
    "usage_row",
    "usage_rows_from_end",
]

NON_OBJECT_USAGE = "<usage that is not an object>"
"""Stands for a recorded `usage` that is truthy but not an object (the index keeps only a flag for it): pi takes it
as the last usage (`calculateContextTokens` then gives NaN; 0 here)."""


def _num(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if value != value or value in (float("inf"), float("-inf")):
        return 0
    return value


def _as_int(value: int | float) -> int:
    return int(value) if isinstance(value, int) or value.is_integer() else round(value)


def calculate_context_tokens(usage: dict[str, Any] | None) -> int:
    """pi `calculateContextTokens(usage)` = `totalTokens || input + output + cacheRead + cacheWrite` ([PI66] `CMP`).

    v1 files lack `totalTokens` (and a `0` falls through to the sum, as `||` does). Missing or non-numeric
    fields count 0; a usage that is not an object gives 0.
    """
    if type(usage) is not dict:
        return 0
    total = _num(usage.get("totalTokens"))
    if total:
        return _as_int(total)
    return _as_int(
        _num(usage.get("input")) + _num(usage.get("output")) + _num(usage.get("cacheRead")) + _num(usage.get("cacheWrite"))
    )


class UsageRow(NamedTuple):
    """One context message as `estimateContextTokens` sees it.

    `usage` is the message's recorded `usage` value as stored (None when absent); `pi_tokens` its pi
    `estimateTokens`.
    """

    role: Any
    stop_reason: Any
    usage: Any
    pi_tokens: int


def usage_rows_from_end(
    entries: Sequence[m.Entry], ctx: m.SessionContext, row_of: Callable[[m.Entry], Any] | None = None
) -> Iterator[Any]:
    """The context's messages as pi `estimateContextTokens` rows, from the last one backwards, from the index's
    metadata alone (no message re-read): feed them to `context_tokens_from_end`. `row_of` makes an entry's row
    (`usage_row` by default; a later release's carries more).

    Lazy: recorded usage is unpacked only for the assistant messages actually reached.
    """
    make = usage_row if row_of is None else row_of
    for row in reversed(ctx.messages):
        yield make(entries[row.entry_index])


def usage_row(entry: m.Entry) -> UsageRow:
    """The entry as pi's `estimateContextTokens` sees it: role, stop reason, recorded usage (unpacked only for an
    assistant message) and pi tokens."""
    usage: object = None
    if entry.role == "assistant":
        if entry.usage_packed is not None:
            usage = entry.usage
        elif entry.non_object_usage:
            usage = NON_OBJECT_USAGE
    return UsageRow(entry.role, entry.stop_reason, usage, entry.estimate("pi") or 0)


def is_valid_assistant_usage(role: Any, stop_reason: Any, usage: Any) -> bool:
    """pi `getAssistantUsage`: an assistant message, neither aborted nor an error, with a truthy `usage`."""
    return role == "assistant" and stop_reason != "aborted" and stop_reason != "error" and js_truthy(usage)


@dataclass(frozen=True, slots=True)
class ContextTokens:
    """pi `estimateContextTokens`' result: `tokens` = `usage_tokens` + `trailing_tokens`.

    `last_usage_index` is the position of the assistant message whose usage counts (None without one: then
    every message is estimated and `usage_tokens` is 0).
    """

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None

    def to_json(self) -> dict[str, Any]:
        """The JSON contract's `estimate_context_tokens` object (`stats --json`, `context --json` totals)."""
        return {
            "tokens": self.tokens,
            "usage_tokens": self.usage_tokens,
            "trailing_tokens": self.trailing_tokens,
            "last_usage_index": self.last_usage_index,
        }


def context_tokens_from_end(
    rows_from_end: Iterable[Any],
    count: int,
    is_valid: Callable[[Any, Any, Any], bool] = is_valid_assistant_usage,
    tokens_of: Callable[[Any], int] = calculate_context_tokens,
    is_barrier: Callable[[Any], bool] | None = None,
) -> ContextTokens:
    """pi `estimateContextTokens` over `count` messages given as rows from the LAST one backwards.

    The usage of the last assistant message that is neither aborted nor an error (`calculate_context_tokens`)
    plus the pi tokens of every later message; with no such assistant, the sum over all messages. Rows are
    consumed only up to that assistant, so a lazy iterator costs only the trailing messages.

    A later release passes its own rules: `is_valid(role, stop_reason, usage)`, `tokens_of(usage)`, and
    `is_barrier(row)`, a row that ends the search (every message is then estimated; pi has none).
    """
    trailing = 0
    rows = iter(rows_from_end)
    for k, row in enumerate(rows):
        if is_barrier is not None and is_barrier(row):
            trailing += row.pi_tokens + sum(r.pi_tokens for r in rows)
            break
        if is_valid(row.role, row.stop_reason, row.usage):
            usage_tokens = tokens_of(row.usage)
            return ContextTokens(usage_tokens + trailing, usage_tokens, trailing, count - 1 - k)
        trailing += row.pi_tokens
    return ContextTokens(trailing, 0, trailing, None)


def message_usage_row(msg: Any) -> UsageRow:
    """The `UsageRow` of a full message dict."""
    if type(msg) is not dict:
        return UsageRow(None, None, None, pi_estimate_tokens(msg))
    return UsageRow(msg.get("role"), msg.get("stopReason"), msg.get("usage"), pi_estimate_tokens(msg))


def estimate_context_tokens(
    messages: list[dict[str, Any]],
    row_of: Callable[[Any], Any] = message_usage_row,
    from_end: Callable[[Iterable[Any], int], ContextTokens] = context_tokens_from_end,
) -> dict[str, Any]:
    """pi `estimateContextTokens(messages)` ([PI66] `CMP`), used for compaction's `tokensBefore`.

    Returns `{"tokens", "usage_tokens", "trailing_tokens", "last_usage_index"}` (index `None` without usage); see
    `context_tokens_from_end`. A later release passes its message rows (`row_of`) and its walk (`from_end`).
    """
    rows = (row_of(msg) for msg in reversed(messages))
    return from_end(rows, len(messages)).to_json()
