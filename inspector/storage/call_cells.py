"""The `calls` cells of an entry table, encoded: each entry's `tool_call_id` (toolResult messages) or `tool_call_ids`
(assistant messages), laid end to end in the table's `call_text` (`inspector.storage.entry_table`), and also made in
worker processes (`inspector.read.column_runs`)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any


class BothCalls(tuple):
    """A `calls` cell holding both a `tool_call_id` and `tool_call_ids` (never produced by the reader)."""

    __slots__ = ()


Calls = str | tuple[str, ...] | None
"""A `calls` cell as the reader makes it: a result's `tool_call_id`, an assistant's `tool_call_ids`, or None."""

RESULT_ID_KIND, CALL_IDS_KIND, ODD_KIND, RESULT_BACK_KIND = 1, 2, 3, 4
"""The first byte of an encoded `calls` cell: what the rest is. `RESULT_BACK_KIND`: a result's `tool_call_id` given as
the call it answers in an assistant's cell shortly before (`back_cell`)."""
ODD_CELL = bytes([ODD_KIND])
RESULT_ID, CALL_IDS = bytes([RESULT_ID_KIND]), bytes([CALL_IDS_KIND])
"""The first byte of a result's encoded `tool_call_id`, of an assistant's encoded `tool_call_ids`."""


def call_cell(calls: Any) -> bytes:
    """A `calls` cell encoded for `call_text`: empty for None or `()`; a kind byte, then the result's id, or the call
    ids joined by NUL, in UTF-8 (lone surrogates kept); `ODD_KIND` alone for a cell kept as it is (both kinds, an id
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


BACK_MAX = 255
"""The farthest entry, and the last call of it, a `back_cell` can name (one byte each)."""


def back_cell(distance: int, position: int) -> bytes:
    """A result's `calls` cell naming its `tool_call_id` as the call at `position` in the `tool_call_ids` cell of the
    entry `distance` rows before it (both 1..255 / 0..255: `BACK_MAX`): 3 bytes instead of the id again (a call id is
    ~30 bytes, and nearly every tool result repeats one of the assistant message just before it). Written by the
    packers (`EntryTable.add_row`, `inspector.read.column_runs`) when the id is among that cell's ids; read back by
    the table as the id itself."""
    return bytes((RESULT_BACK_KIND, distance, position))


def back_reference(calls: tuple[str, ...], distance: int, tool_call_id: str) -> bytes | None:
    """The `back_cell` of a result `distance` rows after an assistant's cell of `calls` (its `tool_call_ids`), when
    `tool_call_id` is among them and both fit; else None."""
    if distance > BACK_MAX or tool_call_id not in calls:
        return None
    position = calls.index(tool_call_id)
    return back_cell(distance, position) if position <= BACK_MAX else None


def extended_ends(ends: array, more: Iterable[int]) -> array:
    """`ends` extended with `more` (`call_end`): a 64-bit copy once an end passes 32 bits."""
    values = list(more)
    try:
        ends.extend(array(ends.typecode, values))
    except OverflowError:
        ends = array("q", ends)
        ends.extend(array("q", values))
    return ends
