"""`Navigation.by_id` (`navigation.py`): id -> row of the last canonical entry with that id, without a dict of every id.

A dict of every canonical id held ~60 bytes per entry (its slot and an int object per row) beside the tree's own
index of ids (`SessionTree.by_id`: id -> the last row with that id), which already names the row for every id that
appears once. So: one flag byte per row (canonical or not), the tree's index for an id seen once, and a dict only for
the ids that repeat (`SessionTree.duplicates`, kept as the rows are linked) or whose row the tree's index does not
name (an id read from a line's data, not the table's).
"""

from __future__ import annotations

from typing import Any

from inspector.session.tree import SessionTree


class CanonicalIds:
    """The canonical rows read so far, looked up by id (`get`, `in`) and added in file order (`[id] = row`).

    `sync(rows, added)` comes before rows are added: it takes the ids the tree found repeated since (an id seen once,
    flagged, then repeated by an appended row moves to the dict with its flagged row). `_special` holds every id the
    dict answers for (a repeated id with no canonical row yet answers None)."""

    __slots__ = ("_duplicates_seen", "_flags", "_repeated", "_row_of", "_special", "_tree")

    def __init__(self, tree: SessionTree) -> None:
        self._tree = tree
        self._flags = bytearray()
        self._special: set[Any] = set()
        self._repeated: dict[Any, int] = {}
        self._duplicates_seen = 0
        self._row_of: Any = tree.by_id.get

    def sync(self, rows: int, added: int) -> None:
        """Ready to add the `added` rows up to `rows` (the table's length) and to look ids up among them."""
        duplicates = self._tree.duplicates
        flags, repeated, special = self._flags, self._repeated, self._special
        for eid, previous, _ in duplicates[self._duplicates_seen :]:
            if eid not in special:
                special.add(eid)
                if previous < len(flags) and flags[previous]:
                    repeated[eid] = previous
                    flags[previous] = 0  # a flag stands for an id the dict does not hold
        self._duplicates_seen = len(duplicates)
        if len(flags) < rows:
            flags.extend(bytes(rows - len(flags)))
        self._row_of = self._tree.by_id.mapping_for(added).get

    def __setitem__(self, eid: Any, row: int) -> None:
        special = self._special
        if (special and eid in special) or self._row_of(eid) != row:
            self._repeated[eid] = row
            special.add(eid)
        else:
            self._flags[row] = 1

    def set_run(self, run_ids: list[str], start: int) -> None:
        """`self[eid] = start + k` for the k-th id of `run_ids`, in order: flags set in one step when each id is
        seen once (the tree's index names its row) and none is special, else one by one."""
        stop = start + len(run_ids)
        special = self._special
        if (not special or special.isdisjoint(run_ids)) and list(map(self._row_of, run_ids)) == list(range(start, stop)):
            self._flags[start:stop] = b"\x01" * (stop - start)
            return
        for k, eid in enumerate(run_ids):
            self[eid] = start + k

    def as_dict(self, ids: Any) -> dict[Any, int]:
        """Every id of `ids` (and every repeated one) with its canonical row: the plain dict this stands for."""
        out = {eid: row for eid in ids if eid is not None and (row := self.get(eid)) is not None}
        out.update(self._repeated)
        return out

    def get(self, eid: Any, default: int | None = None) -> int | None:
        """The row of the last canonical entry with id `eid` (else `default`)."""
        special = self._special
        if special and eid in special:
            return self._repeated.get(eid, default)
        row = self._row_of(eid)
        if row is not None and row < len(self._flags) and self._flags[row]:
            return row  # type: ignore[no-any-return]
        return default

    def __contains__(self, eid: Any) -> bool:
        special = self._special
        if special and eid in special:
            return eid in self._repeated
        row = self._row_of(eid)
        return row is not None and row < len(self._flags) and self._flags[row] == 1

    def __len__(self) -> int:
        return self._flags.count(1) + len(self._repeated)
