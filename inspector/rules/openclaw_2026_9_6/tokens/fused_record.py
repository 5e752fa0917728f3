"""The indexer's fast path for a `message` entry under OpenClaw 2026.9.6's rules: its `MessageRecord` (metadata
and the four estimates) in one pass over the message (`FUSED_BY_ROLE` of this release's `tokens` part, which the
reader takes through `inspector.read.estimates.ReaderEstimates.fused`).

`BY_ROLE[role](obj, msg, note)` equals `inspector.read.records.message_record_reference` with this release's
`estimate_all`, field for field; property tests, the corpus and both benchmark shapes hold them equal. The record's
metadata is read as 2026.4.12's builders read it (`inspector.rules.openclaw_2026_4_12.tokens.fused_record`: the
timestamp, the tool calls, the block kinds); the estimates are this release's pieces (`tokens.fused`:
`content_chars`, `assistant_chars`), and a tool result of one ASCII text block is taken by `len()`. An
`excludeFromContext: true` message counts 0 but for the pruner. Every other role takes the general path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.model import entries as m
from inspector.read.record_types import MessageRecord, block_kinds, interned, interned_table
from inspector.rules.openclaw_2026_4_12.tokens.fused_record import STRING_KIND, TEXT_KIND, assistant_builder, timestamp_of
from inspector.rules.openclaw_2026_9_6.tokens.estimators import persisted_sender_suffix
from inspector.rules.openclaw_2026_9_6.tokens.fused import assistant_chars, content_chars
from inspector.rules.openclaw_2026_9_6.tokens.measure import CHARS_PER_TOKEN_ESTIMATE, estimate_string_chars, weighted_lens

__all__ = ["BY_ROLE"]

_tuple_new = tuple.__new__
_known = interned_table().get  # `interned`'s fast path (as 2026.4.12's builders take it)
_pack_usage = m.pack_usage
_usage_flags = m.usage_flags
_API_CLI = m.FLAG_API_CLI


def _tool_result(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    content = msg.get("content")
    if type(content) is list:
        block = content[0] if len(content) == 1 else None
        text = block.get("text") if type(block) is dict and block.get("type") == "text" else None
        if type(text) is str and text.isascii():  # the usual result: one ASCII text block
            kinds = TEXT_KIND
            pi = prune = len(text)
            guard = pi + pi
        else:
            kinds = block_kinds(content)
            pi, prune, guard = content_chars(content, True)
    elif type(content) is str:
        kinds = STRING_KIND
        _, pi, guard = weighted_lens(content)
        prune = 0
    else:
        kinds = ()
        pi = prune = guard = 0
    if "excludeFromContext" in msg and msg["excludeFromContext"] is True:
        pi = guard = 0
    pi = -(-pi // CHARS_PER_TOKEN_ESTIMATE)
    call_id = msg.get("toolCallId")
    name = msg.get("toolName")
    ts = msg.get("timestamp")  # `timestamp_of`, inlined
    return _tuple_new(
        MessageRecord,
        (
            obj.get("id"), obj.get("parentId"), "toolResult", (type(name) is str and _known(name)) or interned(name),
            call_id if type(call_id) is str else None, (), None, None, None, None,
            ts if type(ts) is int or type(ts) is float else None, kinds, (pi, prune, pi, guard), 0, note,
        ),
    )  # fmt: skip


_assistant = assistant_builder(assistant_chars, honours_exclude=True)
"""2026.4.12's assistant record with this release's measure; `excludeFromContext: true` counts 0 but for pruning."""


def _user(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    content = msg.get("content")
    kinds: tuple[Any, ...]
    if type(content) is str:
        kinds = STRING_KIND
        if content.isascii():
            pi = prune = guard = len(content)
        else:
            guard, prune, _ = weighted_lens(content)
            pi = prune
    elif type(content) is list:
        kinds = block_kinds(content)
        pi, prune, guard = content_chars(content, False)
    else:
        kinds = ()
        pi = prune = guard = 0
    if "__openclaw" in msg:
        pi += estimate_string_chars(persisted_sender_suffix(msg))
    if "excludeFromContext" in msg and msg["excludeFromContext"] is True:
        pi = guard = 0
    pi = -(-pi // CHARS_PER_TOKEN_ESTIMATE)
    return _tuple_new(
        MessageRecord,
        (obj.get("id"), obj.get("parentId"), "user", None, None, (), None, None, None, None, timestamp_of(msg), kinds,
         (pi, prune, pi, guard), 0, note),
    )  # fmt: skip


BY_ROLE: dict[str, Callable[[dict[str, Any], dict[str, Any], str | None], MessageRecord]] = {
    "toolResult": _tool_result,
    "assistant": _assistant,
    "user": _user,
}
"""The fused record builder of each role that has one: `BY_ROLE[role](obj, msg, note)` is the `MessageRecord` of
the `message` entry `obj` whose `message` is the dict `msg` (the caller looks the role up: one call per entry)."""
