"""The entry table's two layouts of packed numbers (`inspector.storage.nums_layout`): narrow rows while every number fits,
the wide `nums_layout.WIDE` once one does not.

- a row comes back exactly (every field, NaN and the sign of the estimates included) from either layout, and is
  narrow exactly when its numbers fit;
- a table (or a worker's run) that meets a row which does not fit turns wide and every row already in it still
  reads the same; narrow rows added after are widened; whole runs of either layout join a table of either;
- line numbers shifted past 2**32 turn the rows wide instead of wrapping;
- a wide buffer pickles as a wide buffer (the snapshot cache pickles the table's attributes).
"""

from __future__ import annotations

import math
import pickle
import struct
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.model import entries as m
from inspector.read.estimates import reader_estimates
from inspector.storage import nums_layout as nl
from inspector.storage.entry_table import EntryTable

LAYOUT = reader_estimates().layout

PROPS = settings(max_examples=150, deadline=None)

U32 = 2**32
edge_unsigned = st.sampled_from([0, 1, U32 - 1, U32, 2**40, 2**62])
edge_signed = st.sampled_from([-1, 0, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**50])
timestamps = st.none() | st.floats(allow_nan=True, allow_infinity=True)


def fits(line: int, offset: int, length: int, est: tuple[int, ...], flags: int) -> bool:
    return all(0 <= v < U32 for v in (line, offset, length, flags)) and all(-(2**31) <= v < 2**31 for v in est)


def same_row(a: bytes, b: bytes) -> bool:
    """Wide rows equal field by field, NaN equal to NaN."""
    return all(x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)) for x, y in zip(nl.WIDE.unpack(a), nl.WIDE.unpack(b), strict=True))


rows = st.tuples(
    st.integers(0, 2**40) | edge_unsigned,
    st.integers(0, 2**40) | edge_unsigned,
    st.integers(0, 2**40) | edge_unsigned,
    st.tuples(*[st.integers(-(2**40), 2**40) | edge_signed] * 4),
    timestamps,
    st.integers(0, 7) | edge_unsigned,
)


@PROPS
@given(rows)
def test_a_row_comes_back_exactly_from_either_layout(values: tuple) -> None:
    line, offset, length, est, ts, flags = values
    wide = LAYOUT.pack_nums(line, offset, length, est, ts, flags)
    row = nl.pack_row(*nl.WIDE.unpack(wide))
    assert len(row) == (nl.NARROW_SIZE if fits(line, offset, length, est, flags) else nl.WIDE_SIZE)
    assert nl.narrowed(wide) == row
    buf = nl.add_row(bytearray(), row)
    assert same_row(nl.wide_row(buf, 0), wide)
    assert (type(buf) is nl.WideNums) == (len(row) == nl.WIDE_SIZE)


@PROPS
@given(st.lists(rows, min_size=1, max_size=12), st.integers(0, 11))
def test_a_table_turns_wide_at_the_first_row_that_does_not_fit(items: list[tuple], cut: int) -> None:
    wides = [LAYOUT.pack_nums(line, offset, length, est, ts, flags) for line, offset, length, est, ts, flags in items]
    table = EntryTable(LAYOUT)
    for i, wide in enumerate(wides):
        table.append(m.Entry(i, wide, LAYOUT, m.MESSAGE, f"e{i}", None))
    assert len(table.nums) == len(wides) * nl.row_size(table.nums)
    assert (type(table.nums) is nl.WideNums) == any(len(nl.narrowed(w)) == nl.WIDE_SIZE for w in wides)
    assert all(same_row(table.nums_of(i), w) and same_row(table[i].nums, w) for i, w in enumerate(wides))

    # The same rows as two whole runs (a worker's columns), each in its own layout, joined in order.
    cut = min(cut, len(wides))
    joined = EntryTable(LAYOUT)
    for part in (wides[:cut], wides[cut:]):
        buf = bytearray()
        for w in part:
            buf = nl.add_row(buf, nl.narrowed(w))
        n = len(part)
        joined.extend_columns(buf, [f"x{len(joined) + k}" for k in range(n)], [None] * n, array("I", [0] * n), b"", array("I", [0] * n), array("i", [-1] * n), b"", {})
    assert all(same_row(joined.nums_of(i), w) for i, w in enumerate(wides))


