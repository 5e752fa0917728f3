"""Which rows of a session OpenClaw 2026.9.6's schema accepts (`indexedSessionEntrySchema`, `sessionEntryTypeSchema`:
what `inspector.rules.openclaw_2026_9_6.navigation.classify` reads), and the same judged for many rows at once:
`plain_rows` marks the rows the navigation only records and moves the leaf to (a valid message or other entry, not
appended beside the leaf, with its `parentId` key), so `Navigation.advance` takes their runs in bulk.

A message's validity is mostly its shape's (role, block kinds, a tool result's tool name: `shape_category`, kept per
shape code in `EntryTable.per_shape`); its row adds a tool result's `toolCallId` (the kind of its `calls` cell), its
side-append flag and its id. Every other entry is judged on its `data` (`valid_other`), one row at a time.
"""

from __future__ import annotations

import functools
import operator
from itertools import compress
from typing import Any

from inspector.model import entries as m
from inspector.storage.call_cells import RESULT_BACK_KIND, RESULT_ID_KIND
from inspector.storage.entry_table import EntryTable

__all__ = [
    "CANONICAL_TYPES", "MESSAGE_ROLES", "RESET_REASONS", "categories", "coerced_string", "content_ok", "kinds_ok",
    "plain_rows", "shape_category", "valid_other",
]  # fmt: skip

CANONICAL_TYPES = frozenset(
    {
        m.MESSAGE, m.THINKING_LEVEL_CHANGE, m.MODEL_CHANGE, m.COMPACTION, m.RESET, m.BRANCH_SUMMARY, m.CUSTOM,
        m.CUSTOM_MESSAGE, m.LABEL, m.SESSION_INFO,
    }
)  # fmt: skip
"""`isCanonicalSessionEntryType`: the entry types of 2026.9's schema (`sessionEntryTypeSchema`)."""
RESET_REASONS = frozenset({"new", "reset", "idle", "daily", "cron-stale"})
"""The `reason`s a `reset` entry may give."""
MESSAGE_ROLES = frozenset({"user", "assistant", "toolResult", "custom", "bashExecution"})
"""The roles of `readableMessageSchema`."""


def _str(value: object) -> bool:
    return type(value) is str


def _nonblank(value: object) -> bool:
    return type(value) is str and value != ""


def content_ok(value: object) -> bool:
    """`readableContentSchema`: a string, or a list of objects with a string `type`."""
    return type(value) is str or (type(value) is list and all(type(b) is dict and _str(b.get("type")) for b in value))


def coerced_string(value: object) -> str | None:
    """JavaScript's `String(value)` (zod's `coerce.string()`) for a string or an array of them (`["new"]` is
    `"new"`); None for anything else (no reason reads as one of `RESET_REASONS` then)."""
    if type(value) is str:
        return value
    if type(value) is list and all(type(v) is str for v in value):
        return ",".join(value)
    return None


def valid_other(etype: str, data: dict[str, Any]) -> bool:
    """`indexedSessionEntrySchema` for an entry other than `message` (its whole line is in `data`)."""
    if not _nonblank(data.get("id")) or ("timestamp" in data and not _str(data["timestamp"])):
        return False
    parent = data.get("parentId", None)
    if parent is not None and not _str(parent):
        return False
    get = data.get
    if etype == m.THINKING_LEVEL_CHANGE:
        return _nonblank(get("thinkingLevel"))
    if etype == m.MODEL_CHANGE:
        return _nonblank(get("provider")) and _nonblank(get("modelId"))
    if etype == m.COMPACTION:
        tokens = get("tokensBefore")
        return _str(get("summary")) and _nonblank(get("firstKeptEntryId")) and type(tokens) in (int, float)
    if etype == m.RESET:
        return coerced_string(get("reason")) in RESET_REASONS and ("firstKeptEntryId" not in data or _str(data["firstKeptEntryId"]))
    if etype == m.BRANCH_SUMMARY:
        return _str(get("fromId")) and _str(get("summary"))
    if etype == m.CUSTOM:
        return _nonblank(get("customType"))
    if etype == m.CUSTOM_MESSAGE:  # its content is not in `data` (re-read on demand): taken as valid
        return _nonblank(get("customType")) and type(get("display")) is bool
    if etype == m.LABEL:
        return _nonblank(get("targetId")) and ("label" not in data or _str(data["label"]))
    if etype == m.SESSION_INFO:
        return "name" not in data or _str(data["name"])
    return False


@functools.lru_cache(maxsize=4096)
def kinds_ok(kinds: tuple[Any, ...]) -> bool:
    """`readableContentSchema` from a content's block kinds: a string, or blocks that all have a string `type`."""
    return kinds == ("string",) or all(type(k) is str and k != "?" for k in kinds)


