"""The common model every reader produces: entries (metadata only), diagnostics and context messages.

Entries keep *metadata* (offsets, ids, role, tool name, estimates, recorded usage) and, for the small
non-message entry types, their parsed dict. The content of `message` and `custom_message` entries is not
kept: it is re-read from disk on demand (`Session.load_message`), so a 1 GB file fits in a small fraction
of its size in memory. A session holds its entries packed in columns (`inspector.storage.entry_table.EntryTable`), which
builds an `Entry` when one is asked for.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from inspector.js.jsjson import js_truthy
from inspector.model.packed_usage import (  # noqa: F401 (re-exported: `m.pack_usage`, `m.UsageSum`...)
    COST_KEYS,
    PATH_USAGE_STEP,
    USAGE_KEYS,
    USAGE_SIZE,
    VOID_USAGE,
    PathUsage,
    UsageSum,
    pack_usage,
    sum_packed_usage,
    unpack_context_tokens,
    unpack_usage,
)

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
    """A context path: entry indices as an `array` of 32-bit integers (a session has fewer than 2**31 entries; on a
    session of small entries the path is nearly every entry: 4 bytes each of the peak rather than 8). Kept as a list,
    a 300k-entry path cost ~11 ms to restore from a snapshot (an int object each), and ~3 ms to copy."""
    return array("i", indices)


@dataclass(slots=True)
class SessionContext:
    """The context the model sees for one leaf: messages plus the model and thinking level in force."""

    leaf_id: str | None
    messages: list[ContextMessage]
    path: array[int]
    """The entry indices root → leaf (`path_indices`): 4 bytes an entry, and stored in a snapshot as one block."""
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

    def continues(self, earlier: SessionContext, revised: Collection[int] = ()) -> bool:
        """Whether this context is `earlier` with messages appended (same compaction, same first rows). `revised`:
        entries whose usage alone changed since (`RefreshResult.revised`): their rows are new objects for the same
        entries."""
        n = len(earlier.messages)
        if self.compaction_index != earlier.compaction_index or self.reset_index != earlier.reset_index or len(self.messages) < n:
            return False

        def same(a: ContextMessage, b: ContextMessage) -> bool:
            return a is b or (a.entry_index == b.entry_index and a.entry_index in revised)

        return n == 0 or (same(self.messages[n - 1], earlier.messages[n - 1]) and same(self.messages[0], earlier.messages[0]))
