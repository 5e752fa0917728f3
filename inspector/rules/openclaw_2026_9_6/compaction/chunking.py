"""How OpenClaw 2026.9.6's `summarizeInStages` would cut one summarizer input: the stage split, then chunks.

`plan_chunking` follows `summarizeInStages` → `summarizeWithFallback` → `summarizeChunks` (`builtin-openclaw-*.mjs`,
`src/agents/compaction.ts`) with the planning helpers of `inspector.rules.openclaw_2026_9_6.compaction.safeguard`:
the stage split (`buildStageSplitPlan`: at least 4 messages, more tokens than `maxChunkTokens`, at most 2 parts
of whole tool-call groups) replaces 2026.4.12's token-share parts; each part (or the whole input) is cut into
chunks of whole tool-call groups (`buildSummaryChunks`), one LLM call each, and the part summaries are merged
by one more summarization. The result is 2026.4.12's `Chunking` (its `token_share_parts` hold the stage parts).
"""

from __future__ import annotations

import math

from inspector.rules.openclaw_2026_4_12.compaction.chunking import RATIO_FORMULAS, Chunking, ChunkPlan, PartPlan
from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem, total_tokens
from inspector.rules.openclaw_2026_9_6.compaction.safeguard import (
    DEFAULT_PARTS,
    MIN_MESSAGES_FOR_SPLIT,
    SAFETY_MARGIN,
    build_stage_split_plan,
    chunk_messages_by_max_tokens,
    compute_adaptive_chunk_ratio,
    is_oversized_for_summary,
    legacy_adaptive_chunk_ratio,
    max_chunk_tokens_for,
)

__all__ = ["RATIO_FORMULAS", "ChunkPlan", "Chunking", "PartPlan", "plan_chunking"]

SPLIT_KIND = "stage_split"
"""What `Chunking.token_share_parts` holds under 2026.9: the stage split's parts (whole tool-call groups)."""


def _positions(items: list[SummaryItem]) -> list[int]:
    return [it.position for it in items if it.position is not None]


def plan_chunking(
    name: str,
    items: list[SummaryItem],
    context_window: int,
    ratio_basis: list[SummaryItem] | None = None,
    ratio_formula: str = "openclaw",
    max_chunk_tokens: int | None = None,
) -> Chunking:
    """Stage parts and chunks of `items` as 2026.9's `summarizeInStages(messages, maxChunkTokens)` cuts them.

    `max_chunk_tokens` defaults to `max(1, floor(ctx * ratio) - 4096)` with the ratio computed on `ratio_basis`
    (default: `items`); the safeguard passes the history summary's limit to the turn prefix too.
    """
    basis = items if ratio_basis is None else ratio_basis
    openclaw_ratio = compute_adaptive_chunk_ratio(basis, context_window)
    legacy_ratio = legacy_adaptive_chunk_ratio(basis, context_window)
    ratio = legacy_ratio if ratio_formula == "legacy" else openclaw_ratio
    limit = max_chunk_tokens if max_chunk_tokens is not None else max_chunk_tokens_for(context_window, ratio)
    total = total_tokens(items)
    plan = Chunking(
        input=name,
        message_count=len(items),
        total_tokens=total,
        ratio_formula=ratio_formula,
        adaptive_chunk_ratio=ratio,
        legacy_chunk_ratio=legacy_ratio,
        ratio_basis_messages=len(basis),
        ratio_basis_tokens=total_tokens(basis),
        max_chunk_tokens=limit,
        chunk_limit_tokens=max(1, math.floor(limit / SAFETY_MARGIN)),
        staged=False,
        stage_reason="",
        oversized=[it.position for it in items if it.position is not None and is_oversized_for_summary(it, context_window)],
    )
    if not items:
        plan.stage_reason = "no messages: nothing is summarized"
        return plan
    split = build_stage_split_plan(items, limit, DEFAULT_PARTS, MIN_MESSAGES_FOR_SPLIT)
    if split.mode == "split":
        plan.staged = True
        plan.stage_reason = (
            f"{total:,} tokens over max_chunk_tokens {limit:,}: stage split into {len(split.chunks)} parts of whole "
            "tool-call groups, then a merge"
        )
    elif len(items) < MIN_MESSAGES_FOR_SPLIT:
        plan.stage_reason = f"fewer than {MIN_MESSAGES_FOR_SPLIT} messages: one pass"
    elif total <= limit:
        plan.stage_reason = f"{total:,} tokens fit max_chunk_tokens {limit:,}: one pass"
    else:
        plan.stage_reason = "the stage split gave one part (one tool-call group): one pass"
    groups: list[tuple[int | None, list[SummaryItem]]] = list(enumerate(split.chunks)) if split.mode == "split" else [(None, items)]
    for part, group in groups:
        if part is not None:
            plan.token_share_parts.append(PartPlan(part, _positions(group), sum(1 for it in group if it.synthetic), total_tokens(group)))
        for chunk in chunk_messages_by_max_tokens(group, limit):
            plan.chunks.append(
                ChunkPlan(
                    index=len(plan.chunks),
                    part=part,
                    positions=_positions(chunk),
                    synthetic_tool_results=sum(1 for it in chunk if it.synthetic),
                    tokens=total_tokens(chunk),
                    oversized=[it.position for it in chunk if it.position is not None and is_oversized_for_summary(it, context_window)],
                )
            )
    return plan
