"""How the transcript draws row marks (`inspector.figures.marks`): a glyph in the marker column, dimmed rows, rules.

The engine says what a mark means and its shape (`MarkShape`); this module picks the glyphs. A row's marker
cell shows, in priority order: `├` a branch point, then the first marked kind in `MARK_KINDS` order (`~` for a
tool result whose cache TTL has expired, in the warning colour; its age and expiry are in the detail pane), then `×` dropped by the compaction in
force, `○` off the active path. A `SPAN` kind that `dims` dims the row; a `BOUNDARY` kind draws a rule under
the row shown before it (the rule sits between the two rows). A message the estimator gets far from the tokenizer
(`figures.diagnosis.misestimates`, the timeline's mis-estimated list) is tagged `⚑×ratio` before its preview. The payload `label` of a cut point, an oversized
flag or a boundary (a forecast part's or chunk's tokens) is written before the row's preview, so a flag that
loses the marker cell (an oversized result whose cache expired) still shows.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.figures.diagnosis.misestimates import Misestimate
from inspector.figures.marks import MARK_KINDS, MarkKind, MarkShape, RowMarks
from inspector.figures.pruning.expiry import ExpiryInfo

MARK_GLYPHS: dict[MarkKind, str] = {
    MarkKind.CACHE_EXPIRED: "~",
    MarkKind.CUT_POINT: "✂",
    MarkKind.KEPT_TAIL: "│",
    MarkKind.SPLIT_TURN_PREFIX: "↳",
    MarkKind.CHUNK_BOUNDARY: "┆",
    MarkKind.PART_BOUNDARY: "§",
    MarkKind.OVERSIZED: "!",
    MarkKind.DROPPED_BY_HISTORY_SHARE: "-",
}
"""One glyph per kind (one cell each), drawn in the marker column."""

assert set(MARK_GLYPHS) == set(MARK_KINDS), "every mark kind needs a glyph"

_LABEL_ORDER = (MarkKind.CUT_POINT, MarkKind.OVERSIZED, MarkKind.PART_BOUNDARY, MarkKind.CHUNK_BOUNDARY)
"""Kinds whose payload `label` is written before the preview, in this order (then any other boundary's)."""


@dataclass(frozen=True, slots=True)
class RowDecor:
    """What the marks of one row change in its drawing."""

    glyph: str | None = None
    """The marker-column glyph of the first marked kind (None: no mark)."""
    dims: bool = False
    """A mark of a kind that dims its rows."""
    expired: ExpiryInfo | None = None
    """The cache-TTL expiry of a tool result (the `~` is drawn in the warning colour)."""
    rule_below: bool = False
    """The next shown row starts a boundary: draw a rule under this one."""
    label: str | None = None
    """The labels of this row's marks in `_LABEL_ORDER` (cut point, oversized, a forecast part's and chunk's
    tokens), drawn before the preview."""


NO_DECOR = RowDecor()
FLAG_GLYPH = "⚑"
"""Written before the preview of a message the estimator gets far wrong, with tokenizer / estimate."""


def flag_label(found: Misestimate) -> str:
    """`⚑×3.23`: a mis-estimated message's tag (tokenizer / estimate; `×∞` for an estimate of 0)."""
    return f"{FLAG_GLYPH}×{'∞' if found.ratio is None else f'{found.ratio:g}'}"


def flag_words(found: Misestimate, label: str) -> str:
    """The flag in words: `pi chars/4 5,604 tok vs tiktoken 18,110 tok: ×3.23, the estimate is 3.2× too low`."""
    ratio = "∞" if found.ratio is None else f"{found.ratio:g}"
    how = "too low (undercounts)" if found.difference > 0 else "too high (overcounts)"
    return f"⚑ {label} {found.estimate:,} tok vs tiktoken {found.tokenizer:,} tok: ×{ratio}, the estimate is {how}"


def starts_boundary(marks: RowMarks, entry_index: int) -> bool:
    """Whether an entry carries a `BOUNDARY` mark (a rule goes above it)."""
    return any(mk.info.shape is MarkShape.BOUNDARY for mk in marks.at(entry_index))


def row_decor(marks: RowMarks, entry_index: int, next_entry_index: int | None) -> RowDecor:
    """The drawing of the row of `entry_index`, followed on screen by the row of `next_entry_index` (None: last)."""
    if not marks:
        return NO_DECOR
    here = marks.at(entry_index)
    rule = next_entry_index is not None and starts_boundary(marks, next_entry_index)
    if not here and not rule:
        return NO_DECOR
    expired = next((mk.payload for mk in here if mk.kind is MarkKind.CACHE_EXPIRED), None)
    labels = [
        lb
        for kind in _LABEL_ORDER
        for mk in here
        if mk.kind is kind and isinstance(lb := getattr(mk.payload, "label", None), str) and lb
    ]
    boundary = [mk for mk in here if mk.info.shape is MarkShape.BOUNDARY and mk.kind not in _LABEL_ORDER]
    labels += [lb for mk in boundary if isinstance(lb := getattr(mk.payload, "label", None), str) and lb]
    return RowDecor(
        glyph=MARK_GLYPHS[here[0].kind] if here else None,
        dims=any(mk.info.dims for mk in here),
        expired=expired,
        rule_below=rule,
        label=" · ".join(labels) or None,
    )
