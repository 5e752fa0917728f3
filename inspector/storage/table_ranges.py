"""The reads of a range of rows of an entry table (`inspector.storage.entry_table.EntryTable`): the ids of a range,
the rows of a type, the shape counts of a range, the usage summed, or laid end to end for chosen rows. Each reads the
columns directly (C-level passes, no `Entry` built), and copies no whole column: a pass over a big session must not add
a copy of a column to the peak."""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import compress, islice, repeat
from typing import Any

from inspector.model import entries as m
from inspector.storage import nums_layout as nl
from inspector.storage.block_text import BlockText
from inspector.storage.table_columns import USAGE_SIZE, TableColumns

_PACKED_READS = 4096
"""`ids_in` reads more packed rows than this from the lists (built first)."""

_USAGE_ROWS_AT_ONCE = 2048
"""Usage rows summed per piece by `usage_total` (160 KB copied at a time)."""
_USAGE_SPAN_AT_ONCE = 1 << 20
"""`usage_rows` of a table whose usages are zlib blocks decompresses the span its rows cover at once up to this."""


def _range_of(column: Sequence[Any], start: int, stop: int) -> Iterable[Any]:
    """Items [start, stop) of a list or array, to read once: a slice (a copy of the range) when the range is shorter
    than what comes before it, else `islice` (which passes every item before `start`, but copies nothing: a read of
    the whole column must not add a copy of it to the peak)."""
    return column[start:stop] if stop - start < start else islice(column, start, stop)


