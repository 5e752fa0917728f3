"""The compaction forecast as row marks: `plan_marks(plan, ctx)` turns a `CompactionPlan` into `inspector.figures.marks` pieces.

Each forecast kind gets its own list (so a UI swaps them with `RowMarks.replacing(kind, marks)`): the cut point
(the first kept row), the kept tail (from the cut point to the leaf), the split-turn prefix, the part and chunk
boundaries (on the first row of each part / chunk, with its tokens), the oversized messages and the messages the
history-share prune drops. Every mark's payload is a `ForecastMark` (a label and the tokens it speaks of), so the
transcript can write the label on the rule it draws. A plan with nothing to plan gives no marks at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.figures.forecast.plan import KEPT, SUMMARIZED, TURN_PREFIX, CompactionPlan, ContextRole
from inspector.figures.marks import MarkKind, RowMark
from inspector.model import entries as m

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.compaction.chunking import Chunking

FORECAST_KINDS: tuple[MarkKind, ...] = (
    MarkKind.CUT_POINT,
    MarkKind.KEPT_TAIL,
    MarkKind.SPLIT_TURN_PREFIX,
    MarkKind.CHUNK_BOUNDARY,
    MarkKind.PART_BOUNDARY,
    MarkKind.OVERSIZED,
    MarkKind.DROPPED_BY_HISTORY_SHARE,
)
"""Every kind a forecast fills (a UI clears exactly these when the forecast goes away)."""


@dataclass(frozen=True, slots=True)
class ForecastMark:
    """The payload of a forecast mark: a short `label` for the UI and the `tokens` it speaks of (or None)."""

    label: str
    tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "tokens": self.tokens}


def _entry_index(ctx: m.SessionContext, row: ContextRole) -> int:
    return ctx.messages[row.context_index].entry_index


def _boundaries(
    ctx: m.SessionContext, rows: list[ContextRole], plan_kind: str, chunking: Chunking | None, what: str
) -> tuple[list[RowMark], list[RowMark]]:
    """(chunk boundaries, part boundaries) of one summarizer input (`plan_kind` rows, positions of `chunking`)."""
    if chunking is None:
        return [], []
    by_position = {r.position: r for r in rows if r.plan == plan_kind and r.position is not None}
    chunks: list[RowMark] = []
    total = len(chunking.chunks)
    for c in chunking.chunks:
        row = next((by_position[p] for p in c.positions if p in by_position), None)
        if row is None:
            continue
        label = f"{what}chunk {c.index + 1}/{total} · {c.tokens:,} tok"
        chunks.append(RowMark(MarkKind.CHUNK_BOUNDARY, _entry_index(ctx, row), ForecastMark(label, c.tokens)))
    parts: list[RowMark] = []
    for part in chunking.token_share_parts:
        row = next((by_position[p] for p in part.positions if p in by_position), None)
        if row is None:
            continue
        label = f"{what}part {part.index + 1}/{len(chunking.token_share_parts)} · {part.tokens:,} tok"
        parts.append(RowMark(MarkKind.PART_BOUNDARY, _entry_index(ctx, row), ForecastMark(label, part.tokens)))
    return chunks, parts


def plan_marks(plan: CompactionPlan, ctx: m.SessionContext) -> dict[MarkKind, list[RowMark]]:
    """The marks of every forecast kind (each of `FORECAST_KINDS`, possibly empty) for `plan`, computed on `ctx`.

    `ctx` must be the context the plan was made from (rows are matched by `context_index`).
    """
    out: dict[MarkKind, list[RowMark]] = {kind: [] for kind in FORECAST_KINDS}
    if plan.nothing_to_plan is not None:
        return out
    rows = plan.rows
    first_kept = next((i for i, r in enumerate(rows) if r.first_kept), None)
    if first_kept is not None:
        cut = rows[first_kept]
        label = f"cut · {plan.tokens_before or 0:,} tok before" + (" · split turn" if plan.is_split_turn else "")
        out[MarkKind.CUT_POINT].append(RowMark(MarkKind.CUT_POINT, _entry_index(ctx, cut), ForecastMark(label, plan.tokens_before)))
        for r in rows[first_kept:]:
            if r.plan == KEPT:
                out[MarkKind.KEPT_TAIL].append(RowMark(MarkKind.KEPT_TAIL, _entry_index(ctx, r), ForecastMark("kept", r.tokens)))
    for r in rows:
        index = _entry_index(ctx, r)
        if r.plan == TURN_PREFIX:
            out[MarkKind.SPLIT_TURN_PREFIX].append(RowMark(MarkKind.SPLIT_TURN_PREFIX, index, ForecastMark("split-turn prefix", r.tokens)))
        if r.oversized:
            out[MarkKind.OVERSIZED].append(RowMark(MarkKind.OVERSIZED, index, ForecastMark(f"oversized {r.tokens:,} tok", r.tokens)))
        if r.dropped_by_history_share:
            label = "dropped by the history share"
            out[MarkKind.DROPPED_BY_HISTORY_SHARE].append(RowMark(MarkKind.DROPPED_BY_HISTORY_SHARE, index, ForecastMark(label, r.tokens)))
    history_chunks, history_parts = _boundaries(ctx, rows, SUMMARIZED, plan.chunking, "")
    prefix_chunks, prefix_parts = _boundaries(ctx, rows, TURN_PREFIX, plan.turn_prefix_chunking, "prefix ")
    out[MarkKind.CHUNK_BOUNDARY] = history_chunks + prefix_chunks
    out[MarkKind.PART_BOUNDARY] = history_parts + prefix_parts
    return out
