"""Every entry of a session in packed columns: a few bytes per entry instead of an object per entry.

`EntryTable` is a `Sequence[Entry]`: `table[i]` builds the `Entry` of index `i` from the columns (a fresh value
each time: an `Entry` is a copy, changing it changes nothing here). Passes over every entry (the tree's links,
the context's path walk, the figures' counts and sums) read the columns directly (`shape_of`, `ids`,
`parent_ids`, `usage_buffer`), without building entries.

Columns, one row per entry in file order:

- `nums`: the packed numbers (line, offset, length, the four estimates, message timestamp, flags), 40 bytes a row
  while they fit 32 bits, else `model.NUMS`' 72 (`inspector.storage.nums_layout`: the buffer's type says which);
- `ids`, `parent_ids`: the id strings (a parent id is the parent's own string object). A table restored from a
  snapshot holds them packed (`inspector.storage.packed_ids`) and builds the lists on first use of `ids` or `parent_ids`:
  `id_of(i)` and `parent_id_of(i)` read one without building them (the point reads of an appended run);
- `shape`: a code into `shapes`, the distinct `(type, role, tool_name, provider, model, stop_reason,
  block_kinds)` tuples (a few hundred in a real session);
- `call_text`, `call_end`: the `tool_call_id` (toolResult messages) or the `tool_call_ids` (assistant messages) of
  each entry, encoded (`call_cell`) and laid end to end in `call_text`; `call_end[i]` is where entry `i`'s ends
  (an entry with neither takes no bytes); the rare cell that has no encoding is kept as it is in `call_odd`;
- `usage_slot`: the row of the entry's packed usage in `usage_buffer` (-1: none);
- `extras`: the `timestamp` and `data` of the entries that have them (the types other than `message`), kept as
  compact JSON when it gives them back exactly (so `entry.data` is a fresh dict every time).

A table restored from a snapshot reads the rows it was restored with from where the snapshot's bytes lie
(`FrozenColumns`: `nums`, `call_text` and `usage_buffer` of those rows, read-only), and keeps the columns of the rows
added since as a fresh table does: copying tens of megabytes out of the snapshot cost most of a restore (the
kernel's page faults on the copies).

Entries are only ever appended, `ids` last: a thread reading while another appends sees an entry (`len(table)`)
only once every column holds it. While the ids are packed, adding to them and building the lists take one lock.
"""

from __future__ import annotations

import operator
import threading
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress, islice, repeat
from typing import Any, cast, overload

import orjson

from inspector.model import entries as m
from inspector.storage import nums_layout as nl
from inspector.storage.buffers import out_of_band
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

_PACKED_READS = 4096
"""`ids_in` reads more packed rows than this from the lists (built first)."""

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


_USAGE_ROWS_AT_ONCE = 2048
"""Usage rows summed per piece by `usage_total` (160 KB copied at a time)."""


def _range_of(column: Sequence[Any], start: int, stop: int) -> Iterable[Any]:
    """Items [start, stop) of a list or array, to read once: a slice (a copy of the range) when the range is shorter
    than what comes before it, else `islice` (which passes every item before `start`, but copies nothing: a read of
    the whole column must not add a copy of it to the peak)."""
    return column[start:stop] if stop - start < start else islice(column, start, stop)


class _BothCalls(tuple):
    """A `calls` cell holding both a `tool_call_id` and `tool_call_ids` (never produced by the reader)."""

    __slots__ = ()


Calls = str | tuple[str, ...] | None
"""A `calls` cell as the reader makes it: a result's `tool_call_id`, an assistant's `tool_call_ids`, or None."""

_RESULT_ID, _CALL_IDS, _ODD = 1, 2, 3
"""The first byte of an encoded `calls` cell: what the rest is."""
ODD_CELL = bytes([_ODD])
RESULT_ID, CALL_IDS = bytes([_RESULT_ID]), bytes([_CALL_IDS])
"""The first byte of a result's encoded `tool_call_id`, of an assistant's encoded `tool_call_ids`."""


def call_cell(calls: Any) -> bytes:
    """A `calls` cell encoded for `call_text`: empty for None or `()`; a kind byte, then the result's id, or the call
    ids joined by NUL, in UTF-8 (lone surrogates kept); `_ODD` alone for a cell kept as it is (both kinds, an id
    holding a NUL, anything else)."""
    if calls is None or calls == ():
        return b""
    if type(calls) is str:
        return RESULT_ID + calls.encode("utf-8", "surrogatepass")
    if type(calls) is tuple:
        if len(calls) == 1:  # the usual assistant: one call
            one = calls[0]
            if type(one) is str and "\x00" not in one:
                return CALL_IDS + one.encode("utf-8", "surrogatepass")
        try:
            joined = "\x00".join(calls)
        except TypeError:  # an id that is not a string
            return ODD_CELL
        if joined.count("\x00") == len(calls) - 1:
            return CALL_IDS + joined.encode("utf-8", "surrogatepass")
    return ODD_CELL


