"""OpenClaw 2026.9.6's compaction planning helpers (`dist/compaction-planning-*.mjs`,
`src/agents/compaction-planning.ts`), on `SummaryItem` lists as 2026.4.12's are.

What changed since 2026.4.12: messages are grouped so that an assistant's tool calls and their results are never
separated (`for_each_message_group`: a group closes once every call of the latest assistant has a result; an
aborted / error assistant opens none; a result without an id closes it). Chunks are made of whole groups
(`chunk_message_groups`, `chunk_messages_by_max_tokens` = `buildSummaryChunks`); the token-share split is
replaced by the stage split (`build_stage_split_plan`: at most `parts` groups-chunks of `total / parts` tokens);
the history-share prune drops the stage split's first chunk (with the results the pairing repair then
discards) while more than one chunk remains over the budget; the oversized fallback omits a whole tool batch
when one of its messages is oversized (`build_oversized_fallback_plan`).

New names: `for_each_message_group`, `chunk_message_groups`, `StageSplit`, `build_stage_split_plan`,
`OversizedFallback`, `build_oversized_fallback_plan`. Unchanged helpers are 2026.4.12's, imported.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem, total_tokens
from inspector.rules.openclaw_2026_4_12.compaction.safeguard import (
    BASE_CHUNK_RATIO,
    DEFAULT_PARTS,
    DEFAULT_RECENT_TURNS_PRESERVE,
    HISTORY_SHARE_TRIGGER_FACTOR,
    MAX_RECENT_TURNS_PRESERVE,
    MIN_CHUNK_RATIO,
    MIN_MESSAGES_FOR_SPLIT,
    OVERSIZED_SHARE,
    SAFETY_MARGIN,
    SUMMARIZATION_OVERHEAD_TOKENS,
    HistoryPrune,
    PairingRepair,
    PreservedSplit,
    clamp_non_negative_int,
    compute_adaptive_chunk_ratio,
    is_oversized_for_summary,
    legacy_adaptive_chunk_ratio,
    max_chunk_tokens_for,
    normalize_parts,
    repair_tool_use_result_pairing,
    resolve_recent_turns_preserve,
    split_preserved_recent_turns,
)

__all__ = [
    "BASE_CHUNK_RATIO",
    "DEFAULT_PARTS",
    "DEFAULT_RECENT_TURNS_PRESERVE",
    "HISTORY_SHARE_TRIGGER_FACTOR",
    "MAX_RECENT_TURNS_PRESERVE",
    "MIN_CHUNK_RATIO",
    "MIN_MESSAGES_FOR_SPLIT",
    "OVERSIZED_SHARE",
    "SAFETY_MARGIN",
    "SUMMARIZATION_OVERHEAD_TOKENS",
    "HistoryPrune",
    "PairingRepair",
    "PreservedSplit",
    "clamp_non_negative_int",
    "compute_adaptive_chunk_ratio",
    "is_oversized_for_summary",
    "legacy_adaptive_chunk_ratio",
    "max_chunk_tokens_for",
    "normalize_parts",
    "repair_tool_use_result_pairing",
    "resolve_recent_turns_preserve",
    "split_preserved_recent_turns",
]

DEFAULT_MAX_HISTORY_SHARE = 0.5
"""Fixed in 2026.9 (the config key is retired)."""


def for_each_message_group(messages: list[SummaryItem]) -> Iterator[tuple[int, int, int]]:
    """`forEachCompactionMessageGroup`: `(start, end, tokens)` of each group, in order.

    A group closes after a message when no tool call of the latest assistant awaits its result (each result
    claims one pending occurrence of its id; a result without an id clears them all)."""
    start = 0
    tokens = 0
    pending: Counter[str] = Counter()
    for index, msg in enumerate(messages):
        tokens += msg.tokens
        if msg.role == "assistant":
            pending = Counter() if msg.stop_reason in ("aborted", "error") else Counter(msg.tool_call_ids)
        elif msg.role == "toolResult" and pending:
            if msg.tool_result_id:
                if pending[msg.tool_result_id] > 0:
                    pending[msg.tool_result_id] -= 1
                    if pending[msg.tool_result_id] == 0:
                        del pending[msg.tool_result_id]
            else:
                pending = Counter()
        if not pending:
            yield start, index + 1, tokens
            start = index + 1
            tokens = 0
    if start < len(messages):
        yield start, len(messages), tokens


def chunk_message_groups(messages: list[SummaryItem], max_tokens: float, max_chunks: float = math.inf) -> list[list[SummaryItem]]:
    """`chunkCompactionMessageGroups`: whole groups per chunk; a chunk closes before a group that would push it
    over `max_tokens` (a lone over-limit group stays one chunk), and the last of `max_chunks` takes the rest."""
    chunks: list[list[SummaryItem]] = []
    chunk_start = 0
    current = 0
    for start, _end, tokens in for_each_message_group(messages):
        if start > chunk_start and len(chunks) < max_chunks - 1 and current + tokens > max_tokens:
            chunks.append(messages[chunk_start:start])
            chunk_start = start
            current = 0
        current += tokens
    if chunk_start < len(messages):
        chunks.append(messages[chunk_start:])
    return chunks


def chunk_messages_by_max_tokens(messages: list[SummaryItem], max_tokens: int) -> list[list[SummaryItem]]:
    """`buildSummaryChunks({messages, maxChunkTokens})`: groups-chunks of at most `floor(max / 1.2)` tokens."""
    return chunk_message_groups(messages, max(1, math.floor(max_tokens / SAFETY_MARGIN)))


@dataclass(slots=True)
class StageSplit:
    """`buildStageSplitPlan`'s result: `single` (one pass), or `split` with its chunks (the stage parts)."""

    mode: str
    chunks: list[list[SummaryItem]] = field(default_factory=list)


