"""OpenClaw 2026.9.6's fused estimates: the four per-message estimates in one pass over a message, for the indexer.

`estimate_all(msg)` equals `(pi_estimate_tokens, openclaw_prune_chars, openclaw_compaction_tokens,
tool_guard_chars)` of `inspector.rules.openclaw_2026_9_6.tokens.estimators` (tests compare them on generated
messages, the corpus and both benchmark shapes), but buckets each string once (`measure.weighted_lens`: its UTF-16
length, its weighted chars and its raw-weight-2 chars) and serialises each tool call's arguments once. The pieces
are per role (`content_chars` for user and tool-result content, `assistant_chars`), so the fused record builders
(`fused_record`) go straight to them. Roles other than user, assistant and toolResult take the estimators
themselves. The JSON of a dict comes from 2026.4.12's `js_json_bytes` (orjson's output where it is JavaScript's).

How the agent core's measure of user and tool-result content adds up: it weighs the non-empty texts joined by
newlines, which is each text weighed alone plus one per newline (a newline never joins a surrogate pair).
"""

from __future__ import annotations

from typing import Any

from inspector.js.jsjson import js_truthy
from inspector.rules.openclaw_2026_4_12.tokens.fused import js_json_bytes
from inspector.rules.openclaw_2026_9_6.tokens.estimators import (
    IMAGE_BLOCK_CHARS,
    IMAGE_OMITTED_PLACEHOLDER,
    NON_TEXT_OMITTED_PLACEHOLDER,
    OMISSION_EXTRA_CHARS,
    OPENCLAW_IMAGE_CHAR_ESTIMATE,
    RUNTIME_CONTEXT_CUSTOM_TYPE,
    TOOL_CALL_ARGS_THROW_CHARS,
    TOOL_IMAGE_CHARS,
    _block_text,
    _js_string,
    _malformed_text,
    _stringify_compaction_value,
    openclaw_prune_chars,
    persisted_sender_suffix,
    pi_estimate_tokens,
    tool_guard_chars,
)
from inspector.rules.openclaw_2026_9_6.tokens.measure import (
    CHARS_PER_TOKEN_ESTIMATE,
    estimate_string_chars,
    json_len_or,
    unknown_chars,
    weighted_lens,
)

__all__ = ["OMISSION_CHARS", "arguments_chars", "assistant_chars", "content_chars", "estimate_all"]

OMISSION_CHARS = {
    (True, False): len(IMAGE_OMITTED_PLACEHOLDER) + OMISSION_EXTRA_CHARS,
    (False, True): len(NON_TEXT_OMITTED_PLACEHOLDER) + OMISSION_EXTRA_CHARS,
    (True, True): len(IMAGE_OMITTED_PLACEHOLDER) + 1 + len(NON_TEXT_OMITTED_PLACEHOLDER) + OMISSION_EXTRA_CHARS,
    (False, False): 0,
}
"""The agent core's omission chars by (an image block without text, another block without text): the placeholders
joined by a newline, + 17 (`countContentChars`)."""


def content_chars(content: list[Any], tool_result: bool) -> tuple[int, int, int]:
    """`(agent core chars, prune chars, guard chars)` of a user (`tool_result` False) or tool-result content list.

    Agent core: the weighted non-empty texts (a text/toolResult block's truthy `text`, a toolResult block's string
    `content`) + a newline between two, 8000 per image, the omission placeholders; the pruner: weighted text (a
    non-string `text`: its block's weighted JSON), 8000 per image; the guard: a user's raw text, 8000 per image,
    any other block's JSON length, or a tool result's text at raw weight 2, 16000 per image, any other block's JSON
    length doubled."""
    pi = prune = guard = texts = images = 0
    omit_other = False
    for block in content:
        if type(block) is dict:
            btype = block.get("type")
            if btype == "text":
                text = block.get("text")
                if type(text) is str:
                    if text.isascii():
                        n = len(text)
                        pi += n
                        prune += n
                        guard += n + n if tool_result else n
                    else:
                        raw, weighted, doubled = weighted_lens(text)
                        pi += weighted
                        prune += weighted
                        guard += doubled if tool_result else raw
                    if text:
                        texts += 1
                    continue
                prune += estimate_string_chars(_malformed_text(block))
                if js_truthy(text):
                    pi += estimate_string_chars(_js_string(text))
                    texts += 1
            elif btype == "image":
                images += 1
                prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
                guard += TOOL_IMAGE_CHARS if tool_result else OPENCLAW_IMAGE_CHAR_ESTIMATE
                continue
            else:
                text = _block_text(block)
                if js_truthy(text):
                    pi += estimate_string_chars(_js_string(text))
                    texts += 1
                else:
                    omit_other = True
        elif block is None:  # JavaScript's agent core throws on it: counts nothing there
            guard += 8 if tool_result else 4  # "null"
            continue
        else:
            omit_other = True
        guard += unknown_chars(block) * 2 if tool_result else unknown_chars(block)
    if texts > 1:
        pi += texts - 1
    if images:
        pi += images * IMAGE_BLOCK_CHARS + OMISSION_CHARS[True, omit_other]
    elif omit_other:
        pi += OMISSION_CHARS[False, True]
    return pi, prune, guard