def _ends(ends: array, more: Iterable[int]) -> array:
    """`ends` extended with `more` (`call_end`): a 64-bit copy once an end passes 32 bits."""
    values = list(more)
    try:
        ends.extend(array(ends.typecode, values))
    except OverflowError:
        ends = array("q", ends)
        ends.extend(array("q", values))
    return ends


Extra = bytes | tuple[str | None, dict[str, Any] | None]
"""An `extras` cell: the entry's `data` as compact JSON (its `timestamp` is `data["timestamp"]` when a string), or
`(timestamp, data)` as they are (when the JSON would not give them back exactly)."""


def pack_extra(timestamp: str | None, data: dict[str, Any] | None) -> Extra:
    """`(timestamp, data)` as an `extras` cell: a parsed line takes ~5 times its JSON's size in memory (also done in
    worker processes: `formats.column_runs`)."""
    if type(data) is dict and timestamp == _timestamp_in(data):
        try:
            packed = orjson.dumps(data)
        except (TypeError, orjson.JSONEncodeError):  # a lone surrogate, an int beyond 64 bits
            return (timestamp, data)
        if orjson.loads(packed) == data:  # and not inf/NaN (written as null), which would not come back
            return memoryview(packed).tobytes()  # exactly its size (orjson's own buffer keeps ~4 KB more)
    return (timestamp, data)


def unpack_extra(extra: Extra) -> tuple[str | None, dict[str, Any] | None]:
    """`(timestamp, data)` of an `extras` cell (a fresh dict each time)."""
    if type(extra) is bytes:
        data = orjson.loads(extra)
        return _timestamp_in(data), data
    return cast(tuple[str | None, dict[str, Any] | None], extra)


def _timestamp_in(data: dict[str, Any]) -> str | None:
    ts = data.get("timestamp")
    return ts if isinstance(ts, str) else None


