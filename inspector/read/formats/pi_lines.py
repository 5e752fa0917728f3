"""What both translators write: pi v3 entry objects (`message`, `custom`, `custom_message`, `compaction`,
`model_change`), the timestamps pi keeps, and the text of content blocks."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import orjson

CUSTOM_PREFIX_CLAUDE = "claude-code:"
CUSTOM_PREFIX_CODEX = "codex:"


def iso_ms(value: Any) -> int | None:
    """An ISO-8601 timestamp as Unix milliseconds (None when it is not one)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def entry(kind: str, entry_id: str, parent: str | None, timestamp: Any, **fields: Any) -> dict[str, Any]:
    """A pi entry object: `type`, `id`, `parentId`, `timestamp` first, then `fields`."""
    out: dict[str, Any] = {"type": kind, "id": entry_id, "parentId": parent}
    if isinstance(timestamp, str):
        out["timestamp"] = timestamp
    out.update(fields)
    return out


def custom(custom_type: str, entry_id: str, parent: str | None, timestamp: Any, data: Any) -> dict[str, Any]:
    """A line the model never sees, kept whole as a pi `custom` entry (`customType` names what it was)."""
    return entry("custom", entry_id, parent, timestamp, customType=custom_type, data=data)


def dumps(obj: Any) -> bytes:
    """One mirror line (no newline)."""
    return orjson.dumps(obj)


def image_block(media_type: Any, data: Any) -> dict[str, Any]:
    """A pi image block."""
    return {"type": "image", "data": data if isinstance(data, str) else "", "mimeType": media_type if isinstance(media_type, str) else "image/png"}


def data_url_image(url: Any) -> dict[str, Any] | None:
    """A pi image block from a `data:` URL (None for any other URL)."""
    if not isinstance(url, str) or not url.startswith("data:") or "," not in url:
        return None
    head, data = url[5:].split(",", 1)
    return image_block(head.split(";", 1)[0] or "image/png", data)


def text_block(text: Any) -> dict[str, Any]:
    """A pi text block (a value that is not a string is written as its JSON)."""
    return {"type": "text", "text": text if isinstance(text, str) else orjson.dumps(text).decode()}


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_str(value: Any, default: str = "") -> str:
    """`value` when it is a string, else `default`."""
    return value if isinstance(value, str) else default


def as_list(value: Any) -> list[Any]:
    """`value` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []
