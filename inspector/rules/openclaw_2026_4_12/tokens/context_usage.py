"""pi's `estimateContextTokens` on a session's context, read from the index's metadata (no message parsed)."""

from __future__ import annotations

from typing import Any

from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens.usage import context_tokens_from_end, usage_rows_from_end
from inspector.session.session import Session


def last_context_usage(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """pi's `estimateContextTokens` on the context: last valid assistant usage + chars/4 of what follows.

    The one implementation is `usage.context_tokens_from_end`; here it reads the index's metadata.
    """
    rows = usage_rows_from_end(session.entries, ctx)
    return context_tokens_from_end(rows, len(ctx.messages)).to_json()

