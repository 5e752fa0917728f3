"""Usage marks: how a Claude Code / Codex mirror revises the usage of a row it already wrote, without touching it.

A translator sometimes learns a row's usage only from a later line (`inspector.read.formats`: a Claude API message
that grows moves its usage to its newest line; a Codex `token_count` measures the response before it). The mirror is
only ever appended to, so the new line carries the revision: after its own entries, one more segment per revised
row (`SEGMENT_SEPARATOR`, then `{"usageRevision":{"id":<entry id>,"usage":<pi usage or null>}}`). A segmented reader
never makes it an entry: the scanner keeps it aside (`LineScanner.usage_marks`, a worker's `UsageMarks` part) and the
session gives the entry of that id the usage (`Session`), as a cold read of the whole mirror does: the same figures
however the lines were read (live, restored from the index cache and extended, or at once). A later mark for the same
entry wins (file order). The row's own bytes keep the usage it was written with (`Session.load_entry_object` gives
the entry's object with its revised usage).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from inspector.model import entries as m

USAGE_MARK_PREFIX = b'{"usageRevision":'
"""How a mark segment starts (an entry of a mirror starts `{"type":`)."""

UsageMark = tuple[str, bytes | None]
"""`(entry id, its packed usage)` (None: the entry has no usage)."""


@dataclass(slots=True)
class UsageMarks:
    """The usage marks met in a worker's byte range, in file order (a part of `column_runs.RangeParts`)."""

    marks: list[UsageMark] = field(default_factory=list)


def usage_mark(entry_id: str, usage: dict[str, Any] | None) -> bytes:
    """The segment revising the usage of the entry `entry_id` to `usage` (None: none)."""
    return orjson.dumps({"usageRevision": {"id": entry_id, "usage": usage}})


def is_usage_mark(part: bytes) -> bool:
    """Whether a segment is a usage mark."""
    return part.startswith(USAGE_MARK_PREFIX)


def read_usage_mark(part: bytes) -> UsageMark | None:
    """The mark a segment holds (None: not a well-formed one, ignored)."""
    try:
        obj = orjson.loads(part)
    except orjson.JSONDecodeError:
        return None
    body = obj.get("usageRevision") if isinstance(obj, dict) else None
    if not isinstance(body, dict) or not isinstance(body.get("id"), str):
        return None
    usage = body.get("usage")
    return body["id"], (m.pack_usage(usage) if isinstance(usage, dict) else None)
