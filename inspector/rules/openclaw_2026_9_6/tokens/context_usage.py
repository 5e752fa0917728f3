"""The agent core's `estimateContextTokens` on a session's context, read from the index's metadata (no message
parsed): 2026.4.12's walk (`usage_rows_from_end`) with 2026.9.6's rules."""

from __future__ import annotations

from typing import Any

from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens.usage import usage_rows_from_end
from inspector.rules.openclaw_2026_9_6.tokens.usage import context_tokens_from_end
from inspector.session.session import Session


def last_context_usage(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """`estimateContextTokens` on the context: the last valid assistant usage + the estimates of what follows.

    The rows carry no `api` and the index keeps no `contextUsage`, so the `cli` and `unavailable` barriers and the
    measured `contextUsage.totalTokens` apply only where the full messages are read (`estimate_context_tokens`).
    """
    rows = usage_rows_from_end(session.entries, ctx)
    return context_tokens_from_end(rows, len(ctx.messages)).to_json()
