"""The entry tree of a session: ids, children, roots, the path from a leaf, branches (spec §1.4).

pi's rules: roots are entries whose `parentId` is null, equals their own id, or names a missing entry
(orphans); the leaf on load is the last entry in file order; the context path walks `parentId` from the
leaf. A `parentId` cycle would make pi loop forever; here the walk stops and reports it.
"""

from __future__ import annotations

from . import model as m


class SessionTree:
    """Index of the tree formed by `Entry.id` / `Entry.parent_id`, updated as entries are appended."""

    def __init__(self) -> None:
        self.entries: list[m.Entry] = []
        self.by_id: dict[str, int] = {}
        self._first_child: dict[str, int] = {}
        self._more_children: dict[str, list[int]] = {}
        self.duplicates: list[tuple[str, int, int]] = []
        self.labels: dict[str, str] = {}
        self.session_name: str | None = None

    def add(self, entry: m.Entry) -> None:
        """Register one entry appended in file order."""
        self.entries.append(entry)
        if entry.id is not None:
            previous = self.by_id.get(entry.id)
            if previous is not None:
                self.duplicates.append((entry.id, previous, entry.index))
            self.by_id[entry.id] = entry.index  # later wins, like pi's Map.set
        pid = entry.parent_id
        if pid:
            if pid in self._first_child:
                self._more_children.setdefault(pid, []).append(entry.index)
            else:
                self._first_child[pid] = entry.index
        if entry.type == m.LABEL and entry.data is not None:
            target = entry.data.get("targetId")
            label = entry.data.get("label")
            if isinstance(target, str):
                if isinstance(label, str) and label:
                    self.labels[target] = label
                else:
                    self.labels.pop(target, None)
        elif entry.type == m.SESSION_INFO and entry.data is not None:
            name = entry.data.get("name")
            if isinstance(name, str) and name.strip():
                self.session_name = name.strip()
            elif "name" in entry.data and (name == "" or name is None):
                self.session_name = None

    @property
    def leaf_index(self) -> int | None:
        """pi's leaf on load: the last entry in file order."""
        return len(self.entries) - 1 if self.entries else None

    def parent_index(self, entry: m.Entry) -> int | None:
        pid = entry.parent_id
        if not pid:
            return None
        return self.by_id.get(pid)

    def is_root(self, entry: m.Entry) -> bool:
        return not entry.parent_id or entry.parent_id == entry.id or entry.parent_id not in self.by_id

    def roots(self) -> list[int]:
        return [e.index for e in self.entries if self.is_root(e)]

    def orphans(self) -> list[int]:
        """Entries whose parent id names no entry (pi shows them as extra roots)."""
        return [e.index for e in self.entries if e.parent_id and e.parent_id != e.id and e.parent_id not in self.by_id]

    def path_to(self, leaf_index: int) -> tuple[list[int], list[m.Diagnostic]]:
        """Indices root → leaf following `parentId`, stopping (with a diagnostic) at a cycle."""
        path: list[int] = []
        seen: set[int] = set()
        diags: list[m.Diagnostic] = []
        current: int | None = leaf_index
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
            current = self.parent_index(self.entries[current])
        path.reverse()
        return path, diags

    def children_of(self, parent_id: str) -> list[int]:
        """Indices of the entries whose `parentId` is `parent_id`, in file order."""
        first = self._first_child.get(parent_id)
        if first is None:
            return []
        return [first, *self._more_children.get(parent_id, ())]

    def branch_points(self) -> list[int]:
        """Entries with more than one child, in file order."""
        return sorted(self.by_id[pid] for pid in self._more_children if pid in self.by_id)

    def child_indices(self, entry: m.Entry) -> list[int]:
        if entry.id is None:
            return []
        return self.children_of(entry.id)
