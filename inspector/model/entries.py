"""The common model every reader produces: entries (metadata only), diagnostics and context messages.

Entries keep *metadata* (offsets, ids, role, tool name, estimates, recorded usage) and, for the small
non-message entry types, their parsed dict. The content of `message` and `custom_message` entries is not
kept: it is re-read from disk on demand (`Session.load_message`), so a 1 GB file fits in a small fraction
of its size in memory. A session holds its entries packed in columns (`inspector.storage.entry_table.EntryTable`), which
builds an `Entry` when one is asked for.
"""

from __future__ import annotations

import math
import operator
import struct
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import reduce
from itertools import filterfalse
from typing import Any, Protocol

from inspector.js.jsjson import js_truthy

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


def usage_flags(raw_usage: Any) -> int:
    """The flags of an assistant's recorded `usage`: `FLAG_NON_OBJECT_USAGE` (truthy, not an object), else the
    state of its `contextUsage` (`CONTEXT_USAGE_MASK`'s bits; OpenClaw 2026.9)."""
    if type(raw_usage) is not dict:
        return FLAG_NON_OBJECT_USAGE if js_truthy(raw_usage) else 0
    if "contextUsage" not in raw_usage:
        return 0
    context_usage = raw_usage["contextUsage"]
    state = context_usage.get("state") if type(context_usage) is dict else None
    if state == "available":
        return CONTEXT_USAGE_AVAILABLE
    return CONTEXT_USAGE_UNAVAILABLE if state == "unavailable" else CONTEXT_USAGE_OTHER


_NO_USAGE = struct.pack(f"<{_STANDARD_FIELDS}d", *[_NAN] * _STANDARD_FIELDS)
"""The standard fields of a packed usage with none of them (unpacks to `{}`: not counted as a call)."""


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


HEADER_KEYS = ("id", "version", "timestamp", "cwd", "parentSession", "provider", "modelId", "thinkingLevel", "branchedFrom")
"""The session-header fields the figures report (`stats --json` `header`, `ls --json` glance), in that order."""


def header_json(header: dict[str, Any] | None) -> dict[str, Any] | None:
    """The reported part of a session header (`HEADER_KEYS` present in it), None without a header."""
    if header is None:
        return None
    return {k: header[k] for k in HEADER_KEYS if k in header}


# Entry types of pi / OpenClaw v3 session files (spec §1.3).
SESSION = "session"
MESSAGE = "message"
MODEL_CHANGE = "model_change"
THINKING_LEVEL_CHANGE = "thinking_level_change"
COMPACTION = "compaction"
BRANCH_SUMMARY = "branch_summary"
CUSTOM = "custom"
CUSTOM_MESSAGE = "custom_message"
LABEL = "label"
SESSION_INFO = "session_info"

KNOWN_ENTRY_TYPES = frozenset(
    {
        MESSAGE,
        MODEL_CHANGE,
        THINKING_LEVEL_CHANGE,
        COMPACTION,
        BRANCH_SUMMARY,
        CUSTOM,
        CUSTOM_MESSAGE,
        LABEL,
        SESSION_INFO,
    }
)
"""The types pi 0.66.1 (OpenClaw 2026.4.12) knows; the reader reports any other as unknown."""

# Entry types OpenClaw 2026.9 added (session format v4; pi 0.66.1 keeps them in the tree, out of the context).
RESET = "reset"
"""A context boundary like a compaction, without a summary; it may keep entries from its `firstKeptEntryId` on."""
LEAF = "leaf"
"""A navigation row: its `targetId` becomes the active leaf (no message, not on any path)."""

CURRENT_SESSION_VERSION = 3


@dataclass(slots=True)
class Diagnostic:
    """One problem (or notable fact) found while reading a file.

    `line` is the 1-based physical line number and `offset` the byte offset of that line's start, when the
    problem belongs to a line. `severity` is `error` (data pi would skip or could not use), `warning`
    (pi reads it, but something is off) or `info`.
    """

    kind: str
    message: str
    severity: str = "warning"
    line: int | None = None
    offset: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "line": self.line,
            "offset": self.offset,
            "message": self.message,
        }


class Estimates(Mapping[str, int]):
    """A message's size estimates by estimator name (`estimates["pi"]`), read-only, in its rule set's order (each
    estimator named after the code it reproduces: see the release's `tokens`). `to_json()` keys them by each
    estimator's `--json` field (`pi_tokens`)."""

    __slots__ = ("_fields", "_names", "_values")

    def __init__(self, names: tuple[str, ...], fields: tuple[str, ...], values: tuple[int, ...]) -> None:
        self._names = names
        self._fields = fields
        self._values = values

    def __getitem__(self, name: str) -> int:
        try:
            return self._values[self._names.index(name)]
        except ValueError:
            raise KeyError(name) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"Estimates({dict(zip(self._names, self._values))!r})"

    def to_json(self) -> dict[str, int]:
        """`{field: value}` in the rule set's order (`{"pi_tokens": ..., ...}`)."""
        return dict(zip(self._fields, self._values))


