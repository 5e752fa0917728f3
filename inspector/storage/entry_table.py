"""Every entry of a session in packed columns: a few bytes per entry instead of an object per entry.

`EntryTable` is a `Sequence[Entry]`: `table[i]` builds the `Entry` of index `i` from the columns (a fresh value
each time: an `Entry` is a copy, changing it changes nothing here). Passes over every entry (the tree's links,
the context's path walk, the figures' counts and sums) read the columns directly (`shape_of`, `ids`,
`parent_ids`, `usage_buffer`), without building entries.

Columns, one row per entry in file order:

- `nums`: the packed numbers (line, offset, length, the estimates, message timestamp, flags), 40 bytes a row
  while they fit 32 bits, else 72 (`inspector.storage.nums_layout`: the buffer's type says which); which estimate is
  in which slot is the table's `layout` (`inspector.storage.estimate_layout`), given to every `Entry` built;
- `ids`, `parent_ids`: the id strings (a parent id is the parent's own string object). A table restored from a
  snapshot holds them packed (`inspector.storage.packed_ids`) and builds the lists on first use of `ids` or `parent_ids`:
  `id_of(i)` and `parent_id_of(i)` read one without building them (the point reads of an appended run);
- `shape`: a code into `shapes`, the distinct `(type, role, tool_name, provider, model, stop_reason,
  block_kinds)` tuples (a few hundred in a real session);
- `call_text`, `call_end`: the `tool_call_id` (toolResult messages) or the `tool_call_ids` (assistant messages) of
  each entry, encoded (`inspector.storage.call_cells`) and laid end to end in `call_text`; `call_end[i]` is where entry `i`'s ends
  (an entry with neither takes no bytes); a result's id that is a call of the assistant cell shortly before it is a
  3-byte reference to it (`call_cells.back_cell`); the rare cell that has no encoding is kept as it is in `call_odd`;
- `usage_slot`: the row of the entry's packed usage in `usage_buffer` (-1: none);
- `extras`: the `timestamp` and `data` of the entries that have them (the types other than `message`), kept as
  compact JSON when it gives them back exactly (`inspector.storage.extra_cells`: `entry.data` is a fresh dict every
  time).

A table restored from a snapshot reads the rows it was restored with from where the snapshot's bytes lie
(`FrozenColumns`: `nums`, `call_text` and `usage_buffer` of those rows, read-only), and keeps the columns of the rows
added since as a fresh table does: copying tens of megabytes out of the snapshot cost most of a restore (the
kernel's page faults on the copies).

Entries are only ever appended, `ids` last: a thread reading while another appends sees an entry (`len(table)`)
only once every column holds it. While the ids are packed, adding to them and building the lists take one lock.

The class is built in three steps, one module each: `inspector.storage.table_columns.TableColumns` holds the columns,
reads one row of them on either side of a restore, and the ids; `inspector.storage.table_ranges.TableRanges` reads
ranges of rows; `EntryTable` adds rows, builds an `Entry`, reads one entry's cells and gives its snapshot form.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, overload

from inspector.model import entries as m
from inspector.storage import nums_layout as nl
from inspector.storage.block_text import BlockText
from inspector.storage.buffers import WholeBytes
from inspector.storage.call_cells import (
    CALL_IDS_KIND,
    ODD_CELL,
    RESULT_BACK_KIND,
    RESULT_ID_KIND,
    BothCalls,
    Calls,
    back_reference,
    call_cell,
    extended_ends,
)
from inspector.storage.extra_cells import Extra, pack_extra, unpack_extra
from inspector.storage.packed_extras import PackedExtras
from inspector.storage.packed_ids import PackedIds
from inspector.storage.table_columns import USAGE_SIZE, FrozenColumns, Shape
from inspector.storage.table_ranges import TableRanges


class EntryTable(TableRanges, Sequence[m.Entry]):
    """The entries of one session in packed columns (see the module docstring); `table[i]` is an `Entry`."""

    # -- adding -------------------------------------------------------------------------------------------

    def shape_code(self, shape: Shape) -> int:
        """The code of `shape` (added to `shapes` when new)."""
        code = self.shape_codes.get(shape)
        if code is None:
            code = self.shape_codes[shape] = len(self.shapes)
            self.shapes.append(shape)
            self.type_codes.setdefault(shape[0], []).append(code)
        return code

    def append(self, entry: m.Entry) -> int:
        """Add an `Entry` at the end (its `index` must be `len(self)`, its numbers packed by the table's `layout`);
        returns its index."""
        index = len(self)
        if entry.index != index:
            raise ValueError(f"entry index {entry.index} appended at {index}")
        if entry.layout is not self.layout and entry.layout != self.layout:
            raise ValueError(f"an entry of {entry.layout!r} appended to a table of {self.layout!r}")
        shape = (entry.type, entry.role, entry.tool_name, entry.provider, entry.model, entry.stop_reason, entry.block_kinds)
        calls: Any = entry.tool_call_ids or entry.tool_call_id
        if entry.tool_call_ids and entry.tool_call_id is not None:
            calls = BothCalls((entry.tool_call_id, entry.tool_call_ids))
        self.add_row(
            nl.narrowed(entry.nums), entry.id, entry.parent_id, self.shape_code(shape), calls, entry.usage_packed, entry.timestamp, entry.data
        )
        return index

    def add_row(
        self,
        nums: bytes,
        id: str | None,
        parent_id: str | None,
        code: int,
        calls: Calls | BothCalls,
        usage_packed: bytes | None,
        timestamp: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> int:
        """Add one entry from its column values (`nums` in either layout of `nums_layout`, `code` from `shape_code`);
        returns its index."""
        index = len(self)
        if len(nums) == nl.NARROW_SIZE and type(self.nums) is bytearray:
            self.nums += nums
        elif len(nums) == nl.NARROW_SIZE or len(nums) == nl.WIDE_SIZE:
            self.nums = nl.add_row(self.nums, nums)
        else:
            raise ValueError("packed numbers of the wrong size")
        self.shape.append(code)
        cell = call_cell(calls)  # an empty tool call id stays one, an empty tuple is none
        last = self.__dict__.get("_last_calls")
        if type(calls) is str and last is not None:
            cell = back_reference(last[1], index - last[0], calls) or cell
        elif type(calls) is tuple and cell[:1] == b"\x02":  # CALL_IDS_KIND: the calls a result after it may name (`back_cell`)
            self._last_calls: tuple[int, tuple[str, ...]] | None = (index, calls)
        if cell == ODD_CELL:
            self.call_odd[index] = calls
        self.call_text.extend(cell)
        frozen = self._frozen
        end = len(self.call_text) if frozen is None else self._call_text_len()
        if end < 2**32 or self.call_end.typecode == "q":
            self.call_end.append(end)
        else:
            self.call_end = extended_ends(self.call_end, (end,))
        if usage_packed is None:
            self.usage_slot.append(-1)
        else:
            slot = len(self.usage_buffer) // USAGE_SIZE if frozen is None else self._usage_slots()
            self.usage_buffer.extend(usage_packed)
            self.usage_slot.append(slot)
        if timestamp is not None or data is not None:
            self.extras[index] = pack_extra(timestamp, data)
        cols = self._id_cols  # last: `len(self)` counts the entry once every column holds it (a reader in another thread)
        if cols[1] is None:
            cols[3].append(parent_id)
            cols[2].append(id)
        else:
            self._add_ids([id], [parent_id])
        return index

    def extend_columns(
        self,
        nums: bytearray,
        ids: list[str],
        parent_ids: list[str | None],
        codes: array,
        call_text: bytes | bytearray | BlockText,
        call_ends: array,
        usage_slots: array,
        usage_buffer: bytes | bytearray | BlockText,
        extras: dict[int, Extra] | PackedExtras,
    ) -> None:
        """Add entries given as whole columns (a worker's `ColumnRun`, its `nums` rows in either layout of
        `nums_layout`, its shape codes already this table's; its calls cells encoded by `call_cell` in `call_text`,
        their ends counted from the start of it, never `ODD_KIND`; its usage slots numbered from 0 in `usage_buffer`;
        its `extras` by position in the columns, as a dict or packed)."""
        count = len(ids)
        if len(nums) != count * nl.row_size(nums) or not len(parent_ids) == len(codes) == len(call_ends) == len(usage_slots) == count:
            raise ValueError("columns of different lengths")
        if (call_ends[-1] if count else 0) != len(call_text):
            raise ValueError("call ends that do not end the call text")
        base = self._usage_slots()
        self.nums = nl.join_rows(self.nums, nums)
        self.shape.extend(codes)
        call_base = self._call_text_len()
        call_blocks = self.call_text
        if type(call_blocks) is not BlockText:  # a worker's run: the call text kept as zlib blocks from now on
            call_blocks = self.call_text = BlockText.of(call_blocks)
        call_blocks.extend(call_text)
        self.call_end = extended_ends(self.call_end, [end + call_base for end in call_ends] if call_base else call_ends)
        usage_blocks = self.usage_buffer
        if type(usage_blocks) is not BlockText:  # and the usages
            usage_blocks = self.usage_buffer = BlockText.of(usage_blocks)
        usage_blocks.extend(usage_buffer)
        self._last_calls = None  # a worker's cells name calls within its run only (`column_runs`)
        self.usage_slot.extend(array("i", [-1 if s < 0 else s + base for s in usage_slots]) if base else usage_slots)
        start = len(self)
        if type(extras) is PackedExtras:  # a worker's run: its cells laid after the others (`PackedExtras.extend_run`)
            table_extras = self.extras
            if type(table_extras) is not PackedExtras:
                table_extras = self.extras = PackedExtras.growing(table_extras, blocks=True)
            table_extras.extend_run(extras, start)
        elif extras:
            self.extras.update({start + k: extra for k, extra in extras.items()})
        self._add_ids(ids, parent_ids)  # last, as in `add_row`

    def revise_usage(self, i: int, usage_packed: bytes | None) -> None:
        """Give entry `i` the usage `usage_packed` (None: none) in place of the one it was added with (a Claude Code /
        Codex mirror's usage mark, `inspector.read.usage_marks`). Its old slot is voided (a usage with no field: no
        call, nothing summed, as if absent), the new usage takes a new slot, and `usage_total` sums again."""
        old = self.usage_slot[i]
        if old >= 0:
            frozen = self._frozen
            if frozen is not None and old < frozen.usage_slots:
                if not isinstance(frozen.usage, bytearray):
                    frozen.usage = bytearray(frozen.usage)  # a restored table's usage (small) becomes writable
                frozen.usage[old * USAGE_SIZE : (old + 1) * USAGE_SIZE] = m.VOID_USAGE
            else:
                at = old - (0 if frozen is None else frozen.usage_slots)
                self.usage_buffer[at * USAGE_SIZE : (at + 1) * USAGE_SIZE] = m.VOID_USAGE
        if usage_packed is None:
            self.usage_slot[i] = -1
        else:
            slot = self._usage_slots()
            self.usage_buffer.extend(usage_packed)
            self.usage_slot[i] = slot
        rows, total = self._usage_total
        # Summed again when the old usage is in the kept sum; a new pair either way, so a sum another thread is taking
        # meanwhile (perhaps of the old bytes) is not kept (`usage_total`).
        self._usage_total = (0, m.UsageSum()) if 0 <= old < rows else (rows, total)

    @contextmanager
    def snapshot_rows(self, rows_of: Callable[[list[Any]], Any]) -> Iterator[None]:
        """While a snapshot is taken: `rows_of` (the row of the last entry with each of a list of ids: the tree's id
        index) packs the parent ids (`PackedIds.pack`) instead of a dict of the ids built for it."""
        self._snapshot_rows = rows_of
        try:
            yield
        finally:
            del self._snapshot_rows

    def snapshot_attrs(self) -> dict[str, Any]:
        """The attributes a snapshot stores (`inspector.session.snapshot`): the ids and the extras packed, the packed
        numbers, call text and usage as `FrozenColumns` (out of band: the columns themselves, or `WholeBytes` made as
        they are written, not copies)."""
        attrs = dict(vars(self))
        rows_of = attrs.pop("_snapshot_rows", None)
        ids, parent_ids = self.ids, self.parent_ids
        packed = PackedIds.pack(ids, parent_ids, rows_of, for_snapshot=True)
        if packed is not None:
            attrs["_id_cols"] = (packed.count, packed, [], [])
        attrs["extras"] = PackedExtras.pack(self.extras)
        frozen = self._frozen
        nums: Any = self.nums
        if frozen is not None:
            nums = nl.join_rows(nl.WideNums(frozen.nums) if frozen.wide else bytearray(frozen.nums), self.nums)
            call_text, usage = WholeBytes(frozen.call_text, self.call_text), WholeBytes(frozen.usage, self.usage_buffer)
        else:
            call_text, usage = WholeBytes(self.call_text), WholeBytes(self.usage_buffer)
        wide = type(nums) is nl.WideNums
        rows = len(nums) // (nl.WIDE_SIZE if wide else nl.NARROW_SIZE)
        attrs["_frozen"] = FrozenColumns(rows, wide, WholeBytes(nums), call_text, usage)
        attrs["nums"], attrs["call_text"], attrs["usage_buffer"] = bytearray(), bytearray(), bytearray()
        return attrs

    # -- one entry ----------------------------------------------------------------------------------------

    @overload
    def __getitem__(self, i: int) -> m.Entry: ...

    @overload
    def __getitem__(self, i: slice) -> list[m.Entry]: ...

    def __getitem__(self, i: int | slice) -> m.Entry | list[m.Entry]:
        if isinstance(i, slice):
            return [self._entry(k) for k in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("entry index out of range")
        return self._entry(i)

    def _entry(self, i: int) -> m.Entry:
        t, role, tool_name, provider, model, stop, kinds = self.shapes[self.shape[i]]
        tcid: str | None = None
        tcids: tuple[str, ...] = ()
        ends = self.call_end
        end = ends[i]
        start = ends[i - 1] if i else 0
        if start != end:  # the entry has a calls cell (decoded here as `calls_of` does: once per entry built)
            text, start, end = self._call_text_at(start, end)
            kind = text[start]
            if kind == RESULT_ID_KIND:
                tcid = str(text[start + 1 : end], "utf-8", "surrogatepass")
            elif kind == CALL_IDS_KIND:
                tcids = tuple(str(text[start + 1 : end], "utf-8", "surrogatepass").split("\x00"))
            elif kind == RESULT_BACK_KIND:
                tcid = self.tool_call_ids_of(i - text[start + 1])[text[start + 2]]
            else:
                calls = self.call_odd[i]
                if type(calls) is str:
                    tcid = calls
                elif type(calls) is tuple:
                    tcids = calls
                elif type(calls) is BothCalls:
                    tcid, tcids = calls
        extra = self.extras.get(i)
        timestamp, data = (None, None) if extra is None else unpack_extra(extra)
        row = self._wide_row(i)
        slot = self.usage_slot[i]
        usage = None if slot < 0 else self._usage_at(slot)
        return m.Entry(
            i, row, self.layout, t, self.id_of(i), self.parent_id_of(i), timestamp, data,
            role, tool_name, tcid, tcids, provider, model, stop, usage, kinds,
        )  # fmt: skip

    def __iter__(self) -> Iterator[m.Entry]:
        for i in range(len(self)):
            yield self._entry(i)

    def __eq__(self, other: object) -> bool:
        """Equal to another table or list holding equal entries in the same order."""
        if not isinstance(other, (EntryTable, list)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __reversed__(self) -> Iterator[m.Entry]:
        for i in range(len(self) - 1, -1, -1):
            yield self._entry(i)

    # -- columns ------------------------------------------------------------------------------------------

    def shape_of(self, i: int) -> Shape:
        """`(type, role, tool_name, provider, model, stop_reason, block_kinds)` of entry `i`."""
        return self.shapes[self.shape[i]]

    def type_of(self, i: int) -> str:
        return self.shapes[self.shape[i]][0]

    def role_of(self, i: int) -> str | None:
        return self.shapes[self.shape[i]][1]

    def nums_of(self, i: int) -> bytes:
        """The packed numbers of entry `i` (a `nums_layout.WIDE` row, whatever the buffer's layout)."""
        return self._wide_row(i)

    def data_of(self, i: int) -> dict[str, Any] | None:
        """The `data` of entry `i` (a fresh dict: see `Entry.data`)."""
        extra = self.extras.get(i)
        return None if extra is None else unpack_extra(extra)[1]

    def usage_packed(self, i: int) -> bytes | None:
        """The packed usage of entry `i` (`model.pack_usage`), None without one."""
        slot = self.usage_slot[i]
        return None if slot < 0 else self._usage_at(slot)

    def calls_of(self, i: int) -> Calls | BothCalls:
        """Entry `i`'s `calls` cell: its `tool_call_id` (a string), its `tool_call_ids` (a tuple), both, or None."""
        end = self.call_end[i]
        start = self.call_end[i - 1] if i else 0
        if start == end:
            return None
        text, start, end = self._call_text_at(start, end)
        kind = text[start]
        if kind == RESULT_ID_KIND:
            return str(text[start + 1 : end], "utf-8", "surrogatepass")
        if kind == CALL_IDS_KIND:
            return tuple(str(text[start + 1 : end], "utf-8", "surrogatepass").split("\x00"))
        if kind == RESULT_BACK_KIND:
            return self.tool_call_ids_of(i - text[start + 1])[text[start + 2]]
        return self.call_odd[i]  # type: ignore[no-any-return]

    def tool_call_ids_of(self, i: int) -> tuple[str, ...]:
        """Entry `i`'s `tool_call_ids` (an assistant's; `()` for the others)."""
        ends = self.call_end
        end = ends[i]
        start = ends[i - 1] if i else 0
        if start == end or self._call_kind(start, end) == RESULT_ID_KIND:
            return ()
        calls = self.calls_of(i)
        if type(calls) is tuple:
            return calls
        return calls[1] if type(calls) is BothCalls else ()  # type: ignore[index]

    def tool_call_id_of(self, i: int) -> str | None:
        """Entry `i`'s `tool_call_id` (a result's; None for the others)."""
        ends = self.call_end
        end = ends[i]
        start = ends[i - 1] if i else 0
        if start == end or self._call_kind(start, end) == CALL_IDS_KIND:
            return None
        calls = self.calls_of(i)
        if type(calls) is str:
            return calls
        return calls[0] if type(calls) is BothCalls else None  # type: ignore[index]

    def _call_kind(self, start: int, end: int) -> int:
        text, start, _ = self._call_text_at(start, end)
        kind: int = text[start]
        return kind

    def line_of(self, i: int) -> int:
        """The line number of entry `i`."""
        return nl.row_line(self.nums_of(i))
