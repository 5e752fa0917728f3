"""OpenClaw 2026.9.6's per-message estimators, each named after the code it reproduces.

2026.9.6 has its own agent core (a fork of pi) and estimates a message in four places, the same four roles as
2026.4.12 (`inspector.rules.openclaw_2026_4_12.tokens.estimators`), with these rules:

* `pi_estimate_tokens`: [OC9] `packages/agent-core/src/harness/compaction/compaction.ts` `estimateTokens` (the cut
  point's keepRecentTokens walk, `estimateContextTokens`' trailing messages). Every string is CJK-weighted
  (`estimateStringChars`), images count 8000 chars in user messages too, blocks that are neither text nor image
  add the summary input's omission placeholders, text blocks are joined by newlines, a user message's persisted
  sender adds its ` sender={...}` label, and `excludeFromContext: true` counts 0.
* `openclaw_compaction_tokens`: [OC9] `src/agents/compaction-planning.ts` `estimatePerMessageTokens` (summary
  chunks, stage split, history pruning): `estimateTokens` after `stripToolResultDetails`, 0 for the runtime-context
  custom message (`customType: "openclaw.runtime-context"`), which compaction never sees.
* `openclaw_prune_chars`: [OC9] `src/agents/embedded-agent-runner/tool-result-truncation.ts` `cacheTtlMessageChars`
  (the cache-TTL context pruning): as 2026.4.12's pruner, plus 8000 per image in assistant messages and
  malformed text blocks of user/tool results counted as their JSON.
* `tool_guard_chars`: [OC9] `src/agents/embedded-agent-runner/tool-result-context-guard.ts` `estimateMessageChars`
  (the tool-result context guard): tool-result text at raw weight 2 with CJK extras, 16000 per image, other blocks
  doubled, `details` no longer counted; bash executions, summaries and custom messages measured by their text;
  `excludeFromContext: true` counts 0.

Malformed input never raises: where the JavaScript would throw (a `null` block, content that is not an array...),
the offending part counts 0, as in 2026.4.12's estimators.
"""

from __future__ import annotations

from typing import Any

from inspector.js.jsjson import JSStringifyError, js_len, js_number_to_string, js_stringify, js_truthy
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.tokens.estimators import (
    OMITTED_ASSISTANT_REASONING_TEXT,
    PRUNE_OTHER_ROLE_CHARS,
    TOOL_CALL_ARGS_THROW_CHARS,
    TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE,  # the guard's raw weight: unchanged
    guard_assistant_chars,  # the guard's assistant and its tool-result test: unchanged
    is_guard_tool_result,
)
from inspector.rules.openclaw_2026_4_12.tokens.text import (
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    bash_execution_to_text,
)
from inspector.rules.openclaw_2026_9_6.tokens.measure import (
    ceil_div4,
    estimate_string_chars,
    estimate_string_chars_raw_weight,
    json_len_or,
    unknown_chars,
)

__all__ = [
    "IMAGE_BLOCK_CHARS",
    "IMAGE_OMITTED_PLACEHOLDER",
    "NON_TEXT_OMITTED_PLACEHOLDER",
    "OMISSION_EXTRA_CHARS",
    "OMITTED_ASSISTANT_REASONING_TEXT",
    "OPENCLAW_IMAGE_CHAR_ESTIMATE",
    "PI_IMAGE_CHARS",
    "PRUNE_OTHER_ROLE_CHARS",
    "RUNTIME_CONTEXT_CUSTOM_TYPE",
    "TOOL_CALL_ARGS_THROW_CHARS",
    "TOOL_IMAGE_CHARS",
    "TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE",
    "is_guard_tool_result",
    "openclaw_compaction_tokens",
    "openclaw_prune_chars",
    "persisted_sender_suffix",
    "pi_estimate_chars",
    "pi_estimate_tokens",
    "tool_guard_chars",
]

IMAGE_BLOCK_CHARS = 8000
"""Agent core `IMAGE_BLOCK_CHARS` (2000 tokens x 4): one image block in a user, custom or tool-result message."""
PI_IMAGE_CHARS = IMAGE_BLOCK_CHARS
"""2026.4.12's name for the agent core's image weight (pi counted 4800; 2026.9.6 counts 8000)."""
OPENCLAW_IMAGE_CHAR_ESTIMATE = 8000
"""Pruner (`CACHE_TTL_IMAGE_CHARS`) and guard (`IMAGE_CHAR_ESTIMATE`, user/assistant/custom): one image block."""
TOOL_IMAGE_CHARS = 2 * OPENCLAW_IMAGE_CHAR_ESTIMATE
"""Guard `TOOL_IMAGE_CHARS`: one image block in a tool result counts 16000 chars."""
IMAGE_OMITTED_PLACEHOLDER = "[image data omitted from summary input]"
"""utils.ts `getCompactionContent`: the summary input's stand-in for image blocks."""
NON_TEXT_OMITTED_PLACEHOLDER = "[non-text data omitted from summary input]"
"""utils.ts `getCompactionContent`: the stand-in for any other block with no text."""
OMISSION_EXTRA_CHARS = 17
"""compaction.ts `countContentChars`: chars added to the placeholders' length when a message has any."""
RUNTIME_CONTEXT_CUSTOM_TYPE = "openclaw.runtime-context"
"""The `customType` of the hidden runtime-context message that compaction drops (`stripRuntimeContextCustomMessages`)."""


