"""The agent core's `estimateContextTokens` on a session's context, read from the index's metadata (no message
parsed): this release's rows (`usage_rows_from_end`: `contextUsage` and `api: "cli"` kept by the index) under its
rules."""

from __future__ import annotations

from typing import Any

from inspector.model import entries as m
from inspector.rules.openclaw_2026_9_6.tokens.usage import context_tokens_from_end, usage_rows_from_end
from inspector.session.session import Session


def last_context_usage(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """`estimateContextTokens` on the context: the last valid assistant usage (its measured
    `contextUsage.totalTokens` when available) + the estimates of what follows, none past a barrier."""
    rows = usage_rows_from_end(session.entries, ctx)
    return context_tokens_from_end(rows, len(ctx.messages)).to_json()