def test_narrow_rows_after_a_wide_one_are_widened() -> None:
    table = EntryTable(LAYOUT)
    small = LAYOUT.pack_nums(1, 10, 5, (1, 2, 3, 4), 1.5, 2)
    big = LAYOUT.pack_nums(2, 5 * U32, 5, None, None, 0)
    table.add_row(nl.narrowed(small), "a", None, 0, None, None)
    assert type(table.nums) is bytearray and len(table.nums) == nl.NARROW_SIZE
    table.add_row(nl.narrowed(big), "b", "a", 0, None, None)
    table.add_row(nl.narrowed(small), "c", "b", 0, None, None)
    assert type(table.nums) is nl.WideNums and len(table.nums) == 3 * nl.WIDE_SIZE
    assert [table.nums_of(i) for i in range(3)] == [small, big, small]
    try:
        table.add_row(b"\0" * 12, "d", None, 0, None, None)
    except ValueError:
        pass
    else:
        raise AssertionError("packed numbers of neither size were accepted")


def test_lines_shifted_past_32_bits_turn_the_rows_wide() -> None:
    rows = bytearray()
    for line in (1, 2, 3):
        rows = nl.add_row(rows, nl.pack_row(line, line * 100, 9, -1, -1, -1, -1, math.nan, 0))
    shifted = nl.shift_lines(bytearray(rows), 1000)
    assert type(shifted) is bytearray
    assert [nl.NARROW.unpack_from(shifted, i * nl.NARROW_SIZE)[:2] for i in range(3)] == [(1001, 100), (1002, 200), (1003, 300)]
    far = nl.shift_lines(bytearray(rows), U32 - 2)
    assert type(far) is nl.WideNums
    assert [nl.WIDE.unpack(nl.wide_row(far, i))[:2] for i in range(3)] == [(U32 - 1, 100), (U32, 200), (U32 + 1, 300)]
    again = nl.shift_lines(far, 5)  # a wide buffer is shifted in place
    assert again is far and [nl.WIDE.unpack(nl.wide_row(far, i))[0] for i in range(3)] == [U32 + 4, U32 + 5, U32 + 6]


def test_a_wide_table_pickles_as_wide() -> None:
    table = EntryTable(LAYOUT)
    rows = [LAYOUT.pack_nums(1, 7, 3, (1, 2, 3, 4), None, 0), LAYOUT.pack_nums(2, 6 * U32, 3, None, 17.25, 4)]
    for i, row in enumerate(rows):
        table.append(m.Entry(i, row, LAYOUT, m.MESSAGE, f"e{i}", None))
    back = pickle.loads(pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL))
    assert type(back.nums) is nl.WideNums and bytes(back.nums) == bytes(table.nums)
    assert [back.nums_of(i) for i in range(2)] == rows
    back.add_row(nl.narrowed(rows[0]), "e2", None, 0, None, None)  # still a buffer that grows in place
    assert back.nums_of(2) == rows[0]


def test_narrow_layout_is_the_wide_one_in_40_bytes() -> None:
    assert nl.NARROW_SIZE == 40 and nl.WIDE_SIZE == nl.WIDE.size == 72
    assert len(nl.NARROW.format.strip("<")) == len(nl.WIDE.format.strip("<")), "one narrow field per wide field"
    try:
        nl.NARROW.pack(U32, 0, 0, 0, 0, 0, 0, 0.0, 0)
    except struct.error:
        return
    raise AssertionError("a line beyond 32 bits packed narrow")
