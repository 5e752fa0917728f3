"""The agent core's `estimateContextTokens` on a session's context, read from the index's metadata (no message
parsed): this release's rows (`usage_rows_from_end`: `contextUsage` and `api: "cli"` kept by the index) under its
rules; and the context's size now (`context_now`), 2026.4.12's rule with this release's check of the usage recorded
after the latest compaction.

[OC9] `src/agents/sessions/agent-session-inspection.ts` `getContextUsage`: the latest compaction on the path (none
when a `reset` comes after it: `getLatestCompactionEntry`); of the assistants after it that are neither aborted nor
an error, one whose `contextUsage.state` is `"unavailable"` is passed over (the size is then estimated from the
content), and the first with a positive `calculateContextTokens` is trusted; without one, the size is unknown or
estimated from every message's content: `context_now` gives that estimate, with its basis. Not read here: a
provider's compaction checkpoint (`providerReplay` of type `anthropic-compaction`...), which the index does not keep.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens.context_usage import context_now_by
from inspector.rules.openclaw_2026_9_6.tokens.usage import calculate_context_tokens, context_tokens_from_end, usage_rows_from_end
from inspector.session.session import Session


def last_context_usage(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """`estimateContextTokens` on the context: the last valid assistant usage (its measured
    `contextUsage.totalTokens` when available) + the estimates of what follows, none past a barrier."""
    rows = usage_rows_from_end(session.entries, ctx)
    return context_tokens_from_end(rows, len(ctx.messages)).to_json()


def usage_since_compaction(rows_after_from_end: Iterable[Any]) -> bool:
    """`getContextUsage`'s check on the messages after the latest compaction (last first): an assistant neither
    aborted nor an error, whose `contextUsage.state` is not `"unavailable"`, with a positive `calculateContextTokens`."""
    for row in rows_after_from_end:
        if row.role != "assistant" or row.stop_reason == "aborted" or row.stop_reason == "error":
            continue
        usage = row.usage if type(row.usage) is dict else {}
        context_usage = usage.get("contextUsage")
        if type(context_usage) is dict and context_usage.get("state") == "unavailable":
            continue
        if calculate_context_tokens(usage) > 0:
            return True
    return False


def context_now(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """The context's size now: `last_context_usage`'s dict with its `basis`, and `stale_usage_tokens` (the recorded
    usage left out because it predates the latest compaction; None when none was)."""
    return context_now_by(session, ctx, usage_rows_from_end, context_tokens_from_end, usage_since_compaction)
