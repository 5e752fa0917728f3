"""Recorded usage packed: 88 bytes a usage instead of a dict (`pack_usage`), unpacked on demand, and summed in order
without a dict per usage (`UsageSum`, `PathUsage` along a context path, `sum_packed_usage`). Re-exported by
`inspector.model.entries`, where the entries that hold them live.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import reduce
from itertools import filterfalse
from typing import Any

__all__ = [
    "COST_KEYS",
    "PATH_USAGE_STEP",
    "USAGE_KEYS",
    "USAGE_SIZE",
    "VOID_USAGE",
    "PathUsage",
    "UsageSum",
    "pack_usage",
    "sum_packed_usage",
    "unpack_context_tokens",
    "unpack_usage",
]

USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_KEYS = ("input", "output", "cacheRead", "cacheWrite", "total")
_STANDARD_FIELDS = len(USAGE_KEYS) + len(COST_KEYS)
_USAGE = struct.Struct(f"<{_STANDARD_FIELDS + 1}d")
_NAN = float("nan")
USAGE_SIZE = _USAGE.size
"""Bytes of one packed usage (`pack_usage`): the ten standard fields, then the measured context figure."""
_STANDARD_SIZE = 8 * _STANDARD_FIELDS


def _context_figure(usage: dict[str, Any]) -> float:
    """`usage.contextUsage.totalTokens` when `contextUsage.state` is `"available"` and the figure a number (OpenClaw
    2026.9: the provider's measured context), else NaN."""
    context_usage = usage.get("contextUsage")
    if type(context_usage) is dict and context_usage.get("state") == "available":
        figure = context_usage.get("totalTokens")
        if isinstance(figure, (int, float)) and not isinstance(figure, bool):
            return float(figure)
    return _NAN


def pack_usage(usage: Any) -> bytes | None:
    """Recorded usage packed in 88 bytes (NaN where a field is absent): a fraction of a dict's memory. The ten
    standard fields, then `contextUsage.totalTokens` when its state is `"available"` (`unpack_context_tokens`; the
    state itself is in the entry's flags: `usage_flags`)."""
    if type(usage) is not dict:
        return None
    try:  # the usual shape: every field present and numeric
        c = usage["cost"]
        return _USAGE.pack(
            usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"], usage["totalTokens"],
            c["input"], c["output"], c["cacheRead"], c["cacheWrite"], c["total"], _context_figure(usage),
        )
    except (KeyError, TypeError, struct.error):
        pass
    cost = usage.get("cost")
    cost = cost if isinstance(cost, dict) else {}
    vals = [usage.get(k) for k in USAGE_KEYS] + [cost.get(k) for k in COST_KEYS]
    return _USAGE.pack(
        *(float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _NAN for v in vals), _context_figure(usage)
    )


def _num(v: float) -> int | float:
    return int(v) if v.is_integer() and abs(v) < 2**53 else v


def unpack_usage(packed: bytes | None) -> dict[str, Any] | None:
    """The usage object back (standard fields only; absent ones stay absent; integral values as int)."""
    if packed is None:
        return None
    vals = _USAGE.unpack(packed)
    out: dict[str, Any] = {k: _num(v) for k, v in zip(USAGE_KEYS, vals) if not math.isnan(v)}
    cost = {k: _num(v) for k, v in zip(COST_KEYS, vals[len(USAGE_KEYS) : _STANDARD_FIELDS]) if not math.isnan(v)}
    if cost:
        out["cost"] = cost
    return out


def unpack_context_tokens(packed: bytes | None) -> int | float | None:
    """The packed `contextUsage.totalTokens` (state `"available"`, a number), None without one."""
    if packed is None:
        return None
    figure: float = _USAGE.unpack(packed)[_STANDARD_FIELDS]
    return None if math.isnan(figure) else _num(figure)


_NO_USAGE = struct.pack(f"<{_STANDARD_FIELDS}d", *[_NAN] * _STANDARD_FIELDS)
"""The standard fields of a packed usage with none of them (unpacks to `{}`: not counted as a call)."""
VOID_USAGE = _NO_USAGE + struct.pack("<d", _NAN)
"""A packed usage with no field at all: a slot voided in place (`EntryTable.revise_usage`) sums to nothing."""


def _add_tokens(total: int | float, values: list[float]) -> int | float:
    """`total` plus `num(v)` of each value, in order, as a loop over the unpacked usage dicts adds them."""
    if type(total) is int and all(map(float.is_integer, values)):
        if not values:
            return total
        bound = max(map(abs, values))
        if bound * len(values) < 2**53:  # every partial sum of these integers is exact as a double: so is the sum
            return total + int(sum(values))
        if bound < 2**53:
            return total + sum(map(int, values))  # only ints: exact, whatever the grouping
    for v in values:
        total += int(v) if v.is_integer() and abs(v) < 2**53 else v
    return total


_SUM_BATCH = 16384


@dataclass(slots=True, frozen=True)
class UsageSum:
    """A Σ of packed usages in order, that more usages extend (`plus`): summing rows `[0, k)` and then
    `[k, n)` gives what one pass over `[0, n)` gives, to the last bit (see `sum_packed_usage`)."""

    tokens: tuple[int | float, ...] = (0,) * len(USAGE_KEYS)
    cost: tuple[float, ...] = (0.0,) * len(COST_KEYS)
    calls: int = 0

    def plus(self, packed: Iterable[bytes | None]) -> UsageSum:
        """This sum with `packed` added after what it holds (a new object: a sum is never changed)."""
        return self.plus_rows(b"".join(p for p in packed if p is not None))

    def plus_rows(self, rows: bytes | bytearray) -> UsageSum:
        """This sum with the packed usages laid end to end in `rows` added after what it holds."""
        count = len(rows) // _USAGE.size
        calls = count
        if rows.find(_NO_USAGE) >= 0:  # rows with no standard field are not calls
            calls -= sum(1 for k in range(0, len(rows), _USAGE.size) if rows[k : k + _STANDARD_SIZE] == _NO_USAGE)
        tokens = list(self.tokens)
        cost = list(self.cost)
        doubles = memoryview(rows).cast("d")
        width = _USAGE.size // 8  # the standard fields are summed, not the context figure after them
        for j in range(_STANDARD_FIELDS):
            for start in range(0, count, _SUM_BATCH):  # a column at a time, a batch at a time (memory stays small)
                column: list[float] = doubles[(start * width) + j : (start + _SUM_BATCH) * width : width].tolist()  # type: ignore[assignment]
                values = list(filterfalse(math.isnan, column))  # NaN: an absent field
                if j < len(USAGE_KEYS):
                    tokens[j] = _add_tokens(tokens[j], values)
                else:
                    cost[j - len(USAGE_KEYS)] = reduce(operator.add, values, cost[j - len(USAGE_KEYS)])
        doubles.release()
        return UsageSum(tuple(tokens), tuple(cost), self.calls + calls)

    def result(self) -> tuple[dict[str, int | float], dict[str, float], int]:
        """`(tokens, cost, calls)` by field name."""
        return dict(zip(USAGE_KEYS, self.tokens)), dict(zip(COST_KEYS, self.cost)), self.calls


PATH_USAGE_STEP = 4096
"""`PathUsage` keeps the sum at every multiple of this many path positions."""


@dataclass(slots=True, frozen=True)
class PathUsage:
    """Σ of the recorded usage along a path (`total`), with the sums of its first `k * PATH_USAGE_STEP` positions
    (`marks[k]`): the path continued is summed from `total`, the path cut at a branch point from the nearest mark."""

    length: int = 0
    total: UsageSum = UsageSum()
    marks: tuple[UsageSum, ...] = (UsageSum(),)

    def plus(self, usages: list[bytes | None]) -> PathUsage:
        """This path's sum continued with the packed usages of the next positions (None: no usage there)."""
        total, length, marks = self.total, self.length, list(self.marks)
        done = 0
        while done < len(usages):
            piece = usages[done : done + PATH_USAGE_STEP - length % PATH_USAGE_STEP]
            total = total.plus(piece)
            length += len(piece)
            done += len(piece)
            if length % PATH_USAGE_STEP == 0:
                marks.append(total)
        return PathUsage(length, total, tuple(marks))

    def plus_rows(self, rows: bytes, positions: int) -> PathUsage:
        """This path's sum continued by `positions` more positions whose packed usages, laid end to end, are `rows`
        (`EntryTable.usage_rows`); the positions must not pass the next mark."""
        if positions > PATH_USAGE_STEP - self.length % PATH_USAGE_STEP:
            raise ValueError("a piece of a path usage may not pass a mark")
        total, length = self.total.plus_rows(rows), self.length + positions
        marks = self.marks + (total,) if positions and length % PATH_USAGE_STEP == 0 else self.marks
        return PathUsage(length, total, marks)

    def cut(self, length: int, usages_between: Callable[[int, int], list[bytes | None]]) -> PathUsage:
        """The sum of the path's first `length` positions; `usages_between(start, end)` gives the packed usages of
        its positions [start, end) (asked only for those between the nearest mark and `length`)."""
        if length >= self.length:
            return self
        k = length // PATH_USAGE_STEP
        start = k * PATH_USAGE_STEP
        return PathUsage(start, self.marks[k], self.marks[: k + 1]).plus(usages_between(start, length))


def sum_packed_usage(packed: Iterable[bytes | None]) -> tuple[dict[str, int | float], dict[str, float], int]:
    """Σ of packed usages, field by field, without building a dict per usage: `(tokens, cost, calls)`.

    Equals adding `unpack_usage(p)`'s numbers in order: tokens from an int 0 (exact while they are integral),
    cost from a float 0.0 (an integral cost adds the same double). `calls` counts the usages that unpack to a
    non-empty dict. Usages are unpacked a batch at a time (memory stays small on a 1 GB session).
    """
    return UsageSum().plus(packed).result()
