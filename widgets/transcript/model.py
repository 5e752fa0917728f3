"""The rows the transcript shows, and the per-row numbers under each estimator (UI glue, no widget).

Every number comes from the engine: per-message sizes and running totals from `inspector.figures.sizes` (pi chars/4 and
OpenClaw pruning chars from the rows' estimates, the recorded usage, pi's `calculateContextTokens`: the same
functions `context --json` uses), tiktoken counts from `inspector.counting.counter.get_token_counter` (filled lazily by the
transcript for the rows that are looked at) and the row marks from `inspector.figures.marks` (`marks`, one overlay keyed
by entry). This module only arranges them: which rows are shown (context only, or every entry with off-path
ones marked), filters, and row lookups for jumps. It holds `Entry` / `ContextMessage` objects, never message
content; content is read from disk for the rows on screen only.

Per-row numbers live in `array('q')` (unknown = -1) and unfiltered views are `range`s: on a 300k-message session
these are the only per-row containers the UI adds, and arrays and ranges are invisible to the cyclic garbage
collector, whose passes would otherwise walk every element of every list on each collection.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from inspector.base.cancel import checkpoint
from inspector.figures.diagnosis.misestimates import Misestimate
from inspector.figures.marks import MarkKind, RowMark, RowMarks
from inspector.figures.rules_of import rules_of
from inspector.figures.sizes import (
    UNKNOWN,
    estimate_sizes,
    int_array,
    recorded_context_running,
    recorded_output_sizes,
    running_totals,
)
from inspector.model import entries as m
from inspector.session.session import Session

from .estimators import ESTIMATE_NAMES
from .previews import INT64_MAX

PREPARE_CHUNK = 4096
"""Messages whose sizes (or running totals) are computed between two cancellation checkpoints (`prepare`)."""
SUMMARY_ROLES = frozenset({"compactionSummary", "branchSummary"})
_arr = int_array


def _membership(indices: Iterable[int], count: int) -> bytearray:
    """One byte per entry index below `count`, 1 for those in `indices` (a path's entries: a byte each, where a set
    of them took ~80 bytes an entry)."""
    out = bytearray(count)
    for i in indices:
        if i < count:
            out[i] = 1
    return out


def _saturating(compute: Callable[..., array], start: int, stop: int, carry: int | None = None) -> array:
    """`compute(start, stop[, carry])` (an `inspector.figures.sizes` function), one message at a time once a recorded
    number overflows the signed 64-bit arrays: that message's value is held at `INT64_MAX` instead of failing
    (shown as `≥9.2e+18` by `previews.compact_number`)."""
    try:
        return compute(start, stop) if carry is None else compute(start, stop, carry)
    except OverflowError:
        pass
    out = _arr()
    cur = carry
    for i in range(start, stop):
        try:
            part = compute(i, i + 1) if cur is None else compute(i, i + 1, cur)
        except OverflowError:
            part = _arr([INT64_MAX])
        out.extend(part)
        if cur is not None:
            cur = part[-1]
    return out


@dataclass(slots=True)
class RowInfo:
    """What the transcript needs to draw one row (metadata only)."""

    entry: m.Entry
    message: m.ContextMessage | None
    on_path: bool
    children: int
    dropped_by_compaction: bool = False


class TranscriptModel:
    """The rows of one session context, with filters, estimator sizes and running context totals.

    `show_off_path` False: one row per context message (pi's `buildSessionContext` order, the compaction summary
    first when a compaction is in force). True: one row per entry in file order; entries not on the active path
    are marked, entries before the kept part of a compaction are marked as dropped.
    """

    def __init__(
        self,
        session: Session,
        ctx: m.SessionContext,
        *,
        show_off_path: bool = False,
        previous: TranscriptModel | None = None,
        revised: Collection[int] = (),
    ) -> None:
        """Rows of `ctx`. With `previous` (the model this one follows after a live append that only added rows),
        its per-row numbers are reused and only the new rows are computed: a refresh of a 300k-message session
        stays proportional to what was appended. `revised`: entries whose recorded usage changed since `previous`
        (`RefreshResult.revised`): the numbers from the first of their rows on are computed again."""
        self.session = session
        self.ctx = ctx
        self.show_off_path = show_off_path
        entries = session.entries
        self._entries = entries
        self.message_count = len(ctx.messages)
        self.marks: RowMarks = RowMarks()
        """The row marks (`inspector.figures.marks`, set by the screen): cache-TTL expiry today, the compaction forecast next."""
        self._entry_count = len(entries)
        self.tiktoken: dict[int, int | None] = {}
        self.flags: dict[str, dict[int, Misestimate | None]] = {}
        """Per estimator name, per context position: the row's mis-estimate (`figures.diagnosis.misestimates`; None:
        not far off), filled by the transcript for the rows it shows."""
        self.flag_name = "pi"
        """The estimator the transcript flags mis-estimates of (`flag_estimator` of its estimator)."""
        self._tiktoken_prefix = _arr()  # running tiktoken totals while every earlier message is counted
        self._sizes: dict[str, array] = {}
        self._cumulative: dict[str, array] = {}
        self._max: dict[str, int] = {}
        self.filter_roles: frozenset[str] | None = None
        self.filter_tools: frozenset[str] | None = None
        if previous is not None and not self._can_inherit(previous, revised):
            previous = None
        self._branch_counts = self._branches(previous)
        n = self.message_count
        self._ctx_pos: array | None = None  # None: row == context position (context mode)
        if show_off_path:
            count = self._entry_count
            self.row_entries: array = _arr(range(count))
            self._ctx_pos = _arr((UNKNOWN,)) * count
            for pos, msg in enumerate(ctx.messages[:n]):
                if msg.entry_index < count:
                    self._ctx_pos[msg.entry_index] = pos
            self._on_path: bytearray | None = _membership(ctx.path, count)
        else:
            if previous is not None:
                self.row_entries = previous.row_entries[:] + _arr(msg.entry_index for msg in ctx.messages[len(previous.row_entries) : n])
            else:
                self.row_entries = _arr(msg.entry_index for msg in ctx.messages[:n])
            self._on_path = None
        self.view: Sequence[int] = range(len(self.row_entries))
        self.revised_from = self.message_count
        """The first row whose recorded usage was revised since the model this one follows (its numbers were taken
        again; the message count when none was)."""
        if previous is not None:
            self.revised_from = self._first_revised(revised)
            self._inherit_numbers(previous, self.revised_from)

    def set_marks(self, kind: MarkKind, marks: Iterable[RowMark]) -> None:
        """Replace the marks of `kind` (from an engine filler such as `inspector.figures.marks.cache_expiry_marks`)."""
        self.marks = self.marks.replacing(kind, marks)

    def _children_count(self, parent_id: str) -> int:
        return len(self.session.tree.children_of(parent_id))

    def _branches(self, previous: TranscriptModel | None) -> dict[int, int]:
        tree = self.session.tree
        if previous is None:
            return {i: self._children_count(self._entries[i].id or "") for i in tree.branch_points()}
        counts = dict(previous._branch_counts)
        for e in self._entries[previous._entry_count : self._entry_count]:
            if e.parent_id:
                parent = tree.by_id.get(e.parent_id)
                if parent is not None:
                    kids = self._children_count(e.parent_id)
                    if kids > 1:
                        counts[parent] = kids
        return counts

    def _can_inherit(self, previous: TranscriptModel, revised: Collection[int]) -> bool:
        if previous.show_off_path or self.show_off_path or previous.session is not self.session:
            return False
        if previous.ctx is self.ctx and revised:
            return False  # the session's context did not follow the revision: nothing to tell the rows apart by
        return previous.message_count <= self.message_count and (previous.ctx is self.ctx or previous.extends(self.ctx))

    def _first_revised(self, revised: Collection[int]) -> int:
        """The first context position whose entry is in `revised` (the message count when none is)."""
        if not revised:
            return self.message_count
        return next((pos for pos, msg in enumerate(self.ctx.messages) if msg.entry_index in revised), self.message_count)

    def _inherit_numbers(self, previous: TranscriptModel, keep: int) -> None:
        """Take `previous`'s numbers of its rows before position `keep` (the first whose usage was revised); compute
        the others."""
        n = self.message_count
        kept = min(n, keep)
        self.tiktoken = dict(previous.tiktoken)  # counts of the content: a usage revision changes none
        self.flags = {name: {pos: v for pos, v in found.items() if pos < kept} for name, found in previous.flags.items()}
        self.flag_name = previous.flag_name
        for est, old in list(previous._sizes.items()):
            old = old[:kept]
            self._sizes[est] = old + self._compute_sizes(est, len(old), n)
        for est, old in list(previous._cumulative.items()):
            old = old[:kept]
            self._cumulative[est] = old + self._compute_cumulative(est, len(old), n, old[-1] if len(old) else UNKNOWN)
        for est, old_max in list(previous._max.items()):
            sizes = self._size_array(est)
            if kept < previous.message_count:
                self._max[est] = max(max(sizes, default=0), 0)  # a revised row's old size may have been the largest
            else:
                self._max[est] = max(old_max, max(sizes[previous.message_count : n], default=0))

    # -- rows -----------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        """Rows before filtering."""
        return len(self.row_entries)

    @property
    def index_max(self) -> int:
        """The largest number the index column shows: the last entry's file line in file order, else the row count."""
        if self.show_off_path and self.row_count:
            return max(self.row_count, self.entry(self.row_count - 1).line)
        return self.row_count

    def __len__(self) -> int:
        """Rows shown (after filters)."""
        return len(self.view)

    def entry_at(self, entry_index: int) -> m.Entry:
        """The entry with file-order index `entry_index` (as indexed when this model was built)."""
        return self._entries[entry_index]

    def entry(self, row: int) -> m.Entry:
        """The entry of unfiltered row `row`."""
        return self._entries[self.row_entries[row]]

    def ctx_pos(self, row: int) -> int | None:
        """The context position of unfiltered row `row` (None: the entry is not in the context)."""
        if self._ctx_pos is None:
            return row
        pos = self._ctx_pos[row]
        return None if pos == UNKNOWN else pos

    def message(self, row: int) -> m.ContextMessage | None:
        """The context message of row `row` (None for an entry that is not in the context)."""
        pos = self.ctx_pos(row)
        return None if pos is None else self.ctx.messages[pos]

    def info(self, row: int) -> RowInfo:
        """Everything the transcript draws for row `row` (unfiltered index)."""
        entry = self.entry(row)
        msg = self.message(row)
        on_path = True if self._on_path is None else entry.index < len(self._on_path) and bool(self._on_path[entry.index])
        dropped = bool(self._on_path is not None and on_path and msg is None and entry.role is not None and entry.type != m.COMPACTION)
        return RowInfo(entry, msg, on_path, self._branch_counts.get(entry.index, 0), dropped)

    def role_of(self, row: int) -> str:
        """The role shown for a row: the context role, the entry's role, or the entry type."""
        msg = self.message(row)
        if msg is not None:
            return msg.role
        entry = self.entry(row)
        return entry.role or entry.type

    def tools_of(self, row: int) -> tuple[str, ...]:
        """Tool names of a row (a toolResult's tool, or the tools an assistant called)."""
        entry = self.entry(row)
        if entry.tool_name and entry.role in ("toolResult", "assistant"):
            return tuple(entry.tool_name.split(", "))
        return ()

    def row_of_entry(self, entry_index: int) -> int | None:
        """The unfiltered row showing entry `entry_index`, if any."""
        if self.show_off_path:
            return entry_index if entry_index < len(self.row_entries) else None
        try:
            return self.row_entries.index(entry_index)
        except ValueError:
            return None

    def view_index(self, row: int) -> int | None:
        """Position of unfiltered row `row` in the filtered view."""
        i = bisect_left(self.view, row)
        return i if i < len(self.view) and self.view[i] == row else None

    def nearest_view_index(self, row: int) -> int:
        """The view position of `row`, or of the first shown row after it (clamped)."""
        if not len(self.view):
            return 0
        return min(bisect_left(self.view, row), len(self.view) - 1)

    # -- filters --------------------------------------------------------------------------------

    def roles(self) -> list[str]:
        """Roles present in the rows, in first-seen order."""
        seen: dict[str, None] = {}
        for row in range(self.row_count):
            seen.setdefault(self.role_of(row), None)
        return list(seen)

    def tools(self) -> list[str]:
        """Tool names present in the rows, sorted."""
        names: set[str] = set()
        for row in range(self.row_count):
            names.update(self.tools_of(row))
        return sorted(names)

    def set_filters(self, roles: Iterable[str] | None, tools: Iterable[str] | None) -> None:
        """Show only rows whose role is in `roles` and (when given) that involve one of `tools`."""
        self.filter_roles = frozenset(roles) if roles else None
        self.filter_tools = frozenset(tools) if tools else None
        self._apply_filters()

    def _apply_filters(self) -> None:
        roles, tools = self.filter_roles, self.filter_tools
        if roles is None and tools is None:
            self.view = range(self.row_count)
            return
        out = _arr()
        for row in range(self.row_count):
            if roles is not None and self.role_of(row) not in roles:
                continue
            if tools is not None and not tools.intersection(self.tools_of(row)):
                continue
            out.append(row)
        self.view = out

    @property
    def filtered(self) -> bool:
        return self.filter_roles is not None or self.filter_tools is not None

    # -- sizes ----------------------------------------------------------------------------------

    def _size_array(self, estimator: str) -> array:
        cached = self._sizes.get(estimator)
        if cached is None:
            n = self.message_count
            cached = self._compute_sizes(estimator, 0, min(n, PREPARE_CHUNK))
            for start in range(PREPARE_CHUNK, n, PREPARE_CHUNK):  # a cancelled switch ends here (`prepare`)
                checkpoint()
                cached += self._compute_sizes(estimator, start, min(n, start + PREPARE_CHUNK))
            self._sizes[estimator] = cached
        return cached

    def sizes(self, estimator: str) -> list[int | None]:
        """Per context message: the size under `estimator` (None = not known / not applicable)."""
        if estimator == "tiktoken":
            return [self.tiktoken.get(pos) for pos in range(self.message_count)]
        return [None if v == UNKNOWN else v for v in self._size_array(estimator)]

    def _compute_sizes(self, estimator: str, start: int, stop: int) -> array:
        if estimator in ESTIMATE_NAMES:
            return estimate_sizes(self.ctx.messages, ESTIMATE_NAMES[estimator], start, stop)
        if estimator == "usage":
            return _saturating(lambda a, b: recorded_output_sizes(self.ctx.messages, a, b), start, stop)
        raise ValueError(f"unknown estimator {estimator!r}")

    def size(self, estimator: str, pos: int) -> int | None:
        """Size of context message `pos` under `estimator`."""
        if estimator == "tiktoken":
            return self.tiktoken.get(pos)
        v = self._size_array(estimator)[pos]
        return None if v == UNKNOWN else v

    def _compute_cumulative(self, estimator: str, start: int, stop: int, carry: int) -> array:
        if estimator == "usage":
            calculate = rules_of(self.session).tokens.calculate_context_tokens
            return _saturating(lambda a, b, c: recorded_context_running(self.ctx.messages, calculate, a, b, c), start, stop, carry)
        return running_totals(self._size_array(estimator), start, stop, carry)

    def _cumulative_array(self, estimator: str) -> array:
        cached = self._cumulative.get(estimator)
        if cached is None:
            n = self.message_count
            cached = self._compute_cumulative(estimator, 0, min(n, PREPARE_CHUNK), UNKNOWN)
            for start in range(PREPARE_CHUNK, n, PREPARE_CHUNK):
                checkpoint()
                cached += self._compute_cumulative(estimator, start, min(n, start + PREPARE_CHUNK), cached[-1])
            self._cumulative[estimator] = cached
        return cached

    def cumulative_at(self, estimator: str, pos: int) -> int | None:
        """The context so far at context message `pos` under `estimator` (see `cumulative`)."""
        if estimator == "tiktoken":
            prefix = self._tiktoken_prefix
            while len(prefix) <= pos:
                v = self.tiktoken.get(len(prefix))
                if v is None:
                    return None
                prefix.append((prefix[-1] if len(prefix) else 0) + v)
            return prefix[pos]
        v = self._cumulative_array(estimator)[pos]
        return None if v == UNKNOWN else v

    def cumulative(self, estimator: str) -> list[int | None]:
        """The context so far at each context message (inclusive) under `estimator`.

        pi / pruning chars: running sum. tiktoken: running sum while every earlier message is counted, then None.
        recorded usage: `calculateContextTokens(usage)` of the latest assistant call with non-zero usage.
        """
        if estimator == "tiktoken":
            out: list[int | None] = []
            total = 0
            for pos in range(self.message_count):
                v = self.tiktoken.get(pos)
                if v is None:
                    out.extend([None] * (self.message_count - pos))
                    break
                total += v
                out.append(total)
            return out
        return [None if v == UNKNOWN else v for v in self._cumulative_array(estimator)]

    def prepare(self, estimator: str) -> None:
        """Compute the sizes, running totals and bar scale of `estimator` now (call it in a worker thread; under a
        `inspector.base.cancel.cancellable` flag it stops every `PREPARE_CHUNK` messages once the flag is up)."""
        if estimator != "tiktoken":
            self._size_array(estimator)
            self._cumulative_array(estimator)
            self.max_size(estimator)

    def max_size(self, estimator: str) -> int:
        """The largest single-message size under `estimator` (scale of the token bars)."""
        if estimator == "tiktoken":
            return max((v for v in self.tiktoken.values() if v), default=0)
        cached = self._max.get(estimator)
        if cached is None:
            cached = max(self._size_array(estimator), default=0)
            self._max[estimator] = max(cached, 0)
            cached = self._max[estimator]
        return cached

    def set_tiktoken(self, counts: dict[int, int | None]) -> None:
        """Record tiktoken counts (context position -> tokens)."""
        self.tiktoken.update(counts)

    def flag_known(self, pos: int) -> bool:
        """Whether context message `pos` was judged under `flag_name`."""
        return pos in self.flags.get(self.flag_name, {})

    def flag(self, pos: int) -> Misestimate | None:
        """The mis-estimate of context message `pos` under `flag_name` (None: not far off, or not judged yet)."""
        return self.flags.get(self.flag_name, {}).get(pos)

    def set_flags(self, name: str, found: dict[int, Misestimate | None]) -> None:
        """Record the judgement of some context messages (context position -> mis-estimate) under `name`."""
        self.flags.setdefault(name, {}).update(found)

    # -- jumps ----------------------------------------------------------------------------------

    def find_next(self, start: int, predicate, *, backwards: bool = False) -> int | None:
        """The next view position after `start` (before, when `backwards`) whose row matches `predicate(row)`."""
        rng = range(start - 1, -1, -1) if backwards else range(start + 1, len(self.view))
        for vi in rng:
            if predicate(self.view[vi]):
                return vi
        return None

    def is_user(self, row: int) -> bool:
        return self.role_of(row) == "user"

    def is_compaction(self, row: int) -> bool:
        return self.entry(row).type == m.COMPACTION

    def biggest(self, estimator: str, limit: int = 200) -> list[int]:
        """View positions of the largest shown rows under `estimator`, largest first (at most `limit`)."""
        import heapq

        scored = []
        for vi, row in enumerate(self.view):
            pos = self.ctx_pos(row)
            if pos is None:
                continue
            v = self.size(estimator, pos)
            if v:
                scored.append((v, -vi))
        return [-nvi for _v, nvi in heapq.nlargest(limit, scored)]

    # -- live -----------------------------------------------------------------------------------

    def extends(self, new_ctx: m.SessionContext) -> bool:
        """Whether `new_ctx` is this model's context with messages appended (so rows can be added in place)."""
        n = self.message_count
        new = new_ctx.messages
        if self.show_off_path or new_ctx.compaction_index != self.ctx.compaction_index or len(new) < n:
            return False
        if new_ctx is self.ctx or n == 0:
            return True
        return new[n - 1].entry_index == self.row_entries[n - 1] and new[0].entry_index == self.row_entries[0]