class EntryTable(Sequence[m.Entry]):
    """The entries of one session in packed columns (see the module docstring); `table[i]` is an `Entry`."""

    def __init__(self) -> None:
        self.nums: bytearray = bytearray()  # narrow rows, or a `nums_layout.WideNums` of wide ones
        self._frozen: FrozenColumns | None = None  # a restored table's first rows (see the module docstring)
        self._id_cols: IdColumns = (0, None, [], [])
        self.shape = array("I")
        self.shapes: list[Shape] = []
        self.shape_codes: dict[Shape, int] = {}
        self.type_codes: dict[str, list[int]] = {}
        self.call_text = bytearray()
        self.call_end = array("I")  # 32-bit ends while `call_text` is under 4 GiB, then 64-bit ("q")
        self.call_odd: dict[int, Any] = {}
        self.usage_slot = array("i")
        self.usage_buffer = bytearray()
        self.extras: dict[int, Extra] | PackedExtras = {}  # packed in a snapshot (`inspector.storage.packed_extras`)
        self._usage_total: tuple[int, m.UsageSum] = (0, m.UsageSum())
        self._type_indices: dict[str, tuple[int, list[int]]] = {}
        self.per_shape: dict[str, list[int]] = {}
        """Values other modules derive from each shape, under their own key (`context`'s path kinds): kept with the
        table (and its snapshot) and extended as shapes are added, each time as a new list (a reader keeps its own)."""

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
        """Add an `Entry` at the end (its `index` must be `len(self)`); returns its index."""
        index = len(self)
        if entry.index != index:
            raise ValueError(f"entry index {entry.index} appended at {index}")
        shape = (entry.type, entry.role, entry.tool_name, entry.provider, entry.model, entry.stop_reason, entry.block_kinds)
        calls: Any = entry.tool_call_ids or entry.tool_call_id
        if entry.tool_call_ids and entry.tool_call_id is not None:
            calls = _BothCalls((entry.tool_call_id, entry.tool_call_ids))
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
        calls: Calls | _BothCalls,
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
        if cell == ODD_CELL:
            self.call_odd[index] = calls
        self.call_text += cell
        frozen = self._frozen
        end = len(self.call_text) if frozen is None else self._call_text_len()
        if end < 2**32 or self.call_end.typecode == "q":
            self.call_end.append(end)
        else:
            self.call_end = _ends(self.call_end, (end,))
        if usage_packed is None:
            self.usage_slot.append(-1)
        else:
            slot = len(self.usage_buffer) // USAGE_SIZE if frozen is None else self._usage_slots()
            self.usage_buffer += usage_packed
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
        call_text: bytes | bytearray,
        call_ends: array,
        usage_slots: array,
        usage_buffer: bytes | bytearray,
        extras: dict[int, Extra],
    ) -> None:
        """Add entries given as whole columns (a worker's `ColumnRun`, its `nums` rows in either layout of
        `nums_layout`, its shape codes already this table's; its calls cells encoded by `call_cell` in `call_text`,
        their ends counted from the start of it, never `_ODD`; its usage slots numbered from 0 in `usage_buffer`;
        its `extras` by position in the columns)."""
        count = len(ids)
        if len(nums) != count * nl.row_size(nums) or not len(parent_ids) == len(codes) == len(call_ends) == len(usage_slots) == count:
            raise ValueError("columns of different lengths")
        if (call_ends[-1] if count else 0) != len(call_text):
            raise ValueError("call ends that do not end the call text")
        base = self._usage_slots()
        self.nums = nl.join_rows(self.nums, nums)
        self.shape.extend(codes)
        call_base = self._call_text_len()
        self.call_text += call_text
        self.call_end = _ends(self.call_end, [end + call_base for end in call_ends] if call_base else call_ends)
        self.usage_buffer += usage_buffer
        self.usage_slot.extend(array("i", [-1 if s < 0 else s + base for s in usage_slots]) if base else usage_slots)
        start = len(self)
        self.extras.update({start + k: extra for k, extra in extras.items()})
        self._add_ids(ids, parent_ids)  # last, as in `add_row`

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

    def snapshot_attrs(self) -> dict[str, Any]:
        """The attributes a snapshot stores (`inspector.session.snapshot`): the ids and the extras packed, the packed
        numbers, call text and usage as `FrozenColumns` (out of band)."""
        attrs = dict(vars(self))
        ids, parent_ids = self.ids, self.parent_ids
        packed = PackedIds.pack(ids, parent_ids)
        if packed is not None:
            attrs["_id_cols"] = (packed.count, packed, [], [])
        attrs["extras"] = PackedExtras.pack(self.extras)
        frozen = self._frozen
        nums: bytes | bytearray = self.nums
        call_text, usage = bytes(self.call_text), bytes(self.usage_buffer)
        if frozen is not None:
            nums = nl.join_rows(nl.WideNums(frozen.nums) if frozen.wide else bytearray(frozen.nums), self.nums)
            call_text, usage = bytes(frozen.call_text) + call_text, bytes(frozen.usage) + usage
        wide = type(nums) is nl.WideNums
        rows = len(nums) // (nl.WIDE_SIZE if wide else nl.NARROW_SIZE)
        attrs["_frozen"] = FrozenColumns(rows, wide, bytes(nums), call_text, usage)
        attrs["nums"], attrs["call_text"], attrs["usage_buffer"] = bytearray(), bytearray(), bytearray()
        return attrs

    # -- one entry ----------------------------------------------------------------------------------------

    def __len__(self) -> int:
        cols = self._id_cols
        return cols[0] + len(cols[2])

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
            if kind == _RESULT_ID:
                tcid = str(text[start + 1 : end], "utf-8", "surrogatepass")
            elif kind == _CALL_IDS:
                tcids = tuple(str(text[start + 1 : end], "utf-8", "surrogatepass").split("\x00"))
            else:
                calls = self.call_odd[i]
                if type(calls) is str:
                    tcid = calls
                elif type(calls) is tuple:
                    tcids = calls
                elif type(calls) is _BothCalls:
                    tcid, tcids = calls
        extra = self.extras.get(i)
        timestamp, data = (None, None) if extra is None else unpack_extra(extra)
        row = self._wide_row(i)
        slot = self.usage_slot[i]
        usage = None if slot < 0 else self._usage_at(slot)
        return m.Entry(
            i, row, t, self.id_of(i), self.parent_id_of(i), timestamp, data,
            role, tool_name, tcid, tcids, provider, model, stop, usage, kinds,
        )  # fmt: skip

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
        if frozen is None:
            return self.call_text, start, end
        n = len(frozen.call_text)
        if end <= n:
            return frozen.call_text, start, end
        return self.call_text, start - n, end - n

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
        """The packed numbers of entry `i` (`model.NUMS`, wide, whatever the table's layout)."""
        return self._wide_row(i)

    def data_of(self, i: int) -> dict[str, Any] | None:
        """The `data` of entry `i` (a fresh dict: see `Entry.data`)."""
        extra = self.extras.get(i)
        return None if extra is None else unpack_extra(extra)[1]

    def usage_packed(self, i: int) -> bytes | None:
        """The packed usage of entry `i` (`model.pack_usage`), None without one."""
        slot = self.usage_slot[i]
        return None if slot < 0 else self._usage_at(slot)

    def calls_of(self, i: int) -> Calls | _BothCalls:
        """Entry `i`'s `calls` cell: its `tool_call_id` (a string), its `tool_call_ids` (a tuple), both, or None."""
        end = self.call_end[i]
        start = self.call_end[i - 1] if i else 0
        if start == end:
            return None
        text, start, end = self._call_text_at(start, end)
        kind = text[start]
        if kind == _RESULT_ID:
            return str(text[start + 1 : end], "utf-8", "surrogatepass")
        if kind == _CALL_IDS:
            return tuple(str(text[start + 1 : end], "utf-8", "surrogatepass").split("\x00"))
        return self.call_odd[i]  # type: ignore[no-any-return]

    def tool_call_ids_of(self, i: int) -> tuple[str, ...]:
        """Entry `i`'s `tool_call_ids` (an assistant's; `()` for the others)."""
        ends = self.call_end
        end = ends[i]
        start = ends[i - 1] if i else 0
        if start == end or self._call_kind(start, end) == _RESULT_ID:
            return ()
        calls = self.calls_of(i)
        if type(calls) is tuple:
            return calls
        return calls[1] if type(calls) is _BothCalls else ()  # type: ignore[index]

    def tool_call_id_of(self, i: int) -> str | None:
        """Entry `i`'s `tool_call_id` (a result's; None for the others)."""
        ends = self.call_end
        end = ends[i]
        start = ends[i - 1] if i else 0
        if start == end or self._call_kind(start, end) == _CALL_IDS:
            return None
        calls = self.calls_of(i)
        if type(calls) is str:
            return calls
        return calls[0] if type(calls) is _BothCalls else None  # type: ignore[index]

    def _call_kind(self, start: int, end: int) -> int:
        text, start, _ = self._call_text_at(start, end)
        kind: int = text[start]
        return kind

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

    def line_of(self, i: int) -> int:
        """The line number of entry `i`."""
        line: int = m.NUMS.unpack(self.nums_of(i))[0]
        return line

    def shape_counts_since(self, start: int, stop: int | None = None) -> Counter[int]:
        """How many of the rows [start, stop) (default: to the end) have each shape code, in the order each code first
        appears among them (`figures.shape_totals` keeps the totals and adds the rows added since)."""
        return Counter(_range_of(self.shape, start, len(self) if stop is None else stop))

    def usage_total(self) -> m.UsageSum:
        """Σ of every entry's packed usage. Kept, and extended by the rows added since: after a restore and an
        append only the new rows are summed."""
        rows, total = self._usage_total
        now = self._usage_slots()
        for start in range(rows, now, _USAGE_ROWS_AT_ONCE):  # a piece at a time: no copy of the whole buffer
            # A slice, not a memoryview: an exported buffer would make another thread's append fail.
            total = total.plus_rows(self._usage_range(start, min(now, start + _USAGE_ROWS_AT_ONCE)))
        if rows < now:
            self._usage_total = (now, total)  # one assignment: a reader in another thread sees the old or the new pair
        return total

    def usage_rows(self, indices: Iterable[int]) -> bytes:
        """The packed usages of the entries of `indices` that have one, in order, laid end to end (C-level passes:
        no object per entry)."""
        slots = list(filter((0).__le__, map(self.usage_slot.__getitem__, indices)))
        if self._frozen is not None:
            return b"".join(map(self._usage_at, slots))
        starts = list(map(operator.mul, slots, repeat(USAGE_SIZE)))
        ends = map(operator.add, starts, repeat(USAGE_SIZE))
        return b"".join(map(self.usage_buffer.__getitem__, map(slice, starts, ends)))

    def usage_column(self, indices: Iterable[int]) -> list[bytes | None]:
        """The packed usage of each entry of `indices`, in order (None: the entry has none)."""
        if self._frozen is not None:
            return [None if s < 0 else self._usage_at(s) for s in map(self.usage_slot.__getitem__, indices)]
        buf = self.usage_buffer
        return [None if s < 0 else bytes(buf[s * USAGE_SIZE : (s + 1) * USAGE_SIZE]) for s in map(self.usage_slot.__getitem__, indices)]
