"""How OpenClaw's `summarizeInStages` would cut one summarizer input: token-share parts, then chunks.

`plan_chunking` follows OpenClaw 2026.4 `summarizeInStages` → `summarizeWithFallback` → `summarizeChunks`
(`src/agents/compaction.ts`): with 2 parts, at least 4 messages and more tokens than `maxChunkTokens`, the input
is split by token share, each part is chunked and summarized (one LLM call per chunk, the running summary
passed along), and the part summaries are merged by one more summarization; otherwise the whole input is
chunked. Every position refers to the list the input came from (`messages_to_summarize`, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from inspector.rules.compaction_terms import RATIO_FORMULAS  # noqa: F401  (the shared choice of formulas)
from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem, total_tokens
from inspector.rules.openclaw_2026_4_12.compaction.safeguard import (
    DEFAULT_PARTS,
    MIN_MESSAGES_FOR_SPLIT,
    SAFETY_MARGIN,
    chunk_messages_by_max_tokens,
    compute_adaptive_chunk_ratio,
    is_oversized_for_summary,
    legacy_adaptive_chunk_ratio,
    max_chunk_tokens_for,
    normalize_parts,
    split_messages_by_token_share,
)


def _positions(items: list[SummaryItem]) -> list[int]:
    return [it.position for it in items if it.position is not None]


@dataclass(frozen=True, slots=True)
class PartPlan:
    """One token-share part (`splitMessagesByTokenShare`)."""

    index: int
    positions: list[int]
    synthetic_tool_results: int
    tokens: int

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "positions": self.positions,
            "message_count": len(self.positions) + self.synthetic_tool_results,
            "synthetic_tool_results": self.synthetic_tool_results,
            "tokens": self.tokens,
        }


@dataclass(frozen=True, slots=True)
class ChunkPlan:
    """One chunk (`chunkMessagesByMaxTokens`): one LLM call. `part` is None when the input was not split."""

    index: int
    part: int | None
    positions: list[int]
    synthetic_tool_results: int
    tokens: int
    oversized: list[int]

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "part": self.part,
            "positions": self.positions,
            "message_count": len(self.positions) + self.synthetic_tool_results,
            "synthetic_tool_results": self.synthetic_tool_results,
            "tokens": self.tokens,
            "oversized": self.oversized,
        }


@dataclass(slots=True)
class Chunking:
    """The parts and chunks of one summarizer input, with the numbers that decided them.

    `adaptive_chunk_ratio` is computed on `ratio_basis_tokens` / `ratio_basis_messages` (for the history
    summary OpenClaw includes the turn prefix); `legacy_chunk_ratio` is the older formula, for comparison.
    `llm_calls` counts chunk calls plus one merge call when the input is staged (the merge itself could need
    more than one chunk if the part summaries are very long).
    """

    input: str
    message_count: int
    total_tokens: int
    ratio_formula: str
    adaptive_chunk_ratio: float
    legacy_chunk_ratio: float
    ratio_basis_messages: int
    ratio_basis_tokens: int
    max_chunk_tokens: int
    chunk_limit_tokens: int
    staged: bool
    stage_reason: str
    token_share_parts: list[PartPlan] = field(default_factory=list)
    chunks: list[ChunkPlan] = field(default_factory=list)
    oversized: list[int] = field(default_factory=list)

    @property
    def llm_calls(self) -> int:
        return len(self.chunks) + (1 if self.staged else 0)

    def to_json(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "message_count": self.message_count,
            "total_tokens": self.total_tokens,
            "ratio_formula": self.ratio_formula,
            "adaptive_chunk_ratio": self.adaptive_chunk_ratio,
            "legacy_chunk_ratio": self.legacy_chunk_ratio,
            "ratio_basis_messages": self.ratio_basis_messages,
            "ratio_basis_tokens": self.ratio_basis_tokens,
            "max_chunk_tokens": self.max_chunk_tokens,
            "chunk_limit_tokens": self.chunk_limit_tokens,
            "staged": self.staged,
            "stage_reason": self.stage_reason,
            "token_share_parts": [p.to_json() for p in self.token_share_parts],
            "chunks": [c.to_json() for c in self.chunks],
            "oversized": self.oversized,
            "llm_calls": self.llm_calls,
        }


def start_chunking(
    name: str,
    items: list[SummaryItem],
    context_window: int,
    ratio_basis: list[SummaryItem] | None = None,
    ratio_formula: str = "openclaw",
    max_chunk_tokens: int | None = None,
) -> Chunking:
    """The `Chunking` of `items` before its parts are decided: the chunk ratio (computed on `ratio_basis`, default
    `items`), `max_chunk_tokens` (default `max(1, floor(ctx * ratio) - 4096)`), the oversized messages; not staged.
    Every release's `plan_chunking` starts here (the ratio and the limit are unchanged in 2026.9)."""
    basis = items if ratio_basis is None else ratio_basis
    openclaw_ratio = compute_adaptive_chunk_ratio(basis, context_window)
    legacy_ratio = legacy_adaptive_chunk_ratio(basis, context_window)
    ratio = legacy_ratio if ratio_formula == "legacy" else openclaw_ratio
    limit = max_chunk_tokens if max_chunk_tokens is not None else max_chunk_tokens_for(context_window, ratio)
    return Chunking(
        input=name,
        message_count=len(items),
        total_tokens=total_tokens(items),
        ratio_formula=ratio_formula,
        adaptive_chunk_ratio=ratio,
        legacy_chunk_ratio=legacy_ratio,
        ratio_basis_messages=len(basis),
        ratio_basis_tokens=total_tokens(basis),
        max_chunk_tokens=limit,
        chunk_limit_tokens=max(1, math.floor(limit / SAFETY_MARGIN)),
        staged=False,
        stage_reason="" if items else "no messages: nothing is summarized",
        oversized=[it.position for it in items if it.position is not None and is_oversized_for_summary(it, context_window)],
    )


