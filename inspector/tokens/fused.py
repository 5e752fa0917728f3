"""The fused fast path: the four per-message estimates in one pass over a message, for the indexer.

`estimate_all(msg)` equals `(pi_estimate_tokens, openclaw_prune_chars, openclaw_compaction_tokens,
tool_guard_chars)` of `inspector.tokens.estimators` (tests compare them on generated and real messages), but
measures each string once: the index computes it for every entry of a 1 GB file.
"""

from __future__ import annotations

from typing import Any

from ..jsjson import JSStringifyError, js_len, js_stringify_len
from .estimators import (
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
from .measure import CHARS_PER_TOKEN_ESTIMATE, ceil_div4, estimate_string_chars, str_len, string_lens, unknown_chars

__all__ = ["estimate_all"]


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
                        raw, weighted = string_lens(text)
                        pi += raw
                        guard += raw
                        prune += weighted
                    else:
                        guard += unknown_chars(block)
                elif btype == "thinking":
                    thinking = block.get("thinking")
                    if type(thinking) is str:
                        raw, weighted = string_lens(thinking)
                        pi += raw
                        guard += raw
                        prune += weighted
                    else:
                        guard += unknown_chars(block)
                    signature = block.get("thinkingSignature")
                    if type(signature) is str:
                        prune += estimate_string_chars(signature)
                elif btype == "toolCall":
                    pi += str_len(block.get("name"))
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
                    guard += unknown_chars(block)
                    if btype == "redacted_thinking":
                        prune += (
                            estimate_string_chars(block.get("thinking"))
                            + estimate_string_chars(block.get("data"))
                            + estimate_string_chars(block.get("thinkingSignature"))
                        )
        pi_tokens = ceil_div4(pi)
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
                            raw, weighted = string_lens(text)
                            pi += raw
                            guard += raw
                            prune += weighted
                            continue
                    elif btype == "image":
                        pi += PI_IMAGE_CHARS
                        prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
                        guard += OPENCLAW_IMAGE_CHAR_ESTIMATE
                        continue
                guard += unknown_chars(block)
        else:
            pi = prune = guard = 0
        if "details" in msg:
            guard += unknown_chars(msg["details"])
        guard = max(guard, -(-guard * CHARS_PER_TOKEN_ESTIMATE // TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE))
        pi_tokens = ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            raw, weighted = string_lens(content)
            tokens = ceil_div4(raw)
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
                        raw, weighted = string_lens(text)
                        pi += raw
                        guard += raw
                        prune += weighted
                        continue
                elif btype == "image":
                    prune += OPENCLAW_IMAGE_CHAR_ESTIMATE
                    guard += OPENCLAW_IMAGE_CHAR_ESTIMATE
                    continue
            guard += unknown_chars(block)
        pi_tokens = ceil_div4(pi)
        return pi_tokens, prune, pi_tokens, guard
    pi_tokens = pi_estimate_tokens(msg)
    guard = tool_result_guard_chars(msg) if is_guard_tool_result(msg) else PRUNE_OTHER_ROLE_CHARS
    return pi_tokens, PRUNE_OTHER_ROLE_CHARS, pi_tokens, guard

