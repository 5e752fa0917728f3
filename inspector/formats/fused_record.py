"""The indexer's fast path for a `message` entry: its `MessageRecord` (metadata and the four estimates) in one
pass over the message.

`BY_ROLE[role](obj, msg, note)` equals `records.message_record_reference` (the general path: the record's fields,
then `tokens.estimate_all` over the message again), field for field; property tests, the corpus and both benchmark
shapes hold them equal. It walks a user, assistant or tool-result message's content once, computing the block
kinds, the tool-call ids and names and the estimates together, with ASCII text measured by `len()`. Every other
role (`hookMessage`, migrated in v1/v2 files, among them) takes the general path. This runs for every entry of a
big file, in worker processes too: it is written for few Python-level operations per entry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import model as m
from ..jsjson import js_len, js_truthy
from ..tokens.estimators import (
    OPENCLAW_IMAGE_CHAR_ESTIMATE,
    PI_IMAGE_CHARS,
    TOOL_CALL_ARGS_THROW_CHARS,
    TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE,
)
from ..tokens.fused import stringify_len_or_throw
from ..tokens.measure import CHARS_PER_TOKEN_ESTIMATE, UNKNOWN_THROW_CHARS, estimate_string_chars, string_lens, unknown_chars
from .record_types import MessageRecord

__all__ = ["BY_ROLE"]

_INTERNED: dict[str, str] = {}
"""One shared object per distinct short string (provider, model, stop reason, tool names)."""
_KINDS: dict[tuple[Any, ...], tuple[Any, ...]] = {}
"""One shared tuple per distinct content shape (a few shapes serve every entry)."""
_MISSING = object()
_tuple_new = tuple.__new__
_pack_usage = m.pack_usage
_NON_OBJECT_USAGE = m.FLAG_NON_OBJECT_USAGE
_STRING_KIND = ("string",)
_TEXT_KIND = _KINDS.setdefault(("text",), ("text",))
_IMAGE = OPENCLAW_IMAGE_CHAR_ESTIMATE


def _shared_kinds(kinds: list[Any]) -> tuple[Any, ...]:
    """The block kinds as a shared tuple (a kind that is not hashable, i.e. a non-string `type`, becomes "?")."""
    key = tuple(kinds)
    try:
        return _KINDS.setdefault(key, key)
    except TypeError:
        return tuple(k if type(k) is str else "?" for k in key)


def _interned(value: Any) -> str | None:
    """A short string as its shared object, a long one as itself, anything else None."""
    if type(value) is not str:
        return None
    return _INTERNED.setdefault(value, value) if len(value) < 200 else value


def _blocks(content: list[Any], pi_image_chars: int) -> tuple[tuple[Any, ...], int, int, int]:
    """`(kinds, pi chars, prune chars, guard chars)` of a user or tool-result content list."""
    kinds: list[Any] = []
    add = kinds.append
    pi = prune = guard = 0
    for block in content:
        if type(block) is dict:
            btype = block.get("type", "?")
            add(btype)
            if btype == "text":
                text = block.get("text")
                if type(text) is str:
                    if text.isascii():
                        n = len(text)
                        pi += n
                        guard += n
                        prune += n
                    else:
                        raw, weighted = string_lens(text)
                        pi += raw
                        guard += raw
                        prune += weighted
                    continue
            elif btype == "image":
                pi += pi_image_chars
                prune += _IMAGE
                guard += _IMAGE
                continue
        else:
            add("?")
        guard += unknown_chars(block)
    return _shared_kinds(kinds), pi, prune, guard


def _tool_result(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    get = msg.get
    ts = get("timestamp")
    if type(ts) is not int and type(ts) is not float:
        ts = None
    content = get("content")
    if type(content) is list:
        block = content[0] if len(content) == 1 else None
        text = block.get("text") if type(block) is dict and block.get("type") == "text" else None
        if type(text) is str and text.isascii():  # the usual result: one ASCII text block
            kinds = _TEXT_KIND
            pi = prune = guard = len(text)
        else:
            kinds, pi, prune, guard = _blocks(content, PI_IMAGE_CHARS)
    elif type(content) is str:
        kinds = _STRING_KIND
        pi = guard = len(content) if content.isascii() else js_len(content)
        prune = 0
    else:
        kinds = ()
        pi = prune = guard = 0
    details = get("details", _MISSING)
    if details is not _MISSING:
        if type(details) is dict:
            n = stringify_len_or_throw(details)
            guard += n if n >= 0 else UNKNOWN_THROW_CHARS
        else:
            guard += unknown_chars(details)
    guard = max(guard, -(-guard * CHARS_PER_TOKEN_ESTIMATE // TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE))
    pi = -(-pi // 4)
    tool_name = get("toolName")
    if type(tool_name) is str:
        tool_name = _INTERNED.setdefault(tool_name, tool_name) if len(tool_name) < 200 else tool_name
    else:
        tool_name = None
    call_id = get("toolCallId")
    return _tuple_new(
        MessageRecord,
        (
            obj.get("id"), obj.get("parentId"), "toolResult", tool_name, call_id if type(call_id) is str else None, (),
            None, None, None, None, ts, kinds, (pi, prune, pi, guard), 0, note,
        ),
    )  # fmt: skip


def _assistant(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    get = msg.get
    ts = get("timestamp")
    if type(ts) is not int and type(ts) is not float:
        ts = None
    interned = _INTERNED
    provider = get("provider")
    if type(provider) is str:
        provider = interned.setdefault(provider, provider) if len(provider) < 200 else provider
    else:
        provider = None
    model = get("model")
    if type(model) is str:
        model = interned.setdefault(model, model) if len(model) < 200 else model
    else:
        model = None
    stop = get("stopReason")
    if type(stop) is str:
        stop = interned.setdefault(stop, stop) if len(stop) < 200 else stop
    else:
        stop = None
    raw_usage = get("usage")
    usage = _pack_usage(raw_usage)
    flags = _NON_OBJECT_USAGE if usage is None and js_truthy(raw_usage) else 0
    content = get("content")
    call_ids: tuple[str, ...] = ()
    tool_name = None
    pi = prune = guard = 0
    if type(content) is list:
        kinds_list: list[Any] = []
        add = kinds_list.append
        ids: list[str] | None = None
        names: list[str] | None = None
        for block in content:
            if type(block) is not dict:
                add("?")
                continue
            btype = block.get("type", "?")
            add(btype)
            if btype == "text":
                text = block.get("text")
                if type(text) is str:
                    if text.isascii():
                        n = len(text)
                        pi += n
                        guard += n
                        prune += n
                    else:
                        raw, weighted = string_lens(text)
                        pi += raw
                        guard += raw
                        prune += weighted
                else:
                    guard += unknown_chars(block)
            elif btype == "toolCall":
                name = block.get("name")
                if ids is None:
                    ids = []
                    names = []
                cid = block.get("id")
                ids.append(cid if type(cid) is str else str(cid))
                if type(name) is str:
                    names.append(name)  # type: ignore[union-attr]
                    pi += len(name) if name.isascii() else js_len(name)
                args = block.get("arguments", _MISSING)
                if args is None or args is _MISSING:
                    args_len = 2  # `arguments ?? {}`
                    if args is None:
                        pi += 4  # JSON.stringify(null)
                else:
                    args_len = stringify_len_or_throw(args)
                    if args_len < 0:
                        args_len = TOOL_CALL_ARGS_THROW_CHARS
                    else:
                        pi += args_len
                prune += args_len
                guard += args_len
            elif btype == "thinking":
                thinking = block.get("thinking")
                if type(thinking) is str:
                    if thinking.isascii():
                        n = len(thinking)
                        pi += n
                        guard += n
                        prune += n
                    else:
                        raw, weighted = string_lens(thinking)
                        pi += raw
                        guard += raw
                        prune += weighted
                else:
                    guard += unknown_chars(block)
                signature = block.get("thinkingSignature")
                if type(signature) is str:
                    prune += len(signature) if signature.isascii() else estimate_string_chars(signature)
            else:
                guard += unknown_chars(block)
                if btype == "redacted_thinking":
                    prune += (
                        estimate_string_chars(block.get("thinking"))
                        + estimate_string_chars(block.get("data"))
                        + estimate_string_chars(block.get("thinkingSignature"))
                    )
        kinds = _shared_kinds(kinds_list)
        if ids is not None:
            call_ids = tuple(ids)
            if names:
                joined = ", ".join(names)
                tool_name = _INTERNED.setdefault(joined, joined) if len(joined) < 200 else joined
    else:
        kinds = _STRING_KIND if type(content) is str else ()
    pi = -(-pi // 4)
    return _tuple_new(
        MessageRecord,
        (
            obj.get("id"), obj.get("parentId"), "assistant", tool_name, None, call_ids, provider, model, stop, usage, ts,
            kinds, (pi, prune, pi, guard), flags, note,
        ),
    )  # fmt: skip


def _user(obj: dict[str, Any], msg: dict[str, Any], note: str | None) -> MessageRecord:
    content = msg.get("content")
    kinds: tuple[Any, ...]
    ts = msg.get("timestamp")
    if type(ts) is not int and type(ts) is not float:
        ts = None
    if type(content) is str:
        kinds = _STRING_KIND
        if content.isascii():
            raw = weighted = len(content)
        else:
            raw, weighted = string_lens(content)
        tokens = -(-raw // 4)
        est = (tokens, weighted, tokens, raw)
    elif type(content) is list:
        kinds, pi, prune, guard = _blocks(content, 0)  # pi counts no image in a user message
        pi = -(-pi // 4)
        est = (pi, prune, pi, guard)
    else:
        kinds = ()
        est = (0, 0, 0, 0)
    return _tuple_new(
        MessageRecord,
        (obj.get("id"), obj.get("parentId"), "user", None, None, (), None, None, None, None, ts, kinds, est, 0, note),
    )


BY_ROLE: dict[str, Callable[[dict[str, Any], dict[str, Any], str | None], MessageRecord]] = {
    "toolResult": _tool_result,
    "assistant": _assistant,
    "user": _user,
}
"""The fused record builder of each role that has one: `BY_ROLE[role](obj, msg, note)` is the `MessageRecord` of
the `message` entry `obj` whose `message` is the dict `msg` (the caller looks the role up: one call per entry)."""