def add_chunks(
    plan: Chunking,
    items: list[SummaryItem],
    parts: list[list[SummaryItem]],
    context_window: int,
    chunk: Callable[[list[SummaryItem], int], list[list[SummaryItem]]] = chunk_messages_by_max_tokens,
) -> Chunking:
    """Fill `plan` with its `parts` (`token_share_parts`; none: `items` is one pass) and the chunks `chunk` cuts
    each part (or `items`) into with the plan's `max_chunk_tokens`, one LLM call each."""
    groups: list[tuple[int | None, list[SummaryItem]]] = list(enumerate(parts)) if parts else [(None, items)]
    for part, group in groups:
        if part is not None:
            plan.token_share_parts.append(PartPlan(part, _positions(group), sum(1 for it in group if it.synthetic), total_tokens(group)))
        for piece in chunk(group, plan.max_chunk_tokens):
            plan.chunks.append(
                ChunkPlan(
                    index=len(plan.chunks),
                    part=part,
                    positions=_positions(piece),
                    synthetic_tool_results=sum(1 for it in piece if it.synthetic),
                    tokens=total_tokens(piece),
                    oversized=[it.position for it in piece if it.position is not None and is_oversized_for_summary(it, context_window)],
                )
            )
    return plan


def plan_chunking(
    name: str,
    items: list[SummaryItem],
    context_window: int,
    ratio_basis: list[SummaryItem] | None = None,
    ratio_formula: str = "openclaw",
    max_chunk_tokens: int | None = None,
) -> Chunking:
    """Parts and chunks of `items` as `summarizeInStages(messages, maxChunkTokens)` cuts them.

    `max_chunk_tokens` defaults to `max(1, floor(ctx * ratio) - 4096)` with the ratio computed on `ratio_basis`
    (default: `items`); pass it to reuse the history summary's limit (OpenClaw does for the turn prefix).
    """
    plan = start_chunking(name, items, context_window, ratio_basis, ratio_formula, max_chunk_tokens)
    if not items:
        return plan
    total, limit = plan.total_tokens, plan.max_chunk_tokens
    parts = normalize_parts(DEFAULT_PARTS, len(items))
    splits: list[list[SummaryItem]] = []
    if len(items) < MIN_MESSAGES_FOR_SPLIT:
        plan.stage_reason = f"fewer than {MIN_MESSAGES_FOR_SPLIT} messages: one pass"
    elif total <= limit:
        plan.stage_reason = f"{total:,} tokens fit max_chunk_tokens {limit:,}: one pass"
    elif parts <= 1:
        plan.stage_reason = "a single part: one pass"
    else:
        splits = [s for s in split_messages_by_token_share(items, parts) if s]
        if len(splits) <= 1:
            plan.stage_reason = "the token-share split gave one part: one pass"
            splits = []
        else:
            plan.staged = True
            plan.stage_reason = f"{total:,} tokens over max_chunk_tokens {limit:,}: {len(splits)} token-share parts, then a merge"
    return add_chunks(plan, items, splits, context_window)
