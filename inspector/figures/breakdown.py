"""Where the context goes: totals by role and by tool, and the largest messages (for any of the index's estimators).

`context_breakdown` returns a typed `Breakdown`; its `to_json()` is `stats --json`'s `context.breakdown`, and the
UI's "Where it goes" panel renders the same object, so the panel and the JSON cannot disagree.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from inspector.base.cancel import checked
from inspector.figures.sizes import estimate_sizes, index_estimators
from inspector.model import entries as m
from inspector.rules.ruleset import Estimator
from inspector.session.session import Session


@dataclass(frozen=True, slots=True)
class RoleShare:
    """One role's part of the context: how many messages, their summed size and its share of the total."""

    name: str
    messages: int
    size: int
    share: float

    def to_json(self) -> dict[str, Any]:
        """`{"name", "messages", "size", "share"}`."""
        return {"name": self.name, "messages": self.messages, "size": self.size, "share": self.share}


@dataclass(frozen=True, slots=True)
class ToolShare:
    """One tool's part of the context: its calls (assistant turns, size shared by the tools they called), its
    results, their summed size and its share of the total."""

    name: str
    calls: int
    results: int
    size: int
    share: float

    def to_json(self) -> dict[str, Any]:
        """`{"name", "calls", "results", "size", "share"}`."""
        return {"name": self.name, "calls": self.calls, "results": self.results, "size": self.size, "share": self.share}


@dataclass(frozen=True, slots=True)
class LargestMessage:
    """One of the largest context messages: its context position `index`, entry, line, role, tool and size."""

    index: int
    entry_id: str | None
    line: int
    role: str
    tool_name: str | None
    size: int

    def to_json(self) -> dict[str, Any]:
        """`{"index", "entry_id", "line", "role", "tool_name", "size"}`."""
        return {
            "index": self.index,
            "entry_id": self.entry_id,
            "line": self.line,
            "role": self.role,
            "tool_name": self.tool_name,
            "size": self.size,
        }


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Totals by role and by tool (largest first) and the largest messages, under one estimator."""

    estimator: Estimator
    total: int
    by_role: tuple[RoleShare, ...]
    by_tool: tuple[ToolShare, ...]
    largest: tuple[LargestMessage, ...]

    def to_json(self) -> dict[str, Any]:
        """`stats --json`'s `context.breakdown`: `estimator` (its `--json` field), `total`, `by_role`, `by_tool`, `largest`."""
        return {
            "estimator": self.estimator.field,
            "total": self.total,
            "by_role": [r.to_json() for r in self.by_role],
            "by_tool": [t.to_json() for t in self.by_tool],
            "largest": [x.to_json() for x in self.largest],
        }


def tool_of(session: Session, row: m.ContextMessage) -> str | None:
    """The tool a message belongs to: a toolResult's tool, or the tools an assistant called."""
    e = session.entries[row.entry_index]
    return e.tool_name if e.role in ("toolResult", "assistant") else None


def _share(size: int, total: int) -> float:
    return round(size / total, 4) if total else 0.0


def context_breakdown(session: Session, ctx: m.SessionContext, estimator: str = "pi", top: int = 10) -> Breakdown:
    """Totals by role and by tool (tool calls and their results together), and the `top` largest messages, under
    the estimator called `estimator` (one of `index_estimators(session)`)."""
    known = index_estimators(session)
    chosen = next((e for e in known if e.name == estimator), None)
    if chosen is None:
        raise ValueError(f"unknown estimator {estimator!r}; one of {', '.join(e.name for e in known)}")
    by_role: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # messages, size
    by_tool: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # calls, results, size
    total = 0
    sizes = []
    for row, size in checked(zip(ctx.messages, estimate_sizes(ctx.messages, estimator)), every=4096):
        total += size
        r = by_role[row.role]
        r[0] += 1
        r[1] += size
        sizes.append((size, row.index))
        e = session.entries[row.entry_index]
        if e.role == "toolResult":
            t = by_tool[e.tool_name or "?"]
            t[1] += 1
            t[2] += size
        elif e.role == "assistant" and e.tool_call_ids:
            # An assistant turn's size is shared by the tools it called.
            names = (e.tool_name or "?").split(", ")
            for name in names:
                t = by_tool[name]
                t[0] += 1
                t[2] += size // len(names)
    sizes.sort(key=lambda s: (-s[0], s[1]))
    largest = []
    for size, index in sizes[:top]:
        row = ctx.messages[index]
        largest.append(LargestMessage(index, row.entry_id, row.line, row.role, row.tool_name, size))
    roles = sorted(by_role.items(), key=lambda kv: -kv[1][1])
    tools = sorted(by_tool.items(), key=lambda kv: -kv[1][2])
    return Breakdown(
        estimator=chosen,
        total=total,
        by_role=tuple(RoleShare(name, v[0], v[1], _share(v[1], total)) for name, v in roles),
        by_tool=tuple(ToolShare(name, v[0], v[1], v[2], _share(v[2], total)) for name, v in tools),
        largest=tuple(largest),
    )
