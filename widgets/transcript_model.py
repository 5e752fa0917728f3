"""The rows the transcript shows, and the per-row numbers under each estimator (UI glue, no widget).

Every size comes from the engine: `Entry.estimates` (pi chars/4, OpenClaw pruning chars), the tiktoken counter
(`inspector.tokens.get_token_counter`, filled lazily by the screen for the rows that are looked at) and the
usage the provider recorded (`inspector.tokens.calculate_context_tokens`). This module only arranges them:
which rows are shown (context only, or every entry with off-path ones marked), filters, running totals for the
"context so far" column, and row lookups for jumps. It holds `Entry` / `ContextMessage` objects, never message
content; content is read from disk for the rows on screen only.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from typing import Iterable, Literal

from inspector import model as m
from inspector.session import Session
from inspector.tokens import calculate_context_tokens

Estimator = Literal["pi", "prune", "tiktoken", "usage"]
ESTIMATORS: tuple[Estimator, ...] = ("pi", "prune", "tiktoken", "usage")
ESTIMATOR_LABELS: dict[str, str] = {
    "pi": "pi chars/4",
    "prune": "OpenClaw pruning chars",
    "tiktoken": "tiktoken",
    "usage": "recorded usage",
}
ESTIMATOR_UNITS: dict[str, str] = {"pi": "tok", "prune": "chars", "tiktoken": "tok", "usage": "tok"}
ESTIMATOR_HELP: dict[str, str] = {
    "pi": "pi's estimateTokens: ceil(chars/4) per message (what pi compaction uses)",
    "prune": "OpenClaw context-pruning size estimate, in characters",
    "tiktoken": "real tokenizer (cl100k_base, offline), counted for the rows you look at",
    "usage": "what the provider recorded: output per assistant call; context = usage total at that call",
}

SUMMARY_ROLES = frozenset({"compactionSummary", "branchSummary"})


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

    def __init__(self, session: Session, ctx: m.SessionContext, *, show_off_path: bool = False) -> None:
        self.session = session
        self.ctx = ctx
        self.show_off_path = show_off_path
        entries = session.entries
        self._entries = entries
        self.tiktoken: dict[int, int | None] = {}
        self._sizes: dict[str, list[int | None]] = {}
        self._cumulative: dict[str, list[int | None]] = {}
        self._max: dict[str, int] = {}
        self.filter_roles: frozenset[str] | None = None
        self.filter_tools: frozenset[str] | None = None
        self._branch_counts = {i: len(session.tree.children.get(entries[i].id or "", ())) for i in session.tree.branch_points()}
        if show_off_path:
            self.row_entries: list[int] = list(range(len(entries)))
            pos_of = {msg.entry_index: pos for pos, msg in enumerate(ctx.messages)}
            self.row_ctx_pos: list[int | None] = [pos_of.get(i) for i in self.row_entries]
            self._on_path = set(ctx.path)
        else:
            self.row_entries = [msg.entry_index for msg in ctx.messages]
            self.row_ctx_pos = list(range(len(ctx.messages)))
            self._on_path = None
        self.view: list[int] = list(range(len(self.row_entries)))

    # -- rows -----------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        """Rows before filtering."""
        return len(self.row_entries)

    def __len__(self) -> int:
        """Rows shown (after filters)."""
        return len(self.view)

    def entry_at(self, entry_index: int) -> m.Entry:
        """The entry with file-order index `entry_index` (as indexed when this model was built)."""
        return self._entries[entry_index]

    def entry(self, row: int) -> m.Entry:
        """The entry of unfiltered row `row`."""
        return self._entries[self.row_entries[row]]

    def message(self, row: int) -> m.ContextMessage | None:
        """The context message of row `row` (None for an entry that is not in the context)."""
        pos = self.row_ctx_pos[row]
        return None if pos is None else self.ctx.messages[pos]

    def info(self, row: int) -> RowInfo:
        """Everything the transcript draws for row `row` (unfiltered index)."""
        entry = self.entry(row)
        msg = self.message(row)
        on_path = True if self._on_path is None else entry.index in self._on_path
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
        for pos, msg in enumerate(self.ctx.messages):
            if msg.entry_index == entry_index:
                return pos
        return None

    def view_index(self, row: int) -> int | None:
        """Position of unfiltered row `row` in the filtered view."""
        if len(self.view) == len(self.row_entries):
            return row
        from bisect import bisect_left

        i = bisect_left(self.view, row)
        return i if i < len(self.view) and self.view[i] == row else None

    def nearest_view_index(self, row: int) -> int:
        """The view position of `row`, or of the first shown row after it (clamped)."""
        from bisect import bisect_left

        if not self.view:
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
            self.view = list(range(self.row_count))
            return
        out = []
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

    def sizes(self, estimator: str) -> list[int | None]:
        """Per context message: the size under `estimator` (None = not known / not applicable)."""
        if estimator == "tiktoken":
            return [self.tiktoken.get(pos) for pos in range(len(self.ctx.messages))]
        cached = self._sizes.get(estimator)
        if cached is None:
            cached = self._compute_sizes(estimator)
            self._sizes[estimator] = cached
        return cached

    def _compute_sizes(self, estimator: str) -> list[int | None]:
        msgs = self.ctx.messages
        if estimator == "pi":
            return [r.estimates.pi_tokens if r.estimates else 0 for r in msgs]
        if estimator == "prune":
            return [r.estimates.openclaw_prune_chars if r.estimates else 0 for r in msgs]
        if estimator == "usage":
            out: list[int | None] = []
            for r in msgs:
                u = r.usage if r.role == "assistant" else None
                v = u.get("output") if isinstance(u, dict) else None
                out.append(v if isinstance(v, int) and not isinstance(v, bool) else None)
            return out
        raise ValueError(f"unknown estimator {estimator!r}")

    def size(self, estimator: str, pos: int) -> int | None:
        """Size of context message `pos` under `estimator`."""
        if estimator == "tiktoken":
            return self.tiktoken.get(pos)
        return self.sizes(estimator)[pos]

    def cumulative(self, estimator: str) -> list[int | None]:
        """The context so far at each context message (inclusive) under `estimator`.

        pi / pruning chars: running sum. tiktoken: running sum while every earlier message is counted, then None.
        recorded usage: `calculateContextTokens(usage)` of the latest assistant call with non-zero usage.
        """
        if estimator == "tiktoken":
            out: list[int | None] = []
            total = 0
            for pos in range(len(self.ctx.messages)):
                v = self.tiktoken.get(pos)
                if v is None:
                    out.extend([None] * (len(self.ctx.messages) - pos))
                    break
                total += v
                out.append(total)
            return out
        cached = self._cumulative.get(estimator)
        if cached is not None:
            return cached
        if estimator == "usage":
            cur: int | None = None
            res: list[int | None] = []
            for r in self.ctx.messages:
                if r.role == "assistant" and isinstance(r.usage, dict):
                    v = calculate_context_tokens(r.usage)
                    if v:
                        cur = v
                res.append(cur)
            cached = res
        else:
            cached = list(accumulate((v or 0) for v in self.sizes(estimator)))
        self._cumulative[estimator] = cached
        return cached

    def max_size(self, estimator: str) -> int:
        """The largest single-message size under `estimator` (scale of the token bars)."""
        if estimator == "tiktoken":
            return max((v for v in self.tiktoken.values() if v), default=0)
        cached = self._max.get(estimator)
        if cached is None:
            cached = max((v for v in self.sizes(estimator) if v), default=0)
            self._max[estimator] = cached
        return cached

    def set_tiktoken(self, counts: dict[int, int | None]) -> None:
        """Record tiktoken counts (context position -> tokens)."""
        self.tiktoken.update(counts)

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
        sizes = self.sizes(estimator)
        scored = []
        for vi, row in enumerate(self.view):
            pos = self.row_ctx_pos[row]
            if pos is None:
                continue
            v = sizes[pos]
            if v:
                scored.append((-v, vi))
        scored.sort()
        return [vi for _, vi in scored[:limit]]

    # -- live -----------------------------------------------------------------------------------

    def extends(self, new_ctx: m.SessionContext) -> bool:
        """Whether `new_ctx` is this context with messages appended (so rows can be added in place)."""
        old = self.ctx.messages
        new = new_ctx.messages
        if self.show_off_path or new_ctx.compaction_index != self.ctx.compaction_index or len(new) < len(old):
            return False
        return not old or (new[len(old) - 1].entry_index == old[-1].entry_index and new[0].entry_index == old[0].entry_index)
