"""Extend a session context with appended entries without walking the whole path again (live follow).

`Session.context()` rebuilds pi's context from the leaf up (`inspector.context.build_context`): linear in the
path length, about a second on 300k entries, too slow for a 250 ms refresh. When the appended entries simply
continue the leaf's chain (the normal case for a live run), the new context is the old one plus the new
entries, mapped with the engine's own mapping (`inspector.context`), so nothing is re-derived here. Anything
else (a compaction, a branch, a reused id, a first entry) returns None and the caller rebuilds in full.
Tool-pairing diagnostics are carried over, not recomputed (they are refreshed on the next full rebuild).
"""

from __future__ import annotations

from inspector import model as m
from inspector.context import _maps_to_message, _row  # the engine's pi mapping, reused as is
from inspector.tree import SessionTree


def extend_context(tree: SessionTree, ctx: m.SessionContext, new_entries: list[m.Entry]) -> m.SessionContext | None:
    """`ctx` plus `new_entries` when they chain from its leaf; None when a full rebuild is needed."""
    if not new_entries or ctx.leaf_id is None:
        return None
    leaf = ctx.leaf_id
    messages = list(ctx.messages)
    path = list(ctx.path)
    model = ctx.model
    thinking_level = ctx.thinking_level
    for e in new_entries:
        if e.id is None or e.parent_id != leaf or e.type == m.COMPACTION or tree.by_id.get(e.id) != e.index:
            return None
        path.append(e.index)
        if e.type == m.THINKING_LEVEL_CHANGE and e.data is not None:
            level = e.data.get("thinkingLevel")
            thinking_level = level if isinstance(level, str) else "off"
        elif e.type == m.MODEL_CHANGE and e.data is not None:
            model = {"provider": e.data.get("provider"), "modelId": e.data.get("modelId")}
        elif e.type == m.MESSAGE and e.role == "assistant":
            model = {"provider": e.provider, "modelId": e.model}
        if _maps_to_message(e):
            messages.append(_row(e, len(messages)))
        leaf = e.id
    if tree.entries[-1].id != leaf:
        return None
    return m.SessionContext(
        leaf_id=leaf,
        messages=messages,
        path=path,
        model=model,
        thinking_level=thinking_level,
        compaction_index=ctx.compaction_index,
        first_kept_index=ctx.first_kept_index,
        diagnostics=list(ctx.diagnostics),
    )
