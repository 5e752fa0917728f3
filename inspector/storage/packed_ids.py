"""The ids and parent ids of an entry table as a snapshot stores them: read one at a time, built as lists on demand.

A list of a few hundred thousand id strings costs as much to unpickle as to index again (~70 ns a string), and a
restored session extended by a few appended lines reads a few hundred of them. So a snapshot stores every id laid
end to end in one string, with where each one ends, and each parent id as the row of an entry with an equal id
(the parent's own string, when the table holds both lists). `id_of` and `parent_id_of` slice one out; `lists()`
builds both lists (a parent id is then its parent's string object again, as the reader makes them).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, compress, repeat
from operator import is_, methodcaller
from typing import Any

from inspector.storage.buffers import Items, WholeBytes, items_view, out_of_band

_utf8 = methodcaller("encode", "utf-8", "surrogatepass")

_NONE = -1
"""`parents` value of a null parent id."""
_ODD = -2
"""`parents` value of a parent id found in `parent_odd` (it names no entry's id)."""


class PackedIds:
    """`count` ids in one string (`text`, `ends`: where each one ends) and their parent ids (`parents`: the row of an
    entry with an equal id, or `_NONE`, or `_ODD` for one kept in `parent_odd`); `odd` holds the ids that are not
    strings (None: an entry without an id), which take no room in `text`."""

    __slots__ = ("count", "ends", "odd", "parent_odd", "parents", "text")

    def __init__(self, text: str, ends: Items, odd: dict[int, Any], parents: Items, parent_odd: dict[int, Any]) -> None:
        if len(ends) != len(parents):
            raise ValueError("ids and parent ids of different lengths")
        self.text, self.ends, self.odd = text, ends, odd
        self.parents, self.parent_odd = parents, parent_odd
        self.count = len(ends)

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """The columns out of band from protocol 5, read where they lie once restored (they never change)."""
        ends_code = self.ends.typecode if isinstance(self.ends, array) else self.ends.format
        columns = (out_of_band(self.ends, protocol), out_of_band(self.parents, protocol))
        return (_restored, (self.text, ends_code, columns, self.odd, self.parent_odd))

    @classmethod
    def pack(cls, ids: list[Any], parent_ids: list[Any], rows_of: Callable[[list[Any]], Items | None] | None = None, *,
             for_snapshot: bool = False) -> PackedIds | None:
        """Both lists packed, or None when they cannot be (of different lengths, or a parent id that is not hashable).
        `rows_of`: gives the row of the last entry with each of a list of ids (`_ODD` for none, None when it cannot
        tell), when the caller has it (the tree's id index): no dict of the ids is built then. `for_snapshot`: only
        to be pickled, the text a `WholeBytes` of the ids' UTF-8 (`IdText`: made as the snapshot writes it)."""
        if len(ids) != len(parent_ids):
            return None
        rows: Items | None = None
        if set(map(type, ids)) <= {str}:
            odd: dict[int, Any] = {}
            named = ids
            try:
                rows = None if rows_of is None else rows_of(parent_ids)
            except TypeError:  # an unhashable parent id
                return None
            row_of: dict[Any, int] = {} if rows is not None else dict(zip(ids, range(len(ids))))  # the last entry with an id wins
        else:
            odd = {i: v for i, v in enumerate(ids) if type(v) is not str}
            named = ["" if type(v) is not str else v for v in ids]
            row_of = {v: i for i, v in enumerate(ids) if type(v) is str}
        text: Any = WholeBytes(IdText(named)) if for_snapshot else "".join(named)
        total = sum(map(len, named))
        ends = array("i" if total < 2**31 else "q", accumulate(map(len, named)))
        try:
            if rows is None:
                rows = array("i", map(row_of.get, parent_ids, repeat(_ODD)))  # a null parent id too: `_NONE` below
        except TypeError:  # an unhashable parent id
            return None
        for i in compress(range(len(rows)), map(is_, parent_ids, repeat(None))) if None in parent_ids else ():
            rows[i] = _NONE
        parent_odd = {i: parent_ids[i] for i, r in enumerate(rows) if r == _ODD} if _ODD in rows else {}
        return cls(text, ends, odd, rows, parent_odd)

    def id_of(self, i: int) -> Any:
        """The id of row `i` (0 <= i < count)."""
        if self.odd and i in self.odd:
            return self.odd[i]
        ends = self.ends
        return self.text[ends[i - 1] if i else 0 : ends[i]]

    def parent_id_of(self, i: int) -> Any:
        """The parent id of row `i` (0 <= i < count)."""
        row = self.parents[i]
        if row >= 0:
            return self.id_of(row)
        return None if row == _NONE else self.parent_odd[i]

    def lists(self) -> tuple[list[Any], list[Any]]:
        """`(ids, parent_ids)` as lists (C-level passes: ~30 ms per 300k rows)."""
        ends = self.ends
        ids: list[Any] = list(map(self.text.__getitem__, map(slice, chain((0,), ends), ends)))  # each from the end before
        for i, v in self.odd.items():
            ids[i] = v
        ids.append(None)  # row _NONE (-1) reads it
        parent_ids = list(map(ids.__getitem__, self.parents))
        ids.pop()
        for i, v in self.parent_odd.items():
            parent_ids[i] = v
        return ids, parent_ids


class IdText:
    """The ids laid end to end as UTF-8 (lone surrogates passed, as a pickled string), made a block of ids at a time
    (`chunks`): a snapshot writes the ids' text without joining it first."""

    __slots__ = ("ids", "nbytes")

    BLOCK = 1 << 14
    """Ids encoded at a time."""

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        ascii_only = all(map(str.isascii, ids))
        self.nbytes = sum(map(len, ids)) if ascii_only else sum(map(len, map(_utf8, ids)))

    def __len__(self) -> int:
        return self.nbytes

    def chunks(self) -> Iterator[bytes]:
        ids = self.ids
        for at in range(0, len(ids), self.BLOCK):
            yield _utf8("".join(ids[at : at + self.BLOCK]))


def _restored(text: Any, ends_code: str, columns: tuple[Any, Any], odd: dict[int, Any], parent_odd: dict[int, Any]) -> PackedIds:
    if type(text) is not str:  # written as UTF-8 (`IdText`)
        text = str(text, "utf-8", "surrogatepass")
    return PackedIds(text, items_view(columns[0], ends_code), odd, items_view(columns[1], "i"), parent_odd)
