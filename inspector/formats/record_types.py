"""The records the reader's first stage makes from lines (`inspector.formats.records`, where they are documented and
re-exported): named tuples, sent between processes as plain tuples told apart by their length."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["ErrorRecord", "MessageRecord", "OtherRecord", "Record"]


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
    `model.FLAG_*` bits. `estimates` are `estimate_all` of the message, None when the entry has no `message`
    object.
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
    estimates: tuple[int, int, int, int] | None
    flags: int
    note: str | None


Record = ErrorRecord | OtherRecord | MessageRecord
