"""Which tool results OpenClaw 2026.9.6 pairs with a tool call, and so which entries a `reset` keeps before it
(`classifyToolUseResultPairing` and `selectResetKeptEntries` of its agent core's
`harness/session/tool-result-pairing.ts`).

A reset with a `firstKeptEntryId` keeps, of the entries from there to the reset, the user and assistant messages and
the tool results paired with a call: within a "frame" (an assistant with tool calls, up to the next one) a result
claims the first unclaimed call of its id (a result without an id takes the frame's only call, if the names agree);
results left over are matched across frames to the one unresolved call of their id, if exactly one. A synthetic
"missing tool result" is replaced by a real one arriving later.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import js_truthy

TOOL_CALL_TYPES = frozenset({"toolCall", "toolUse", "functionCall"})
SYNTHETIC_MISSING_TOOL_RESULT_DETAIL_KEY = "openclawSyntheticMissingToolResult"
DEFAULT_MISSING_TOOL_RESULT_TEXT = (
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
)
_RESULT_ID_FIELDS = ("toolCallId", "toolUseId", "tool_call_id", "tool_use_id", "callId", "call_id")


@dataclass(slots=True)
class _Occurrence:
    id: str
    name: str | None
    result: dict[str, Any] | None = None
    """The result as classified (normalized); `source` is the message it came from."""
    source: int | None = None
    """The position (in the message list) of the result that claimed this call."""


def _tool_calls(message: dict[str, Any]) -> list[tuple[str, str | None]]:
    """`extractToolCallsFromAssistant`: `(id, name)` of each tool call block with a non-empty string id."""
    content = message.get("content")
    if type(content) is not list:
        return []
    out = []
    for block in content:
        if type(block) is dict and block.get("type") in TOOL_CALL_TYPES and type(block.get("id")) is str and block["id"]:
            name = block.get("name")
            out.append((block["id"], name if type(name) is str else None))
    return out


def result_id(message: dict[str, Any]) -> str | None:
    """`extractToolResultId`: the first non-blank of the result's id fields, trimmed."""
    for key in _RESULT_ID_FIELDS:
        value = message.get(key)
        if type(value) is str and value.strip():
            return value.strip()
    return None


def _normalized_name(value: object) -> str | None:
    return value.strip() or None if type(value) is str else None


def _legacy_normalized(message: dict[str, Any], calls: list[tuple[str, str | None]]) -> dict[str, Any]:
    """`normalizeLegacyToolResultId`: a result without an id answers the frame's only call (names permitting)."""
    if result_id(message) is not None or len(calls) != 1:
        return message
    call_id, call_name = calls[0]
    result_name, name = _normalized_name(message.get("toolName")), _normalized_name(call_name)
    if result_name and name and result_name != name:
        return message
    return {**message, "toolCallId": call_id, "isError": True}


def is_synthetic_missing(message: dict[str, Any]) -> bool:
    """`isSyntheticMissingToolResult`."""
    if not js_truthy(message.get("isError")):
        return False
    details = message.get("details")
    if type(details) is dict and details.get(SYNTHETIC_MISSING_TOOL_RESULT_DETAIL_KEY) is True:
        return True
    content = message.get("content")
    return type(content) is list and any(
        type(b) is dict and b.get("type") == "text" and b.get("text") == DEFAULT_MISSING_TOOL_RESULT_TEXT for b in content
    )


def _frames(messages: Sequence[dict[str, Any] | None]) -> list[tuple[int, list[_Occurrence]]]:
    """`classifyToolUseResultPairing`'s frames: each assistant with tool calls (its position) and its calls, each
    with the position of the result it ends up paired with."""
    starts = [i for i, msg in enumerate(messages) if msg is not None and msg.get("role") == "assistant" and _tool_calls(msg)]
    frames: list[tuple[int, list[_Occurrence], list[tuple[dict[str, Any], int, str | None]]]] = []
    for n, start in enumerate(starts):
        assistant = messages[start]
        assert assistant is not None
        calls = _tool_calls(assistant)
        occurrences = [_Occurrence(cid, name) for cid, name in calls]
        pending: dict[str, list[_Occurrence]] = {}
        for occ in occurrences:
            pending.setdefault(occ.id, []).append(occ)
        synthetic: dict[str, list[_Occurrence]] = {}
        unclaimed: list[tuple[dict[str, Any], int, str | None]] = []
        end = starts[n + 1] if n + 1 < len(starts) else len(messages)
        for index in range(start + 1, end):
            message = messages[index]
            if message is None or message.get("role") != "toolResult":
                continue
            normalized = _legacy_normalized(message, calls)
            rid = result_id(normalized)
            queue = pending.get(rid) if rid is not None else None
            if queue:
                occ = queue.pop(0)
                occ.result, occ.source = normalized, index
                if is_synthetic_missing(normalized):
                    synthetic.setdefault(occ.id, []).append(occ)
                continue
            if rid is None or not any(o.id == rid for o in occurrences):
                unclaimed.append((normalized, index, rid))
                continue
            if not is_synthetic_missing(normalized):
                replaceable = synthetic.get(rid)
                if replaceable:
                    occ = replaceable.pop(0)
                    occ.result, occ.source = normalized, index
        frames.append((start, occurrences, unclaimed))
    unresolved: dict[str, list[_Occurrence]] = {}
    for _start, occurrences, unclaimed in frames:
        for occ in occurrences:
            if occ.result is None or is_synthetic_missing(occ.result):
                unresolved.setdefault(occ.id, []).append(occ)
        for result, index, rid in unclaimed:
            candidates = (
                [
                    c
                    for c in unresolved.get(rid, [])
                    if c.result is None or (is_synthetic_missing(c.result) and not is_synthetic_missing(result))
                ]
                if rid
                else []
            )
            if len(candidates) != 1:
                continue
            candidates[0].result, candidates[0].source = result, index
    return [(start, occurrences) for start, occurrences, _ in frames]


def paired_results(messages: Sequence[dict[str, Any] | None]) -> set[int]:
    """The positions in `messages` of the tool results some call ends up paired with (`sourceResult`s)."""
    return {occ.source for _, occurrences in _frames(messages) for occ in occurrences if occ.source is not None}


def frame_results(messages: Sequence[dict[str, Any] | None]) -> dict[int, list[int]]:
    """Each assistant with tool calls (its position) and the positions of the results paired with its calls, in
    the order of its calls (a frame's `occurrences[].sourceResult`)."""
    return {start: [occ.source for occ in occurrences if occ.source is not None] for start, occurrences in _frames(messages)}


def reset_kept(messages: Sequence[dict[str, Any] | None]) -> set[int]:
    """`selectResetKeptEntries` over the entries from a reset's first kept entry to the reset, given as their
    messages (None for an entry that is no `message`): the positions kept (user and assistant messages, paired tool
    results)."""
    paired = paired_results(messages)
    return {
        i
        for i, msg in enumerate(messages)
        if msg is not None and (msg.get("role") in ("user", "assistant") or (msg.get("role") == "toolResult" and i in paired))
    }
