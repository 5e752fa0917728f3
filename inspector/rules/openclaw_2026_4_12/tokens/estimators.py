"""The per-message estimators, each named after the code it reproduces.

Messages are plain dicts as parsed from a JSONL `message` field (pi `AgentMessage`), plus pi's in-memory
messages (`compactionSummary`, `branchSummary`, `custom`, `bashExecution`). The estimators never raise on
malformed input: where the TypeScript would throw or produce `NaN` (a `text` that is not a string, `content` that
is a number, `null` blocks...), the offending part counts 0 — or, where the TypeScript has a defined fallback
(`JSON.stringify` of unknown blocks, 128/256 on a throw), that fallback.

* [PI66] `packages/coding-agent/src/core/compaction/compaction.ts` `estimateTokens` -> `pi_estimate_chars`,
  `pi_estimate_tokens`.
* [OC] `src/agents/compaction.ts` `estimateMessagesTokens` (pi `estimateTokens` after `stripToolResultDetails`)
  -> `openclaw_compaction_tokens`.
* [OC] `src/agents/pi-hooks/context-pruning/pruner.ts` `estimateMessageChars` (and `dropThinkingBlocks` from
  `src/agents/pi-embedded-runner/thinking.ts`) -> `openclaw_prune_chars`.
* [OC] `src/agents/pi-embedded-runner/tool-result-char-estimator.ts` `estimateMessageChars` -> `tool_guard_chars`.

`inspector.rules.openclaw_2026_4_12.tokens.fused.estimate_all` computes all four in one pass for the indexer; tests keep both equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspector.js.jsjson import js_len
from inspector.rules.openclaw_2026_4_12.tokens.measure import (
    CHARS_PER_TOKEN_ESTIMATE,
    ceil_div4,
    estimate_string_chars,
    json_len_or,
    str_len,
    unknown_chars,
)

__all__ = [
    "OMITTED_ASSISTANT_REASONING_TEXT",
    "OPENCLAW_IMAGE_CHAR_ESTIMATE",
    "PI_IMAGE_CHARS",
    "PRUNE_OTHER_ROLE_CHARS",
    "TOOL_CALL_ARGS_THROW_CHARS",
    "TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE",
    "guard_assistant_chars",
    "is_guard_tool_result",
    "openclaw_compaction_tokens",
    "openclaw_prune_chars",
    "pi_estimate_chars",
    "pi_estimate_tokens",
    "tool_guard_chars",
    "tool_result_guard_chars",
]

TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE = 2
"""tool-result-char-estimator.ts: tool results are weighted as if 2 chars were one token."""
PI_IMAGE_CHARS = 4800
"""pi `estimateTokens`: one image block in a toolResult/custom message counts 4800 chars (1200 tokens)."""
OPENCLAW_IMAGE_CHAR_ESTIMATE = 8000
"""OpenClaw pruner and tool-result guard: one image block counts 8000 chars."""
PRUNE_OTHER_ROLE_CHARS = 256
"""Pruner / guard: a message of any other role counts a flat 256 chars."""
TOOL_CALL_ARGS_THROW_CHARS = 128
"""Pruner / guard: `JSON.stringify(arguments)` threw."""
OMITTED_ASSISTANT_REASONING_TEXT = "[assistant reasoning omitted]"
"""thinking.ts: text that replaces an assistant message left empty by `dropThinkingBlocks`."""


# --------------------------------------------------------------------------------------------------------------
# pi estimateTokens
# --------------------------------------------------------------------------------------------------------------


def _text_and_image_chars(content: list[Any], measure: Callable[[Any], int], image_chars: int) -> int:
    """The text blocks of `content` by `measure` plus `image_chars` per image block (other blocks count 0): the loop
    pi's and OpenClaw's pruning estimators share, each with its own measure and image size."""
    chars = 0
    for block in content:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text":
            chars += measure(block.get("text"))
        elif btype == "image":
            chars += image_chars
    return chars


def _pi_text_image_chars(content: Any) -> int:
    """pi estimateTokens for `custom`/`toolResult`: string length, or text blocks + 4800 per image."""
    if type(content) is str:
        return js_len(content)
    if type(content) is not list:
        return 0
    return _text_and_image_chars(content, str_len, PI_IMAGE_CHARS)


def pi_estimate_chars(msg: dict[str, Any]) -> int:
    """Characters pi-coding-agent's `estimateTokens` divides by 4 ([PI66] `compaction/compaction.ts`).

    | role | chars |
    |---|---|
    | user | string length, or the text blocks' lengths (images are not counted) |
    | assistant | text + thinking + for each toolCall `name.length + JSON.stringify(arguments).length` |
    | toolResult, custom | string length, or text blocks + 4800 per image |
    | bashExecution | `command.length + output.length` (even when `excludeFromContext`) |
    | branchSummary, compactionSummary | `summary.length` |
    | anything else | 0 |

    `redacted_thinking` blocks, `thinkingSignature` and `details` are not counted. Malformed parts count 0
    (pi would throw or yield NaN): a non-string text/thinking/name, a toolCall without `arguments`.
    """
    if type(msg) is not dict:
        return 0
    role = msg.get("role")
    if role == "assistant":
        content = msg.get("content")
        if type(content) is not list:
            return 0  # a string iterates as characters without `.type`: 0
        chars = 0
        for block in content:
            if type(block) is not dict:
                continue
            btype = block.get("type")
            if btype == "text":
                chars += str_len(block.get("text"))
            elif btype == "thinking":
                chars += str_len(block.get("thinking"))
            elif btype == "toolCall":
                chars += str_len(block.get("name"))
                if "arguments" in block:
                    chars += json_len_or(block["arguments"], 0)
        return chars
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            return js_len(content)
        if type(content) is not list:
            return 0
        chars = 0
        for block in content:
            if type(block) is dict and block.get("type") == "text":
                chars += str_len(block.get("text"))
        return chars
    if role == "toolResult" or role == "custom":
        return _pi_text_image_chars(msg.get("content"))
    if role == "bashExecution":
        return str_len(msg.get("command")) + str_len(msg.get("output"))
    if role == "branchSummary" or role == "compactionSummary":
        return str_len(msg.get("summary"))
    return 0


def pi_estimate_tokens(msg: dict[str, Any]) -> int:
    """pi-coding-agent `estimateTokens(msg)` = `ceil(chars / 4)` with `pi_estimate_chars` ([PI66] `CMP`)."""
    return ceil_div4(pi_estimate_chars(msg))


def openclaw_compaction_tokens(msg: dict[str, Any]) -> int:
    """OpenClaw compaction's per-message estimate ([OC] `src/agents/compaction.ts` `estimateMessagesTokens`).

    It is pi `estimateTokens` after `stripToolResultDetails` removed `details` from toolResult messages. pi's
    estimator never reads `details`, so the figure equals `pi_estimate_tokens`; it is kept as its own function
    because the two are different call sites in the products.
    """
    return pi_estimate_tokens(msg)



# --------------------------------------------------------------------------------------------------------------
# OpenClaw context-pruning estimateMessageChars
# --------------------------------------------------------------------------------------------------------------


def _prune_text_image_chars(content: Any) -> int:
    """pruner.ts `estimateTextAndImageChars`: weighted text + 8000 per image; a non-array counts 0."""
    if type(content) is not list:
        return 0  # a string iterates as characters without `.type`
    return _text_and_image_chars(content, estimate_string_chars, OPENCLAW_IMAGE_CHAR_ESTIMATE)


def _prune_assistant_chars(content: Any, drop_thinking_blocks: bool) -> int:
    if type(content) is not list:
        return 0
    blocks = content
    if drop_thinking_blocks:
        kept = [b for b in content if not (type(b) is dict and b.get("type") in ("thinking", "redacted_thinking"))]
        if len(kept) != len(content):
            if not kept:
                return len(OMITTED_ASSISTANT_REASONING_TEXT)
            blocks = kept
    chars = 0
    for block in blocks:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text":
            chars += estimate_string_chars(block.get("text"))
        elif btype == "thinking" or btype == "redacted_thinking":
            chars += estimate_string_chars(block.get("thinking"))
            if btype == "redacted_thinking":
                chars += estimate_string_chars(block.get("data"))
            chars += estimate_string_chars(block.get("thinkingSignature"))
        elif btype == "toolCall":
            args = block.get("arguments")
            chars += json_len_or({} if args is None else args, TOOL_CALL_ARGS_THROW_CHARS)
    return chars


def openclaw_prune_chars(msg: dict[str, Any], *, drop_thinking_blocks: bool = False) -> int:
    """OpenClaw context pruning's `estimateMessageChars` ([OC] `src/agents/pi-hooks/context-pruning/pruner.ts`).

    | role | chars |
    |---|---|
    | user | weighted string, or weighted text blocks + 8000 per image |
    | assistant | weighted text; for `thinking`/`redacted_thinking` blocks weighted `thinking`, `data` (redacted only) and `thinkingSignature`; `JSON.stringify(arguments ?? {})` length per toolCall (128 if it throws); tool names not counted |
    | toolResult | weighted text blocks + 8000 per image (string content counts 0, as in the TS loop); no `details` |
    | any other role | 256 |

    "Weighted" is `estimate_string_chars`. `drop_thinking_blocks=True` reproduces the estimate after
    `dropThinkingBlocks` ([OC] `pi-embedded-runner/thinking.ts`): thinking and redacted_thinking blocks are
    removed, and an assistant message left with no blocks counts as the text `[assistant reasoning omitted]`.
    That transform spares the *latest* assistant message with array content; the caller must pass False for it.
    """
    if type(msg) is not dict:
        return 0 if msg is None else PRUNE_OTHER_ROLE_CHARS
    role = msg.get("role")
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            return estimate_string_chars(content)
        return _prune_text_image_chars(content)
    if role == "assistant":
        return _prune_assistant_chars(msg.get("content"), drop_thinking_blocks)
    if role == "toolResult":
        return _prune_text_image_chars(msg.get("content"))
    return PRUNE_OTHER_ROLE_CHARS



# --------------------------------------------------------------------------------------------------------------
# OpenClaw tool-result context guard (tool-result-char-estimator.ts)
# --------------------------------------------------------------------------------------------------------------


def _guard_block_chars(content: list[Any]) -> int:
    """Guard: text (string) raw length, 8000 per image, `estimateUnknownChars` for anything else."""
    chars = 0
    for block in content:
        if type(block) is dict:
            btype = block.get("type")
            if btype == "text":
                text = block.get("text")
                if type(text) is str:
                    chars += js_len(text)
                    continue
            elif btype == "image":
                chars += OPENCLAW_IMAGE_CHAR_ESTIMATE
                continue
        chars += unknown_chars(block)
    return chars


def is_guard_tool_result(msg: dict[str, Any]) -> bool:
    """Whether the guard treats `msg` as a tool result (role `toolResult` or `tool`, or `type: "toolResult"`)."""
    role = msg.get("role")
    return role == "toolResult" or role == "tool" or msg.get("type") == "toolResult"


def tool_result_guard_chars(msg: dict[str, Any]) -> int:
    """The guard's estimate of a tool result: content + `details`, weighted `max(c, ceil(c * 2))`."""
    content = msg.get("content")
    if type(content) is str:
        chars = js_len(content)
    elif type(content) is list:
        chars = _guard_block_chars(content)
    else:
        chars = 0
    if "details" in msg:
        chars += unknown_chars(msg["details"])
    weighted = -(-chars * CHARS_PER_TOKEN_ESTIMATE // TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE)
    return max(chars, weighted)


def tool_guard_chars(msg: dict[str, Any]) -> int:
    """The tool-result context guard's `estimateMessageChars` ([OC] `pi-embedded-runner/tool-result-char-estimator.ts`, spec §5).

    Raw UTF-16 lengths, no CJK weighting:

    | message | chars |
    |---|---|
    | user | string length; or text blocks + 8000 per image + `JSON.stringify` length of any other block |
    | assistant | text + `thinking` text + `JSON.stringify(arguments ?? {})` per toolCall (128 on a throw) + `JSON.stringify(block)` length of any other block (redacted_thinking, a text block whose text is not a string...); non-object blocks skipped |
    | toolResult (role `toolResult` or `tool`, or `type: "toolResult"`) | `c` = content (a string counts as one text block) as for user + `details` (a string's length, else its JSON length; absent counts 0, `null` 4); result `max(c, ceil(c*2))` |
    | any other role | 256 |

    A thinking block's signature is not counted here (unlike the pruner). "Unknown" values count 256 if their
    JSON serialisation throws. A non-object message counts 0.
    """
    if type(msg) is not dict:
        return PRUNE_OTHER_ROLE_CHARS if type(msg) is list else 0
    role = msg.get("role")
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            return js_len(content)
        if type(content) is list:
            return _guard_block_chars(content)
        return 0
    if role == "assistant":
        return guard_assistant_chars(msg.get("content"))
    if is_guard_tool_result(msg):
        return tool_result_guard_chars(msg)
    return PRUNE_OTHER_ROLE_CHARS


def guard_assistant_chars(content: Any) -> int:
    """The guard's estimate of an assistant's content (unchanged in 2026.9.6): text + `thinking` text (raw lengths) +
    `JSON.stringify(arguments ?? {})` per toolCall (128 on a throw) + `estimateUnknownChars` of any other block;
    non-object blocks skipped, a content that is not a list 0."""
    if type(content) is not list:
        return 0
    chars = 0
    for block in content:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text" and type(block.get("text")) is str:
            chars += js_len(block["text"])
        elif btype == "thinking" and type(block.get("thinking")) is str:
            chars += js_len(block["thinking"])
        elif btype == "toolCall":
            args = block.get("arguments")
            chars += json_len_or({} if args is None else args, TOOL_CALL_ARGS_THROW_CHARS)
        else:
            chars += unknown_chars(block)
    return chars

