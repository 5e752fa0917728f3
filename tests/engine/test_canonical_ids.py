"""2026.9.6's canonical ids (`CanonicalIds`): flags over the tree's id index answer as a dict of every canonical id
would (the last canonical row of an id; a repeated id, before or after an append, from its own dict)."""

from __future__ import annotations

from typing import Any

from inspector.rules.openclaw_2026_9_6.canonical_ids import CanonicalIds
from inspector.storage.id_index import IdIndex


class _Tree:
    """What `CanonicalIds` reads of a `SessionTree`: its id index (the last row of an id) and its repeated ids."""

    def __init__(self) -> None:
        self.by_id = IdIndex()
        self.duplicates: list[tuple[str, int, int]] = []
        self.rows = 0

    def add(self, eid: str) -> int:
        previous = self.by_id.get(eid)
        if previous is not None:
            self.duplicates.append((eid, previous, self.rows))
        self.by_id[eid] = self.rows
        self.rows += 1
        return self.rows - 1


def _read(ids: CanonicalIds, reference: dict[str, int], tree: _Tree, rows: list[tuple[str, bool]], done: int) -> int:
    ids.sync(tree.rows, tree.rows - done)
    for row, (eid, canonical) in enumerate(rows[done:], done):
        if canonical:
            ids[eid] = row
            reference[eid] = row
    return tree.rows


def test_answers_as_a_dict_of_every_canonical_id_across_appends() -> None:
    rows = [("a", True), ("b", True), ("c", False), ("b", False), ("d", True), ("a", True)]
    appended = [("d", False), ("e", True), ("c", True), ("e", False), ("f", False)]
    tree = _Tree()
    ids = CanonicalIds(tree)  # type: ignore[arg-type]
    reference: dict[str, int] = {}
    for eid, _ in rows:
        tree.add(eid)
    done = _read(ids, reference, tree, rows, 0)
    for eid, _ in appended:
        tree.add(eid)
    _read(ids, reference, tree, rows + appended, done)
    probes: list[Any] = ["a", "b", "c", "d", "e", "f", "g", None, 3]
    assert [ids.get(p) for p in probes] == [reference.get(p) for p in probes]
    assert [p in ids for p in probes] == [p in reference for p in probes]
    assert len(ids) == len(reference)
