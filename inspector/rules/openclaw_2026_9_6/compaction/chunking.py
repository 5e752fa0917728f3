"""How OpenClaw 2026.9.6's `summarizeInStages` would cut one summarizer input: the stage split, then chunks.

`plan_chunking` follows `summarizeInStages` → `summarizeWithFallback` → `summarizeChunks` (`builtin-openclaw-*.mjs`,
`src/agents/compaction.ts`) with the planning helpers of `inspector.rules.openclaw_2026_9_6.compaction.safeguard`:
the stage split (`buildStageSplitPlan`: at least 4 messages, more tokens than `maxChunkTokens`, at most 2 parts
of whole tool-call groups) replaces 2026.4.12's token-share parts; each part (or the whole input) is cut into
chunks of whole tool-call groups (`buildSummaryChunks`), one LLM call each, and the part summaries are merged
by one more summarization. The result is 2026.4.12's `Chunking` (its `token_share_parts` hold the stage parts),
started and filled by 2026.4.12's `start_chunking` / `add_chunks` (the ratio, the limit and the chunk rows are unchanged).
"""

from __future__ import annotations

from inspector.rules.openclaw_2026_4_12.compaction.chunking import (
    RATIO_FORMULAS,
    Chunking,
    ChunkPlan,
    PartPlan,
    add_chunks,
    start_chunking,
)
from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem
from inspector.rules.openclaw_2026_9_6.compaction.safeguard import (
    DEFAULT_PARTS,
    MIN_MESSAGES_FOR_SPLIT,
    build_stage_split_plan,
    chunk_messages_by_max_tokens,
)

__all__ = ["RATIO_FORMULAS", "ChunkPlan", "Chunking", "PartPlan", "plan_chunking"]

SPLIT_KIND = "stage_split"
"""What `Chunking.token_share_parts` holds under 2026.9: the stage split's parts (whole tool-call groups)."""


def plan_chunking(
    name: str,
    items: list[SummaryItem],
    context_window: int,
    ratio_basis: list[SummaryItem] | None = None,
    ratio_formula: str = "openclaw",
    max_chunk_tokens: int | None = None,
) -> Chunking:
    """Stage parts and chunks of `items` as 2026.9's `summarizeInStages(messages, maxChunkTokens)` cuts them, with
    the ratio and the limit of `start_chunking` (the safeguard passes the history summary's limit to the turn
    prefix too)."""
    plan = start_chunking(name, items, context_window, ratio_basis, ratio_formula, max_chunk_tokens)
    if not items:
        return plan
    total, limit = plan.total_tokens, plan.max_chunk_tokens
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
    return add_chunks(plan, items, split.chunks if split.mode == "split" else [], context_window, chunk_messages_by_max_tokens)
