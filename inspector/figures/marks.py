"""Row marks: one overlay of typed marks per transcript row, filled by engine functions.

A `RowMark` says something about one entry of a session (keyed by `Entry.index`): its tool result's prompt cache
has expired (today), or what a compaction would do to it (the forecast, next: cut point, kept tail, split-turn
prefix, chunk and part boundaries, oversized, dropped by the history share). A `RowMarks` overlay holds every mark
of one context; fillers (`cache_expiry_marks`, and the compaction forecast's) produce marks of their kinds, and
`RowMarks.replacing(kind, marks)` swaps one kind's marks without touching the others (expiry moves with the clock,
a forecast with the settings).

Each kind has a `MarkShape` saying how a transcript draws it: a `FLAG` on the row (a glyph in the marker column),
a `SPAN` the row belongs to (dimmed when `dims`), or a `BOUNDARY` between the row and the one before (a rule).
The UI chooses glyphs and colours; the engine says what the mark means.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from inspector.figures.pruning.expiry import ExpiryInfo, expired_tool_results
from inspector.figures.rules_of import rules_of
from inspector.model import entries as m
from inspector.session.session import Session


class MarkKind(str, Enum):
    """What a mark says about its row."""

    CACHE_EXPIRED = "cache_expired"
    """A tool result whose prompt-cache TTL has expired (payload: `inspector.figures.pruning.expiry.ExpiryInfo`)."""
    CUT_POINT = "cut_point"
    """The compaction's first kept entry: everything before it is summarized."""
    KEPT_TAIL = "kept_tail"
    """Kept verbatim after the compaction (from the cut point to the leaf)."""
    SPLIT_TURN_PREFIX = "split_turn_prefix"
    """The start of a turn cut in the middle (a split turn), summarized on its own."""
    CHUNK_BOUNDARY = "chunk_boundary"
    """A summarization chunk starts here."""
    PART_BOUNDARY = "part_boundary"
    """A summary part starts here (staged summarization)."""
    OVERSIZED = "oversized"
    """Too large to summarize as it is (replaced by a note in the summarizer's input)."""
    DROPPED_BY_HISTORY_SHARE = "dropped_by_history_share"
    """Dropped before summarizing, to keep the history within its share of the window."""


class MarkShape(str, Enum):
    """How a transcript draws a kind of mark."""

    FLAG = "flag"
    """A glyph in the row's marker column."""
    SPAN = "span"
    """The row belongs to a region (glyph in the marker column; dimmed when the kind `dims`)."""
    BOUNDARY = "boundary"
    """A rule between this row and the one before it (and a glyph on this row)."""


@dataclass(frozen=True, slots=True)
class MarkKindInfo:
    """How a kind of mark is drawn and what it means (for help texts and legends)."""

    shape: MarkShape
    dims: bool
    description: str


MARK_KINDS: dict[MarkKind, MarkKindInfo] = {
    MarkKind.CACHE_EXPIRED: MarkKindInfo(MarkShape.FLAG, False, "tool result whose prompt-cache TTL has expired"),
    MarkKind.CUT_POINT: MarkKindInfo(MarkShape.BOUNDARY, False, "compaction cut point: the kept part starts here"),
    MarkKind.KEPT_TAIL: MarkKindInfo(MarkShape.SPAN, False, "kept verbatim after the compaction"),
    MarkKind.SPLIT_TURN_PREFIX: MarkKindInfo(MarkShape.SPAN, False, "prefix of a split turn, summarized on its own"),
    MarkKind.CHUNK_BOUNDARY: MarkKindInfo(MarkShape.BOUNDARY, False, "a summarization chunk starts here"),
    MarkKind.PART_BOUNDARY: MarkKindInfo(MarkShape.BOUNDARY, False, "a summary part starts here"),
    MarkKind.OVERSIZED: MarkKindInfo(MarkShape.FLAG, False, "too large to summarize as it is"),
    MarkKind.DROPPED_BY_HISTORY_SHARE: MarkKindInfo(MarkShape.SPAN, True, "dropped to keep the history within its share"),
}
"""Every kind, in drawing priority order (the first flag of a row wins its marker cell)."""