def _js_string(value: Any) -> str:
    """`String(value)` for a JSON value (how `join` renders a block's truthy non-string `text`)."""
    if type(value) is str:
        return value
    if value is None:
        return "null"
    if isinstance(value, (bool, int, float)):
        return js_number_to_string(value)
    if isinstance(value, list):
        return ",".join("" if v is None else _js_string(v) for v in value)
    return "[object Object]"


def _stringify_compaction_value(value: Any) -> str:
    """utils.ts `stringifyCompactionValue`: `JSON.stringify(value) ?? "undefined"`, `[unserializable]` on a throw."""
    try:
        return js_stringify(value)
    except (TypeError, ValueError, JSStringifyError, RecursionError):
        return "[unserializable]"


# --------------------------------------------------------------------------------------------------------------
# agent core estimateTokens
# --------------------------------------------------------------------------------------------------------------


def _block_text(block: dict[str, Any]) -> Any:
    """utils.ts `getCompactionContentBlockText`: a text/toolResult block's truthy `text`, or a toolResult block's
    string `content`; "" otherwise."""
    btype = block.get("type")
    text = block.get("text")
    if btype in ("text", "toolResult", "tool_result") and js_truthy(text):
        return text
    if btype in ("toolResult", "tool_result") and type(block.get("content")) is str:
        return block["content"]
    return ""


def _content_chars(content: Any) -> int:
    """compaction.ts `countContentChars`: the weighted joined text + 8000 per image + the placeholders (+17)."""
    if type(content) is str:
        return estimate_string_chars(content)
    if type(content) is not list:
        return 0
    texts: list[str] = []
    omissions: list[str] = []
    images = 0
    for block in content:
        if block is None:
            continue  # JavaScript throws on a null block
        text, btype = (_block_text(block), block.get("type")) if type(block) is dict else ("", None)
        if btype == "image":
            images += 1
        if js_truthy(text):
            texts.append(_js_string(text))
        elif btype != "text":
            placeholder = IMAGE_OMITTED_PLACEHOLDER if btype == "image" else NON_TEXT_OMITTED_PLACEHOLDER
            if placeholder not in omissions:
                omissions.append(placeholder)
    chars = estimate_string_chars("\n".join(texts)) + images * IMAGE_BLOCK_CHARS
    if omissions:
        chars += len("\n".join(omissions)) + OMISSION_EXTRA_CHARS
    return chars


def _sender_field(value: Any) -> str | None:
    if type(value) is not str:
        return None
    return js_trim(value.replace("\0", "")) or None


def persisted_sender_suffix(msg: dict[str, Any]) -> str:
    """utils.ts `formatPersistedSenderSuffix`: ` sender={"id":...,"name":...,"username":...}` for a user message
    whose `__openclaw` record has a `senderId` (fields trimmed, NULs removed, empty ones left out); else ""."""
    if msg.get("role") != "user":
        return ""
    meta = msg.get("__openclaw")
    if type(meta) is not dict:
        return ""
    sender_id = _sender_field(meta.get("senderId"))
    if sender_id is None:
        return ""
    sender = {"id": sender_id}
    for key, field in (("name", "senderName"), ("username", "senderUsername")):
        value = _sender_field(meta.get(field))
        if value is not None:
            sender[key] = value
    return " sender=" + js_stringify(sender)


def _assistant_chars(content: Any) -> int:
    if type(content) is not list:
        return 0  # a string iterates as characters without `.type`
    chars = 0
    for block in content:
        if type(block) is not dict:
            continue
        btype = block.get("type")
        if btype == "text":
            chars += estimate_string_chars(block.get("text"))
        elif btype == "thinking":
            chars += estimate_string_chars(block.get("thinking"))
        elif btype == "toolCall":
            chars += estimate_string_chars(block.get("name"))
            args = _stringify_compaction_value(block["arguments"]) if "arguments" in block else "undefined"
            chars += estimate_string_chars(args)
    return chars