class TableRanges(TableColumns):
    """The reads of a range of rows of an entry table (see the module docstring); `EntryTable` adds the rest."""

    def ids_in(self, start: int, stop: int) -> Iterable[str | None]:
        """The ids of rows [start, stop) (0 <= start <= stop), in order, to read once (`_range_of`), without building
        the list unless the range reaches far into the packed rows."""
        return self._column_in(start, stop, parents=False)

    def parent_ids_in(self, start: int, stop: int) -> Iterable[str | None]:
        """The parent ids of rows [start, stop) (as `ids_in`)."""
        return self._column_in(start, stop, parents=True)

    def _column_in(self, start: int, stop: int, *, parents: bool) -> Iterable[str | None]:
        rows, packed, ids, parent_ids = self._id_cols
        if packed is not None and start < rows and min(stop, rows) - start > _PACKED_READS:
            rows, packed, ids, parent_ids = self._unpack()
        column = parent_ids if parents else ids
        if packed is None or start >= rows:
            return _range_of(column, start - rows, stop - rows)
        read = packed.parent_id_of if parents else packed.id_of
        return [*map(read, range(start, min(stop, rows))), *column[: max(0, stop - rows)]]

    def codes_of_type(self, *types: str) -> set[int]:
        """The shape codes of entries of these types (kept as shapes are added: no pass over the shapes)."""
        codes: set[int] = set()
        for t in types:
            codes.update(self.type_codes.get(t, ()))
        return codes

    def indices_of_type(self, etype: str) -> list[int]:
        """Indices (in order) of the entries of type `etype`. Kept per type, and extended by the rows added since (a
        type only gains shape codes with rows that come after): after a restore and an append only the new rows are
        read."""
        rows, found = self._type_indices.get(etype, (0, []))
        n = len(self)  # the rows every column holds (ids are appended last)
        if rows < n:
            codes = self.codes_of_type(etype)
            if codes:
                found = found + list(compress(range(rows, n), map(codes.__contains__, _range_of(self.shape, rows, n))))
            self._type_indices[etype] = (n, found)  # one assignment: a reader in another thread sees the old or new pair
        return list(found)

    def shape_counts_since(self, start: int, stop: int | None = None) -> Counter[int]:
        """How many of the rows [start, stop) (default: to the end) have each shape code, in the order each code first
        appears among them (`figures.shape_totals` keeps the totals and adds the rows added since)."""
        return Counter(_range_of(self.shape, start, len(self) if stop is None else stop))

    def usage_total(self) -> m.UsageSum:
        """Σ of every entry's packed usage. Kept, and extended by the rows added since: after a restore and an
        append only the new rows are summed."""
        kept = self._usage_total
        rows, total = kept
        now = self._usage_slots()
        for start in range(rows, now, _USAGE_ROWS_AT_ONCE):  # a piece at a time: no copy of the whole buffer
            # A slice, not a memoryview: an exported buffer would make another thread's append fail.
            total = total.plus_rows(self._usage_range(start, min(now, start + _USAGE_ROWS_AT_ONCE)))
        if rows < now and self._usage_total is kept:  # not when a usage was revised meanwhile (`revise_usage` resets it)
            self._usage_total = (now, total)  # one assignment: a reader in another thread sees the old or the new pair
        return total

    def usage_rows(self, indices: Iterable[int]) -> bytes:
        """The packed usages of the entries of `indices` that have one, in order, laid end to end (C-level passes:
        no object per entry)."""
        slots = list(filter((0).__le__, map(self.usage_slot.__getitem__, indices)))
        if self._frozen is not None:
            return b"".join(map(self._usage_at, slots))
        starts = list(map(operator.mul, slots, repeat(USAGE_SIZE)))
        buf: Any = self.usage_buffer
        if type(buf) is BlockText and starts:  # the span decompressed once, its slots sliced at C speed
            low, high = min(starts), max(starts) + USAGE_SIZE
            if high - low <= _USAGE_SPAN_AT_ONCE:
                buf = buf[low:high]
                starts = list(map(operator.sub, starts, repeat(low)))
        ends = map(operator.add, starts, repeat(USAGE_SIZE))
        return b"".join(map(buf.__getitem__, map(slice, starts, ends)))

    def usage_column(self, indices: Iterable[int]) -> list[bytes | None]:
        """The packed usage of each entry of `indices`, in order (None: the entry has none)."""
        if self._frozen is not None:
            return [None if s < 0 else self._usage_at(s) for s in map(self.usage_slot.__getitem__, indices)]
        buf = self.usage_buffer
        return [None if s < 0 else bytes(buf[s * USAGE_SIZE : (s + 1) * USAGE_SIZE]) for s in map(self.usage_slot.__getitem__, indices)]

    def flag_bytes_in(self, start: int, stop: int) -> bytes:
        """The low byte of the flags (`model.FLAG_*`: every flag fits in it) of rows [start, stop), one byte per row
        (C-level strided slices of the restored rows and of the rows added since; no row unpacked)."""
        frozen = self._frozen
        head = b""
        if frozen is not None:
            if start < frozen.rows:
                head = nl.flag_bytes(frozen.nums, frozen.wide, start, min(stop, frozen.rows))
            start, stop = max(0, start - frozen.rows), max(0, stop - frozen.rows)
        if start >= stop:
            return head
        nums = self.nums
        return head + nl.flag_bytes(nums, type(nums) is not bytearray, start, stop)

    def call_kinds_in(self, start: int, stop: int) -> bytes:
        """The first byte of each `calls` cell of rows [start, stop) (`call_cells.*_KIND`: what the cell holds), 0
        for a row without one; C-level passes over the cell ends and the call text, no cell decoded."""
        if start >= stop:
            return b""
        ends = self.call_end
        starts = ends[start - 1 : stop - 1] if start else array(ends.typecode, [0]) + ends[: stop - 1]
        has_cell = bytes(map(operator.ne, ends[start:stop], starts))
        frozen = self._frozen
        if frozen is None:
            kinds = _bytes_at(self.call_text, starts)
        else:
            n = len(frozen.call_text)
            split = bisect_left(starts, n)
            kinds = _bytes_at(frozen.call_text, starts[:split])
            kinds += _bytes_at(self.call_text, array(starts.typecode, map(operator.sub, starts[split:], repeat(n))))
        return bytes(map(operator.mul, kinds, has_cell))  # a row without a cell read the next row's first byte


def _bytes_at(text: Any, positions: array[int]) -> bytes:
    """The byte of `text` at each of `positions` (non-decreasing); 0 for a position at or past its end. A
    `BlockText` (zlib blocks) gives the span the positions cover once, not a block lookup per byte."""
    inside = bisect_left(positions, len(text))
    wanted = positions[:inside]
    if inside and isinstance(text, BlockText):
        low = wanted[0]
        text = text[low : wanted[-1] + 1]
        wanted = array(wanted.typecode, map(operator.sub, wanted, repeat(low)))
    return bytes(map(text.__getitem__, wanted)) + bytes(len(positions) - inside)
