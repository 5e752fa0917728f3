"""pi's `estimateContextTokens` on a session's context, read from the index's metadata (no message parsed), and the
context's size now (`context_now`): pi's `getContextUsage` rule, never a usage recorded before the latest compaction.

[PI66] `AgentSession.getContextUsage`: after a compaction, the last assistant usage reflects the context before it;
only the usage of an assistant that replied after the latest compaction (the last one on the path after it that is
neither aborted nor an error, with a positive `calculateContextTokens`) is trusted; without one pi says the size is
unknown until the next reply. `context_now` gives, there, the estimate of every context message instead (what the
next request carries), with its basis (`inspector.rules.context_basis`) and the usage it left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import Any

from inspector.js.jsjson import js_truthy
from inspector.model import entries as m
from inspector.rules.context_basis import ESTIMATE, basis_of
from inspector.rules.openclaw_2026_4_12.tokens.usage import (
    ContextTokens,
    calculate_context_tokens,
    context_tokens_from_end,
    usage_rows_from_end,
)
from inspector.session.session import Session

RowsFromEnd = Callable[[Sequence[m.Entry], m.SessionContext], Iterator[Any]]
FromEnd = Callable[[Iterable[Any], int], ContextTokens]


def last_context_usage(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """pi's `estimateContextTokens` on the context: last valid assistant usage + chars/4 of what follows.

    The one implementation is `usage.context_tokens_from_end`; here it reads the index's metadata. Compaction's
    `tokensBefore` is this figure; the context's size now is `context_now`'s.
    """
    rows = usage_rows_from_end(session.entries, ctx)
    return context_tokens_from_end(rows, len(ctx.messages)).to_json()


def usage_since_compaction(rows_after_from_end: Iterable[Any]) -> bool:
    """pi 0.66.1 `getContextUsage`'s check on the messages after the latest compaction (last first): the first
    assistant that is neither aborted nor an error decides, by a positive `calculateContextTokens` of its usage."""
    for row in rows_after_from_end:
        if row.role == "assistant" and row.stop_reason != "aborted" and row.stop_reason != "error":
            return js_truthy(row.usage) and calculate_context_tokens(row.usage) > 0
    return False


def context_now(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """The context's size now: `last_context_usage`'s dict with its `basis`, and `stale_usage_tokens` (the recorded
    usage left out because it predates the latest compaction; None when none was)."""
    return context_now_by(session, ctx, usage_rows_from_end, context_tokens_from_end, usage_since_compaction)


def context_now_by(
    session: Session,
    ctx: m.SessionContext,
    rows_from_end: RowsFromEnd,
    from_end: FromEnd,
    usage_since: Callable[[Iterable[Any]], bool],
) -> dict[str, Any]:
    """`context_now` under a release's rules: its rows (`rows_from_end`), its `estimateContextTokens` walk (`from_end`)
    and its check of the usage recorded after the latest compaction (`usage_since`, given the rows after it, last first).

    The messages after the compaction are those of entries after it in the file (entries are appended after their
    parent, so a kept message precedes its compaction).
    """
    entries = session.entries
    found = from_end(rows_from_end(entries, ctx), len(ctx.messages))
    comp = ctx.compaction_index
    stale: int | None = None
    if comp is not None and found.last_usage_index is not None:
        after = sum(1 for _ in _rows_after(ctx, comp))
        if not usage_since(islice(rows_from_end(entries, ctx), after)):
            if ctx.messages[found.last_usage_index].entry_index < comp:
                stale = found.usage_tokens
            total = sum(row.pi_tokens for row in rows_from_end(entries, ctx))
            return {**ContextTokens(total, 0, total, None).to_json(), "basis": ESTIMATE, "stale_usage_tokens": stale}
    out = found.to_json()
    return {**out, "basis": basis_of(out), "stale_usage_tokens": stale}


def _rows_after(ctx: m.SessionContext, comp: int) -> Iterator[m.ContextMessage]:
    """The context's messages after the compaction entry `comp`, last first."""
    for row in reversed(ctx.messages):
        if row.entry_index <= comp:
            return
        yield row