def arguments_chars(block: dict[str, Any]) -> tuple[int, int]:
    """`(JSON.stringify(arguments ?? {}).length or 128 on a throw, the agent core's weighted chars of
    JSON.stringify(arguments) or "undefined" or "[unserializable]")` of a tool call block: the pruner's and the
    guard's measure, and the agent core's."""
    if "arguments" not in block:
        return 2, 9  # {} ; "undefined"
    args = block["arguments"]
    if args is None:
        return 2, 4  # {} ; "null"
    if type(args) is dict:
        out = js_json_bytes(args)
        if out is not None:
            if out.isascii():
                n = len(out)
                return n, n
            raw, weighted, _ = weighted_lens(out.decode("utf-8"))
            return raw, weighted
    return json_len_or(args, TOOL_CALL_ARGS_THROW_CHARS), estimate_string_chars(_stringify_compaction_value(args))


def assistant_chars(content: Any) -> tuple[int, int, int]:
    """`(agent core chars, prune chars, guard chars)` of an assistant message's content: text and thinking measured
    once, tool calls by their weighted name and their arguments' JSON (`arguments_chars`), images 8000 for the
    pruner, anything else at the guard's unknown size."""
    pi = prune = guard = 0
    if type(content) is not list:
        return 0, 0, 0
    for block in content:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text" or btype == "thinking":  # the block's string is under its own type's name
            value = block.get(btype)
            if type(value) is str:
                if value.isascii():
                    n = len(value)
                    pi += n
                    prune += n
                    guard += n
                else:
                    raw, weighted, _ = weighted_lens(value)
                    pi += weighted
                    prune += weighted
                    guard += raw
            else:
                guard += unknown_chars(block)
            if btype == "thinking":
                prune += estimate_string_chars(block.get("thinkingSignature"))
        elif btype == "toolCall":
            name = block.get("name")
            if type(name) is str:
                pi += len(name) if name.isascii() else estimate_string_chars(name)
            json_chars, args_chars = arguments_chars(block)
            pi += args_chars
            prune += json_chars
            guard += json_chars
        else:
            guard += unknown_chars(block)
            if btype == "image":
                prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
            elif btype == "redacted_thinking":
                prune += (
                    estimate_string_chars(block.get("thinking"))
                    + estimate_string_chars(block.get("thinkingSignature"))
                    + estimate_string_chars(block.get("data"))
                )
    return pi, prune, guard


def estimate_all(msg: dict[str, Any]) -> tuple[int, int, int, int]:
    """`(pi_estimate_tokens, openclaw_prune_chars, openclaw_compaction_tokens, tool_guard_chars)` of `msg` in one
    pass (the thinking blocks kept); see the module docstring."""
    if type(msg) is not dict:
        return pi_estimate_tokens(msg), openclaw_prune_chars(msg), pi_estimate_tokens(msg), tool_guard_chars(msg)
    role = msg.get("role")
    content = msg.get("content")
    if role == "assistant":
        pi, prune, guard = assistant_chars(content)
    elif role == "toolResult":
        if type(content) is list:
            pi, prune, guard = content_chars(content, True)
        elif type(content) is str:
            _, pi, guard = weighted_lens(content)
            prune = 0
        else:
            pi = prune = guard = 0
    elif role == "user":
        if type(content) is list:
            pi, prune, guard = content_chars(content, False)
        elif type(content) is str:
            guard, prune, _ = weighted_lens(content)
            pi = prune
        else:
            pi = prune = guard = 0
        if "__openclaw" in msg:
            pi += estimate_string_chars(persisted_sender_suffix(msg))
    else:
        tokens = pi_estimate_tokens(msg)
        hidden = role == "custom" and msg.get("customType") == RUNTIME_CONTEXT_CUSTOM_TYPE
        return tokens, openclaw_prune_chars(msg), 0 if hidden else tokens, tool_guard_chars(msg)
    if msg.get("excludeFromContext") is True:
        return 0, prune, 0, 0
    tokens = -(-pi // CHARS_PER_TOKEN_ESTIMATE)
    return tokens, prune, tokens, guard
