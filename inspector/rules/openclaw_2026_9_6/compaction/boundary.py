"""OpenClaw 2026.9.6's "nothing real to summarize" case: a boundary compaction instead of a summary.

Ported from 2026.9.6 `src/agents/compaction-real-conversation.ts` (`isRealConversationMessage`,
`hasMeaningfulConversationContent`) and `src/auto-reply/tokens.ts` (`isSilentReplyText`). What changed since
2026.4.12 (`inspector.rules.openclaw_2026_4_12.compaction.boundary`):

* custom messages (unless `display: false`), bash runs (command and output) and branch / compaction summaries
  (their `summary`) are real conversation when their text says something, and anchor a tool result as a user
  message does; a message with `excludeFromContext: true` never is;
* the tool-call block types that do not count are the shared contract's (`toolCall`, `toolUse`, `functionCall`,
  `tool_call`, `tool_use`, `function_call`), beside `thinking` / `reasoning`;
* `NO_REPLY` repeated (`NO_REPLY NO_REPLY`) or wrapped in punctuation (`**NO_REPLY**`) is silent too;
* the safeguard drops the hidden runtime-context custom messages (`stripRuntimeContextCustomMessages`) before
  looking, so they neither count nor take a place in a tool result's 20-message look-back;
* the safeguard hands `buildStructuredFallbackSummary` the previous summary trimmed and with a legacy split-turn
  section's required headings nested (`normalizeLegacySplitTurnSummary`): `build_structured_fallback_summary`
  here takes the raw previous summary and does both.

`check_boundary` (the safeguard's decision, the forecast's `boundary_only`) looks at the two lists *together*
(a tool result in the turn prefix is anchored by a user message among the messages to summarize), and when they
hold nothing real, falls back twice: to the boundary-scoped range before the kept tail (the context of the branch
up to the first kept entry, without its compaction summary; when real, that range is summarized instead of both
lists), then to the whole current context (its compaction summary counts). Only when all three are empty of
real conversation is a boundary written (2026.4.12 looked at each list on its own and had no fallback).

`has_required_summary_sections`, `REQUIRED_SUMMARY_SECTIONS` and the fallback summary's text are unchanged.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from inspector.js.utf16 import JS_WHITESPACE_CLASS, js_trim
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.compaction.boundary import DEFAULT_SUMMARY_FALLBACK as DEFAULT_SUMMARY_FALLBACK
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REAL_TOOL_RESULT_LOOKBACK as REAL_TOOL_RESULT_LOOKBACK
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS as REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_4_12.compaction.boundary import SILENT_REPLY_TOKEN as SILENT_REPLY_TOKEN
from inspector.rules.openclaw_2026_4_12.compaction.boundary import BoundaryCheck as BoundaryCheck
from inspector.rules.openclaw_2026_4_12.compaction.boundary import build_structured_fallback_summary as _fallback_4_12
from inspector.rules.openclaw_2026_4_12.compaction.boundary import entries_real, has_meaningful_content, positions_real
from inspector.rules.openclaw_2026_4_12.compaction.boundary import has_required_summary_sections as has_required_summary_sections
from inspector.rules.openclaw_2026_4_12.heartbeat import strip_heartbeat_token
from inspector.rules.openclaw_2026_9_6.tokens.estimators import RUNTIME_CONTEXT_CUSTOM_TYPE
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.compaction.prepare import Preparation

NON_CONVERSATION_BLOCK_TYPES = frozenset({"thinking", "reasoning"})
TOOL_CALL_BLOCK_TYPES = frozenset({"toolCall", "toolUse", "functionCall", "tool_call", "tool_use", "function_call"})
SUMMARY_ROLES = frozenset({"branchSummary", "compactionSummary"})
ANCHOR_ROLES = frozenset({"user", "custom", "bashExecution"}) | SUMMARY_ROLES
CONVERSATION_ROLES = ANCHOR_ROLES | {"assistant"}
SPLIT_TURN_SECTION_HEADING = "**Turn Context (split turn):**"

_WS = JS_WHITESPACE_CLASS
_SILENT_EXACT = re.compile(f"\\A{_WS}*{SILENT_REPLY_TOKEN}(?:{_WS}+{SILENT_REPLY_TOKEN})*{_WS}*\\Z", re.IGNORECASE | re.ASCII)
_JS_LINE = re.compile("(\r\n|[\n\r\u2028\u2029])")


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def strip_edge_punctuation(text: str) -> str:
    """tokens.ts `stripEdgePunctuation`: the text without its leading and trailing runs of Unicode punctuation."""
    n = len(text)
    lead = next((i for i, ch in enumerate(text) if not _is_punctuation(ch)), n)
    tail = next((i for i, ch in enumerate(reversed(text)) if not _is_punctuation(ch)), n)
    return text[lead : n - tail] if lead + tail < n else ""


def is_silent_reply_text(text: str) -> bool:
    """OpenClaw 2026.9 `isSilentReplyText`: only `NO_REPLY` (repeated, any case, whitespace or edge punctuation)."""
    if not text:
        return False
    return _SILENT_EXACT.search(text) is not None or _SILENT_EXACT.search(strip_edge_punctuation(js_trim(text))) is not None


def has_meaningful_text(text: str) -> bool:
    """`hasMeaningfulText`: not blank, not silent, not only `HEARTBEAT_OK`."""
    trimmed = js_trim(text)
    if not trimmed or is_silent_reply_text(trimmed):
        return False
    heartbeat = strip_heartbeat_token(trimmed, mode="message")
    return not heartbeat.did_strip or len(js_trim(heartbeat.text)) > 0


def has_meaningful_message_content(content: Any) -> bool:
    """`hasMeaningfulMessageContent`: meaningful text, or a block that is neither text, a tool call nor thinking."""
    return has_meaningful_content(content, TOOL_CALL_BLOCK_TYPES | NON_CONVERSATION_BLOCK_TYPES, has_meaningful_text)


def has_meaningful_conversation_content(message: dict[str, Any]) -> bool:
    """OpenClaw 2026.9 `hasMeaningfulConversationContent` (see the module docstring)."""
    if message.get("excludeFromContext") is True:
        return False
    role = message.get("role")
    if role == "custom":
        return message.get("display") is not False and has_meaningful_message_content(message.get("content"))
    if role == "bashExecution":
        command, output = message.get("command"), message.get("output")
        return has_meaningful_text(f"{command if isinstance(command, str) else ''}\n{output if isinstance(output, str) else ''}")
    if role in SUMMARY_ROLES:
        summary = message.get("summary")
        return isinstance(summary, str) and has_meaningful_text(summary)
    return has_meaningful_message_content(message.get("content"))


def is_real_conversation_message(message: dict[str, Any], messages: list[dict[str, Any]], index: int) -> bool:
    """OpenClaw 2026.9 `isRealConversationMessage(message, messages, index)`."""
    role = message.get("role")
    if role in CONVERSATION_ROLES:
        return has_meaningful_conversation_content(message)
    if role != "toolResult":
        return False
    for j in range(index - 1, max(0, index - REAL_TOOL_RESULT_LOOKBACK) - 1, -1):
        candidate = messages[j]
        if candidate.get("role") in ANCHOR_ROLES and has_meaningful_conversation_content(candidate):
            return True
    return False


def is_runtime_context_custom_message(message: dict[str, Any]) -> bool:
    """`isOpenClawRuntimeContextCustomMessage`: the hidden runtime-context message the safeguard drops."""
    return message.get("role") == "custom" and message.get("customType") == RUNTIME_CONTEXT_CUSTOM_TYPE


def any_real_conversation(roles: list[str], load: Callable[[int], dict[str, Any]], kinds: list[tuple[str, ...]] | None = None) -> int | None:
    """`containsRealConversation(stripRuntimeContextCustomMessages(messages))`: the position (in `roles`) of the first
    real message, or None.

    `roles[i]` is each message's role; `load(i)` returns it (called only when needed: custom messages are all
    read, to drop the runtime-context ones). With `kinds` (each message's block types from the index), an assistant
    holding only tool calls / thinking is decided without a read.
    """
    kept = [i for i, role in enumerate(roles) if role != "custom" or not is_runtime_context_custom_message(load(i))]
    meaningful: dict[int, bool] = {}

    def real_content(i: int) -> bool:
        if i not in meaningful:
            k = kinds[i] if kinds is not None else ()
            if roles[i] == "assistant" and k and all(t in TOOL_CALL_BLOCK_TYPES or t in NON_CONVERSATION_BLOCK_TYPES for t in k):
                meaningful[i] = False
            else:
                meaningful[i] = has_meaningful_conversation_content(load(i))
        return meaningful[i]

    for pos, i in enumerate(kept):
        role = roles[i]
        if role in CONVERSATION_ROLES:
            if real_content(i):
                return i
        elif role == "toolResult":
            for q in range(pos - 1, max(0, pos - REAL_TOOL_RESULT_LOOKBACK) - 1, -1):
                if roles[kept[q]] in ANCHOR_ROLES and real_content(kept[q]):
                    return i
    return None


def nest_required_summary_headings(text: str) -> str:
    """`nestRequiredSummaryHeadings`: each line that is one of the required `## ` headings becomes `### `."""
    parts = _JS_LINE.split(text)
    for k in range(0, len(parts), 2):
        line = parts[k]
        if line.startswith("##") and js_trim(line) in REQUIRED_SUMMARY_SECTIONS:
            parts[k] = line.replace("##", "###", 1)
    return "".join(parts)


def normalize_previous_summary(previous_summary: Any) -> str | None:
    """The safeguard's `normalizeLegacySplitTurnSummary(preparation.previousSummary?.trim())`: trimmed, and the
    required headings after a split-turn section's heading nested (so they do not pass for the summary's own)."""
    if not isinstance(previous_summary, str):
        return None
    summary = js_trim(previous_summary)
    start = summary.find(SPLIT_TURN_SECTION_HEADING)
    if not summary or start < 0:
        return summary
    cut = start + len(SPLIT_TURN_SECTION_HEADING)
    return summary[:cut] + nest_required_summary_headings(summary[cut:])


def build_structured_fallback_summary(previous_summary: Any) -> str:
    """The boundary compaction's summary as the 2026.9 safeguard writes it: `buildStructuredFallbackSummary` of the
    normalized previous summary (`normalize_previous_summary`)."""
    return _fallback_4_12(normalize_previous_summary(previous_summary))


def _rows_real(session: Session, rows: list[m.ContextMessage]) -> bool:
    entries = session.entries
    return entries_real(session, [entries[r.entry_index] for r in rows], any_real_conversation, [r.role for r in rows])


def preparation_range(session: Session, ctx: m.SessionContext, prep: Preparation) -> list[m.ContextMessage]:
    """`collectPreparationRangeMessages`: the context of the branch up to (not including) the first kept entry
    (`buildSessionContext(branch.slice(0, firstKeptIndex))`), without its compaction summary."""
    pos = prep.first_kept_pos
    if pos <= 0 or pos >= len(ctx.path) or session.entries[ctx.path[pos]].id != prep.first_kept_entry_id:
        return []
    leaf_id = session.entries[ctx.path[pos - 1]].id
    if leaf_id is None:
        return []
    return [r for r in session.context(leaf_id).messages if r.role != "compactionSummary"]


def check_boundary(session: Session, ctx: m.SessionContext, prep: Preparation) -> BoundaryCheck:
    """The 2026.9 safeguard's decision (see the module docstring): the lists together, then the preparation range
    (summarized instead when real: `range_positions`), then the current context."""
    if positions_real(session, ctx.path, [*prep.summarize_pos, *prep.turn_prefix_pos], any_real_conversation):
        return BoundaryCheck(False)
    rows = preparation_range(session, ctx, prep)
    if _rows_real(session, rows):
        at = {e: k for k, e in enumerate(ctx.path[: prep.first_kept_pos])}
        entries = session.entries
        kept = [
            r for r in rows
            if r.entry_index in at and (r.role != "custom" or not is_runtime_context_custom_message(session.load_message(entries[r.entry_index]) or {}))
        ]
        return BoundaryCheck(False, [at[r.entry_index] for r in kept])
    return BoundaryCheck(not _rows_real(session, ctx.messages))
