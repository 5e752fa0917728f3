"""`EntryRange`: some consecutive entries of an `EntryTable`, built as `Entry` objects only when read."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import overload

from inspector.model import entries as m
from inspector.storage.entry_table import EntryTable


class EntryRange(Sequence[m.Entry]):
    """The entries `range(start, stop)` of a table, as a sequence: `Session.refresh()`'s new entries.

    Nothing is built up front: an appended run that only asks whether anything arrived builds no entry (it cost
    ~10 µs an entry, 4-5 ms a megabyte), and a re-index does not build all of them.
    """

    __slots__ = ("_rows", "_table")

    def __init__(self, table: EntryTable, start: int = 0, stop: int | None = None) -> None:
        self._table = table
        self._rows = range(start, len(table) if stop is None else stop)

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> m.Entry: ...

    @overload
    def __getitem__(self, i: slice) -> list[m.Entry]: ...

    def __getitem__(self, i: int | slice) -> m.Entry | list[m.Entry]:
        if isinstance(i, slice):
            return [self._table[k] for k in self._rows[i]]
        return self._table[self._rows[i]]

    def __iter__(self) -> Iterator[m.Entry]:
        table = self._table
        return (table[k] for k in self._rows)

    def __repr__(self) -> str:
        return f"EntryRange({self._rows.start}, {self._rows.stop})"
