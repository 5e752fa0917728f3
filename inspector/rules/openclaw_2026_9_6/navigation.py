"""OpenClaw 2026.9.6's navigation over a session's rows: which entry is the active leaf, and each entry's parent on
the way back from it (`SessionEntryNavigation` of `src/config/sessions/session-entry-navigation.ts`, as
`SessionManager.buildIndex` feeds it: every row in file order; `getBranch`).

What 2026.9 changed from pi's "the leaf is the last entry, the path follows `parentId`":

* Rows are canonical entries (the ten known types, each valid by the release's schema) or opaque records. A
  canonical entry becomes the leaf, unless its `appendMode` is `"side"` (appended beside the leaf, which stays).
* A `leaf` row (opaque) moves the leaf to its `targetId` (and the append parent to its `appendParentId`), when both
  name known rows; other opaque rows with an `id` and a `parentId` only link (a parent found through them is the
  nearest canonical one).
* After a `reset`, an entry whose parent is not a descendant of that reset is reparented onto the leaf (a "logical
  parent"); a leaf row pointing outside the reset's descendants is ignored.
* An entry whose `parentId` is the append parent while the leaf is elsewhere (after a side append or a leaf row
  with its own append parent) continues from the leaf.

Not reproduced: which `message` entries the schema rejects is judged from the index's metadata (role, content
shape, a tool result's `toolCallId`/`toolName`), not from every field (`isError`, `customType`, a bash run's
`command`...); a message entry is taken to have its `parentId` key; a `firstKeptEntryId` naming an opaque row is not
moved to the canonical entry (`resolveOpaqueSessionFirstKeptEntryId`).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, cast
from weakref import WeakKeyDictionary

from inspector.model import entries as m
from inspector.rules.openclaw_2026_9_6.canonical_ids import CanonicalIds
from inspector.rules.openclaw_2026_9_6.navigation_rows import (
    CANONICAL_TYPES,
    MESSAGE_ROLES,
    RESET_REASONS,
    kinds_ok,
    plain_rows,
    valid_other,
)
from inspector.session.tree import SessionTree
from inspector.storage import nums_layout as nl
from inspector.storage.entry_table import EntryTable

__all__ = [
    "CANONICAL", "CANONICAL_TYPES", "IGNORED", "LEAF_ROW", "MESSAGE_ROLES", "OPAQUE", "RESET_REASONS", "Navigation",
    "Row", "classify", "navigation", "rows_of_kind",
]  # fmt: skip

_FLAGS_BYTE = nl.FLAGS_BYTE

CANONICAL, LEAF_ROW, OPAQUE, IGNORED = 0, 1, 2, 3
"""What a row is to the navigation (`classify`)."""
_ROWS_AT_ONCE = 1 << 16
"""Rows read per piece by `Navigation.advance` (its per-row bytes stay small)."""
_PLAIN_RUN = re.compile(b"\x01+")


def _nonblank(value: object) -> bool:
    return type(value) is str and value != ""


def _str(value: object) -> bool:
    return type(value) is str


def _valid_message(entries: EntryTable, index: int, eid: object, shape: tuple[Any, ...]) -> bool:
    """`indexedSessionEntrySchema` for a `message` entry (id `eid`, shape `shape`), as far as the index's metadata
    tells."""
    if type(eid) is not str or eid == "":
        return False
    role, kinds = shape[1], shape[6]
    if role not in MESSAGE_ROLES or not kinds_ok(kinds):
        return False
    if role == "toolResult":
        return kinds != ("string",) and shape[2] is not None and entries.tool_call_id_of(index) is not None
    return True


@dataclass(slots=True)
class Row:
    """One row as the navigation reads it (`classify`)."""

    kind: int
    id: str | None = None
    parent_id: str | None = None
    has_parent: bool = True
    etype: str = ""
    side: bool = False
    target_id: str | None = None
    """A leaf row's `targetId`; a label's `targetId`."""
    append_parent: str | None = None
    has_append_parent: bool = False


def classify(
    entries: EntryTable, index: int, ids: list[str | None] | None = None, parent_ids: list[str | None] | None = None
) -> Row:
    """Row `index` of `entries` as `SessionManager` sorts it (`partitionSessionFileEntries`): a canonical entry, a
    valid `leaf` row, another opaque row with an `id` and a `parentId`, or a row the navigation ignores. `ids` and
    `parent_ids`: the table's `ids` and `parent_ids`, when the caller holds them (a walk over every row)."""
    shape = entries.shape_of(index)
    etype = shape[0]
    if etype == m.MESSAGE:
        eid = entries.id_of(index) if ids is None else ids[index]
        parent = entries.parent_id_of(index) if parent_ids is None else parent_ids[index]
        if _valid_message(entries, index, eid, shape):
            side = bool(entries.nums_of(index)[_FLAGS_BYTE] & m.FLAG_SIDE_APPEND)
            return Row(CANONICAL, eid, parent, True, etype, side)
        if _nonblank(eid):
            return Row(OPAQUE, eid, parent, True, etype)
        return Row(IGNORED)
    data = entries.data_of(index)
    if data is None:
        return Row(IGNORED)
    eid, has_parent = data.get("id"), "parentId" in data
    parent = data.get("parentId")
    if etype in CANONICAL_TYPES and valid_other(etype, data):
        side = data.get("appendMode") == "side"
        target = data.get("targetId") if etype == m.LABEL else None
        return Row(CANONICAL, eid, parent, has_parent, etype, side, target)
    if not _nonblank(eid) or not has_parent or (parent is not None and not _str(parent)):
        return Row(IGNORED)
    if data.get("type") == m.LEAF:
        target = data.get("targetId", 0)
        append_parent = data.get("appendParentId", 0)
        mode = data.get("appendMode", None)
        if (target is not None and not _str(target)) or (append_parent != 0 and append_parent is not None and not _str(append_parent)):
            return Row(IGNORED)
        if "appendMode" in data and mode != "side":
            return Row(IGNORED)
        has_append = "appendParentId" in data
        return Row(LEAF_ROW, eid, parent, True, m.LEAF, mode == "side", target, append_parent if has_append else None, has_append)
    if data.get("type") == m.SESSION:
        return Row(IGNORED)
    return Row(OPAQUE, eid, parent, True, etype)


