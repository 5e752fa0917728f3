"""Usage revised after it was indexed (a Claude Code / Codex mirror's usage marks: `inspector.read.usage_marks`):
the entries given their new usage, and a cached context brought up to date without being changed in place."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from inspector.model import entries as m
from inspector.session.context import position_from_end

if TYPE_CHECKING:
    from inspector.read.usage_marks import UsageMark
    from inspector.session.tree import SessionTree


def apply_usage_marks(tree: SessionTree, marks: list[UsageMark], start: int) -> dict[int, bytes | None]:
    """Give each marked assistant message its usage (a later mark wins); the revised entries before `start`."""
    entries, get = tree.entries, tree.by_id.get
    revised: dict[int, bytes | None] = {}
    for entry_id, packed in marks:
        i = get(entry_id)
        if i is None or entries.type_of(i) != m.MESSAGE or entries.role_of(i) != "assistant" or entries.usage_packed(i) == packed:
            continue
        entries.revise_usage(i, packed)
        if i < start:
            revised[i] = packed
    return revised

def revise_context(tree: SessionTree, ctx: m.SessionContext, revised: dict[int, bytes | None]) -> m.SessionContext:
    """`ctx` with the usage of the `revised` entries (a new object when one is on its path: a context handed out
    never changes): their rows replaced, the path's usage sum taken again from the first of them."""
    positions = sorted(p for p in (position_from_end(ctx.path, i) for i in revised) if p is not None)
    if not positions:
        return ctx
    messages = list(ctx.messages)
    for k in range(len(messages) - 1, -1, -1):
        row = messages[k]
        if row.entry_index in revised:
            messages[k] = dataclasses.replace(row, usage_packed=revised[row.entry_index])
    path_usage = ctx.path_usage
    if path_usage is not None:
        column, path = tree.entries.usage_column, ctx.path
        path_usage = path_usage.cut(positions[0], lambda a, b: column(path[a:b])).plus(column(path[positions[0] : path_usage.length]))
    return dataclasses.replace(ctx, messages=messages, path=ctx.path[:], diagnostics=list(ctx.diagnostics), path_usage=path_usage)