def build_stage_split_plan(
    messages: list[SummaryItem], max_chunk_tokens: float, parts: float = DEFAULT_PARTS, min_messages_for_split: int = MIN_MESSAGES_FOR_SPLIT
) -> StageSplit:
    """`buildStageSplitPlan`: split into at most `parts` groups-chunks of `total / parts` tokens when there are
    at least `max(2, min_messages_for_split)` messages and more than `max_chunk_tokens` tokens."""
    minimum = max(2, min_messages_for_split)
    n_parts = normalize_parts(parts, len(messages))
    if n_parts <= 1 or len(messages) < minimum:
        return StageSplit("single")
    total = total_tokens(messages)
    if total <= max_chunk_tokens:
        return StageSplit("single")
    chunks = chunk_message_groups(messages, total / n_parts, n_parts)
    return StageSplit("split", chunks) if len(chunks) > 1 else StageSplit("single")


def prune_history_for_context_share(
    messages: list[SummaryItem], max_context_tokens: int, max_history_share: float = DEFAULT_MAX_HISTORY_SHARE, parts: int = DEFAULT_PARTS
) -> HistoryPrune:
    """2026.9 `pruneHistoryForContextShare`: while the stage split (2 messages at least) of what is kept over
    `floor(ctx * share)` has several chunks, drop its first; the results the pairing repair discards from the
    rest are dropped too (`orphaned`, also counted in `dropped`, in input order)."""
    budget = max(1, math.floor(max_context_tokens * max_history_share))
    kept = messages
    dropped_all: list[SummaryItem] = []
    orphaned: list[SummaryItem] = []
    dropped_chunks = 0
    n_parts = normalize_parts(parts, len(kept))
    while kept:
        split = build_stage_split_plan(kept, budget, n_parts, 2)
        if split.mode == "single":
            break
        dropped, rest = split.chunks[0], [msg for chunk in split.chunks[1:] for msg in chunk]
        repair = repair_tool_use_result_pairing(rest)
        survivors = {id(x) for x in repair.messages}
        discarded = [x for x in rest if x.role == "toolResult" and id(x) not in survivors]
        orphaned.extend(discarded)
        dropped_chunks += 1
        dropped_all.extend(dropped)
        dropped_all.extend(discarded)
        kept = repair.messages
    order = {id(x): k for k, x in enumerate(messages)}
    dropped_all.sort(key=lambda x: order.get(id(x), len(messages)))
    return HistoryPrune(kept, dropped_all, dropped_chunks, len(dropped_all), total_tokens(dropped_all), total_tokens(kept), budget, orphaned)


@dataclass(slots=True)
class OversizedFallback:
    """`buildOversizedFallbackPlan`'s result: the messages summarized when the full pass failed, and the notes
    (`[Large toolResult (~60K tokens) omitted from summary]`) appended for the omitted ones."""

    small: list[SummaryItem]
    notes: list[str]


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def build_oversized_fallback_plan(messages: list[SummaryItem], context_window: int) -> OversizedFallback:
    """`buildOversizedFallbackPlan`: per group, oversized messages (`tokens * 1.2 > ctx * 0.5`) are noted and
    left out; when one of them is an assistant or a tool result, the group's assistant and tool results go too."""
    small: list[SummaryItem] = []
    notes: list[str] = []
    threshold = context_window * OVERSIZED_SHARE
    for start, end, _tokens in for_each_message_group(messages):
        omit_batch = False
        for msg in messages[start:end]:
            if msg.tokens * SAFETY_MARGIN > threshold:
                notes.append(f"[Large {msg.role} (~{_js_round(msg.tokens / 1000)}K tokens) omitted from summary]")
                omit_batch = omit_batch or msg.role in ("assistant", "toolResult")
        for msg in messages[start:end]:
            if msg.tokens * SAFETY_MARGIN > threshold:
                continue
            if not omit_batch or msg.role not in ("assistant", "toolResult"):
                small.append(msg)
    return OversizedFallback(small, notes)
