"""Rebuild the messages the model sees, exactly as pi's `buildSessionContext` (spec §1.5).

Works on entry metadata only: message content stays on disk until asked for.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import compress
from typing import Any

from inspector.model import entries as m
from inspector.session.context_rules import PI_0_66_CONTEXT, ContextRules
from inspector.session.tree import SessionTree
from inspector.storage import nums_layout as nl
from inspector.storage.entry_table import EntryTable

SIBLING_SCAN_LIMIT = 2000


def maps_to_message(etype: str, role: str | None) -> bool:
    """pi's `appendMessage` mapping, for an entry of type `etype` whose message has `role`: message,
    custom_message, branch_summary with a non-empty summary (the reader gives it a role only then)."""
    if etype == m.MESSAGE or etype == m.BRANCH_SUMMARY:
        return role is not None
    return etype == m.CUSTOM_MESSAGE


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


_FLAGS_BYTE = nl.FLAGS_BYTE
"""Offset in `Entry.nums` of the low byte of the flags (little-endian; every flag fits in it)."""
_line = nl.row_line

_ContextMessage = m.ContextMessage
_EXCLUDED = m.FLAG_EXCLUDED_FROM_CONTEXT


def build_context(
    tree: SessionTree,
    leaf_index: int | None = None,
    known_path: tuple[array[int], list[m.Diagnostic]] | None = None,
    rules: ContextRules = PI_0_66_CONTEXT,
) -> m.SessionContext:
    """The context for `leaf_index` (default: the last entry). `known_path` is `tree.path_to(leaf_index)` when the
    caller has it already (or, for a release with its own navigation, the path that navigation chose)."""
    if leaf_index is None:
        leaf_index = tree.leaf_index
    if leaf_index is None:
        return m.SessionContext(leaf_id=None, messages=[], path=m.path_indices(), model=None, thinking_level="off")
    entries = tree.entries
    path, diags = tree.path_to(leaf_index) if known_path is None else known_path
    kinds = _PathKinds(entries, path, rules)
    model, thinking_level = _settings_on(entries, path, kinds)
    boundary_pos = kinds.last(_BOUNDARY)

    rows: list[m.ContextMessage] = []
    first_kept_pos: int | None = None
    is_reset = False
    if boundary_pos is None:
        _add_rows(entries, rows, path, kinds, 0, len(path), rules)
    else:
        comp_index = path[boundary_pos]
        is_reset = entries.type_of(comp_index) == m.RESET
        if not is_reset:
            rows.append(context_row(entries, comp_index, 0))
        comp_data = entries.data_of(comp_index)
        first_kept = comp_data.get("firstKeptEntryId") if comp_data else None
        if first_kept is not None and rules.first_kept is not None:
            first_kept = rules.first_kept(entries, comp_index, first_kept)
        if first_kept is not None:
            first_kept_pos = _first_on_path(tree, path, boundary_pos, first_kept)
        if first_kept_pos is not None:
            if is_reset and rules.reset_kept is not None:
                kept = rules.reset_kept(entries, path[first_kept_pos:boundary_pos])
                for pos in range(first_kept_pos, boundary_pos):
                    if path[pos] in kept:
                        rows.append(context_row(entries, path[pos], len(rows)))
            else:
                _add_rows(entries, rows, path, kinds, first_kept_pos, boundary_pos, rules)
        elif first_kept is not None or not is_reset:  # a reset without firstKeptEntryId keeps nothing, by design
            comp = entries[comp_index]
            reason = "points at the compaction itself (manual /compact)" if first_kept == comp.id else "is not on the path"
            diags.append(
                m.Diagnostic(
                    "first_kept_not_found",
                    f"{comp.type} {comp.id}: firstKeptEntryId {first_kept!r} {reason}; nothing before it is kept",
                    "info",
                    comp.line,
                    comp.offset,
                )
            )
        _add_rows(entries, rows, path, kinds, boundary_pos + 1, len(path), rules)

    ctx = m.SessionContext(
        leaf_id=entries.id_of(leaf_index),
        messages=rows,
        path=path,
        model=model,
        thinking_level=thinking_level,
        compaction_index=path[boundary_pos] if boundary_pos is not None and not is_reset else None,
        first_kept_index=path[first_kept_pos] if first_kept_pos is not None else None,
        diagnostics=diags,
        reset_index=path[boundary_pos] if boundary_pos is not None and is_reset else None,
    )
    return ctx


def _first_on_path(tree: SessionTree, path: Sequence[int], end: int, entry_id: object) -> int | None:
    """The first position before `end` on `path` (from the root) of an entry whose id is `entry_id`, or None.

    Every position of a path but its last (the leaf) is the entry `by_id` names for its id: a parent is found by id,
    and of entries sharing an id the last one wins. So the entry to look for is `by_id[entry_id]`, and only its
    position is searched (at C speed), even when ids repeat."""
    if type(entry_id) is str:
        index = tree.by_id.get(entry_id)
        if index is None:
            return None
        # An entry is on a path once at most: looked for back from `end` in growing windows (the first kept entry is
        # usually a few turns before the compaction; a search from the root would pass the whole path).
        window = _FIRST_WINDOW
        while True:
            start = max(0, end - window)
            try:
                return path.index(index, start, end)
            except ValueError:
                if start == 0:
                    return None
            end, window = start, window * 8
    try:  # an id that is not a string (no entry has one): compared as pi compares, entry by entry
        return list(map(tree.entries.ids.__getitem__, path[:end])).index(entry_id)  # type: ignore[arg-type]
    except ValueError:
        return None


_FIRST_WINDOW = 512
"""Path positions `_first_on_path` searches first, back from its end (each next window is 8 times larger)."""


class _PathKinds:
    """What each position of a path is to the context walk (`_path_kinds` bits, a byte each), computed from the end
    backwards only as far as the walk asks: a walk that finds a compaction near the leaf never reads the rest."""

    __slots__ = ("_kind_of", "_path", "_shape", "start", "values")

    FIRST_PIECE = 4096
    """Positions computed at first; each later piece doubles what is computed."""

    def __init__(self, entries: EntryTable, path: Sequence[int], rules: ContextRules = PI_0_66_CONTEXT) -> None:
        self._kind_of = _path_kinds(entries, rules)
        self._shape = entries.shape
        self._path = path
        self.start = len(path)
        """The first position computed: `values` holds the kinds of positions [start, len(path))."""
        self.values = bytearray()

    def _compute_from(self, pos: int) -> None:
        """Compute back to `pos` at least (a piece at a time, doubling)."""
        if pos >= self.start:
            return
        start = max(0, min(pos, self.start - max(self.FIRST_PIECE, len(self.values))))
        piece = bytes(map(self._kind_of.__getitem__, map(self._shape.__getitem__, self._path[start : self.start])))
        self.values[0:0] = piece
        self.start = start

    def last(self, bit: int, end: int | None = None) -> int | None:
        """The last position before `end` (default: the path's end) whose kind has `bit`."""
        end = len(self._path) if end is None else end
        table = _HAS_BIT[bit]
        while True:
            lo = self.start
            if end > lo:
                found = self.values[: end - lo].translate(table).rfind(1)
                if found >= 0:
                    return lo + found
                end = lo
            if lo == 0:
                return None
            self._compute_from(lo - 1)

    def messages(self, start: int, end: int) -> Iterator[int]:
        """The positions in [start, end) that map to a message, in order."""
        self._compute_from(start)
        lo = self.start
        return compress(range(start, end), self.values[start - lo : end - lo].translate(_HAS_BIT[_MESSAGE]))


def _add_rows(
    entries: EntryTable, rows: list[m.ContextMessage], path: Sequence[int], kinds: _PathKinds, start: int, end: int,
    rules: ContextRules = PI_0_66_CONTEXT,
) -> None:  # fmt: skip
    """Append the context rows of the path positions [start, end) that map to a message (and are not left out)."""
    if rules.skips_excluded:
        for pos in kinds.messages(start, end):
            if not excluded(entries, path[pos]):
                rows.append(context_row(entries, path[pos], len(rows)))
        return
    for pos in kinds.messages(start, end):
        rows.append(context_row(entries, path[pos], len(rows)))


def excluded(entries: EntryTable, index: int) -> bool:
    """Entry `index` is a message flagged `excludeFromContext === true` (`FLAG_EXCLUDE_TRUE`)."""
    return bool(entries.nums_of(index)[_FLAGS_BYTE] & m.FLAG_EXCLUDE_TRUE)


def _settings_on(entries: EntryTable, path: Sequence[int], kinds: _PathKinds) -> tuple[dict[str, Any] | None, str]:
    """pi's settings walk over the whole path, from its end: the last model setter and the last thinking level
    setter decide (each one replaces what came before it whole)."""
    model: dict[str, Any] | None = None
    pos: int | None = len(path)
    while (pos := kinds.last(_MODEL_SETTER, pos)) is not None:
        index = path[pos]
        if entries.type_of(index) != m.MODEL_CHANGE or entries.data_of(index) is not None:
            model = _settings_at(entries, index, None, "off")[0]
            break
    level = "off"
    pos = len(path)
    while (pos := kinds.last(_LEVEL_SETTER, pos)) is not None:
        data = entries.data_of(path[pos])
        if data is not None:
            value = data.get("thinkingLevel")
            level = value if isinstance(value, str) else "off"
            break
    return model, level


_BOUNDARY, _MESSAGE, _MODEL_SETTER, _LEVEL_SETTER = 1, 4, 8, 16
_HAS_BIT = {bit: bytes(int(bool(v & bit)) for v in range(256)) for bit in (_BOUNDARY, _MESSAGE, _MODEL_SETTER, _LEVEL_SETTER)}
"""For each bit, a `bytes.translate` table: a kind byte becomes 1 when it has the bit, else 0."""


def _path_kinds(entries: EntryTable, rules: ContextRules = PI_0_66_CONTEXT) -> list[int]:
    """For every shape code of `entries`: what its entries are to the context walk, as bits: `_BOUNDARY` (a type of
    `rules.boundary_types`), `_MESSAGE` (pi's `appendMessage` mapping), `_MODEL_SETTER`, `_LEVEL_SETTER`. Kept in
    `entries.per_shape` (under `rules.key`) and extended by the shapes added since (thousands of shapes in a big
    session: ~1 µs each)."""
    known = entries.per_shape.get(rules.key, [])
    if len(known) == len(entries.shapes):
        return known
    boundaries = rules.boundary_types
    out = known + [_shape_kind(shape[0], shape[1], boundaries) for shape in entries.shapes[len(known) :]]
    entries.per_shape[rules.key] = out
    return out


def _shape_kind(t: str, role: str | None, boundaries: frozenset[str] = PI_0_66_CONTEXT.boundary_types) -> int:
    kind = 0
    if t in boundaries:
        kind |= _BOUNDARY
    if t == m.MODEL_CHANGE or (t == m.MESSAGE and role == "assistant"):
        kind |= _MODEL_SETTER
    if t == m.THINKING_LEVEL_CHANGE:
        kind |= _LEVEL_SETTER
    if maps_to_message(t, role):
        kind |= _MESSAGE
    return kind


def _settings_at(
    entries: EntryTable, index: int, model: dict[str, Any] | None, thinking_level: str
) -> tuple[dict[str, Any] | None, str]:
    """`_settings_after` for entry `index`, read from the columns (an assistant message builds no `Entry`)."""
    t, role, _tool, provider, model_id = entries.shape_of(index)[:5]
    if t == m.MESSAGE:
        if role == "assistant":
            return {"provider": provider, "modelId": model_id}, thinking_level
        return model, thinking_level
    return _settings_after(entries[index], model, thinking_level)


def context_row(entries: EntryTable, index: int, position: int) -> m.ContextMessage:
    """The context row at `position` for entry `index`, from the columns."""
    nums = entries.nums_of(index)
    shape = entries.shapes[entries.shape[index]]
    # ContextMessage's fields in order (positional: a call with ten keywords costs more, once per context row).
    return _ContextMessage(
        position, index, entries.id_of(index), _line(nums), shape[1] or "?", shape[2], nums, entries.layout,
        entries.usage_packed(index), bool(nums[_FLAGS_BYTE] & _EXCLUDED),
    )  # fmt: skip


def extend_context(tree: SessionTree, ctx: m.SessionContext, index: int) -> bool:
    """Append entry `index` to the context of the previous leaf (in place), if it simply continues that path. Read
    from the columns (no `Entry` built).

    Returns False when the context must be rebuilt instead (a new branch, a compaction, an unknown leaf):
    this is what keeps one appended line cheap on a 300k-entry session.
    """
    if tree.entries.type_of(index) == m.COMPACTION or not _continues_path(tree, ctx.leaf_id, index):
        return False
    append_to_context(tree, ctx, index)
    return True


def append_to_context(tree: SessionTree, ctx: m.SessionContext, index: int, rules: ContextRules = PI_0_66_CONTEXT) -> None:
    """Append entry `index`, which the caller found to be the leaf's child (and no boundary), to the context `ctx`
    (in place): the one step of `extend_context` every release shares."""
    entries = tree.entries
    etype, role = entries.shape_of(index)[:2]
    ctx.path.append(index)
    ctx.leaf_id = entries.id_of(index)
    if ctx.path_usage is not None:
        ctx.path_usage = ctx.path_usage.plus([entries.usage_packed(index)])
    if etype in _SETTING_TYPES:
        ctx.model, ctx.thinking_level = _settings_at(entries, index, ctx.model, ctx.thinking_level)
    if maps_to_message(etype, role) and not (rules.skips_excluded and excluded(entries, index)):
        ctx.messages.append(context_row(entries, index, len(ctx.messages)))


def follow_leaf(tree: SessionTree, old: m.SessionContext, first_new: int) -> m.SessionContext | None:
    """The last entry's context, from `old`, the context of the entry before `first_new`, when what came since
    continues a branch of `old`'s path: the walk from the leaf stops at the first older entry, which is on `old`'s path,
    and that path up to it is reused (no walk to the root). None when the context must be built from scratch.

    The caller makes sure `old`'s path is still valid (no id repeated since, its root's missing parent not arrived).
    """
    entries = tree.entries
    leaf = len(entries) - 1
    if leaf < first_new or any(d.kind == "parent_cycle" for d in old.diagnostics):
        return None
    parent_id_of, by_id = entries.parent_id_of, tree.by_id
    walked: list[int] = []
    current: int | None = leaf
    while current is not None and current >= first_new:
        walked.append(current)
        if len(walked) > leaf - first_new + 1:
            return None  # a cycle among the new entries: the full walk reports it
        pid = parent_id_of(current)
        current = by_id.get(pid) if pid else None
    kept = 0
    if current is not None:
        at = position_from_end(old.path, current)
        if at is None:
            return None  # a branch off another path
        kept = at + 1
    walked.reverse()
    path = old.path[:kept]
    path.extend(walked)
    ctx = build_context(tree, leaf, (path, []))
    if old.path_usage is not None:
        column, old_path = entries.usage_column, old.path
        ctx.path_usage = old.path_usage.cut(kept, lambda start, end: column(old_path[start:end])).plus(column(walked))
    if old.compactions_on_path is not None:  # the old path's up to the branch point, and the ones walked
        type_of = entries.type_of
        ctx.compactions_on_path = old.compactions_on_path.difference(old.path[kept:]).union(
            i for i in walked if type_of(i) == m.COMPACTION
        )
    return ctx


def compactions_on_path(entries: EntryTable, ctx: m.SessionContext) -> frozenset[int]:
    """The indices of the compaction entries on `ctx`'s path. Computed once per context (a pass over the path:
    ~8 ms for 300k entries), kept on it, and carried over when the context is: `extend_context` appends no
    compaction, and `follow_leaf` keeps the old path's up to the branch point."""
    known = ctx.compactions_on_path
    if known is None:
        known = ctx.compactions_on_path = frozenset(set(entries.indices_of_type(m.COMPACTION)).intersection(ctx.path))
    return known


def position_from_end(path: Sequence[int], index: int) -> int | None:
    """Where `index` is on `path`, looking from the end first (a branch point is usually near the leaf)."""
    for pos in range(len(path) - 1, max(-1, len(path) - 65), -1):
        if path[pos] == index:
            return pos
    try:
        return path.index(index)
    except ValueError:
        return None


def continues_leaf(tree: SessionTree, ctx: m.SessionContext, new: range) -> bool:
    """Whether `extend_context` takes every entry of `new` in turn (each a child of the one before, none a
    compaction), found without changing `ctx`: the caller copies the context only when it does."""
    leaf_id, type_of = ctx.leaf_id, tree.entries.type_of
    for index in new:
        if type_of(index) == m.COMPACTION or not _continues_path(tree, leaf_id, index):
            return False
        leaf_id = tree.entries.id_of(index)
    return True


def _continues_path(tree: SessionTree, leaf_id: str | None, index: int) -> bool:
    """Entry `index` is a child of the leaf `leaf_id`, and its id names it (no later duplicate)."""
    entry_id = tree.entries.id_of(index)
    if entry_id is None or leaf_id is None:
        return False
    return tree.entries.parent_id_of(index) == leaf_id and tree.by_id.get(entry_id) == index


def tool_pairing_diagnostics(tree: SessionTree, ctx: m.SessionContext) -> list[m.Diagnostic]:
    """Warn when toolCalls and toolResults on the active path do not pair up (delivery-mirror siblings)."""
    entries = tree.entries
    pending: dict[str, int] = {}
    out: list[m.Diagnostic] = []
    for row in ctx.messages:
        i = row.entry_index
        role = entries.role_of(i)
        if role == "assistant":
            for cid in entries.tool_call_ids_of(i):
                pending[cid] = i
        elif role == "toolResult":
            result_id = entries.tool_call_id_of(i)
            if result_id in pending:
                del pending[result_id]
            else:
                e = entries[i]
                out.append(
                    m.Diagnostic(
                        "orphan_tool_result",
                        f"toolResult {e.tool_call_id!r} ({e.tool_name}) has no matching toolCall on the active path",
                        "warning",
                        e.line,
                        e.offset,
                    )
                )
    for cid, i in pending.items():
        e = entries[i]
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
    entries = tree.entries
    for i in range(call_entry.index + 1, min(len(entries), call_entry.index + 1 + SIBLING_SCAN_LIMIT)):
        if entries.role_of(i) == "toolResult" and entries.tool_call_id_of(i) == call_id:
            e = entries[i]
            return f"; its result is entry {e.id} (line {e.line}) on a sibling branch (delivery-mirror race, OpenClaw repairs it in memory)"
    return ""
