"""The columns of an entry table (`inspector.storage.entry_table`, whose docstring describes them), the reads of one
row of them, and the ids.

A restored table's first rows are `FrozenColumns` (read where the snapshot's bytes lie), the rows added since are in
the table's own columns: `TableColumns` reads a row of numbers, a call text cell or a usage slot on either side. The ids
are the last column a row is added to (`len(table)` counts the entries every column holds); a restored table holds them
packed (`inspector.storage.packed_ids`) and builds the lists on first use of `ids` or `parent_ids`.
"""

from __future__ import annotations

import threading
from array import array
from collections.abc import Sequence
from typing import Any

from inspector.model import entries as m
from inspector.storage import nums_layout as nl
from inspector.storage.block_text import BlockText
from inspector.storage.buffers import out_of_band
from inspector.storage.estimate_layout import EstimateLayout
from inspector.storage.extra_cells import Extra
from inspector.storage.packed_extras import PackedExtras
from inspector.storage.packed_ids import PackedIds

USAGE_SIZE = m.USAGE_SIZE
_NARROW_SIZE = nl.NARROW_SIZE
_narrow_unpack_from = nl.NARROW.unpack_from
_wide_pack = nl.WIDE.pack

Shape = tuple[str, str | None, str | None, str | None, str | None, str | None, tuple[str, ...]]
"""`(type, role, tool_name, provider, model, stop_reason, block_kinds)` of an entry."""


_unpacking = threading.Lock()
"""Taken to add ids to a table whose ids are packed, and to build its lists (rare: one lock for every table)."""

IdColumns = tuple[int, PackedIds | None, list[Any], list[Any]]
"""`EntryTable._id_cols`: `(rows, packed, ids, parent_ids)`: the first `rows` rows packed (0 and None: none is),
the others in the lists. One tuple, replaced whole: a reader in another thread sees one state or the next."""