FLAG_MIGRATED_ROLE = 1
"""A v2 `hookMessage` read as `custom`."""
FLAG_EXCLUDED_FROM_CONTEXT = 2
"""A `bashExecution` with a truthy `excludeFromContext`."""
FLAG_NON_OBJECT_USAGE = 4
"""An assistant whose `usage` is truthy but not an object (nothing packed; pi still takes it as usage)."""
FLAG_EXCLUDE_TRUE = 8
"""A message (any role) whose `excludeFromContext` is exactly `true`: OpenClaw 2026.9 leaves its entry out of the
context (`projectSessionEntryMessage`)."""
FLAG_SIDE_APPEND = 16
"""A `message` entry whose `appendMode` is `"side"` (OpenClaw 2026.9: appended beside the active leaf, which stays)."""
FLAG_API_CLI = 32
"""An assistant message whose `api` is `"cli"` (OpenClaw 2026.9: without `contextUsage`, its usage leaves the context
unknown: `isUnavailableContextBarrier`)."""
CONTEXT_USAGE_MASK = 64 | 128
"""The two flag bits that say an assistant's `usage.contextUsage` (OpenClaw 2026.9): 0 without the key, else one of
`CONTEXT_USAGE_OTHER`, `CONTEXT_USAGE_UNAVAILABLE`, `CONTEXT_USAGE_AVAILABLE` (its figure in the packed usage:
`unpack_context_tokens`)."""
CONTEXT_USAGE_OTHER = 64
"""`usage.contextUsage` present, its `state` neither `"available"` nor `"unavailable"` (or not an object)."""
CONTEXT_USAGE_UNAVAILABLE = 128
"""`usage.contextUsage.state` is `"unavailable"`."""
CONTEXT_USAGE_AVAILABLE = 64 | 128
"""`usage.contextUsage.state` is `"available"`."""


class RowLayout(Protocol):
    """How the packed numbers of an entry (`Entry.nums`, `ContextMessage.nums`) are read. Storage gives every row its
    layout (`inspector.storage.estimate_layout.EstimateLayout`): it alone knows where each number lies, and which
    estimate is in which slot."""

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the estimates the rows hold, in their rule set's order."""
        ...

    @property
    def estimators(self) -> tuple[Any, ...]:
        """The estimators of those estimates, in the same order (the rule set's `Estimator`s: label, unit, ...)."""
        ...

    def line(self, nums: bytes) -> int: ...

    def offset(self, nums: bytes) -> int: ...

    def length(self, nums: bytes) -> int: ...

    def flags(self, nums: bytes) -> int: ...

    def message_timestamp(self, nums: bytes) -> int | float | None: ...

    def estimates(self, nums: bytes) -> Estimates | None: ...

    def estimate(self, nums: bytes, name: str) -> int | None: ...

    def sizes(self, rows: Iterable[bytes], name: str) -> array[int]:
        """The estimate `name` of each of `rows` (the `nums` of rows of this layout), 0 for a row of no message."""
        ...


class _PackedNumbers:
    """`estimates`, `estimate(name)` and `message_timestamp` of an entry (or its context row), read from its packed
    `nums` by its `layout`."""

    __slots__ = ()

    @property
    def estimates(self) -> Estimates | None:
        """The estimates of the message this produces, by name (None: it produces none)."""
        return self.layout.estimates(self.nums)  # type: ignore[attr-defined, no-any-return]

    def estimate(self, name: str) -> int | None:
        """The estimate called `name` (`"pi"`) of the message this produces (None: it produces none); KeyError when
        the rule set has no estimator of that name."""
        return self.layout.estimate(self.nums, name)  # type: ignore[attr-defined, no-any-return]

    @property
    def message_timestamp(self) -> int | float | None:
        """`message.timestamp` (epoch ms) of the message this produces, if it has a numeric one."""
        return self.layout.message_timestamp(self.nums)  # type: ignore[attr-defined, no-any-return]