def _payload_json(payload: Any) -> Any:
    if payload is None or isinstance(payload, (str, int, float, bool, dict, list)):
        return payload
    to_json = getattr(payload, "to_json", None)
    if callable(to_json):
        return to_json()
    if dataclasses.is_dataclass(payload) and not isinstance(payload, type):
        return dataclasses.asdict(payload)
    return str(payload)


@dataclass(frozen=True, slots=True)
class RowMark:
    """One mark on one entry (`entry_index` is `Entry.index`): its kind and the kind's payload (or None)."""

    kind: MarkKind
    entry_index: int
    payload: Any = None

    @property
    def info(self) -> MarkKindInfo:
        """How this kind is drawn and what it means."""
        return MARK_KINDS[self.kind]

    def to_json(self) -> dict[str, Any]:
        """`{"kind", "entry_index", "payload"}` (the payload's own `to_json()`, or its fields)."""
        return {"kind": self.kind.value, "entry_index": self.entry_index, "payload": _payload_json(self.payload)}


class RowMarks:
    """The marks of one context, keyed by `Entry.index`; immutable (build a new one with `replacing`)."""

    __slots__ = ("_by_entry", "_count", "_kinds")

    def __init__(self, marks: Iterable[RowMark] = ()) -> None:
        by_entry: dict[int, tuple[RowMark, ...]] = {}
        order = {kind: i for i, kind in enumerate(MARK_KINDS)}
        for mark in marks:
            by_entry[mark.entry_index] = (*by_entry.get(mark.entry_index, ()), mark)
        self._by_entry = {k: tuple(sorted(v, key=lambda mk: order[mk.kind])) for k, v in by_entry.items()}
        self._kinds = frozenset(mk.kind for v in self._by_entry.values() for mk in v)
        self._count = sum(len(v) for v in self._by_entry.values())

    def __len__(self) -> int:
        return self._count

    def __bool__(self) -> bool:
        return self._count > 0

    def __iter__(self) -> Iterator[RowMark]:
        for entry_index in sorted(self._by_entry):
            yield from self._by_entry[entry_index]

    def __repr__(self) -> str:
        return f"RowMarks({self._count} marks, kinds={sorted(k.value for k in self._kinds)})"

    @property
    def kinds(self) -> frozenset[MarkKind]:
        """The kinds present."""
        return self._kinds

    def at(self, entry_index: int) -> tuple[RowMark, ...]:
        """Every mark of an entry, in `MARK_KINDS` order."""
        return self._by_entry.get(entry_index, ())

    def first(self, entry_index: int, kind: MarkKind) -> RowMark | None:
        """The entry's mark of `kind`, if any."""
        for mark in self._by_entry.get(entry_index, ()):
            if mark.kind is kind:
                return mark
        return None

    def entries(self, kind: MarkKind) -> set[int]:
        """Entry indexes carrying a mark of `kind`."""
        return {i for i, marks in self._by_entry.items() if any(mk.kind is kind for mk in marks)}

    def of_kind(self, kind: MarkKind) -> list[RowMark]:
        """The marks of `kind`, in entry order."""
        return [mk for mk in self if mk.kind is kind]

    def replacing(self, kind: MarkKind, marks: Iterable[RowMark]) -> RowMarks:
        """A new overlay: this one with every mark of `kind` replaced by `marks` (which must all be of `kind`)."""
        new = list(marks)
        if any(mk.kind is not kind for mk in new):
            raise ValueError(f"replacing {kind.value}: every new mark must be of that kind")
        return RowMarks([*(mk for mk in self if mk.kind is not kind), *new])

    def to_json(self) -> list[dict[str, Any]]:
        """Every mark, in entry order."""
        return [mk.to_json() for mk in self]


def cache_expiry_marks(session: Session, ctx: m.SessionContext, config: dict[str, Any] | None, now_ms: int) -> list[RowMark]:
    """A `CACHE_EXPIRED` mark on every tool result of `ctx` whose prompt-cache TTL has expired at `now_ms`.

    OpenClaw's pruning settings come from `config` (`openclaw.json` data; defaults when None); the payload is
    `expired_tool_results`' `ExpiryInfo` (age, expired since), the same figure `prune --json` reports.
    """
    settings = rules_of(session).pruning_settings.resolve_settings(config).settings
    found: dict[int, ExpiryInfo] = expired_tool_results(session, ctx, settings, now_ms)
    return [RowMark(MarkKind.CACHE_EXPIRED, entry_index, info) for entry_index, info in found.items()]
