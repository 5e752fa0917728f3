"""Rebuild the messages the model sees, exactly as pi's `buildSessionContext` (spec §1.5).

Works on entry metadata only: message content stays on disk until asked for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import model as m
from .tokens.usage import NON_OBJECT_USAGE, UsageRow
from .tree import SessionTree

SIBLING_SCAN_LIMIT = 2000


def _maps_to_message(entry: m.Entry) -> bool:
    """pi's `appendMessage` mapping: message, custom_message, branch_summary with a non-empty summary."""
    t = entry.type
    if t == m.MESSAGE:
        return entry.role is not None
    if t == m.CUSTOM_MESSAGE:
        return True
    if t == m.BRANCH_SUMMARY:
        return entry.role is not None  # set only when the summary is non-empty
    return False


_SETTING_TYPES = frozenset({m.THINKING_LEVEL_CHANGE, m.MODEL_CHANGE, m.MESSAGE})


def _settings_after(entry: m.Entry, model: dict[str, Any] | None, thinking_level: str) -> tuple[dict[str, Any] | None, str]:
    """pi's settings walk in `buildSessionContext`: the model and thinking level in force after `entry`.

    A `thinking_level_change` sets the level (one that is not a string reads as `off`); a `model_change` or an
    assistant message sets the model.
    """
    if entry.type == m.THINKING_LEVEL_CHANGE and entry.data is not None:
        level = entry.data.get("thinkingLevel")
        return model, level if isinstance(level, str) else "off"
    if entry.type == m.MODEL_CHANGE and entry.data is not None:
        return {"provider": entry.data.get("provider"), "modelId": entry.data.get("modelId")}, thinking_level
    if entry.type == m.MESSAGE and entry.role == "assistant":
        return {"provider": entry.provider, "modelId": entry.model}, thinking_level
    return model, thinking_level


_FLAGS_BYTE = m.NUMS.size - 8
"""Offset in `Entry.nums` of the low byte of the flags (little-endian; every flag fits in it)."""


def _row(entry: m.Entry, index: int) -> m.ContextMessage:
    nums = entry.nums
    # ContextMessage's fields in order (positional: a call with nine keywords costs more, once per context row).
    return _ContextMessage(
        index, entry.index, entry.id, entry.line, entry.role or "?", entry.tool_name, nums,
        entry.usage_packed, bool(nums[_FLAGS_BYTE] & _EXCLUDED),
    )  # fmt: skip


_ContextMessage = m.ContextMessage
_EXCLUDED = m.FLAG_EXCLUDED_FROM_CONTEXT


def usage_rows_from_end(entries: list[m.Entry], ctx: m.SessionContext) -> Iterator[UsageRow]:
    """The context's messages as pi `estimateContextTokens` rows, from the last one backwards, from the index's
    metadata alone (no message re-read): feed them to `inspector.tokens.context_tokens_from_end`.

    Lazy: recorded usage is unpacked only for the assistant messages actually reached.
    """
    for row in reversed(ctx.messages):
        e = entries[row.entry_index]
        usage: object = None
        if e.role == "assistant":
            if e.usage_packed is not None:
                usage = e.usage
            elif e.non_object_usage:
                usage = NON_OBJECT_USAGE
        est = row.est_packed
        yield UsageRow(e.role, e.stop_reason, usage, est[0] if est is not None else 0)


def build_context(tree: SessionTree, leaf_index: int | None = None) -> m.SessionContext:
    """The context for `leaf_index` (default: the last entry)."""
    if leaf_index is None:
        leaf_index = tree.leaf_index
    if leaf_index is None:
        return m.SessionContext(leaf_id=None, messages=[], path=[], model=None, thinking_level="off")
    entries = tree.entries
    path, diags = tree.path_to(leaf_index)

    thinking_level = "off"
    model: dict[str, Any] | None = None
    compaction_pos: int | None = None
    for pos, idx in enumerate(path):
        e = entries[idx]
        if e.type == m.COMPACTION:
            compaction_pos = pos
        elif e.type in _SETTING_TYPES:
            model, thinking_level = _settings_after(e, model, thinking_level)

    rows: list[m.ContextMessage] = []
    first_kept_pos: int | None = None
    if compaction_pos is None:
        for idx in path:
            e = entries[idx]
            if _maps_to_message(e):
                rows.append(_row(e, len(rows)))
    else:
        comp = entries[path[compaction_pos]]
        rows.append(_row(comp, 0))
        first_kept = comp.data.get("firstKeptEntryId") if comp.data else None
        found = False
        for pos in range(compaction_pos):
            e = entries[path[pos]]
            if not found and e.id is not None and e.id == first_kept:
                found = True
                first_kept_pos = pos
            if found and _maps_to_message(e):
                rows.append(_row(e, len(rows)))
        if not found:
            reason = "points at the compaction itself (manual /compact)" if first_kept == comp.id else "is not on the path"
            diags.append(
                m.Diagnostic(
                    "first_kept_not_found",
                    f"compaction {comp.id}: firstKeptEntryId {first_kept!r} {reason}; nothing before it is kept",
                    "info",
                    comp.line,
                    comp.offset,
                )
            )
        for idx in path[compaction_pos + 1 :]:
            e = entries[idx]
            if _maps_to_message(e):
                rows.append(_row(e, len(rows)))

    ctx = m.SessionContext(
        leaf_id=entries[leaf_index].id,
        messages=rows,
        path=path,
        model=model,
        thinking_level=thinking_level,
        compaction_index=path[compaction_pos] if compaction_pos is not None else None,
        first_kept_index=path[first_kept_pos] if first_kept_pos is not None else None,
        diagnostics=diags,
    )
    return ctx


def extend_context(tree: SessionTree, ctx: m.SessionContext, entry: m.Entry) -> bool:
    """Append `entry` to the context of the previous leaf, if it simply continues that path.

    Returns False when the context must be rebuilt instead (a new branch, a compaction, an unknown leaf):
    this is what keeps one appended line cheap on a 300k-entry session.
    """
    if entry.type == m.COMPACTION or entry.id is None or ctx.leaf_id is None:
        return False
    if entry.parent_id != ctx.leaf_id or tree.by_id.get(entry.id) != entry.index:
        return False
    ctx.path.append(entry.index)
    ctx.leaf_id = entry.id
    if entry.type in _SETTING_TYPES:
        ctx.model, ctx.thinking_level = _settings_after(entry, ctx.model, ctx.thinking_level)
    if _maps_to_message(entry):
        ctx.messages.append(_row(entry, len(ctx.messages)))
    return True


def tool_pairing_diagnostics(tree: SessionTree, ctx: m.SessionContext) -> list[m.Diagnostic]:
    """Warn when toolCalls and toolResults on the active path do not pair up (delivery-mirror siblings)."""
    entries = tree.entries
    pending: dict[str, m.Entry] = {}
    out: list[m.Diagnostic] = []
    for row in ctx.messages:
        e = entries[row.entry_index]
        if e.role == "assistant":
            for cid in e.tool_call_ids:
                pending[cid] = e
        elif e.role == "toolResult":
            if e.tool_call_id in pending:
                del pending[e.tool_call_id]
            else:
                out.append(
                    m.Diagnostic(
                        "orphan_tool_result",
                        f"toolResult {e.tool_call_id!r} ({e.tool_name}) has no matching toolCall on the active path",
                        "warning",
                        e.line,
                        e.offset,
                    )
                )
    for cid, e in pending.items():
        siblings = _sibling_hint(tree, e, cid)
        out.append(
            m.Diagnostic(
                "missing_tool_result",
                f"toolCall {cid!r} in entry {e.id} has no toolResult on the active path{siblings}",
                "warning",
                e.line,
                e.offset,
            )
        )
    return out


def _sibling_hint(tree: SessionTree, call_entry: m.Entry, call_id: str) -> str:
    """Point at a toolResult for `call_id` that sits on another branch (OpenClaw's delivery-mirror case)."""
    for e in tree.entries[call_entry.index + 1 : call_entry.index + 1 + SIBLING_SCAN_LIMIT]:
        if e.role == "toolResult" and e.tool_call_id == call_id:
            return f"; its result is entry {e.id} (line {e.line}) on a sibling branch (delivery-mirror race, OpenClaw repairs it in memory)"
    return ""
