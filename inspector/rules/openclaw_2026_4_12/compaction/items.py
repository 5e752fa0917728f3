"""The messages OpenClaw's compaction helpers see, as light records built from the session index.

OpenClaw's safeguard helpers (`splitMessagesByTokenShare`, `chunkMessagesByMaxTokens`,
`repairToolUseResultPairing`, `splitPreservedRecentTurns`, ...) only look at a message's role, its
`estimateMessagesTokens` size, its tool-call ids, its tool-result id and its `stopReason`. `SummaryItem` holds
exactly that, so a forecast on a huge session never loads message content; the rare shapes metadata cannot
settle (tool calls typed `toolUse`/`functionCall`, ids that are not plain strings, a result without
`toolCallId`) are re-read from disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.base.cancel import checked
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.tokens.measure import ceil_div4
from inspector.session.session import Session

TOOL_CALL_TYPES = frozenset({"toolCall", "toolUse", "functionCall"})
"""OpenClaw `TOOL_CALL_TYPES` (`pi-embedded-helpers`): block types `extractToolCallsFromAssistant` accepts."""

SYNTHETIC_TOOL_RESULT_TEXT = (
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
)
"""OpenClaw `makeMissingToolResult`'s text (`session-transcript-repair.ts`)."""


SYNTHETIC_TOOL_RESULT_TOKENS = ceil_div4(len(SYNTHETIC_TOOL_RESULT_TEXT))
"""pi `estimateTokens` of that synthetic result (its only block is the text above)."""


@dataclass(frozen=True, slots=True)
class SummaryItem:
    """One message in a summarizer input.

    `position` is the message's index in the list it came from (`messagesToSummarize` or
    `turnPrefixMessages`); `None` for a synthetic tool result inserted by the pairing repair. `entry_index`
    names the session entry (None for synthetic ones). `tokens` is OpenClaw's
    `estimateCompactionMessageTokens` (pi `estimateTokens` without `details`).
    """

    position: int | None
    entry_index: int | None
    role: str
    tokens: int
    tool_call_ids: tuple[str, ...] = ()
    tool_result_id: str | None = None
    stop_reason: str | None = None

    @property
    def synthetic(self) -> bool:
        """True for a tool result OpenClaw's repair inserted (it is in no session entry)."""
        return self.entry_index is None


def synthetic_result(call_id: str) -> SummaryItem:
    """OpenClaw `makeMissingToolResult({toolCallId})` as an item."""
    return SummaryItem(None, None, "toolResult", SYNTHETIC_TOOL_RESULT_TOKENS, (), call_id, None)


def tool_calls_of(message: Any) -> tuple[str, ...]:
    """OpenClaw `extractToolCallsFromAssistant(msg)`: ids of blocks typed toolCall/toolUse/functionCall with a string id."""
    content = message.get("content") if type(message) is dict else None
    if type(content) is not list:
        return ()
    out = []
    for block in content:
        if type(block) is not dict:
            continue
        bid = block.get("id")
        if type(bid) is not str or not bid:
            continue
        if block.get("type") in TOOL_CALL_TYPES:
            out.append(bid)
    return tuple(out)


def tool_result_id_of(message: Any) -> str | None:
    """OpenClaw `extractToolResultId(msg)`: `toolCallId`, else `toolUseId`, when a non-empty string."""
    if type(message) is not dict:
        return None
    for key in ("toolCallId", "toolUseId"):
        value = message.get(key)
        if type(value) is str and value:
            return value
    return None


def item_for_message(message: dict[str, Any], position: int | None, entry_index: int | None = None) -> SummaryItem:
    """The item for an AgentMessage already in memory (pi `estimateTokens`, OpenClaw's tool-call extraction)."""
    from inspector.rules.openclaw_2026_4_12.tokens import openclaw_compaction_tokens

    role = message.get("role")
    role = role if isinstance(role, str) else "?"
    stop = message.get("stopReason") if role == "assistant" else None
    return SummaryItem(
        position,
        entry_index,
        role,
        openclaw_compaction_tokens(message),
        tool_calls_of(message) if role == "assistant" else (),
        tool_result_id_of(message) if role == "toolResult" else None,
        stop if isinstance(stop, str) else None,
    )


def _needs_disk(entry: m.Entry) -> bool:
    if entry.role == "assistant":
        kinds = entry.block_kinds
        if "toolUse" in kinds or "functionCall" in kinds:
            return True
        return any(not cid or cid == "None" for cid in entry.tool_call_ids)
    if entry.role == "toolResult":
        return not entry.tool_call_id
    return False


def item_for_entry(session: Session, entry: m.Entry, position: int) -> SummaryItem:
    """The item for the message a path entry contributes (a `message`, `custom_message` or `branch_summary`)."""
    tokens = entry.estimate("openclaw_compaction") or 0
    if entry.type == m.CUSTOM_MESSAGE:
        return SummaryItem(position, entry.index, "custom", tokens)
    if entry.type == m.BRANCH_SUMMARY:
        return SummaryItem(position, entry.index, "branchSummary", tokens)
    role = entry.role or "?"
    if _needs_disk(entry):
        message = session.load_message(entry) or {}
        calls = tool_calls_of(message) if role == "assistant" else ()
        result_id = tool_result_id_of(message) if role == "toolResult" else None
    else:
        calls = entry.tool_call_ids if role == "assistant" else ()
        result_id = entry.tool_call_id if role == "toolResult" else None
    return SummaryItem(position, entry.index, role, tokens, calls, result_id, entry.stop_reason if role == "assistant" else None)


def items_for_positions(session: Session, path: Sequence[int], positions: list[int]) -> list[SummaryItem]:
    """Items for the entries at these path positions, numbered 0.. in order (their `position` in the list)."""
    entries = session.entries
    return [item_for_entry(session, entries[path[p]], k) for k, p in enumerate(checked(positions, 64))]


def total_tokens(items: list[SummaryItem]) -> int:
    """OpenClaw `estimateMessagesTokens(messages)`."""
    return sum(it.tokens for it in items)