class FrozenColumns:
    """The first `rows` rows of a restored table's packed numbers (`nums`: wide rows when `wide`, else narrow), and the
    call text and usage slots those rows use (the first `len(call_text)` bytes of the call text, the first
    `len(usage) // USAGE_SIZE` slots): read-only buffers, stored out of band in a snapshot (`inspector.session.snapshot`),
    so a restore uses them where they lie instead of copying them."""

    __slots__ = ("call_text", "nums", "rows", "usage", "usage_slots", "wide")

    def __init__(self, rows: int, wide: bool, nums: Any, call_text: Any, usage: Any) -> None:
        if len(nums) != rows * (nl.WIDE_SIZE if wide else nl.NARROW_SIZE) or len(usage) % USAGE_SIZE:
            raise ValueError("frozen columns of the wrong size")
        self.rows, self.wide, self.nums, self.call_text, self.usage = rows, wide, nums, call_text, usage
        self.usage_slots = len(usage) // USAGE_SIZE

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Out of band from protocol 5 (`buffers.out_of_band`), as bytes before it."""
        columns = (out_of_band(self.nums, protocol), out_of_band(self.call_text, protocol), out_of_band(self.usage, protocol))
        return (FrozenColumns, (self.rows, self.wide, *columns))


class TableColumns:
    """The columns of an entry table, one row per entry (see `inspector.storage.entry_table`), and the reads of one row
    across a restored table's frozen rows and the rows added since; the ids. `EntryTable` adds rows and reads them."""

    def __init__(self, layout: EstimateLayout) -> None:
        self.layout = layout
        """Which estimate lies in which slot of the packed numbers (the rule set's that computed them)."""
        self.nums: bytearray = bytearray()  # narrow rows, or a `nums_layout.WideNums` of wide ones
        self._frozen: FrozenColumns | None = None  # a restored table's first rows (see the module docstring)
        self._id_cols: IdColumns = (0, None, [], [])
        self.shape = array("I")
        self.shapes: list[Shape] = []
        self.shape_codes: dict[Shape, int] = {}
        self.type_codes: dict[str, list[int]] = {}
        self.call_text: bytearray | BlockText = bytearray()  # zlib blocks once a worker's run is added
        self.call_end = array("I")  # 32-bit ends while `call_text` is under 4 GiB, then 64-bit ("q")
        self.call_odd: dict[int, Any] = {}
        self.usage_slot = array("i")
        self.usage_buffer: bytearray | BlockText = bytearray()  # zlib blocks once a worker's run is added
        self.extras: dict[int, Extra] | PackedExtras = {}  # packed in a snapshot (`inspector.storage.packed_extras`)
        self._usage_total: tuple[int, m.UsageSum] = (0, m.UsageSum())
        self._type_indices: dict[str, tuple[int, list[int]]] = {}
        self.per_shape: dict[str, list[int]] = {}
        """Values other modules derive from each shape, under their own key (`context`'s path kinds): kept with the
        table (and its snapshot) and extended as shapes are added, each time as a new list (a reader keeps its own)."""

    def __len__(self) -> int:
        cols = self._id_cols
        return cols[0] + len(cols[2])

    # -- ids ----------------------------------------------------------------------------------------------


    @property
    def ids(self) -> list[str | None]:
        """The id of every entry (a list: built first, once, when the table's ids are packed)."""
        cols = self._id_cols
        return cols[2] if cols[1] is None else self._unpack()[2]

    @property
    def parent_ids(self) -> list[str | None]:
        """The parent id of every entry (as `ids`)."""
        cols = self._id_cols
        return cols[3] if cols[1] is None else self._unpack()[3]

    @property
    def ids_packed(self) -> bool:
        """Whether the ids are still packed as a snapshot stored them (nothing has read them all since the restore)."""
        return self._id_cols[1] is not None

    def _unpack(self) -> IdColumns:
        with _unpacking:
            _, packed, ids, parent_ids = self._id_cols
            if packed is not None:
                all_ids, all_parents = packed.lists()
                all_ids += ids
                all_parents += parent_ids
                self._id_cols = (0, None, all_ids, all_parents)
            return self._id_cols

    def id_of(self, i: int) -> str | None:
        """The id of entry `i` (without building the list of them: see `ids`)."""
        return self._id_at(i, parents=False)

    def parent_id_of(self, i: int) -> str | None:
        """The parent id of entry `i` (as `id_of`)."""
        return self._id_at(i, parents=True)

    def _id_at(self, i: int, *, parents: bool) -> str | None:
        rows, packed, ids, parent_ids = self._id_cols
        column = parent_ids if parents else ids
        if i < 0:
            i += rows + len(column)
        if i >= rows or packed is None:
            return column[i - rows]
        return packed.parent_id_of(i) if parents else packed.id_of(i)  # type: ignore[no-any-return]

    def _add_ids(self, ids: Sequence[str | None], parent_ids: Sequence[str | None]) -> None:
        """Add the ids and parent ids of rows whose other columns are added (parent ids first: `len` counts ids)."""
        cols = self._id_cols
        if cols[1] is None:
            cols[3].extend(parent_ids)
            cols[2].extend(ids)
            return
        with _unpacking:  # the lists may be being built (`_unpack`): added to them, or to the ones it extends
            cols = self._id_cols
            cols[3].extend(parent_ids)
            cols[2].extend(ids)

    # -- one row, restored or added ----------------------------------------------------------------------

    def _wide_row(self, i: int) -> bytes:
        """Row `i` of the packed numbers, wide."""
        frozen = self._frozen
        if frozen is not None:
            if i < frozen.rows:
                if frozen.wide:
                    return bytes(frozen.nums[i * nl.WIDE_SIZE : (i + 1) * nl.WIDE_SIZE])
                return _wide_pack(*_narrow_unpack_from(frozen.nums, i * _NARROW_SIZE))
            i -= frozen.rows
        nums = self.nums
        return _wide_pack(*_narrow_unpack_from(nums, i * _NARROW_SIZE)) if type(nums) is bytearray else nl.wide_row(nums, i)

    def _call_text_at(self, start: int, end: int) -> tuple[Any, int, int]:
        """The buffer holding the call text cell [start, end) and the cell's bounds in it."""
        frozen = self._frozen
        if frozen is not None:
            n = len(frozen.call_text)
            if end <= n:
                return frozen.call_text, start, end
            start, end = start - n, end - n
        text = self.call_text
        if type(text) is not BlockText:
            return text, start, end
        block, base, limit = text.window  # the block read last: in file order, nearly always the one
        if base <= start and end <= limit:
            return block, start - base, end - base
        return text.locate(start, end)

    def _usage_at(self, slot: int) -> bytes:
        """The packed usage in slot `slot`."""
        frozen = self._frozen
        if frozen is not None:
            if slot < frozen.usage_slots:
                return bytes(frozen.usage[slot * USAGE_SIZE : (slot + 1) * USAGE_SIZE])
            slot -= frozen.usage_slots
        return bytes(self.usage_buffer[slot * USAGE_SIZE : (slot + 1) * USAGE_SIZE])

    def _call_text_len(self) -> int:
        """How many bytes of call text the table holds."""
        frozen = self._frozen
        return len(self.call_text) + (0 if frozen is None else len(frozen.call_text))

    def _usage_slots(self) -> int:
        """How many usage slots the table holds."""
        frozen = self._frozen
        return len(self.usage_buffer) // USAGE_SIZE + (0 if frozen is None else frozen.usage_slots)

    def _usage_range(self, start: int, end: int) -> bytes:
        """The packed usages of slots [start, end), laid end to end."""
        frozen = self._frozen
        if frozen is None:
            return bytes(self.usage_buffer[start * USAGE_SIZE : end * USAGE_SIZE])
        n = frozen.usage_slots
        head = bytes(frozen.usage[start * USAGE_SIZE : min(end, n) * USAGE_SIZE]) if start < n else b""
        tail = bytes(self.usage_buffer[max(0, start - n) * USAGE_SIZE : (end - n) * USAGE_SIZE]) if end > n else b""
        return head + tail
