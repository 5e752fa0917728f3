"""Which estimate lies where in an entry's packed numbers: `EstimateLayout`, built from a rule set's estimators.

A row (`inspector.storage.nums_layout`) has `ESTIMATE_SLOTS` estimate slots; a rule set's estimators take them in its
order (its first estimator the first slot), the slots past its own hold 0, and an entry that maps to no message holds
-1 in every slot. Everything above storage reads an estimate by its name (`row.estimate("pi")`, `Estimates`,
`EstimateLayout.sizes`): only this module and `nums_layout` know slots and offsets. A table (`EntryTable.layout`) and
every `Entry` and `ContextMessage` built from it carry the layout their numbers were packed with.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterable, Sequence
from functools import cache
from itertools import islice
from typing import Any, Protocol

from inspector.model.entries import Estimates
from inspector.storage import nums_layout as nl

_NAN = float("nan")
_narrow_pack = nl.NARROW.pack
_wide_pack = nl.WIDE.pack
_location = nl.location
_row_line = nl.row_line
_row_flags = nl.row_flags
_row_timestamp = nl.row_timestamp
_one_unpack_from = struct.Struct("<q").unpack_from
_SIZES_BATCH = 16384
"""Rows `EstimateLayout.sizes` reads in one C pass."""


class NamedEstimator(Protocol):
    """What a layout needs of an estimator (`inspector.rules.ruleset.Estimator` is one): its name and `--json` key."""

    @property
    def name(self) -> str: ...

    @property
    def field(self) -> str: ...


class EstimateLayout:
    """The slots of a rule set's estimators in a packed row, and every read of a row (`model.RowLayout`).

    A row has a fixed capacity, `nums_layout.ESTIMATE_SLOTS` (4): a rule set with fewer estimators leaves the slots
    past its own at 0, one with more is refused (the row, and the snapshot format with it, would have to widen).
    Get one with `estimate_layout(estimators)`: one object per distinct tuple of estimators (a snapshot restores
    the same one). `estimators` are kept as given (the rule set's `Estimator`s: their labels and units for the
    figures that show them)."""

    __slots__ = ("_pad", "_slot", "_values", "estimators", "fields", "names")

    def __init__(self, estimators: Sequence[NamedEstimator]) -> None:
        names = tuple(e.name for e in estimators)
        if len(names) > nl.ESTIMATE_SLOTS:
            raise ValueError(f"{len(names)} estimators: a packed row holds at most {nl.ESTIMATE_SLOTS}")
        if len(set(names)) != len(names):
            raise ValueError(f"estimator names repeat: {names}")
        self.estimators: tuple[Any, ...] = tuple(estimators)
        """The estimators, in slot order."""
        self.names = names
        self.fields = tuple(e.field for e in estimators)
        self._slot = {name: nl.FIRST_ESTIMATE + k for k, name in enumerate(names)}
        self._pad = (0,) * (nl.ESTIMATE_SLOTS - len(names))
        self._values = struct.Struct(f"<{8 * nl.FIRST_ESTIMATE}x{max(1, len(names))}q")
        """The estimate slots this rule set uses (one at least: the first says whether there is a message)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (estimate_layout, (self.estimators,))

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, EstimateLayout) and self.estimators == other.estimators)

    def __hash__(self) -> int:
        return hash(self.estimators)

    def __repr__(self) -> str:
        return f"EstimateLayout({', '.join(self.names)})"

    # -- slots -------------------------------------------------------------------------------------------

    def slot(self, name: str) -> int:
        """The field of a row (`nums_layout.WIDE`'s) that holds the estimate `name`; KeyError for an unknown name."""
        return self._slot[name]

    def slots(self, estimates: Sequence[int] | None) -> tuple[int, ...]:
        """A row's estimate slots from the estimates in this layout's order (None: no message)."""
        if estimates is None:
            return nl.NO_ESTIMATES
        if len(estimates) != len(self.names):
            raise ValueError(f"{len(estimates)} estimates for {len(self.names)} estimators")
        return tuple(estimates) + self._pad

    # -- packing -----------------------------------------------------------------------------------------

    def pack_nums(
        self, line: int, offset: int, length: int, estimates: Sequence[int] | None, message_timestamp: Any, flags: int = 0
    ) -> bytes:
        """An entry's numbers as a wide row (what `Entry.nums` holds); `estimates` in this layout's order, None when
        the entry maps to no message."""
        return nl.pack_nums(line, offset, length, self.slots(estimates), message_timestamp, flags)

    def pack_row(
        self, line: int, offset: int, length: int, estimates: tuple[int, ...] | None, timestamp: float | None, flags: int
    ) -> bytes:
        """The reader's fast path: an entry's numbers, narrow when they fit (`nums_layout.pack_row`); `estimates` a
        tuple in this layout's order (None: no message), `timestamp` a number or None."""
        est = nl.NO_ESTIMATES if estimates is None else estimates + self._pad
        ts = _NAN if timestamp is None else float(timestamp)
        try:
            return _narrow_pack(line, offset, length, *est, ts, flags)
        except struct.error:
            return _wide_pack(line, offset, length, *est, ts, flags)

    # -- reading one row (`model.RowLayout`) --------------------------------------------------------------

    def line(self, nums: bytes) -> int:
        return _row_line(nums)

    def offset(self, nums: bytes) -> int:
        return _location(nums)[1]

    def length(self, nums: bytes) -> int:
        return _location(nums)[2]

    def flags(self, nums: bytes) -> int:
        return _row_flags(nums)

    def message_timestamp(self, nums: bytes) -> int | float | None:
        return _row_timestamp(nums)

    def estimates(self, nums: bytes) -> Estimates | None:
        """The row's estimates by name (None: the entry maps to no message)."""
        values: tuple[int, ...] = self._values.unpack_from(nums)
        if values[0] < 0:
            return None
        return Estimates(self.names, self.fields, values if self.names else ())

    def estimate(self, nums: bytes, name: str) -> int | None:
        """The row's estimate `name` (None: the entry maps to no message); KeyError for an unknown name."""
        value: int = _one_unpack_from(nums, 8 * self._slot[name])[0]
        return None if value < 0 else value

    # -- reading many rows ------------------------------------------------------------------------------

    def sizes(self, rows: Iterable[bytes], name: str) -> array[int]:
        """The estimate `name` of each wide row of `rows` (0 for a row of no message), as an `array('q')`: the slot
        is found once, then read a batch of rows at a time in C."""
        slot = self._slot[name]
        out = array("q")
        rows = iter(rows)
        while batch := b"".join(islice(rows, _SIZES_BATCH)):
            view = memoryview(batch).cast("q")
            column: list[int] = view[slot :: nl.WIDE_FIELDS].tolist()  # type: ignore[assignment]
            view.release()
            if column and min(column) < 0:  # rows of no message
                column = [v if v > 0 else 0 for v in column]
            out.extend(column)
        return out


@cache
def estimate_layout(estimators: tuple[NamedEstimator, ...]) -> EstimateLayout:
    """The layout of `estimators` (one object per distinct tuple, for the process's life)."""
    return EstimateLayout(estimators)
