"""OpenClaw's "nothing real to summarize" case: a boundary compaction instead of a summary (issue #41981).

Ported from OpenClaw 2026.4 (`dist/model-context-tokens-*.js`): `isRealConversationMessage`,
`hasMeaningfulConversationContent`, `hasMeaningfulText` (with `isSilentReplyText` from
`src/auto-reply/tokens.ts` and `stripHeartbeatToken` in `"message"` mode, `inspector.rules.openclaw_2026_4_12.heartbeat`),
and `buildStructuredFallbackSummary` / `hasRequiredSummarySections` for the summary the boundary carries.
`check_boundary` is the safeguard's decision for a preparation (the forecast's `boundary_only`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.js.utf16 import JS_WHITESPACE_CLASS, js_trim
from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.heartbeat import strip_heartbeat_token
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.compaction.prepare import Preparation

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


@dataclass(frozen=True, slots=True)
class BoundaryCheck:
    """The safeguard's "anything real to summarize?" decision for a preparation.

    `boundary_only`: nothing real, a boundary compaction (`buildStructuredFallbackSummary`) is written with no
    model call. `range_positions` (2026.9 on): the preparation's lists held nothing real but the boundary-scoped
    range before the kept tail does, so the safeguard summarizes that range (these path positions) instead of
    both lists (no turn prefix then); None when the preparation's lists are summarized as they are."""

    boundary_only: bool
    range_positions: list[int] | None = None


AnyReal = Callable[[list[str], Callable[[int], dict[str, Any]], "list[tuple[str, ...]] | None"], "int | None"]


def role_of(entry: m.Entry) -> str:
    """The role of the message a path entry contributes (a custom message's `custom`, a branch summary's)."""
    if entry.type == m.CUSTOM_MESSAGE:
        return "custom"
    if entry.type == m.BRANCH_SUMMARY:
        return "branchSummary"
    return entry.role or "?"


def entries_real(session: Session, picked: Sequence[m.Entry], any_real: AnyReal, roles: Sequence[str] | None = None) -> bool:
    """`any_real` (a release's `any_real_conversation`) over the messages of these entries (`roles`: theirs,
    default `role_of` each), reading from disk only the messages whose content decides."""

    def load(i: int) -> dict[str, Any]:
        return session.load_message(picked[i]) or {}

    names = list(roles) if roles is not None else [role_of(e) for e in picked]
    return any_real(names, load, [e.block_kinds for e in picked]) is not None


def positions_real(session: Session, path: Sequence[int], positions: Sequence[int], any_real: AnyReal) -> bool:
    """`entries_real` of the entries at these path positions."""
    entries = session.entries
    return entries_real(session, [entries[path[p]] for p in positions], any_real)


def check_boundary(session: Session, ctx: m.SessionContext, prep: Preparation) -> BoundaryCheck:
    """2026.4.12's safeguard: a boundary only when neither `messagesToSummarize` nor `turnPrefixMessages`, each
    looked at on its own, holds a real conversation message."""
    real = positions_real(session, ctx.path, prep.summarize_pos, any_real_conversation) or positions_real(
        session, ctx.path, prep.turn_prefix_pos, any_real_conversation
    )
    return BoundaryCheck(not real)
