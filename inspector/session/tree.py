"""The entry tree of a session: ids, children, roots, the path from a leaf, branches (spec §1.4).

pi's rules: roots are entries whose `parentId` is null, equals their own id, or names a missing entry
(orphans); the leaf on load is the last entry in file order; the context path walks `parentId` from the
leaf. A `parentId` cycle would make pi loop forever; here the walk stops and reports it.
"""

from __future__ import annotations

import operator
from array import array
from dataclasses import dataclass
from itertools import compress, filterfalse
from typing import Any

from inspector.model import entries as m
from inspector.read.estimates import reader_estimates
from inspector.storage.entry_table import EntryTable
from inspector.storage.id_index import IdIndex


@dataclass(slots=True, frozen=True)
class _BranchCount:
    """`SessionTree.branch_points`' state: after `rows` entries (with `duplicates` repeated ids and the parent ids in
    `missing` naming no entry), which entries have a child (`seen`) and which have more (`branch`)."""

    rows: int
    duplicates: int
    missing: set[str | None]
    seen: bytearray
    branch: set[int]


class SessionTree:
    """Index of the tree formed by the entries' `id` / `parent_id`, updated as entries are appended.

    `entries` is the session's `EntryTable`; the children of each id are indexed on first use (`children_of`), then
    kept up to date. Figures over every entry (roots and orphans, branch points) keep their state with the number of
    entries it covers, and are extended by the entries added since.
    """

    def __init__(self, entries: EntryTable | None = None) -> None:
        self.entries = EntryTable(reader_estimates().layout) if entries is None else entries
        self.by_id = IdIndex()
        self.by_id.attach(self.entries)
        self._first_child: dict[str, int] | None = None
        self._more_children: dict[str, list[int]] = {}
        self.duplicates: list[tuple[str, int, int]] = []
        self.labels: dict[str, str] = {}
        self.session_name: str | None = None
        self._missing_parents: tuple[int, set[str | None], list[int]] = (0, set(), [])
        self._own_roots: tuple[int, list[int]] = (0, [])
        """`roots`' state: after `rows` entries, those with a null or self `parentId`."""
        self._branch_state: _BranchCount | None = None

    def add(self, entry: m.Entry) -> None:
        """Append one entry (in file order) to `entries` and register it."""
        self.link(self.entries.append(entry))

    def link(self, index: int) -> None:
        """Register the entry already appended to `entries` at `index`."""
        entries = self.entries
        eid = entries.id_of(index)
        if eid is not None:
            previous = self.by_id.get(eid)
            if previous is not None:
                self.duplicates.append((eid, previous, index))
            self.by_id[eid] = index  # later wins, like pi's Map.set
        if self._first_child is not None:
            self._link_child(entries.parent_id_of(index), index)
        etype = entries.type_of(index)
        if etype == m.LABEL or etype == m.SESSION_INFO:
            self._setting(etype, entries.data_of(index))

    def link_range(self, indices: range) -> None:
        """Register the entries already appended at `indices` (a worker's column run): the ids go into `by_id` in one
        update when none repeats, else one by one."""
        entries = self.entries
        ids = list(entries.ids_in(indices.start, indices.stop))
        by_id = self.by_id
        if None in ids or len(set(ids)) != len(ids) or not by_id.isdisjoint(ids) or self._first_child is not None:
            for index in indices:
                self.link(index)
            return
        by_id.update(zip(ids, indices))  # type: ignore[arg-type]
        settings = entries.codes_of_type(m.LABEL, m.SESSION_INFO)
        if settings:  # labels and session names, in file order
            for index in compress(indices, map(settings.__contains__, entries.shape[indices.start : indices.stop])):
                self._setting(entries.type_of(index), entries.data_of(index))

    def _link_child(self, pid: str | None, index: int) -> None:
        if not pid:
            return
        first = self._first_child
        assert first is not None
        if pid in first:
            self._more_children.setdefault(pid, []).append(index)
        else:
            first[pid] = index

    def _children(self) -> dict[str, int]:
        """The first child of every parent id, the others in `_more_children` (indexed on first use)."""
        if self._first_child is None:
            self._first_child = {}
            self._more_children = {}
            for index, pid in enumerate(self.entries.parent_ids):
                self._link_child(pid, index)
        return self._first_child

    def _setting(self, etype: str, data: dict[str, Any] | None) -> None:
        if data is None:
            return
        if etype == m.LABEL:
            target = data.get("targetId")
            label = data.get("label")
            if isinstance(target, str):
                if isinstance(label, str) and label:
                    self.labels[target] = label
                else:
                    self.labels.pop(target, None)
        else:
            name = data.get("name")
            if isinstance(name, str) and name.strip():
                self.session_name = name.strip()
            elif "name" in data and (name == "" or name is None):
                self.session_name = None

    @property
    def leaf_index(self) -> int | None:
        """pi's leaf on load: the last entry in file order."""
        return len(self.entries) - 1 if len(self.entries) else None

    def roots(self) -> list[int]:
        """Entries with no parent (a null or self `parentId`, or one naming no entry), in file order.

        Those with a null or self `parentId` (a fact of each row alone) are kept and extended by the rows added since;
        those whose parent is missing come from `_missing_parent_indices`, kept as well."""
        entries = self.entries
        n = len(entries)
        rows, own = self._own_roots
        if rows < n:
            new = set(compress(range(rows, n), map(operator.not_, entries.parent_ids_in(rows, n))))
            new.update(compress(range(rows, n), map(operator.eq, entries.parent_ids_in(rows, n), entries.ids_in(rows, n))))
            own = [*own, *sorted(new)]
            self._own_roots = (n, own)  # one assignment: a reader in another thread sees the old or the new pair
        found = set(own)
        found.update(self._missing_parent_indices())
        return sorted(found)

    def orphans(self) -> list[int]:
        """Entries whose parent id names no entry (pi shows them as extra roots)."""
        entries = self.entries
        return [i for i in self._missing_parent_indices() if entries.parent_id_of(i) != entries.id_of(i)]

    def _missing_parent_indices(self) -> list[int]:
        """Entries whose (non-empty) `parentId` names no entry, in file order (column passes at C speed; kept until
        an entry is added)."""
        entries = self.entries
        n = len(entries)
        rows, missing, found = self._missing_parents
        if rows == n:
            return found
        by_id = self.by_id.mapping_for(n - rows + len(missing))
        # Kept and extended: the parent ids missing before that no new entry names, and the new ones' missing parents.
        still = {pid for pid in missing if pid not in by_id}
        arrived = len(still) != len(missing)  # a parent missing before is among the new entries
        missing = still
        missing.update(filterfalse(by_id.__contains__, entries.parent_ids_in(rows, n)))  # only the missing ones are kept
        missing.discard(None)
        missing.discard("")
        if missing:
            # An older entry's parent missing now was missing before (ids are never removed): only `found` is read
            # again, and only when one of those parents arrived.
            kept = [i for i in found if entries.parent_id_of(i) in missing] if arrived else found
            found = kept + list(compress(range(rows, n), map(missing.__contains__, entries.parent_ids_in(rows, n))))
        else:
            found = []
        self._missing_parents = (n, missing, found)
        return found

    def path_to(self, leaf_index: int) -> tuple[array[int], list[m.Diagnostic]]:
        """Indices root → leaf following `parentId` (`model.path_indices`), stopping (with a diagnostic) at a cycle."""
        parent_ids = self.entries.parent_ids
        by_id = self.by_id.mapping_for(len(parent_ids))  # the walk may pass every entry
        path = m.path_indices()
        append = path.append
        current: int | None = leaf_index
        limit = len(parent_ids)
        while current is not None:  # no entry twice unless there is a cycle: checked by length, not by a set
            append(current)
            if len(path) > limit:
                return self._path_with_cycle(leaf_index)
            pid = parent_ids[current]
            current = by_id.get(pid) if pid else None
        path.reverse()
        return path, []

    def _path_with_cycle(self, leaf_index: int) -> tuple[array[int], list[m.Diagnostic]]:
        """`path_to` when the walk meets an entry twice: the path up to it, and the diagnostic."""
        path = m.path_indices()
        seen: set[int] = set()
        diags: list[m.Diagnostic] = []
        current: int | None = leaf_index
        parent_ids = self.entries.parent_ids
        by_id = self.by_id.mapping_for(len(parent_ids))
        while current is not None:
            if current in seen:
                e = self.entries[current]
                diags.append(
                    m.Diagnostic(
                        "parent_cycle",
                        f"parentId cycle at entry {e.id!r}: the path stops here (pi would loop forever)",
                        "error",
                        e.line,
                        e.offset,
                    )
                )
                break
            seen.add(current)
            path.append(current)
            pid = parent_ids[current]
            current = by_id.get(pid) if pid else None
        path.reverse()
        return path, diags

    def children_of(self, parent_id: str) -> list[int]:
        """Indices of the entries whose `parentId` is `parent_id`, in file order."""
        first = self._children().get(parent_id)
        if first is None:
            return []
        return [first, *self._more_children.get(parent_id, ())]

    def branch_points(self) -> list[int]:
        """Entries with more than one child, in file order (counted on the column: the children are not indexed).

        Kept, and extended by the entries added since, unless one of them changed what an earlier parent id names
        (it repeats an id, or it is a parent that was missing): then counted again from the start.
        """
        entries = self.entries
        self._missing_parent_indices()  # brings `_missing_parents` up to date
        missing_now = self._missing_parents[1]
        state = self._branch_state
        if state is not None and state.rows == len(entries):
            return sorted(state.branch)
        if state is None or state.duplicates != len(self.duplicates) or any(pid in self.by_id for pid in state.missing):
            state = _BranchCount(0, len(self.duplicates), set(), bytearray(), set())
        rows = len(entries)
        by_id = self.by_id.mapping_for(rows - state.rows)
        seen = state.seen + bytearray(rows - len(state.seen))  # a byte per entry: has a child
        branch = set(state.branch)  # copies: a count handed out is never changed
        for pid in entries.parent_ids_in(state.rows, rows):
            parent = by_id.get(pid) if pid else None
            if parent is None:
                continue
            if seen[parent]:
                branch.add(parent)
            else:
                seen[parent] = 1
        self._branch_state = _BranchCount(rows, len(self.duplicates), set(missing_now), seen, branch)
        return sorted(branch)

    def child_indices(self, entry: m.Entry) -> list[int]:
        if entry.id is None:
            return []
        return self.children_of(entry.id)