@dataclass(slots=True)
class Entry(_PackedNumbers):
    """Metadata of one non-header line of a session file.

    `index` is the position in `Session.entries` (file order, valid entries only); `line`/`offset`/`length`
    locate the raw bytes (without the newline). `id`/`parent_id` are the stored ones, or synthetic ids for
    v1 files (migrated in memory, like pi's `migrateV1ToV2`). `data` is the parsed dict for every entry
    type except `message` and `custom_message`, whose (possibly huge) content is re-read on demand.

    For entries that map to a context message (`message`, `custom_message`, non-empty `branch_summary`,
    and `compaction` as its summary message) `role` is the AgentMessage role and `estimates` are computed
    at index time. Numbers live packed in `nums`, read by `layout` (the table's), to keep 300k entries small.
    """

    index: int
    nums: bytes
    layout: RowLayout = field(repr=False)
    type: str
    id: str | None
    parent_id: str | None
    timestamp: str | None = None
    data: dict[str, Any] | None = None
    role: str | None = None
    tool_name: str | None = None
    tool_call_id: str | None = None
    tool_call_ids: tuple[str, ...] = ()
    provider: str | None = None
    model: str | None = None
    stop_reason: str | None = None
    usage_packed: bytes | None = None
    block_kinds: tuple[str, ...] = ()

    line = property(
        lambda self: self.layout.line(self.nums), doc="1-based physical line number (0 while unknown, in a tail view)."
    )
    offset = property(lambda self: self.layout.offset(self.nums), doc="Byte offset of the line's start.")
    length = property(lambda self: self.layout.length(self.nums), doc="Byte length of the line, without the newline.")
    migrated_role = property(lambda self: bool(self.layout.flags(self.nums) & FLAG_MIGRATED_ROLE))
    excluded_from_context = property(lambda self: bool(self.layout.flags(self.nums) & FLAG_EXCLUDED_FROM_CONTEXT))
    non_object_usage = property(
        lambda self: bool(self.layout.flags(self.nums) & FLAG_NON_OBJECT_USAGE),
        doc="The recorded usage is truthy but not an object (only this flag is kept).",
    )
    api_cli = property(
        lambda self: bool(self.layout.flags(self.nums) & FLAG_API_CLI), doc="An assistant message whose `api` is `\"cli\"`."
    )
    context_usage_state = property(
        lambda self: self.layout.flags(self.nums) & CONTEXT_USAGE_MASK,
        doc="The state of the recorded `usage.contextUsage` (`CONTEXT_USAGE_MASK`'s bits; 0: none).",
    )
    usage = property(lambda self: unpack_usage(self.usage_packed), doc="Recorded provider usage (assistant messages).")

    @property
    def is_message(self) -> bool:
        return self.type == MESSAGE

    @property
    def known_type(self) -> bool:
        return self.type in KNOWN_ENTRY_TYPES


@dataclass(slots=True)
class ContextMessage(_PackedNumbers):
    """One message of the rebuilt context (pi `buildSessionContext`), in order.

    `entry_index`/`entry_id`/`line` name the entry that produced it: for the virtual compaction-summary and
    branch-summary messages, the `compaction` or `branch_summary` entry.
    """

    index: int
    entry_index: int
    entry_id: str | None
    line: int
    role: str
    tool_name: str | None
    nums: bytes
    layout: RowLayout = field(repr=False)
    usage_packed: bytes | None
    excluded_from_llm: bool = False

    usage = property(lambda self: unpack_usage(self.usage_packed), doc="Recorded provider usage (assistant messages).")


def path_indices(indices: Iterable[int] = ()) -> array[int]:
    """A context path: entry indices as an `array` of 64-bit integers. Kept as a list, a 300k-entry path cost
    ~11 ms to restore from a snapshot (an int object each), and ~3 ms to copy."""
    return array("q", indices)


@dataclass(slots=True)
class SessionContext:
    """The context the model sees for one leaf: messages plus the model and thinking level in force."""

    leaf_id: str | None
    messages: list[ContextMessage]
    path: array[int]
    """The entry indices root → leaf (`path_indices`): 8 bytes an entry, and stored in a snapshot as one block."""
    model: dict[str, Any] | None
    thinking_level: str
    compaction_index: int | None = None
    first_kept_index: int | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    reset_index: int | None = None
    """The `reset` entry the context starts after (OpenClaw 2026.9), when that is its boundary (`compaction_index`
    is then None)."""
    path_usage: PathUsage | None = field(default=None, compare=False, repr=False)
    """Σ of the recorded usage of the path's entries, once computed (`Session.path_usage`): a cache, not compared."""
    compactions_on_path: frozenset[int] | None = field(default=None, compare=False, repr=False)
    """The indices of the compactions on the path, once computed (`context.compactions_on_path`): a cache."""

    def continues(self, earlier: SessionContext) -> bool:
        """Whether this context is `earlier` with messages appended (same compaction, same first rows)."""
        n = len(earlier.messages)
        if self.compaction_index != earlier.compaction_index or self.reset_index != earlier.reset_index or len(self.messages) < n:
            return False
        return n == 0 or (self.messages[n - 1] is earlier.messages[n - 1] and self.messages[0] is earlier.messages[0])