_NAV_KEY = "navigation_2026_9"
"""This module's values in `EntryTable.per_shape`: each shape's `shape_category`."""
_PLAIN, _RESULT, _OTHER = 1, 2, 0
"""A shape's category: a message canonical whatever its row (`_PLAIN`), a tool result canonical when its row has
a `toolCallId` (`_RESULT`), anything else (`_OTHER`: `classify` decides)."""
_SIDE_BIT = bytes(int(bool(v & m.FLAG_SIDE_APPEND)) for v in range(256))
"""A `bytes.translate` table: a flags byte becomes 1 for a side append, else 0."""


def shape_category(shape: tuple[Any, ...]) -> int:
    """`_valid_message` of a message entry of `shape`, as far as the shape tells (`_PLAIN`, `_RESULT`, `_OTHER`)."""
    if shape[0] != m.MESSAGE:
        return _OTHER
    role, kinds = shape[1], shape[6]
    if role not in MESSAGE_ROLES or not kinds_ok(kinds):
        return _OTHER
    if role == "toolResult":
        return _RESULT if kinds != ("string",) and shape[2] is not None else _OTHER
    return _PLAIN


def categories(entries: EntryTable) -> list[int]:
    """`shape_category` of every shape code of `entries`, kept in `entries.per_shape` and extended by the shapes
    added since."""
    known = entries.per_shape.get(_NAV_KEY, [])
    if len(known) == len(entries.shapes):
        return known
    out = known + [shape_category(shape) for shape in entries.shapes[len(known) :]]
    entries.per_shape[_NAV_KEY] = out
    return out


def plain_rows(entries: EntryTable, start: int, stop: int, ids: list[str | None], parent_ids: list[str | None]) -> bytearray:
    """One byte per row of [start, stop): 1 for a plain row, which `classify` makes a canonical entry that is not
    appended beside the leaf, with its `parentId` key, and is neither a label nor a reset; else 0 (`classify`
    decides). A message is plain by its shape (`_PLAIN`, or `_RESULT` with a result's id in its `calls` cell: a cell
    kept as it is, `ODD_KIND`, is left to `classify`) and its flags, in C-level passes; another entry by its `data`
    (`_plain_other`). A message's id is not looked at (`Navigation._plain_run` does); another entry's `id` and
    `parentId` must be its row's (`ids`, `parent_ids`: the table's columns)."""
    categories_ = categories(entries)
    rows = bytes(map(categories_.__getitem__, entries.shape[start:stop]))
    if _RESULT in rows:
        rows = bytes(map(operator.or_, rows.translate(_CATEGORY_HIGH), entries.call_kinds_in(start, stop))).translate(_PLAIN_OF)
    side = entries.flag_bytes_in(start, stop).translate(_SIDE_BIT)
    if 1 in side:
        rows = bytes(map(operator.gt, rows, side))
    out = bytearray(rows)
    if _OTHER in out:
        types = _shape_types(entries)
        shape = entries.shape
        for i in compress(range(start, stop), map(operator.not_, rows)):
            etype = types[shape[i]]
            if etype in _PLAIN_OTHER_TYPES and _plain_other(entries, i, etype, ids, parent_ids):
                out[i - start] = 1
    return out


_CATEGORY_HIGH = bytes([0, 0x10, 0x20]) + bytes(253)
"""`bytes.translate`: a row's category in the high nibble (its `calls` cell's kind goes in the low one)."""
_PLAIN_OF = bytes(
    int(v >> 4 == _PLAIN or (v >> 4 == _RESULT and v & 0xF in (RESULT_ID_KIND, RESULT_BACK_KIND))) for v in range(256)
)
"""`bytes.translate`: category and cell kind -> 1 for a plain message, else 0."""
_PLAIN_OTHER_TYPES = CANONICAL_TYPES - {m.MESSAGE, m.LABEL, m.RESET}
"""The types of other entries that may be plain rows (a label's target and a reset change the navigation)."""


def _shape_types(entries: EntryTable) -> list[str]:
    """The type of each shape code of `entries` (a list index per row instead of a tuple read)."""
    return [shape[0] for shape in entries.shapes]


def _plain_other(entries: EntryTable, index: int, etype: str, ids: list[str | None], parent_ids: list[str | None]) -> bool:
    """Whether entry `index`, of a type of `_PLAIN_OTHER_TYPES`, is a plain row (`plain_rows`): valid by the schema
    (`valid_other`), not a side append, with a `parentId` key, its `id` and `parentId` its row's."""
    data = entries.data_of(index)
    if data is None or "parentId" not in data or data.get("appendMode") == "side":
        return False
    return data.get("id") == ids[index] and data["parentId"] == parent_ids[index] and valid_other(etype, data)
