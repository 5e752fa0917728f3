"""The fused fast path: the four per-message estimates in one pass over a message, for the indexer.

`estimate_all(msg)` equals `(pi_estimate_tokens, openclaw_prune_chars, openclaw_compaction_tokens,
tool_guard_chars)` of `inspector.rules.openclaw_2026_4_12.tokens.estimators` (tests compare them on generated and real messages), but
measures each string once: the index computes it for every entry of a 1 GB file.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.js.jsjson import JSStringifyError, js_len, js_stringify_len
from inspector.rules.openclaw_2026_4_12.tokens.estimators import (
    OPENCLAW_IMAGE_CHAR_ESTIMATE,
    PI_IMAGE_CHARS,
    PRUNE_OTHER_ROLE_CHARS,
    TOOL_CALL_ARGS_THROW_CHARS,
    TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE,
    is_guard_tool_result,
    openclaw_prune_chars,
    pi_estimate_tokens,
    tool_guard_chars,
    tool_result_guard_chars,
)
from inspector.rules.openclaw_2026_4_12.tokens.measure import (
    CHARS_PER_TOKEN_ESTIMATE,
    UNKNOWN_THROW_CHARS,
    ceil_div4,
    estimate_string_chars,
    string_lens,
    unknown_chars,
)

__all__ = ["estimate_all", "js_json_bytes", "stringify_len_or_throw", "utf16_len_of_utf8"]

_dumps = orjson.dumps
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


_WALK_BUDGET = 64
_MAX_SAFE = 2**53
_UNDECIDED = -2
_NOT_CONTINUATION_OR_4_BYTE_LEAD = bytes([*range(0x80), *range(0xC0, 0xF0)])
_BELOW_4_BYTE_LEAD = bytes(range(0xF0))


def _number_safety(value: Any, budget: int) -> int:
    """What is left of `budget` after walking `value` when it holds no float and no integer beyond 2**53 (where
    orjson and JavaScript may write a number differently); -1 when it holds one; `_UNDECIDED` when it has more
    than `budget` containers and numbers. Strings are not looked into (digits inside them never matter)."""
    for v in value.values() if type(value) is dict else value:
        t = type(v)
        if t is str or t is bool or v is None:
            continue
        if t is float:
            return -1
        budget -= 1
        if budget < 0:
            return _UNDECIDED
        if t is int:
            if not -_MAX_SAFE <= v <= _MAX_SAFE:
                return -1
        elif t is dict or t is list:
            budget = _number_safety(v, budget)
            if budget < 0:
                return budget
        else:
            return -1
    return budget


def _maybe_number_differs(out: bytes) -> bool:
    """Whether orjson's output may hold a number JavaScript writes differently (`jsjson._maybe_js_number_differs`:
    a digit followed by `.`, `e` or `E`, or 16 digits in a row, strings included)."""
    t = out.translate(_DIGITS_TO_ZERO)
    return b"0." in t or b"0e" in t or b"0E" in t or b"0000000000000000" in t


def utf16_len_of_utf8(data: bytes) -> int:
    """The UTF-16 length of valid UTF-8 `data` (what JavaScript's `.length` gives for its text), without decoding:
    every byte that is not a continuation byte starts one code unit, a 4-byte sequence two."""
    if data.isascii():
        return len(data)
    kept = data.translate(None, _NOT_CONTINUATION_OR_4_BYTE_LEAD)  # continuation bytes and 4-byte leads
    four = len(kept.translate(None, _BELOW_4_BYTE_LEAD))
    return len(data) - len(kept) + 2 * four


def js_json_bytes(value: dict[str, Any]) -> bytes | None:
    """orjson's output for the dict `value` when it is JavaScript's `JSON.stringify(value)` (UTF-8 encoded): the
    value holds no float and no integer beyond 2**53 (a walk over its containers and numbers, strings skipped; a
    value with too many of them is judged on the bytes instead, as `jsjson._maybe_js_number_differs` does); None
    when orjson refuses it or may write a number differently."""
    try:
        out = _dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return None
    safety = _number_safety(value, _WALK_BUDGET)
    if safety >= 0 or (safety == _UNDECIDED and not _maybe_number_differs(out)):
        return out
    return None


def stringify_len_or_throw(value: Any) -> int:
    """`JSON.stringify(value).length`, or -1 where JavaScript would throw (`measure.json_len_or`, inlined).

    The orjson fast path of `jsjson.js_stringify_len` for a dict (tool-call arguments, `details`): orjson's
    output where it is JavaScript's (`js_json_bytes`), its UTF-16 length counted on the UTF-8 bytes. Anything else
    goes through `js_stringify_len` itself.
    """
    if type(value) is dict:
        if not value:
            return 2  # {}
        out = js_json_bytes(value)
        if out is not None:
            return len(out) if out.isascii() else utf16_len_of_utf8(out)
    try:
        return js_stringify_len(value)
    except (TypeError, ValueError, JSStringifyError):
        return -1


def text_and_image_chars(content: list[Any], pi_image_chars: int) -> tuple[int, int, int]:
    """`(pi chars, prune chars, guard chars)` of a user or tool-result content list: text blocks measured once,
    images at each estimator's constant (`pi_image_chars` for pi), anything else at the guard's unknown size."""
    pi = prune = guard = 0
    for block in content:
        if type(block) is dict:
            btype = block.get("type")
            if btype == "text":
                text = block.get("text")
                if type(text) is str:
                    raw, weighted = string_lens(text)
                    pi += raw
                    guard += raw
                    prune += weighted
                    continue
            elif btype == "image":
                pi += pi_image_chars
                prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
                guard += OPENCLAW_IMAGE_CHAR_ESTIMATE
                continue
        guard += unknown_chars(block)
    return pi, prune, guard


def tool_result_guard(content_guard: int, msg: dict[str, Any]) -> int:
    """The tool-result guard's chars of a tool result whose content measured `content_guard`: plus its `details`,
    and at least what the guard's chars-per-token weighting gives."""
    if "details" in msg:
        details = msg["details"]
        if type(details) is dict:
            n = stringify_len_or_throw(details)
            content_guard += n if n >= 0 else UNKNOWN_THROW_CHARS
        else:
            content_guard += unknown_chars(details)
    return max(content_guard, -(-content_guard * CHARS_PER_TOKEN_ESTIMATE // TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE))


def assistant_chars(content: Any) -> tuple[int, int, int]:
    """`(pi chars, prune chars, guard chars)` of an assistant message's content: text and thinking measured once,
    tool calls by their name and `JSON.stringify`d arguments, anything else at the guard's unknown size."""
    pi = prune = guard = 0
    if type(content) is list:
        for block in content:
            if type(block) is not dict:
                continue
            btype = block.get("type")
            if btype == "text" or btype == "thinking":  # the block's string is under its own type's name
                value = block.get(btype)
                if type(value) is str:
                    raw, weighted = string_lens(value)
                    pi += raw
                    guard += raw
                    prune += weighted
                else:
                    guard += unknown_chars(block)
                if btype == "thinking":
                    signature = block.get("thinkingSignature")
                    if type(signature) is str:
                        prune += len(signature) if signature.isascii() else estimate_string_chars(signature)
            elif btype == "toolCall":
                name = block.get("name")
                if type(name) is str:
                    pi += len(name) if name.isascii() else js_len(name)
                args = block.get("arguments")
                if args is None:
                    args_len = 2  # `arguments ?? {}`
                    if "arguments" in block:
                        pi += 4  # JSON.stringify(null)
                else:
                    args_len = stringify_len_or_throw(args)
                    if args_len < 0:
                        args_len = TOOL_CALL_ARGS_THROW_CHARS
                    else:
                        pi += args_len
                prune += args_len
                guard += args_len
            else:
                guard += unknown_chars(block)
                if btype == "redacted_thinking":
                    prune += (
                        estimate_string_chars(block.get("thinking"))
                        + estimate_string_chars(block.get("data"))
                        + estimate_string_chars(block.get("thinkingSignature"))
                    )
    return pi, prune, guard


def estimate_all(msg: dict[str, Any]) -> tuple[int, int, int, int]:
    """`(pi_tokens, openclaw_prune_chars, openclaw_compaction_tokens, tool_guard_chars)` in one pass.

    Identical to calling `pi_estimate_tokens`, `openclaw_prune_chars` (no thinking drop),
    `openclaw_compaction_tokens` and `tool_guard_chars`, but each string is measured once.
    """
    if type(msg) is not dict:
        return 0, openclaw_prune_chars(msg), 0, tool_guard_chars(msg)
    role = msg.get("role")
    if role == "assistant":
        pi, prune, guard = assistant_chars(msg.get("content"))
        pi_tokens = ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    if role == "toolResult":
        content = msg.get("content")
        if type(content) is str:
            pi = len(content) if content.isascii() else js_len(content)
            prune = 0
            guard = pi
        elif type(content) is list:
            pi, prune, guard = text_and_image_chars(content, PI_IMAGE_CHARS)
        else:
            pi = prune = guard = 0
        guard = tool_result_guard(guard, msg)
        pi_tokens = ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            raw, weighted = string_lens(content)
            tokens = -(-raw // CHARS_PER_TOKEN_ESTIMATE)
            return tokens, weighted, tokens, raw
        if type(content) is not list:
            return 0, 0, 0, 0
        pi, prune, guard = text_and_image_chars(content, 0)  # pi counts no image in a user message
        pi_tokens = ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    pi_tokens = pi_estimate_tokens(msg)
    guard = tool_result_guard_chars(msg) if is_guard_tool_result(msg) else PRUNE_OTHER_ROLE_CHARS
    return pi_tokens, PRUNE_OTHER_ROLE_CHARS, pi_tokens, guard

