"""The records the reader's first stage makes from lines (`inspector.read.records`, where they are documented and
re-exported): named tuples, sent between processes as plain tuples told apart by their length."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["ErrorRecord", "MessageRecord", "OtherRecord", "Record", "block_kinds", "interned", "interned_table"]


class ErrorRecord(NamedTuple):
    """A line `JSON.parse` rejects (pi skips it): why."""

    reason: str


class OtherRecord(NamedTuple):
    """Any parsed value that is not a `message` entry (header, compaction, custom, label..., or not an object)."""

    obj: Any
    note: str | None
    """Set when invalid UTF-8 was read as U+FFFD."""


class MessageRecord(NamedTuple):
    """A `message` entry's metadata; its content is dropped (re-read from disk on demand).

    `id`/`parent_id` are the stored values, whatever their type (the reader checks them). `flags` are
    `model.FLAG_*` bits. `estimates` are `estimate_all` of the message (in the order of `records.READER_LAYOUT`),
    None when the entry has no `message` object.
    """

    id: Any
    parent_id: Any
    role: Any
    tool_name: str | None
    tool_call_id: str | None
    tool_call_ids: tuple[str, ...]
    provider: str | None
    model: str | None
    stop_reason: str | None
    usage_packed: bytes | None
    message_timestamp: int | float | None
    block_kinds: tuple[str, ...]
    estimates: tuple[int, ...] | None
    flags: int
    note: str | None


Record = ErrorRecord | OtherRecord | MessageRecord


_INTERNED: dict[str, str] = {}
"""One shared object per distinct short string (roles, providers, models, stop reasons, tool names)."""
_KINDS: dict[tuple[Any, ...], tuple[Any, ...]] = {}
"""One shared tuple per distinct content shape (a few shapes serve every entry)."""


def interned(value: Any) -> str | None:
    """A short string as its shared object (memory per entry), a long one as itself, anything else None."""
    if type(value) is not str:
        return None
    return _INTERNED.setdefault(value, value) if len(value) < 200 else value


def interned_table() -> dict[str, str]:
    """The table `interned` keeps (its shared strings by value): a hot path may look a string up there first, and call
    `interned` when it is not found (`table.get(s) or interned(s)`, for a string `s`)."""
    return _INTERNED


def block_kinds(content: list[Any]) -> tuple[Any, ...]:
    """The `type` of each block of a content list ("?" for a block that is not an object, or has no type), as a
    shared tuple; a `type` that is not hashable becomes "?"."""
    key = tuple([b.get("type", "?") if type(b) is dict else "?" for b in content])
    try:
        return _KINDS.setdefault(key, key)
    except TypeError:
        return tuple(k if type(k) is str else "?" for k in key)