@dataclass
class Navigation:
    """`SessionEntryNavigation` after the first `rows` rows of a table (extended by `advance`)."""

    by_id: CanonicalIds
    """Canonical entries by id (the last of a repeated id)."""
    rows: int = 0
    opaque_parents: dict[str, str | None] = field(default_factory=dict)
    logical_parents: dict[str, str | None] = field(default_factory=dict)
    invalid_leaf_rows: set[str] = field(default_factory=set)
    leaf_id: str | None = None
    append_parent_id: str | None = None
    append_mode: str | None = None
    latest_reset_id: str | None = None
    reset_descendants: set[str] = field(default_factory=set)

    def advance(self, entries: EntryTable) -> Navigation:
        """Read the rows added to `entries` since (in file order); returns self.

        Equal to `classify` + `_add` row by row (`advance_by_row`), but the runs of plain rows (`navigation_rows.plain_rows`)
        are taken in bulk: such a message only becomes the leaf (a dict update for the run) while the leaf is the
        append parent and no reset came before; after a reset, one short loop per run."""
        n = len(entries)
        if self.rows < n:
            self.by_id.sync(n, n - self.rows)
            ids, parent_ids = entries.ids, entries.parent_ids
            for start in range(self.rows, n, _ROWS_AT_ONCE):
                stop = min(n, start + _ROWS_AT_ONCE)
                done = start
                for run in _PLAIN_RUN.finditer(plain_rows(entries, start, stop, ids, parent_ids)):
                    a, b = start + run.start(), start + run.end()
                    self._by_row(entries, done, a, ids, parent_ids)
                    self._plain_run(entries, a, b, ids, parent_ids)
                    done = b
                self._by_row(entries, done, stop, ids, parent_ids)
        self.rows = n
        return self

    def advance_by_row(self, entries: EntryTable) -> Navigation:
        """`advance`, one row at a time (`classify`, then `_add`): the reference the bulk path is tested against."""
        if self.rows < len(entries):
            self.by_id.sync(len(entries), len(entries) - self.rows)
        self._by_row(entries, self.rows, len(entries), entries.ids, entries.parent_ids)
        self.rows = len(entries)
        return self

    def _by_row(self, entries: EntryTable, start: int, stop: int, ids: list[str | None], parent_ids: list[str | None]) -> None:
        add = self._add
        for index in range(start, stop):
            add(classify(entries, index, ids, parent_ids), index)

    def _plain_run(self, entries: EntryTable, a: int, b: int, ids: list[str | None], parent_ids: list[str | None]) -> None:
        """`_add` of rows [a, b), each a plain row (`navigation_rows.plain_rows`: canonical, not a side append, with a
        parent key, no label, no reset) when its id is a non-empty string (else the run goes row by row)."""
        run_ids = cast("list[str]", ids[a:b])
        if "" in run_ids or set(map(type, run_ids)) != {str}:
            self._by_row(entries, a, b, ids, parent_ids)
            return
        if self.latest_reset_id is None:
            if self.leaf_id != self.append_parent_id:  # the first one may continue from the leaf: row by row
                self._by_row(entries, a, a + 1, ids, parent_ids)
                a, run_ids = a + 1, run_ids[1:]
                if not run_ids:
                    return
            # Each continues the leaf, which is the append parent: `_add_canonical` only records it and moves there.
            self.by_id.set_run(run_ids, a)
        else:
            by_id, logical_parents, descendants = self.by_id, self.logical_parents, self.reset_descendants
            leaf, append_parent = self.leaf_id, self.append_parent_id
            for index, eid, parent in zip(range(a, b), run_ids, parent_ids[a:b]):
                if parent is None or parent not in descendants or (parent == append_parent and leaf != append_parent):
                    logical_parents[eid] = leaf
                by_id[eid] = index
                logical = logical_parents[eid] if eid in logical_parents else parent
                if logical is not None and logical in descendants:
                    descendants.add(eid)
                leaf = append_parent = eid
        last = run_ids[-1]
        self.leaf_id = self.append_parent_id = last
        self.append_mode = None

    def _known(self, ref: str | None) -> bool:
        return ref is None or ref in self.by_id or (ref in self.opaque_parents and ref not in self.invalid_leaf_rows)

    def canonical_parent(self, parent_id: str | None) -> str | None:
        """`resolveSessionCanonicalParentId`: `parent_id`, or the nearest canonical entry through opaque rows."""
        seen: set[str] = set()
        current = parent_id
        while current and current not in self.by_id:
            if current in seen:
                return None
            seen.add(current)
            current = self.opaque_parents.get(current)
        return current

    def _leaf_target(self, ref: str | None) -> str | None:
        return ref if ref is None or ref in self.by_id else self.canonical_parent(ref)

    def _append_target(self, ref: str | None) -> str | None:
        if ref is None or ref in self.by_id or ref in self.opaque_parents:
            return ref
        return self.canonical_parent(ref)

    def _add(self, row: Row, index: int) -> None:
        if row.kind == IGNORED:
            return
        if row.kind == LEAF_ROW:
            self._add_leaf_row(row)
        elif row.kind == OPAQUE:
            assert row.id is not None
            self.opaque_parents[row.id] = row.parent_id
            if self.latest_reset_id is not None and row.parent_id is not None and row.parent_id in self.reset_descendants:
                self.reset_descendants.add(row.id)
            self.append_parent_id = row.id
        else:
            self._add_canonical(row, index)

    def _add_leaf_row(self, row: Row) -> None:
        """`appendOpaqueNavigationRecord` for a `leaf` row."""
        assert row.id is not None
        if not self._known(row.target_id) or (row.has_append_parent and not self._known(row.append_parent)):
            self.invalid_leaf_rows.add(row.id)
            self.opaque_parents[row.id] = self._append_target(row.parent_id)
            return
        leaf = self._leaf_target(row.target_id)
        append_parent = self._append_target(row.append_parent) if row.has_append_parent else leaf
        mode = "side" if row.side else None
        if self.latest_reset_id is not None and (leaf is None or leaf not in self.reset_descendants):
            leaf, append_parent, mode = self.leaf_id, self.leaf_id, None
        self.opaque_parents[row.id] = leaf
        if self.latest_reset_id is not None and leaf is not None and leaf in self.reset_descendants:
            self.reset_descendants.add(row.id)
        self.leaf_id, self.append_parent_id, self.append_mode = leaf, append_parent, mode

    def _add_canonical(self, row: Row, index: int) -> None:
        """`appendCanonicalNavigationEntry`."""
        eid = row.id
        assert eid is not None
        if row.etype == m.LABEL and row.target_id not in self.by_id:
            self.opaque_parents[eid] = self.canonical_parent(row.parent_id)
            return
        side, parent = row.side, row.parent_id
        if (
            (self.latest_reset_id is not None and not side and (parent is None or parent not in self.reset_descendants))
            or not row.has_parent
            or (not side and parent == self.append_parent_id and self.leaf_id != self.append_parent_id)
        ):
            self.logical_parents[eid] = self.leaf_id
        self.by_id[eid] = index
        if row.etype == m.RESET:
            self.latest_reset_id = eid
            self.reset_descendants = {eid}
        else:
            logical = self.logical_parents[eid] if eid in self.logical_parents else parent
            if self.latest_reset_id is not None and logical is not None and logical in self.reset_descendants:
                self.reset_descendants.add(eid)
        self.append_parent_id = eid
        if side:
            self.append_mode = "side"
        else:
            self.leaf_id = eid
            self.append_mode = None

    def parent_of(self, entries: EntryTable, index: int) -> str | None:
        """`normalizeEntryParent`: the parent id of canonical entry `index` on a branch."""
        eid = entries.id_of(index)
        assert eid is not None
        parent = self.logical_parents[eid] if eid in self.logical_parents else self.canonical_parent(entries.parent_id_of(index))
        return None if parent == eid else parent

    def first_kept_id(self, entries: EntryTable, index: int, first_kept: object) -> object:
        """The `firstKeptEntryId` of boundary `index` as its branch reads it (`SessionManagerCore.normalizeEntryParent`):
        one naming an opaque row moves to a canonical entry (`resolveOpaqueSessionFirstKeptEntryId`): the nearest
        canonical ancestor of that row, else the boundary's ancestor just below it, else the first entry whose
        parent chain of opaque rows passes it, else the boundary's parent."""
        if type(first_kept) is not str or first_kept in self.by_id or first_kept not in self.opaque_parents:
            return first_kept
        parent = self.canonical_parent(first_kept)
        if parent is not None:
            return parent
        fallback = self.parent_of(entries, index)
        seen: set[str] = set()
        current, below = fallback, None
        while current and current not in seen:
            if current == first_kept:
                if below is not None:
                    return below
                break
            seen.add(current)
            at = self.by_id.get(current)
            if at is not None:
                below, current = current, entries.parent_id_of(at)
            else:
                current = self.opaque_parents.get(current)
        for i in range(len(entries)):  # the canonical entries, in file order
            entry_id = entries.id_of(i)
            if entry_id is None or classify(entries, i).kind != CANONICAL:
                continue
            ancestors: set[str] = set()
            pid = entries.parent_id_of(i)
            while pid and pid in self.opaque_parents and pid not in ancestors:
                if pid == first_kept:
                    return entry_id
                ancestors.add(pid)
                pid = self.opaque_parents.get(pid)
        return fallback if fallback is not None else first_kept

    def branch(self, entries: EntryTable, from_id: str | None = None) -> array[int]:
        """`getBranch(fromId)`: the entries root → `from_id` (default: the active leaf), following the normalized
        parents (a repeated id ends the walk)."""
        path = m.path_indices()
        seen: set[str] = set()  # the opaque ids passed (a canonical id is its row: `visited`)
        visited = bytearray(len(entries))
        current = self.leaf_id if from_id is None else from_id
        ids, parent_ids, by_id, logical = entries.ids, entries.parent_ids, self.by_id, self.logical_parents
        index = by_id.get(current) if current else None
        while current and current not in seen:
            if index is not None:
                if visited[index]:
                    break
                visited[index] = 1
                path.append(index)
                # parent_of, inlined (the parent's row looked up once, for the next step too)
                if current in logical:
                    parent = logical[current]
                    next_index = by_id.get(parent) if parent else None
                else:
                    parent = parent_ids[index]
                    next_index = by_id.get(parent) if parent else None
                    if parent and next_index is None:
                        parent = self.canonical_parent(parent)
                        next_index = by_id.get(parent) if parent else None
                current = None if parent == ids[index] else parent
                index = next_index
            else:
                seen.add(current)
                current = self.opaque_parents.get(current)
                index = by_id.get(current) if current else None
        path.reverse()
        return path

    def leaf_index(self) -> int | None:
        """The active leaf's row, None when there is none."""
        return None if self.leaf_id is None else self.by_id.get(self.leaf_id)


_KEPT: WeakKeyDictionary[SessionTree, Navigation] = WeakKeyDictionary()
"""Each tree's navigation, extended by the rows added since (a tree re-read from the start is a new tree)."""


def navigation(tree: SessionTree) -> Navigation:
    """The navigation over all of `tree`'s rows, kept with the tree and extended by the rows added since."""
    nav = _KEPT.get(tree)
    if nav is None or nav.rows > len(tree.entries):
        nav = _KEPT[tree] = Navigation(CanonicalIds(tree))
    return nav.advance(tree.entries)


def rows_of_kind(entries: EntryTable, kind: int) -> Iterator[int]:
    """The rows of `entries` that `classify` sorts as `kind` (for tests and diagnostics)."""
    return (i for i in range(len(entries)) if classify(entries, i).kind == kind)
