"""OpenClaw's "nothing real to summarize" case: a boundary compaction instead of a summary (issue #41981).

Ported from OpenClaw 2026.4 (`dist/model-context-tokens-*.js`): `isRealConversationMessage`,
`hasMeaningfulConversationContent`, `hasMeaningfulText` (with `isSilentReplyText` from
`src/auto-reply/tokens.ts` and `stripHeartbeatToken` in `"message"` mode, `inspector.rules.openclaw_2026_4_12.heartbeat`),
and `buildStructuredFallbackSummary` / `hasRequiredSummarySections` for the summary the boundary carries.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from inspector.js.utf16 import JS_WHITESPACE_CLASS, js_trim
from inspector.rules.openclaw_2026_4_12.heartbeat import strip_heartbeat_token

SILENT_REPLY_TOKEN = "NO_REPLY"
NON_CONVERSATION_BLOCK_TYPES = frozenset({"toolCall", "toolUse", "functionCall", "thinking", "reasoning"})
REQUIRED_SUMMARY_SECTIONS = ("## Decisions", "## Open TODOs", "## Constraints/Rules", "## Pending user asks", "## Exact identifiers")
REAL_TOOL_RESULT_LOOKBACK = 20
DEFAULT_SUMMARY_FALLBACK = "No prior history."

_SILENT_EXACT = re.compile(f"\\A{JS_WHITESPACE_CLASS}*{SILENT_REPLY_TOKEN}{JS_WHITESPACE_CLASS}*\\Z", re.IGNORECASE | re.ASCII)


def is_silent_reply_text(text: str) -> bool:
    """OpenClaw `isSilentReplyText`: the whole text is `NO_REPLY` (any case, surrounding whitespace)."""
    return bool(text) and _SILENT_EXACT.search(text) is not None


def has_meaningful_text(text: str) -> bool:
    """OpenClaw `hasMeaningfulText`: not blank, not `NO_REPLY`, not only `HEARTBEAT_OK`."""
    trimmed = js_trim(text)
    if not trimmed:
        return False
    if is_silent_reply_text(trimmed):
        return False
    heartbeat = strip_heartbeat_token(trimmed, mode="message")
    if heartbeat.did_strip:
        return len(js_trim(heartbeat.text)) > 0
    return True


def has_meaningful_conversation_content(message: dict[str, Any]) -> bool:
    """OpenClaw `hasMeaningfulConversationContent`: meaningful text, or a block that is not text/tool call/thinking."""
    return has_meaningful_content(message.get("content"))


def has_meaningful_content(
    content: Any, skipped: frozenset[str] = NON_CONVERSATION_BLOCK_TYPES, meaningful: Callable[[str], bool] = has_meaningful_text
) -> bool:
    """A message content's test: a `meaningful` text block, or a block whose type is neither text nor `skipped`."""
    if isinstance(content, str):
        return meaningful(content)
    if not isinstance(content, list):
        return False
    saw_other = False
    for block in content:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype != "text":
            if isinstance(btype, str) and btype in skipped:
                continue
            saw_other = True
            continue
        text = block.get("text")
        if not isinstance(text, str):
            continue
        if meaningful(text):
            return True
    return saw_other


def any_real_conversation(roles: list[str], load: Callable[[int], dict[str, Any]], kinds: list[tuple[str, ...]] | None = None) -> int | None:
    """`messages.some(isRealConversationMessage)`: the position of the first real message, or None.

    `roles[i]` is each message's role; `load(i)` returns its content (called only when needed). With `kinds`
    (each message's block types from the index), assistants holding only tool calls/thinking are decided
    without a read.
    """
    meaningful: dict[int, bool] = {}

    def user_or_assistant(i: int) -> bool:
        if i not in meaningful:
            if kinds is not None and roles[i] == "assistant" and kinds[i] and all(k in NON_CONVERSATION_BLOCK_TYPES for k in kinds[i]):
                meaningful[i] = False
            else:
                meaningful[i] = has_meaningful_conversation_content(load(i))
        return meaningful[i]

    for i, role in enumerate(roles):
        if role in ("user", "assistant"):
            if user_or_assistant(i):
                return i
        elif role == "toolResult":
            for j in range(i - 1, max(0, i - REAL_TOOL_RESULT_LOOKBACK) - 1, -1):
                if roles[j] == "user" and user_or_assistant(j):
                    return i
    return None


def has_required_summary_sections(summary: str) -> bool:
    """OpenClaw `hasRequiredSummarySections`: the five headings, in order, each on its own (trimmed) line."""
    lines = [js_trim(line) for line in re.split(r"\r?\n", summary)]
    lines = [line for line in lines if line]
    cursor = 0
    for heading in REQUIRED_SUMMARY_SECTIONS:
        index = next((k for k in range(cursor, len(lines)) if lines[k] == heading), -1)
        if index < 0:
            return False
        cursor = index + 1
    return True


def build_structured_fallback_summary(previous_summary: Any) -> str:
    """OpenClaw `buildStructuredFallbackSummary(previousSummary)`: the summary a boundary compaction writes."""
    prev = js_trim(previous_summary) if isinstance(previous_summary, str) else ""
    if prev and has_required_summary_sections(prev):
        return prev
    return "\n".join(
        [
            "## Decisions",
            prev or DEFAULT_SUMMARY_FALLBACK,
            "",
            "## Open TODOs",
            "None.",
            "",
            "## Constraints/Rules",
            "None.",
            "",
            "## Pending user asks",
            "None.",
            "",
            "## Exact identifiers",
            "None captured.",
        ]
    )