def pi_estimate_chars(msg: dict[str, Any]) -> int:
    """The characters the agent core's `estimateTokens` divides by 4 ([OC9] `harness/compaction/compaction.ts`).

    | role | chars |
    |---|---|
    | any, with `excludeFromContext: true` | 0 |
    | user | content as below + the weighted ` sender={...}` suffix (`persisted_sender_suffix`) |
    | custom, toolResult | string content weighted; or the non-empty texts of text/toolResult blocks (a toolResult block's string `content` when it has no text) joined by `\\n` and weighted, + 8000 per image, + (placeholders' length + 17) when some block other than text has no text (`[image data omitted from summary input]`, `[non-text data omitted from summary input]`, each once, joined by `\\n`) |
    | assistant | weighted text + thinking + for each toolCall its name and `JSON.stringify(arguments)` (`undefined` when absent) |
    | bashExecution | weighted `command` + `output` |
    | branchSummary, compactionSummary | weighted `summary` |
    | anything else | 0 |

    "Weighted" is 2026.9.6's `estimate_string_chars`.
    """
    if type(msg) is not dict or msg.get("excludeFromContext") is True:
        return 0
    role = msg.get("role")
    if role == "assistant":
        return _assistant_chars(msg.get("content"))
    if role == "user":
        return _content_chars(msg.get("content")) + estimate_string_chars(persisted_sender_suffix(msg))
    if role == "toolResult" or role == "custom":
        return _content_chars(msg.get("content"))
    if role == "bashExecution":
        return estimate_string_chars(msg.get("command")) + estimate_string_chars(msg.get("output"))
    if role == "branchSummary" or role == "compactionSummary":
        return estimate_string_chars(msg.get("summary"))
    return 0


def pi_estimate_tokens(msg: dict[str, Any]) -> int:
    """The agent core's `estimateTokens(message)` = `ceil(chars / 4)` of `pi_estimate_chars` (the name is
    2026.4.12's, where this role was pi's estimateTokens)."""
    return ceil_div4(pi_estimate_chars(msg))


def openclaw_compaction_tokens(msg: dict[str, Any]) -> int:
    """compaction-planning.ts `estimatePerMessageTokens` for one stored message ([OC9]).

    The agent core's `estimateTokens` after `stripToolResultDetails` (which it never reads), and 0 for the
    runtime-context custom message that `stripRuntimeContextCustomMessages` hides from compaction. (A planning
    projection's omitted-chars field is never stored, so it adds nothing here.)
    """
    if type(msg) is dict and msg.get("role") == "custom" and msg.get("customType") == RUNTIME_CONTEXT_CUSTOM_TYPE:
        return 0
    return pi_estimate_tokens(msg)


# --------------------------------------------------------------------------------------------------------------
# cache-TTL pruning: cacheTtlMessageChars
# --------------------------------------------------------------------------------------------------------------


def _malformed_text(block: dict[str, Any]) -> str:
    """tool-result-truncation.ts `cacheTtlText` of a text block whose `text` is not a string: its JSON."""
    try:
        return js_stringify(block)
    except (TypeError, ValueError, JSStringifyError, RecursionError):
        return "[malformed text block]"


def _prune_block_chars(block: dict[str, Any], assistant: bool) -> int:
    btype = block.get("type")
    if btype == "text":
        text = block.get("text")
        if type(text) is str:
            return estimate_string_chars(text)
        if not assistant:
            return estimate_string_chars(_malformed_text(block))
    if btype == "image":
        return OPENCLAW_IMAGE_CHAR_ESTIMATE
    if not assistant:
        return 0
    if btype == "thinking" or btype == "redacted_thinking":
        chars = estimate_string_chars(block.get("thinking")) + estimate_string_chars(block.get("thinkingSignature"))
        if btype == "redacted_thinking":
            chars += estimate_string_chars(block.get("data"))
        return chars
    if btype == "toolCall":
        args = block.get("arguments")
        return json_len_or({} if args is None else args, TOOL_CALL_ARGS_THROW_CHARS)
    return 0


def _is_thinking(block: Any) -> bool:
    return type(block) is dict and block.get("type") in ("thinking", "redacted_thinking")


def openclaw_prune_chars(msg: dict[str, Any], *, drop_thinking_blocks: bool = False) -> int:
    """Cache-TTL pruning's `cacheTtlMessageChars` ([OC9] `embedded-agent-runner/tool-result-truncation.ts`).

    | role | chars |
    |---|---|
    | user | weighted string content; or the blocks below |
    | user, toolResult blocks | weighted text (a text block whose `text` is not a string: its weighted JSON), 8000 per image, other blocks 0; string toolResult content counts 0 |
    | assistant blocks | weighted text (non-string text: 0), 8000 per image, weighted `thinking` + `thinkingSignature` (+ `data` for redacted_thinking), `JSON.stringify(arguments ?? {})` length per toolCall (128 on a throw) |
    | any other role | 256 |

    `drop_thinking_blocks=True` measures the message as `dropThinkingBlocks` leaves it (thinking blocks removed,
    an assistant message left empty counting as `[assistant reasoning omitted]`); that transform spares the latest
    assistant message with array content: the caller passes False for it.
    """
    if type(msg) is not dict:
        return 0 if msg is None else PRUNE_OTHER_ROLE_CHARS
    role = msg.get("role")
    content = msg.get("content")
    if role == "user" and type(content) is str:
        return estimate_string_chars(content)
    if role != "user" and role != "assistant" and role != "toolResult":
        return PRUNE_OTHER_ROLE_CHARS
    if type(content) is not list:
        return 0
    assistant = role == "assistant"
    if assistant and drop_thinking_blocks and any(_is_thinking(b) for b in content):
        content = [b for b in content if not _is_thinking(b)]
        if not content:
            return len(OMITTED_ASSISTANT_REASONING_TEXT)
    return sum(_prune_block_chars(b, assistant) for b in content if type(b) is dict)


