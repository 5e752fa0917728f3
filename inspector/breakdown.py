"""Where the context goes: totals by role and by tool, and the largest messages (for any estimator)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from . import model as m
from .session import Session

ESTIMATOR_FIELDS = ("pi_tokens", "openclaw_prune_chars", "openclaw_compaction_tokens", "tool_guard_chars")


def message_size(row: m.ContextMessage, estimator: str) -> int:
    """One context message's size under `estimator` (one of `ESTIMATOR_FIELDS`)."""
    return getattr(row.estimates, estimator) if row.estimates is not None else 0


def tool_of(session: Session, row: m.ContextMessage) -> str | None:
    """The tool a message belongs to: a toolResult's tool, or the tools an assistant called."""
    e = session.entries[row.entry_index]
    return e.tool_name if e.role in ("toolResult", "assistant") else None


def context_breakdown(session: Session, ctx: m.SessionContext, estimator: str = "pi_tokens", top: int = 10) -> dict[str, Any]:
    """Totals by role and by tool (tool calls and their results together), and the `top` largest messages."""
    if estimator not in ESTIMATOR_FIELDS:
        raise ValueError(f"unknown estimator {estimator!r}; one of {', '.join(ESTIMATOR_FIELDS)}")
    by_role: dict[str, dict[str, int]] = defaultdict(lambda: {"messages": 0, "size": 0})
    by_tool: dict[str, dict[str, int]] = defaultdict(lambda: {"calls": 0, "results": 0, "size": 0})
    total = 0
    sizes = []
    for row in ctx.messages:
        size = message_size(row, estimator)
        total += size
        r = by_role[row.role]
        r["messages"] += 1
        r["size"] += size
        sizes.append((size, row.index))
        e = session.entries[row.entry_index]
        if e.role == "toolResult":
            t = by_tool[e.tool_name or "?"]
            t["results"] += 1
            t["size"] += size
        elif e.role == "assistant" and e.tool_call_ids:
            # An assistant turn's size is shared by the tools it called.
            names = (e.tool_name or "?").split(", ")
            for name in names:
                t = by_tool[name]
                t["calls"] += 1
                t["size"] += size // len(names)
    sizes.sort(key=lambda s: (-s[0], s[1]))
    largest = []
    for size, index in sizes[:top]:
        row = ctx.messages[index]
        largest.append(
            {"index": index, "entry_id": row.entry_id, "line": row.line, "role": row.role, "tool_name": row.tool_name, "size": size}
        )

    def share(d: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
        items = sorted(d.items(), key=lambda kv: -kv[1]["size"])
        return [{"name": k, **v, "share": round(v["size"] / total, 4) if total else 0.0} for k, v in items]

    return {"estimator": estimator, "total": total, "by_role": share(by_role), "by_tool": share(by_tool), "largest": largest}
