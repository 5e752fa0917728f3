"""The indexer's fast path for a `message` entry under this release's rules: its `MessageRecord` (metadata and the
four estimates) in one pass over the message (`FUSED_BY_ROLE` of the `tokens` part, which the reader takes through
`inspector.read.estimates.ReaderEstimates.fused`).

`BY_ROLE[role](obj, msg, note)` equals `inspector.read.records.message_record_reference` (the general path: the
record's fields, then `tokens.estimate_all` over the message again), field for field; property tests, the corpus and both benchmark
shapes hold them equal. It goes straight to the role's own measure (`tokens.fused`: `text_and_image_chars`,
`assistant_chars`, `tool_result_guard`, the same pieces `estimate_all` is made of) instead of dispatching on the
role again, and takes a tool result of one ASCII text block by `len()`. Every other role (`hookMessage`, migrated
in v1/v2 files, among them) takes the general path. This runs for every entry of a big file, in worker processes
too: it is written for few Python-level operations per entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.js.jsjson import js_len
from inspector.model import entries as m
from inspector.read.record_types import MessageRecord, block_kinds, interned, interned_table
from inspector.rules.openclaw_2026_4_12.tokens.estimators import PI_IMAGE_CHARS
from inspector.rules.openclaw_2026_4_12.tokens.fused import assistant_chars, text_and_image_chars, tool_result_guard
from inspector.rules.openclaw_2026_4_12.tokens.measure import CHARS_PER_TOKEN_ESTIMATE, string_lens

__all__ = ["BY_ROLE", "STRING_KIND", "TEXT_KIND", "timestamp_of", "tool_calls_of"]

_tuple_new = tuple.__new__
_known = interned_table().get
"""A short string's shared object when it was interned before (`interned`'s fast path: the builders below look
their roles, tool names, providers and models up here first)."""
_pack_usage = m.pack_usage
_usage_flags = m.usage_flags
_API_CLI = m.FLAG_API_CLI
STRING_KIND = ("string",)
"""The block kinds of a string content."""
TEXT_KIND = block_kinds([{"type": "text"}])
"""The block kinds of a content of one text block."""


def timestamp_of(msg: dict[str, Any]) -> int | float | None:
    """The record's `timestamp`: the message's when it is a number."""
    ts = msg.get("timestamp")
    return ts if type(ts) is int or type(ts) is float else None


def tool_calls_of(content: list[Any]) -> tuple[tuple[str, ...], str | None]:
    """`(call ids, tool name)` of an assistant content that holds tool calls: every call's `str(id)`, and its
    calls' string names joined by ", " (interned; None when no call has one)."""
    calls = [b for b in content if type(b) is dict and b.get("type") == "toolCall"]
    names = [name for b in calls if type(name := b.get("name")) is str]
    return tuple([str(b.get("id")) for b in calls]), interned(", ".join(names)) if names else None


def _tool_result(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    content = msg.get("content")
    if type(content) is list:
        block = content[0] if len(content) == 1 else None
        text = block.get("text") if type(block) is dict and block.get("type") == "text" else None
        if type(text) is str and text.isascii():  # the usual result: one ASCII text block
            kinds = TEXT_KIND
            pi = prune = guard = len(text)
        else:
            kinds = block_kinds(content)
            pi, prune, guard = text_and_image_chars(content, PI_IMAGE_CHARS)
    elif type(content) is str:
        kinds = STRING_KIND
        pi = guard = len(content) if content.isascii() else js_len(content)
        prune = 0
    else:
        kinds = ()
        pi = prune = guard = 0
    guard = tool_result_guard(guard, msg)
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


def assistant_builder(
    chars_of: Callable[[Any], tuple[int, int, int]], *, honours_exclude: bool
) -> Callable[[dict[str, Any], dict[str, Any], str | None], MessageRecord]:
    """The fused record builder of an assistant message, for a release whose one-pass measure of an assistant's
    content is `chars_of` (-> pi chars, prune chars, guard chars). `honours_exclude`: a message with
    `excludeFromContext: true` counts 0 for the pi and guard estimates (OpenClaw 2026.9), not under pi 0.66.1."""

    def _assistant(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
        get = msg.get
        raw_usage: Any = get("usage")
        usage = _pack_usage(raw_usage)
        flags = 0 if usage is not None and "contextUsage" not in raw_usage else _usage_flags(raw_usage)
        if get("api") == "cli":
            flags |= _API_CLI
        content = get("content")
        call_ids: tuple[str, ...] = ()
        tool_name = None
        if type(content) is list:
            kinds = block_kinds(content)
            if "toolCall" in kinds:
                call_ids, tool_name = tool_calls_of(content)
        else:
            kinds = STRING_KIND if type(content) is str else ()
        pi, prune, guard = chars_of(content)
        if honours_exclude and "excludeFromContext" in msg and msg["excludeFromContext"] is True:
            pi = guard = 0
        pi = -(-pi // CHARS_PER_TOKEN_ESTIMATE)
        provider, model, stop, ts = get("provider"), get("model"), get("stopReason"), get("timestamp")
        return _tuple_new(
            MessageRecord,
            (
                obj.get("id"), obj.get("parentId"), "assistant", tool_name, None, call_ids,
                (type(provider) is str and _known(provider)) or interned(provider),
                (type(model) is str and _known(model)) or interned(model),
                (type(stop) is str and _known(stop)) or interned(stop), usage,
                ts if type(ts) is int or type(ts) is float else None, kinds, (pi, prune, pi, guard), flags, note,
            ),
        )  # fmt: skip

    return _assistant


_assistant = assistant_builder(assistant_chars, honours_exclude=False)


def _user(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    content = msg.get("content")
    kinds: tuple[Any, ...]
    if type(content) is str:
        kinds = STRING_KIND
        raw, weighted = string_lens(content)
        tokens = -(-raw // CHARS_PER_TOKEN_ESTIMATE)
        est = (tokens, weighted, tokens, raw)
    elif type(content) is list:
        kinds = block_kinds(content)
        pi, prune, guard = text_and_image_chars(content, 0)  # pi counts no image in a user message
        pi = -(-pi // CHARS_PER_TOKEN_ESTIMATE)
        est = (pi, prune, pi, guard)
    else:
        kinds = ()
        est = (0, 0, 0, 0)
    return _tuple_new(
        MessageRecord,
        (obj.get("id"), obj.get("parentId"), "user", None, None, (), None, None, None, None, timestamp_of(msg), kinds, est, 0, note),
    )


BY_ROLE: dict[str, Callable[[dict[str, Any], dict[str, Any], str | None], MessageRecord]] = {
    "toolResult": _tool_result,
    "assistant": _assistant,
    "user": _user,
}
"""The fused record builder of each role that has one: `BY_ROLE[role](obj, msg, note)` is the `MessageRecord` of
the `message` entry `obj` whose `message` is the dict `msg` (the caller looks the role up: one call per entry)."""

