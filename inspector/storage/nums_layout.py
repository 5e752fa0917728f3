"""The layouts of an entry's packed numbers: a narrow row when every number fits, the wide `WIDE` else.

An entry's numbers (line, offset, length, `ESTIMATE_SLOTS` estimates, the message timestamp, flags) are a `WIDE` row,
72 bytes, wherever one entry travels (`Entry.nums`, `ContextMessage.nums`). Kept for every entry of a session,
nearly all of them fit 32 bits: `NARROW` packs them in 40 bytes (line, offset, length and flags unsigned, the
estimates signed, the timestamp still a double). A buffer of rows (`EntryTable.nums`, a worker's
`ColumnRun.nums`) holds one layout: narrow rows in a `bytearray`, wide ones in a `WideNums` (its type says which,
so a reader in another thread never sees a buffer and a layout that disagree). The first row that does not fit
(an offset beyond 4 GiB, say) turns the whole buffer wide, once; a narrow row added to a wide buffer is widened.

Which estimate lies in which slot is a rule set's (`inspector.storage.estimate_layout.EstimateLayout`); this module
and that one are the only places that know where a number lies in a row.
"""

from __future__ import annotations

import math
import struct
from array import array

ESTIMATE_SLOTS = 4
"""How many estimates a row holds. A fixed capacity (a row of one width whatever the rule set: the reader's hot path
packs one struct, the figures read one stride); a rule set may bring fewer estimates (the slots past its own hold 0),
never more (`EstimateLayout` refuses it)."""
WIDE = struct.Struct("<qqq" + "q" * ESTIMATE_SLOTS + "dq")
"""line, offset, length, the estimates, message timestamp (NaN: none), flags: an entry's numbers as they travel."""
NARROW = struct.Struct("<III" + "i" * ESTIMATE_SLOTS + "dI")
"""`WIDE`'s fields in 40 bytes, while they fit."""
NARROW_SIZE = NARROW.size
WIDE_SIZE = WIDE.size
WIDE_FIELDS = len(WIDE.format.strip("<"))
"""Fields of a row (each 8 bytes wide in `WIDE`)."""
FIRST_ESTIMATE = 3
"""The field of the first estimate slot (every field before the timestamp is 8 bytes wide, 4 narrow)."""
TIMESTAMP_FIELD = FIRST_ESTIMATE + ESTIMATE_SLOTS
FLAGS_FIELD = TIMESTAMP_FIELD + 1
FLAGS_BYTE = 8 * FLAGS_FIELD
"""Offset in a wide row of the low byte of the flags (little-endian; every flag fits in it)."""
NO_ESTIMATES = (-1,) * ESTIMATE_SLOTS
"""The estimate slots of an entry that maps to no message."""

_NAN = math.nan
_narrow_pack = NARROW.pack
_wide_pack = WIDE.pack
_narrow_unpack_from = NARROW.unpack_from
_LOCATION = struct.Struct("<qqq")
_TIMESTAMP = struct.Struct(f"<{8 * TIMESTAMP_FIELD}xd")
_FLAGS = struct.Struct(f"<{8 * FLAGS_FIELD}xq")


def pack_nums(line: int, offset: int, length: int, slots: tuple[int, ...], message_timestamp: object, flags: int = 0) -> bytes:
    """A wide row; `slots` are the `ESTIMATE_SLOTS` estimate slots (`NO_ESTIMATES`: no message). A message timestamp
    that is not a number is packed as NaN (none)."""
    ts = float(message_timestamp) if type(message_timestamp) in (int, float) else _NAN  # type: ignore[arg-type]
    return _wide_pack(line, offset, length, *slots, ts, flags)


def location(row: bytes) -> tuple[int, int, int]:
    """`(line, offset, length)` of a wide row."""
    return _LOCATION.unpack_from(row)  # type: ignore[return-value]


def row_line(row: bytes) -> int:
    """The line number of a wide row."""
    return int.from_bytes(row[:8], "little", signed=True)


NARROW_FLAGS_BYTE = NARROW_SIZE - 4
"""Offset in a narrow row of the low byte of the flags (the last field, unsigned 32-bit, little-endian)."""


def flag_bytes(rows: bytearray | bytes | memoryview, wide: bool, start: int, stop: int) -> bytes:
    """The low byte of the flags of rows [start, stop) of a buffer of rows (`wide`: `WIDE` rows, else `NARROW`), one
    byte per row, in one C-level pass (a strided slice)."""
    size, at = (WIDE_SIZE, FLAGS_BYTE) if wide else (NARROW_SIZE, NARROW_FLAGS_BYTE)
    return bytes(rows[start * size + at : stop * size : size])


def row_flags(row: bytes) -> int:
    """The flags of a wide row."""
    flags: int = _FLAGS.unpack_from(row)[0]
    return flags


def row_timestamp(row: bytes) -> int | float | None:
    """The message timestamp (epoch ms) of a wide row, None when it has none."""
    ts: float = _TIMESTAMP.unpack_from(row)[0]
    if math.isnan(ts):
        return None
    return int(ts) if ts.is_integer() else ts


class WideNums(bytearray):
    """A buffer of wide rows (`WIDE`); a plain `bytearray` of rows holds narrow ones (`NARROW`)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[WideNums], tuple[bytes]]:
        return (WideNums, (bytes(self),))


Rows = bytearray
"""A buffer of packed number rows: a `bytearray` (narrow rows) or a `WideNums`."""


def pack_row(*fields: int | float) -> bytes:
    """One entry's numbers, `WIDE`'s fields in order: narrow when they all fit, else wide."""
    try:
        return _narrow_pack(*fields)
    except struct.error:
        return _wide_pack(*fields)


def narrowed(row: bytes) -> bytes:
    """A row (either layout) narrow when its numbers fit, else as it is."""
    if len(row) == NARROW_SIZE:
        return row
    return pack_row(*WIDE.unpack(row))


def widened(rows: bytes | bytearray) -> bytes:
    """Narrow rows laid end to end, as wide rows."""
    return b"".join([_wide_pack(*values) for values in NARROW.iter_unpack(rows)])


def wide_row(rows: bytearray, i: int) -> bytes:
    """Row `i` of a buffer of rows, wide (`WIDE`: what `Entry.nums` holds)."""
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
