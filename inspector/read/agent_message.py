"""The AgentMessage an entry contributes to the context: pi's `appendMessage` mapping (`buildSessionContext`).

Stateless: the reader uses it, and so do the workers that pack entries (`column_runs`) and the token counter;
`other_entry_parts` is the rest of what an entry of another type than `message` holds.
"""

from __future__ import annotations

from typing import Any

from inspector.js.jsjson import js_truthy
from inspector.js.timeutil import iso_to_ms
from inspector.model import entries as m
from inspector.read.estimates import ReaderEstimates


def agent_message_of(entry: m.Entry, obj: dict[str, Any], version: int) -> dict[str, Any] | None:
    """The AgentMessage an entry contributes to the context (pi's `appendMessage` mapping), or None."""
    return agent_message_for(entry.type, obj, version)


def agent_message_for(t: str, obj: dict[str, Any], version: int) -> dict[str, Any] | None:
    """`agent_message_of` for an entry of type `t` whose line is `obj`."""
    if t == m.MESSAGE:
        msg = obj.get("message")
        if not isinstance(msg, dict):
            return None
        if version < 3 and msg.get("role") == "hookMessage":
            msg = dict(msg)
            msg["role"] = "custom"
        return msg
    if t == m.CUSTOM_MESSAGE:
        return {
            "role": "custom",
            "customType": obj.get("customType"),
            "content": obj.get("content"),
            "display": obj.get("display"),
            "details": obj.get("details"),
            "timestamp": iso_to_ms(obj.get("timestamp")),
        }
    if t == m.BRANCH_SUMMARY:
        summary = obj.get("summary")
        if not js_truthy(summary):  # `entry.type === "branch_summary" && entry.summary`
            return None
        return {
            "role": "branchSummary",
            "summary": summary,
            "fromId": obj.get("fromId"),
            "timestamp": iso_to_ms(obj.get("timestamp")),
        }
    if t == m.COMPACTION:
        return {
            "role": "compactionSummary",
            "summary": obj.get("summary"),
            "tokensBefore": obj.get("tokensBefore"),
            "timestamp": iso_to_ms(obj.get("timestamp")),
        }
    return None


def other_entry_parts(
    etype: str, obj: dict[str, Any], line: int, offset: int, length: int, version: int, est: ReaderEstimates
) -> tuple[str | None, dict[str, Any], str | None, bytes]:
    """What an entry of a type other than `message` holds, from its line `obj`: `(timestamp, data, role, nums)`.

    `data` is the line (a `custom_message` without its content, re-read on demand); `role` and the estimates in
    `nums` (`est`'s, packed by its layout) are those of the message it contributes to the context, if any. The reader
    (`EntryReader`) and the workers that pack entries (`column_runs`) both build them here.
    """
    ts = obj.get("timestamp")
    data = {k: v for k, v in obj.items() if k != "content"} if etype == m.CUSTOM_MESSAGE else obj
    msg = agent_message_for(etype, obj, version)
    if msg is None:
        return (ts if isinstance(ts, str) else None), data, None, est.layout.pack_nums(line, offset, length, None, None)
    nums = est.layout.pack_nums(line, offset, length, est.estimate_all(msg), msg.get("timestamp"))
    return (ts if isinstance(ts, str) else None), data, msg["role"], nums
