"""The layouts of the entry table's packed numbers: a narrow row when every number fits, the wide `model.NUMS` else.

An entry's numbers (line, offset, length, the four estimates, the message timestamp, flags) are `model.NUMS`,
72 bytes, wherever one entry travels (`Entry.nums`, `ContextMessage.nums`). Kept for every entry of a session,
nearly all of them fit 32 bits: `NARROW` packs them in 40 bytes (line, offset, length and flags unsigned, the
estimates signed, the timestamp still a double). A buffer of rows (`EntryTable.nums`, a worker's
`ColumnRun.nums`) holds one layout: narrow rows in a `bytearray`, wide ones in a `WideNums` (its type says which,
so a reader in another thread never sees a buffer and a layout that disagree). The first row that does not fit
(an offset beyond 4 GiB, say) turns the whole buffer wide, once; a narrow row added to a wide buffer is widened.
"""

from __future__ import annotations

import struct
from array import array

from inspector.model import entries as m

NARROW = struct.Struct("<IIIiiiidI")
"""line, offset, length, the four estimates, message timestamp, flags: `model.NUMS`'s fields in 40 bytes."""
WIDE = m.NUMS
NARROW_SIZE = NARROW.size
WIDE_SIZE = WIDE.size

_narrow_pack = NARROW.pack
_wide_pack = WIDE.pack
_narrow_unpack_from = NARROW.unpack_from


class WideNums(bytearray):
    """A buffer of wide rows (`model.NUMS`); a plain `bytearray` of rows holds narrow ones (`NARROW`)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[WideNums], tuple[bytes]]:
        return (WideNums, (bytes(self),))


Rows = bytearray
"""A buffer of packed number rows: a `bytearray` (narrow rows) or a `WideNums`."""


def pack_row(line: int, offset: int, length: int, e0: int, e1: int, e2: int, e3: int, timestamp: float, flags: int) -> bytes:
    """One entry's numbers: narrow when they all fit, else wide (`model.NUMS`)."""
    try:
        return _narrow_pack(line, offset, length, e0, e1, e2, e3, timestamp, flags)
    except struct.error:
        return _wide_pack(line, offset, length, e0, e1, e2, e3, timestamp, flags)


def narrowed(row: bytes) -> bytes:
    """A row (either layout) narrow when its numbers fit, else as it is."""
    if len(row) == NARROW_SIZE:
        return row
    return pack_row(*WIDE.unpack(row))


def widened(rows: bytes | bytearray) -> bytes:
    """Narrow rows laid end to end, as wide rows."""
    return b"".join([_wide_pack(*values) for values in NARROW.iter_unpack(rows)])


def wide_row(rows: bytearray, i: int) -> bytes:
    """Row `i` of a buffer of rows, wide (`model.NUMS`: what `Entry.nums` holds)."""
    if type(rows) is WideNums:
        return bytes(rows[i * WIDE_SIZE : (i + 1) * WIDE_SIZE])
    return _wide_pack(*_narrow_unpack_from(rows, i * NARROW_SIZE))


def row_size(rows: bytearray) -> int:
    """Bytes per row of a buffer of rows."""
    return WIDE_SIZE if type(rows) is WideNums else NARROW_SIZE


def as_wide(rows: bytearray) -> WideNums:
    """The buffer's rows in a wide buffer (itself when already wide)."""
    return rows if type(rows) is WideNums else WideNums(widened(rows))


def add_row(rows: bytearray, row: bytes) -> bytearray:
    """`rows` with one row (either layout) appended: the same buffer, or a wide copy when `row` does not fit it."""
    if len(row) == NARROW_SIZE:
        if type(rows) is WideNums:
            row = widened(row)
    elif type(rows) is not WideNums:
        rows = as_wide(rows)
    rows += row
    return rows


def join_rows(rows: bytearray, more: bytearray) -> bytearray:
    """`rows` with the buffer `more` appended: the same buffer, or a wide copy when the layouts differ."""
    if type(more) is WideNums:
        rows = as_wide(rows)
    elif type(rows) is WideNums:
        more = widened(more)  # type: ignore[assignment]
    rows += more
    return rows


def shift_lines(rows: bytearray, lines: int) -> bytearray:
    """`rows` with `lines` added to every row's line number (in place; a wide copy when one would not fit)."""
    if not lines or not rows:
        return rows
    if type(rows) is not WideNums:
        view = memoryview(rows).cast("I")
        stride = NARROW_SIZE // 4
        try:
            shifted = array("I", [n + lines for n in view[0::stride].tolist()])
        except OverflowError:
            view.release()
            rows = as_wide(rows)
        else:
            view[0::stride] = shifted
            view.release()
            return rows
    view = memoryview(rows).cast("q")
    stride = WIDE_SIZE // 8
    view[0::stride] = array("q", [n + lines for n in view[0::stride].tolist()])
    view.release()
    return rows