# --------------------------------------------------------------------------------------------------------------
# The tool-result context guard: estimateMessageChars
# --------------------------------------------------------------------------------------------------------------


def _guard_block_chars(content: list[Any]) -> int:
    """Guard `estimateContentBlockChars`: raw text length, 8000 per image, `estimateUnknownChars` otherwise."""
    chars = 0
    for block in content:
        if type(block) is dict:
            btype = block.get("type")
            if btype == "text" and type(block.get("text")) is str:
                chars += js_len(block["text"])
                continue
            if btype == "image":
                chars += OPENCLAW_IMAGE_CHAR_ESTIMATE
                continue
        chars += unknown_chars(block)
    return chars


def _guard_tool_result_chars(content: Any) -> int:
    """Guard `estimateToolResultContentChars`: text at raw weight 2 with CJK extras, 16000 per image, any other
    block's `estimateUnknownChars` doubled. String content is one text block; anything else counts 0."""
    if type(content) is str:
        return estimate_string_chars_raw_weight(content, TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE)
    if type(content) is not list:
        return 0
    chars = 0
    for block in content:
        if type(block) is dict:
            btype = block.get("type")
            if btype == "text" and type(block.get("text")) is str:
                chars += estimate_string_chars_raw_weight(block["text"], TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE)
                continue
            if btype == "image":
                chars += TOOL_IMAGE_CHARS
                continue
        chars += unknown_chars(block) * TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE
    return chars


def _summary_chars(prefix: str, summary: Any, suffix: str) -> int:
    return js_len(prefix + (summary if type(summary) is str else "") + suffix)


def tool_guard_chars(msg: dict[str, Any]) -> int:
    """The tool-result context guard's `estimateMessageChars` ([OC9] `embedded-agent-runner/tool-result-context-guard.ts`).

    | message | chars |
    |---|---|
    | `excludeFromContext: true` | 0 |
    | user, custom | string length; or text blocks + 8000 per image + `JSON.stringify` length of any other block |
    | assistant | text + `thinking` text + `JSON.stringify(arguments ?? {})` per toolCall (128 on a throw) + `JSON.stringify(block)` length of any other block; non-object blocks skipped |
    | toolResult (role `toolResult` or `tool`, or `type: "toolResult"`) | text blocks (string content is one) at raw weight 2 with CJK extras (`estimateStringCharsWithMinimumRawWeight(text, 2)`), 16000 per image, other blocks' `estimateUnknownChars` x 2; `details` not counted |
    | bashExecution | length of `bashExecutionToText` |
    | branchSummary, compactionSummary | length of the summary wrapped in its context prefix and suffix |
    | any other role | 256 |

    Raw UTF-16 lengths except for tool-result text. A non-object message counts 0 (a list 256).
    """
    if type(msg) is not dict:
        return PRUNE_OTHER_ROLE_CHARS if type(msg) is list else 0
    if msg.get("excludeFromContext") is True:
        return 0
    role = msg.get("role")
    if role == "user":
        content = msg.get("content")
        if type(content) is str:
            return js_len(content)
        return _guard_block_chars(content) if type(content) is list else 0
    if role == "assistant":
        return guard_assistant_chars(msg.get("content"))
    if is_guard_tool_result(msg):
        return _guard_tool_result_chars(msg.get("content"))
    if role == "bashExecution":
        return js_len(bash_execution_to_text(msg))
    if role == "branchSummary":
        return _summary_chars(BRANCH_SUMMARY_PREFIX, msg.get("summary"), BRANCH_SUMMARY_SUFFIX)
    if role == "compactionSummary":
        return _summary_chars(COMPACTION_SUMMARY_PREFIX, msg.get("summary"), COMPACTION_SUMMARY_SUFFIX)
    if role == "custom":
        content = msg.get("content")
        if type(content) is str:
            return js_len(content)
        return _guard_block_chars(content) if type(content) is list else 0
    return PRUNE_OTHER_ROLE_CHARS
