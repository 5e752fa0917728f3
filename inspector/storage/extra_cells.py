"""The `extras` cells of an entry table: the `timestamp` and `data` of an entry that has them (the types other than
`message`), as compact JSON when it gives them back exactly (`inspector.storage.entry_table`; also made in worker
processes: `inspector.read.column_runs`)."""

from __future__ import annotations

from typing import Any, cast

import orjson

Extra = bytes | tuple[str | None, dict[str, Any] | None]
"""An `extras` cell: the entry's `data` as compact JSON (its `timestamp` is `data["timestamp"]` when a string), or
`(timestamp, data)` as they are (when the JSON would not give them back exactly)."""


def pack_extra(timestamp: str | None, data: dict[str, Any] | None, *, parsed: bool = False) -> Extra:
    """`(timestamp, data)` as an `extras` cell: a parsed line takes ~5 times its JSON's size in memory (also done in
    worker processes: `inspector.read.column_runs`).

    `parsed`: `data` is what a JSON parser gave (dicts with string keys, lists, strings, numbers, booleans, null: no
    tuple, no other type). Its compact JSON then gives it back exactly unless a number did not survive (inf/NaN are
    written as null; an integer beyond 64 bits raises), so the check by parsing it again is needed only when the JSON
    holds a `null`."""
    if type(data) is dict and timestamp == _timestamp_in(data):
        try:
            packed = orjson.dumps(data)
        except (TypeError, orjson.JSONEncodeError):  # a lone surrogate, an int beyond 64 bits
            return (timestamp, data)
        if (parsed and b"null" not in packed) or orjson.loads(packed) == data:  # not inf/NaN (null), which would not come back
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
