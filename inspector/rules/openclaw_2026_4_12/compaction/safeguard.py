"""OpenClaw's safeguard compaction helpers, ported line by line (OpenClaw 2026.4, `src/agents/compaction.ts`,
`src/agents/pi-hooks/compaction-safeguard.ts`, `src/agents/session-transcript-repair.ts`; compiled in
`dist/model-context-tokens-*.js` and `dist/session-transcript-repair-*.js`).

They work on `SummaryItem` lists (role, size, tool-call ids) and return items, so every result can be
drawn back on the transcript. There is no runnable oracle for these: each function names the OpenClaw
function it reproduces, and the tests check hand-computed fixtures and properties.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem, synthetic_result, total_tokens

BASE_CHUNK_RATIO = 0.4
MIN_CHUNK_RATIO = 0.15
SAFETY_MARGIN = 1.2
SUMMARIZATION_OVERHEAD_TOKENS = 4096
DEFAULT_PARTS = 2
MIN_MESSAGES_FOR_SPLIT = 4
DEFAULT_MAX_HISTORY_SHARE = 0.5
OVERSIZED_SHARE = 0.5
DEFAULT_RECENT_TURNS_PRESERVE = 3
MAX_RECENT_TURNS_PRESERVE = 12
HISTORY_SHARE_TRIGGER_FACTOR = 1.2
"""The safeguard prunes history only when new content exceeds `floor(ctx * maxHistoryShare * 1.2)`."""


def normalize_parts(parts: float, message_count: int) -> int:
    """OpenClaw `normalizeParts(parts, messageCount)`."""
    if not math.isfinite(parts) or parts <= 1:
        return 1
    return min(max(1, math.floor(parts)), max(1, message_count))


def split_messages_by_token_share(messages: list[SummaryItem], parts: float = DEFAULT_PARTS) -> list[list[SummaryItem]]:
    """OpenClaw `splitMessagesByTokenShare`: about `total/parts` tokens per part, never between a toolCall and its results.

    A part closes before a message that would push it over the target, but not while tool-call ids await
    their results; when the results complete an over-target part, the split moves back to the assistant
    message that made the calls. Aborted/error assistants do not hold a split open.
    """
    if not messages:
        return []
    n_parts = normalize_parts(parts, len(messages))
    if n_parts <= 1:
        return [messages]
    target = total_tokens(messages) / n_parts
    chunks: list[list[SummaryItem]] = []
    current: list[SummaryItem] = []
    current_tokens = 0
    pending: set[str] = set()
    pending_start: int | None = None

    def split_at_pending() -> bool:
        nonlocal current, current_tokens, pending_start
        if pending_start is None or pending_start <= 0 or len(chunks) >= n_parts - 1:
            return False
        chunks.append(current[:pending_start])
        current = current[pending_start:]
        current_tokens = total_tokens(current)
        pending_start = 0
        return True

    for msg in messages:
        tokens = msg.tokens
        if not pending and len(chunks) < n_parts - 1 and current and current_tokens + tokens > target:
            chunks.append(current)
            current = []
            current_tokens = 0
            pending_start = None
        current.append(msg)
        current_tokens += tokens
        if msg.role == "assistant":
            keeps = msg.stop_reason not in ("aborted", "error") and len(msg.tool_call_ids) > 0
            pending = set(msg.tool_call_ids) if keeps else set()
            pending_start = len(current) - 1 if keeps else None
        elif msg.role == "toolResult" and pending:
            if not msg.tool_result_id:
                pending = set()
                pending_start = None
            else:
                pending.discard(msg.tool_result_id)
            if not pending and len(chunks) < n_parts - 1 and current_tokens > target:
                split_at_pending()
                pending_start = None
    if pending and current_tokens > target:
        split_at_pending()
    if current:
        chunks.append(current)
    return chunks


def chunk_messages_by_max_tokens(messages: list[SummaryItem], max_tokens: int) -> list[list[SummaryItem]]:
    """OpenClaw `chunkMessagesByMaxTokens`: chunks of at most `floor(max/1.2)` tokens; an over-limit message alone."""
    if not messages:
        return []
    effective = max(1, math.floor(max_tokens / SAFETY_MARGIN))
    chunks: list[list[SummaryItem]] = []
    current: list[SummaryItem] = []
    current_tokens = 0
    for msg in messages:
        tokens = msg.tokens
        if current and current_tokens + tokens > effective:
            chunks.append(current)
            current = []
            current_tokens = 0
        current.append(msg)
        current_tokens += tokens
        if tokens > effective:
            chunks.append(current)
            current = []
            current_tokens = 0
    if current:
        chunks.append(current)
    return chunks


def compute_adaptive_chunk_ratio(messages: list[SummaryItem], context_window: int) -> float:
    """OpenClaw `computeAdaptiveChunkRatio`: 0.4, lowered (to at least 0.15) when the average message is large.

    `avgRatio = total/len * 1.2 / ctx`; above 0.1 the ratio is `max(0.15, 0.4 - min(2*avgRatio, 0.25))`.
    """
    if not messages:
        return BASE_CHUNK_RATIO
    avg_ratio = total_tokens(messages) / len(messages) * SAFETY_MARGIN / context_window
    if avg_ratio > 0.1:
        reduction = min(avg_ratio * 2, BASE_CHUNK_RATIO - MIN_CHUNK_RATIO)
        return max(MIN_CHUNK_RATIO, BASE_CHUNK_RATIO - reduction)
    return BASE_CHUNK_RATIO


def legacy_adaptive_chunk_ratio(messages: list[SummaryItem], context_window: int) -> float:
    """The older published formula `max(0.15, 0.4 - avg/ctx)` (offered as a named alternative, not OpenClaw's code)."""
    if not messages:
        return BASE_CHUNK_RATIO
    avg = total_tokens(messages) / len(messages)
    return max(MIN_CHUNK_RATIO, BASE_CHUNK_RATIO - avg / context_window)


def max_chunk_tokens_for(context_window: int, ratio: float) -> int:
    """The safeguard's `maxChunkTokens = max(1, floor(ctx * ratio) - 4096)`."""
    return max(1, math.floor(context_window * ratio) - SUMMARIZATION_OVERHEAD_TOKENS)


def is_oversized_for_summary(msg: SummaryItem, context_window: int) -> bool:
    """OpenClaw `isOversizedForSummary`: `tokens * 1.2 > ctx * 0.5`."""
    return msg.tokens * SAFETY_MARGIN > context_window * OVERSIZED_SHARE


@dataclass(slots=True)
class PairingRepair:
    """OpenClaw `repairToolUseResultPairing`'s report."""

    messages: list[SummaryItem]
    added: list[SummaryItem] = field(default_factory=list)
    dropped_duplicate_count: int = 0
    dropped_orphan_count: int = 0
    moved: bool = False


def repair_tool_use_result_pairing(messages: list[SummaryItem]) -> PairingRepair:
    """OpenClaw `repairToolUseResultPairing` (default options): each assistant's tool results right after it.

    Results are moved up next to their call, duplicates and orphans are dropped, and a call without a result
    gets a synthetic error result. Aborted/error assistants keep the results they have and get no synthetic ones.
    """
    out: list[SummaryItem] = []
    added: list[SummaryItem] = []
    seen: set[str] = set()
    dup = 0
    orphans = 0
    moved = False
    changed = False

    def push_result(msg: SummaryItem) -> None:
        nonlocal dup, changed
        rid = msg.tool_result_id
        if rid and rid in seen:
            dup += 1
            changed = True
            return
        if rid:
            seen.add(rid)
        out.append(msg)

    i = 0
    n = len(messages)
    while i < n:
        msg = messages[i]
        if msg.role != "assistant":
            if msg.role != "toolResult":
                out.append(msg)
            else:
                orphans += 1
                changed = True
            i += 1
            continue
        calls = msg.tool_call_ids
        if not calls:
            out.append(msg)
            i += 1
            continue
        call_ids = set(calls)
        span: dict[str, SummaryItem] = {}
        remainder: list[SummaryItem] = []
        j = i + 1
        while j < n:
            nxt = messages[j]
            if nxt.role == "assistant":
                break
            if nxt.role == "toolResult":
                rid = nxt.tool_result_id
                if rid and rid in call_ids:
                    if rid in seen:
                        dup += 1
                        changed = True
                        j += 1
                        continue
                    if rid not in span:
                        span[rid] = nxt
                    j += 1
                    continue
            if nxt.role != "toolResult":
                remainder.append(nxt)
            else:
                orphans += 1
                changed = True
            j += 1
        if msg.stop_reason in ("error", "aborted"):
            out.append(msg)
            for cid in calls:
                result = span.get(cid)
                if result is not None:
                    push_result(result)
            out.extend(remainder)
            i = j
            continue
        out.append(msg)
        if span and remainder:
            moved = True
            changed = True
        for cid in calls:
            existing = span.get(cid)
            if existing is not None:
                push_result(existing)
            else:
                missing = synthetic_result(cid)
                added.append(missing)
                changed = True
                push_result(missing)
        out.extend(remainder)
        i = j
    changed_or_moved = changed or moved
    return PairingRepair(out if changed_or_moved else messages, added, dup, orphans, changed_or_moved)


@dataclass(slots=True)
class HistoryPrune:
    """OpenClaw `pruneHistoryForContextShare`'s result.

    `dropped` lists the messages of the dropped chunks (what gets summarized separately); orphaned tool
    results removed by the repair count in `dropped_messages` but are in no list, as in OpenClaw.
    """

    messages: list[SummaryItem]
    dropped: list[SummaryItem]
    dropped_chunks: int
    dropped_messages: int
    dropped_tokens: int
    kept_tokens: int
    budget_tokens: int
    orphaned: list[SummaryItem] = field(default_factory=list)


def prune_history_for_context_share(
    messages: list[SummaryItem], max_context_tokens: int, max_history_share: float = DEFAULT_MAX_HISTORY_SHARE, parts: int = DEFAULT_PARTS
) -> HistoryPrune:
    """OpenClaw `pruneHistoryForContextShare`: drop the oldest token-share chunk until the rest fits `floor(ctx*share)`."""
    budget = max(1, math.floor(max_context_tokens * max_history_share))
    kept = messages
    dropped_all: list[SummaryItem] = []
    orphaned: list[SummaryItem] = []
    dropped_chunks = 0
    dropped_messages = 0
    dropped_tokens = 0
    n_parts = normalize_parts(parts, len(kept))
    while kept and total_tokens(kept) > budget:
        chunks = split_messages_by_token_share(kept, n_parts)
        if len(chunks) <= 1:
            break
        dropped, rest = chunks[0], [msg for chunk in chunks[1:] for msg in chunk]
        repair = repair_tool_use_result_pairing(rest)
        if repair.dropped_orphan_count:
            survivors = {id(x) for x in repair.messages}
            orphaned.extend(x for x in rest if x.role == "toolResult" and id(x) not in survivors)
        dropped_chunks += 1
        dropped_messages += len(dropped) + repair.dropped_orphan_count
        dropped_tokens += total_tokens(dropped)
        dropped_all.extend(dropped)
        kept = repair.messages
    return HistoryPrune(kept, dropped_all, dropped_chunks, dropped_messages, dropped_tokens, total_tokens(kept), budget, orphaned)


def clamp_non_negative_int(value: object, fallback: int) -> int:
    """OpenClaw `clampNonNegativeInt`."""
    v = value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else fallback
    return max(0, math.floor(v))


def resolve_recent_turns_preserve(value: object) -> int:
    """OpenClaw `resolveRecentTurnsPreserve`: the configured number of turns, default 3, at most 12."""
    return min(MAX_RECENT_TURNS_PRESERVE, clamp_non_negative_int(value, DEFAULT_RECENT_TURNS_PRESERVE))


@dataclass(slots=True)
class PreservedSplit:
    """OpenClaw `splitPreservedRecentTurns`'s result: what is summarized, and what is kept verbatim."""

    summarizable: list[SummaryItem]
    preserved: list[SummaryItem]


def split_preserved_recent_turns(messages: list[SummaryItem], recent_turns_preserve: object) -> PreservedSplit:
    """OpenClaw `splitPreservedRecentTurns`: the last N user turns (user + assistant messages and their tool
    results) leave the summarizer input and are rendered verbatim; pairing is repaired on the rest.

    With fewer user messages than N, every user message and the last `2N` conversation messages are kept.
    """
    preserve = min(MAX_RECENT_TURNS_PRESERVE, clamp_non_negative_int(recent_turns_preserve, 0))
    if preserve <= 0:
        return PreservedSplit(messages, [])
    conversation = [i for i, msg in enumerate(messages) if msg.role in ("user", "assistant")]
    users = [i for i in conversation if messages[i].role == "user"]
    if not conversation:
        return PreservedSplit(messages, [])
    keep: set[int] = set()
    if len(users) >= preserve:
        boundary = users[len(users) - preserve]
        keep.update(i for i in conversation if i >= boundary)
    else:
        fallback = preserve * 2
        keep.update(users)
        for i in reversed(conversation):
            keep.add(i)
            if len(keep) >= fallback:
                break
    if not keep:
        return PreservedSplit(messages, [])
    call_ids: set[str] = set()
    for i in sorted(keep):
        if messages[i].role == "assistant":
            call_ids.update(messages[i].tool_call_ids)
    if call_ids:
        start = min(keep)
        for i in range(start, len(messages)):
            msg = messages[i]
            if msg.role == "toolResult" and msg.tool_result_id and msg.tool_result_id in call_ids:
                keep.add(i)
    rest = [msg for i, msg in enumerate(messages) if i not in keep]
    preserved = [msg for i, msg in enumerate(messages) if i in keep and msg.role in ("user", "assistant", "toolResult")]
    return PreservedSplit(repair_tool_use_result_pairing(rest).messages, preserved)
