"""pi's `serializeConversation` (`compaction/utils.ts`): the messages a summary call sends, as the `[User]:` /
`[Assistant]:` / `[Tool result]:` text inside `<conversation>`, tool results cut at `TOOL_RESULT_MAX_CHARS`."""

from __future__ import annotations

from typing import Any

from inspector.js.jsjson import js_len, js_stringify
from inspector.js.utf16 import js_slice

TOOL_RESULT_MAX_CHARS = 2000
"""pi's `TOOL_RESULT_MAX_CHARS`: what a tool result keeps in the serialized conversation."""


def _template(value: Any) -> str:
    """`${value}` for the values a summary field can hold."""
    if isinstance(value, str):
        return value
    if value is None:
        return "undefined"
    try:
        return js_stringify(value) if isinstance(value, (list, dict)) else str(value)
    except (TypeError, ValueError):
        return str(value)


def _blocks(content: Any) -> list[dict[str, Any]]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _join_texts(values: list[Any], sep: str) -> str:
    # Array.prototype.join: null/undefined become "", other values their string form
    return sep.join("" if v is None else _template(v) for v in values)


def _object_entries(args: Any) -> list[tuple[str, Any]]:
    """`Object.entries(args)`: array-index keys first in numeric order, then the others in insertion order."""
    if not isinstance(args, dict):
        return []
    index = sorted((k for k in args if isinstance(k, str) and k.isdigit() and (k == "0" or not k.startswith("0")) and int(k) < 2**32 - 1), key=int)
    rest = [k for k in args if k not in set(index)]
    return [(k, args[k]) for k in index + rest]


def truncate_for_summary(text: str, max_chars: int = TOOL_RESULT_MAX_CHARS) -> str:
    """pi `truncateForSummary` (UTF-16 lengths)."""
    n = js_len(text)
    if n <= max_chars:
        return text
    return f"{js_slice(text, 0, max_chars)}\n\n[... {n - max_chars} more characters truncated]"


def serialize_conversation(messages: list[dict[str, Any]]) -> str:
    """pi `serializeConversation` of already-converted messages."""
    parts: list[str] = []
    for msg in messages:
        role = msg.get("role")
        content = msg.get("content")
        if role == "user":
            text = content if isinstance(content, str) else _join_texts([b.get("text") for b in _blocks(content) if b.get("type") == "text"], "")
            if text:
                parts.append(f"[User]: {text}")
        elif role == "assistant":
            texts: list[Any] = []
            thinking: list[Any] = []
            calls: list[str] = []
            for block in _blocks(content):
                btype = block.get("type")
                if btype == "text":
                    texts.append(block.get("text"))
                elif btype == "thinking":
                    thinking.append(block.get("thinking"))
                elif btype == "toolCall":
                    args = ", ".join(f"{k}={_stringify_arg(v)}" for k, v in _object_entries(block.get("arguments")))
                    calls.append(f"{_template(block.get('name'))}({args})")
            if thinking:
                parts.append(f"[Assistant thinking]: {_join_texts(thinking, chr(10))}")
            if texts:
                parts.append(f"[Assistant]: {_join_texts(texts, chr(10))}")
            if calls:
                parts.append(f"[Assistant tool calls]: {'; '.join(calls)}")
        elif role == "toolResult":
            text = _join_texts([b.get("text") for b in _blocks(content) if b.get("type") == "text"], "")
            if text:
                parts.append(f"[Tool result]: {truncate_for_summary(text)}")
    return "\n\n".join(parts)


def _stringify_arg(value: Any) -> str:
    try:
        return js_stringify(value)
    except (TypeError, ValueError):
        return "undefined"
