"""How OpenClaw 2026.9.6 rebuilds the context the model sees: `SessionManager.buildSessionContext()`, i.e. its
navigation's branch (`getBranch`) through the agent core's `buildSessionContext` (`harness/session/session.ts`).

The walk over the path is the engine's shared one (`inspector.session.context.build_context`), given these rules
(`OPENCLAW_2026_9_CONTEXT`): the last `compaction` *or* `reset` on the path is the boundary (a reset adds no summary
row); before a reset only the entries `tool_pairing.reset_kept` selects from its `firstKeptEntryId` on stay (user and
assistant messages, paired tool results; none without `firstKeptEntryId`); a `message` whose `excludeFromContext`
is exactly `true` is left out (unless a reset keeps it). What is new is which path: `navigation` (leaf rows, side
appends, entries reparented after a reset), not the last entry and its `parentId`s.

Same public functions as 2026.4.12's module (`build_context`, `extend_context`, `follow_leaf`, `maps_to_message`,
`continues_leaf`), plus, new in 2026.9: `active_leaf_index` (the leaf the navigation chose) and, on
`build_context`, `load_message` (the reset's tool pairing from the messages themselves instead of the index's
metadata). Session format v4 (runtime context escaped in user and custom text) reads as v3: the rebuild does not
tell them apart; versions below 3 are refused by the release until imported (`doctor`), read here as migrated.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Callable, Sequence
from typing import Any

from inspector.model import entries as m
from inspector.rules.openclaw_2026_9_6 import tool_pairing
from inspector.rules.openclaw_2026_9_6.navigation import CANONICAL, classify, navigation
from inspector.session.context import append_to_context, maps_to_message
from inspector.session.context import build_context as _walk
from inspector.session.context_rules import ContextRules
from inspector.session.tree import SessionTree
from inspector.storage.entry_table import EntryTable

__all__ = [
    "EXTRA_ENTRY_TYPES",
    "OPENCLAW_2026_9_CONTEXT",
    "active_leaf_index",
    "build_context",
    "continues_leaf",
    "extend_context",
    "follow_leaf",
    "maps_to_message",
]

EXTRA_ENTRY_TYPES = frozenset({m.RESET, m.LEAF})
"""Entry types 2026.9 writes that pi 0.66.1 did not: a `reset` boundary and `leaf` navigation rows (known, not
reported as unknown)."""

MessageLoader = Callable[[int], "dict[str, Any] | None"]
"""An entry's message object (its JSON `message`), by entry index."""


def metadata_message(entries: EntryTable, index: int) -> dict[str, Any] | None:
    """Entry `index`'s message as far as the tool pairing reads it, from the index's metadata: its role, an
    assistant's `toolCall` ids, a result's `toolCallId` and `toolName` (a synthetic "missing result" is not told
    apart; `load_message` gives the real message)."""
    if entries.type_of(index) != m.MESSAGE:
        return None
    shape = entries.shape_of(index)
    role = shape[1]
    if role == "assistant":
        return {"role": role, "content": [{"type": "toolCall", "id": cid} for cid in entries.tool_call_ids_of(index)]}
    if role == "toolResult":
        return {"role": role, "toolCallId": entries.tool_call_id_of(index), "toolName": shape[2]}
    return {"role": role}


def _reset_kept_by(load: Callable[[EntryTable, int], dict[str, Any] | None]) -> Callable[[EntryTable, Sequence[int]], set[int]]:
    def kept(entries: EntryTable, window: Sequence[int]) -> set[int]:
        messages = [load(entries, i) if entries.type_of(i) == m.MESSAGE else None for i in window]
        return {window[pos] for pos in tool_pairing.reset_kept(messages)}

    return kept


OPENCLAW_2026_9_CONTEXT = ContextRules(
    "path_kinds_2026_9", frozenset({m.COMPACTION, m.RESET}), skips_excluded=True, reset_kept=_reset_kept_by(metadata_message)
)
"""The context walk's rules in OpenClaw 2026.9.6 (see the module docstring)."""


def active_leaf_index(tree: SessionTree) -> int | None:
    """The entry the navigation makes the active leaf (`SessionManager.getLeafId()`): the last canonical entry not
    appended beside it, or where the last valid `leaf` row points. None when there is none."""
    return navigation(tree).leaf_index()


def build_context(
    tree: SessionTree,
    leaf_index: int | None = None,
    known_path: tuple[array[int], list[m.Diagnostic]] | None = None,
    load_message: MessageLoader | None = None,
) -> m.SessionContext:
    """The context for `leaf_index` (default: the active leaf, `active_leaf_index`): the navigation's branch to it
    (`getBranch`) unless `known_path` gives it. `load_message`, when given, supplies the messages a reset's tool
    pairing reads (else they come from the index's metadata)."""
    entries = tree.entries
    nav = navigation(tree)
    reset_kept = OPENCLAW_2026_9_CONTEXT.reset_kept
    if load_message is not None:
        loader = load_message
        reset_kept = _reset_kept_by(lambda _entries, i: loader(i))
    rules = dataclasses.replace(OPENCLAW_2026_9_CONTEXT, reset_kept=reset_kept, first_kept=nav.first_kept_id)
    if known_path is None:
        if leaf_index is None:
            leaf_index = nav.leaf_index()
            if leaf_index is None:
                return m.SessionContext(leaf_id=None, messages=[], path=m.path_indices(), model=None, thinking_level="off")
            known_path = (nav.branch(entries), [])
        else:
            known_path = (nav.branch(entries, entries.id_of(leaf_index)), [])
    return _walk(tree, leaf_index, known_path, rules)


def _extends(tree: SessionTree, leaf_id: str | None, index: int) -> bool:
    """Entry `index` becomes the leaf as the child of `leaf_id` and is no boundary: appending it is the context."""
    entries = tree.entries
    if leaf_id is None or entries.type_of(index) in OPENCLAW_2026_9_CONTEXT.boundary_types:
        return False
    nav = navigation(tree)
    entry_id = entries.id_of(index)
    if entry_id is None or nav.by_id.get(entry_id) != index:
        return False
    row = classify(entries, index)
    return row.kind == CANONICAL and not row.side and nav.parent_of(entries, index) == leaf_id


def extend_context(tree: SessionTree, ctx: m.SessionContext, index: int) -> bool:
    """Append entry `index` to the active leaf's context `ctx` (in place) when it continues it: a canonical entry
    (not a side append, no compaction or reset) whose parent, as the navigation reads it, is the leaf. False when the
    context must be rebuilt (a leaf row, a side append, a boundary, another branch)."""
    if not _extends(tree, ctx.leaf_id, index):
        return False
    append_to_context(tree, ctx, index, OPENCLAW_2026_9_CONTEXT)
    return True


def continues_leaf(tree: SessionTree, ctx: m.SessionContext, new: range) -> bool:
    """Whether `extend_context` takes every entry of `new` in turn, found without changing `ctx`."""
    leaf_id = ctx.leaf_id
    for index in new:
        if not _extends(tree, leaf_id, index):
            return False
        leaf_id = tree.entries.id_of(index)
    return True


def follow_leaf(tree: SessionTree, old: m.SessionContext, first_new: int) -> m.SessionContext | None:
    """Always None: after a branch, a leaf row or a boundary the 2026.9 context is built again from the navigation
    (a leaf row may move the leaf anywhere, and a reset reparents what follows)."""
    return None
