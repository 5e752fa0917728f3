"""One point per LLM call on the active path: what was sent (recorded), what the transcript holds, what it cost.

A *call* is an assistant message on the path from the leaf to the root that carries recorded usage. Two kinds are
skipped and counted: OpenClaw's synthetic assistants (`provider: "openclaw"`: delivery mirrors, gateway-injected
replies; no request was made) and zero-usage assistants (all token counts 0: nothing was billed or measured).

For each call the context the model saw is rebuilt with the engine's own rules (`inspector.session.context`): the walk
extends the context entry by entry (`extend_context`) and rebuilds it (`build_context`) at every compaction on
the path, so after a compaction the context is the summary plus the kept tail, exactly as pi sends it.
`transcript_estimate` is pi's chars/4 estimate (`estimateTokens`) summed over the messages of that context that
reach the model: pi-ai's `transformMessages` drops assistant messages that ended in `error` or `aborted`, and
pi's `convertToLlm` drops `bashExecution` messages flagged `excludeFromContext`, so those are left out.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from inspector.base.cancel import checked
from inspector.figures.diagnosis.cost import COST_UNKNOWN, CallCost, cost_of_call, priced_cost
from inspector.figures.rules_of import rules_of
from inspector.figures.sizes import index_estimators
from inspector.js.timeutil import iso_from_ms
from inspector.model import entries as m
from inspector.rules.agent_prices import agent_price_table
from inspector.session.context import build_context, extend_context
from inspector.session.session import Session
from inspector.session.tree import SessionTree

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.model_catalog import ModelCatalog
from inspector.storage.entry_table import EntryTable

SYNTHETIC_PROVIDER = "openclaw"
UNSENT_STOP_REASONS = ("error", "aborted")


def _num(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return 0
    return value


@dataclass(frozen=True, slots=True)
class AddedMessage:
    """A context message that appeared between two calls (a candidate cause of a jump)."""

    entry_id: str | None
    line: int
    role: str
    tool_name: str | None
    pi_tokens: int
    sent: bool
    estimate_tokens: int | None = None
    """The timeline's estimator's tokens when it is not pi's (None: `pi_tokens`)."""
    tokenizer_tokens: int | None = None
    """The tokenizer's count of the message (`figures.diagnosis.attribution`; None: not counted)."""

    @property
    def tokens(self) -> int:
        """The message's tokens by the timeline's estimator."""
        return self.pi_tokens if self.estimate_tokens is None else self.estimate_tokens

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "entry_id": self.entry_id,
            "line": self.line,
            "role": self.role,
            "tool_name": self.tool_name,
            "pi_tokens": self.pi_tokens,
            "sent": self.sent,
            "estimate_tokens": self.tokens,
            "tokenizer_tokens": self.tokenizer_tokens,
        }


@dataclass(slots=True)
class CallPoint:
    """One LLM call: recorded usage, the transcript estimate before it, its cost and where it sits on the path.

    `index` is the position among the calls; `entry_index` is `Entry.index`; `path_position` the position on the
    active path. `prompt_tokens` = `input + cacheRead + cacheWrite` (recorded); `transcript_estimate` is derived
    (see the module docstring); `added` are the context messages that appeared since the previous call (the
    previous assistant message included), in context order. `request_ms` is the assistant's `message.timestamp`
    (pi-ai sets it when the request starts); `gap_ms` is the time since the previous call's request, when the
    prompt cache was last used (None when either has no timestamp).
    """

    index: int
    entry_index: int
    path_position: int
    entry_id: str | None
    line: int
    request_ms: int | float | None
    provider: str | None
    model: str | None
    stop_reason: str | None
    usage: dict[str, Any]
    transcript_estimate: int
    context_messages: int
    compaction_id: str | None
    cost: CallCost
    added: list[AddedMessage] = field(default_factory=list)
    gap_ms: float | None = None
    context_tokens: int = 0
    """The rules' `calculateContextTokens(usage)` (pi's: `totalTokens`, or the sum): what the compaction check
    compares."""
    ledger_at: int = 0
    """How many of the walk's `ledger` steps made the context this call was sent."""
    transcript_tokens: int | None = None
    """The tokenizer's count of the transcript sent (`figures.diagnosis.attribution`; None: not counted)."""
    overhead_tokens: int | float | None = None
    """Derived: the part of `not_in_transcript` really outside the transcript (system prompt, tools, injected)."""
    estimator_error_tokens: int | float | None = None
    """Derived: the part of `not_in_transcript` that is the estimator's error on the transcript."""

    input: int | float = 0
    output_tokens: int | float = 0
    cache_read: int | float = 0
    cache_write: int | float = 0

    def __post_init__(self) -> None:
        u = self.usage
        self.input = _num(u.get("input"))
        self.output_tokens = _num(u.get("output"))
        self.cache_read = _num(u.get("cacheRead"))
        self.cache_write = _num(u.get("cacheWrite"))

    @property
    def prompt_tokens(self) -> int | float:
        """What the provider was sent, as recorded: `input + cacheRead + cacheWrite`."""
        return self.input + self.cache_read + self.cache_write

    @property
    def not_in_transcript(self) -> int | float:
        """Derived: recorded prompt − transcript estimate (system prompt, tool schemas, injected context, and the
        estimator's own error; negative when chars/4 overestimates)."""
        return self.prompt_tokens - self.transcript_estimate

    @property
    def cache_hit_ratio(self) -> float | None:
        """`cacheRead / prompt` (None for an empty prompt)."""
        prompt = self.prompt_tokens
        return round(self.cache_read / prompt, 4) if prompt else None

    def _request_at(self) -> str | None:
        try:
            return iso_from_ms(self.request_ms) if self.request_ms is not None else None
        except ValueError:
            return None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "index": self.index,
            "entry_id": self.entry_id,
            "line": self.line,
            "request_at": self._request_at(),
            "request_ms": self.request_ms,
            "provider": self.provider,
            "model": self.model,
            "stop_reason": self.stop_reason,
            "prompt_tokens": self.prompt_tokens,
            "input": self.input,
            "output_tokens": self.output_tokens,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "context_tokens": self.context_tokens,
            "transcript_estimate": self.transcript_estimate,
            "not_in_transcript": self.not_in_transcript,
            "cache_hit_ratio": self.cache_hit_ratio,
            "cost": self.cost.total,
            "cost_source": self.cost.source,
            "recorded_cost": self.cost.recorded_total,
            "context_messages": self.context_messages,
            "compaction_id": self.compaction_id,
            "added_messages": len(self.added),
            "added_tokens": sum(a.tokens for a in self.added if a.sent),
            "gap_ms": self.gap_ms,
            "transcript_tokens": self.transcript_tokens,
            "overhead_tokens": self.overhead_tokens,
            "estimator_error_tokens": self.estimator_error_tokens,
        }


@dataclass(frozen=True, slots=True)
class PathMarker:
    """A compaction, branch summary or branch point on the active path, placed before call `before_call`
    (None: after the last call)."""

    kind: str
    entry_id: str | None
    line: int
    before_call: int | None
    detail: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {"kind": self.kind, "entry_id": self.entry_id, "line": self.line, "before_call": self.before_call, **self.detail}


@dataclass(slots=True)
class CallWalk:
    """The calls of the active path in order, the markers between them, and what was skipped.

    `unsent_messages` counts the messages of the leaf's context that pi does not send (errored or aborted
    assistants, `excludeFromContext` bash executions): they are left out of every transcript estimate.
    """

    calls: list[CallPoint]
    markers: list[PathMarker]
    skipped_synthetic: list[m.Entry]
    skipped_zero_usage: list[m.Entry]
    unsent_messages: int
    ledger: list[tuple[bool, list[m.ContextMessage]]] = field(default_factory=list)
    """How the context grew, step by step: `(reset, rows)`, the sent rows that replaced it (`reset`: a rebuild)
    or were appended to it; a call was sent the context of its first `ledger_at` steps. `build_timeline` empties it once
    the attribution replayed it (it holds every context row ever sent)."""

    def skipped_json(self) -> dict[str, Any]:
        """How many assistants were skipped, which, and why."""
        return {
            "synthetic": len(self.skipped_synthetic),
            "zero_usage": len(self.skipped_zero_usage),
            "synthetic_entry_ids": [e.id for e in self.skipped_synthetic],
            "zero_usage_entry_ids": [e.id for e in self.skipped_zero_usage],
            "reason": (
                "OpenClaw's synthetic assistants (provider \"openclaw\": delivery mirrors, gateway-injected replies) "
                "made no request; zero-usage assistants recorded no tokens"
            ),
        }


class _PathView:
    """The entry tree as `build_context` reads it (`entries`, `by_id`, `path_to`), with the path handed over.

    `build_context` would walk `parentId` from the leaf to the root again at every compaction (O(path) each). Given
    the slice of the active path that starts at the compaction's first kept entry (or at the compaction itself when
    that entry is not on the path before it), its rules produce the same messages: the first kept entry is found at
    the slice's start, and nothing before it is kept.
    """

    __slots__ = ("_path", "by_id", "entries")

    def __init__(self, tree: SessionTree, path: array[int]) -> None:
        self.entries: EntryTable = tree.entries
        self.by_id = tree.by_id
        self._path = path

    def path_to(self, leaf_index: int) -> tuple[array[int], list[m.Diagnostic]]:
        """The handed-over path slice (no diagnostics: the walk already has them)."""
        return self._path[:], []


def _rebuild(tree: SessionTree, path: array[int], pos: int, first_pos: dict[str, int]) -> m.SessionContext:
    """`build_context` at `path[pos]`, on the shortest slice of the path that gives the same messages."""
    e = tree.entries[path[pos]]
    start = 0
    if e.type == m.COMPACTION:
        first_kept = (e.data or {}).get("firstKeptEntryId")
        found = first_pos.get(first_kept) if isinstance(first_kept, str) else None
        start = found if found is not None and found < pos else pos
    return build_context(cast(SessionTree, _PathView(tree, path[start : pos + 1])), path[pos])


def _sent(entries: EntryTable, row: m.ContextMessage) -> bool:
    """Whether pi actually sends this context message to the model."""
    if row.excluded_from_llm:
        return False
    shape = entries.shape_of(row.entry_index)
    return not (shape[1] == "assistant" and shape[5] in UNSENT_STOP_REASONS)


def _is_zero(usage: dict[str, Any]) -> bool:
    return not any(_num(usage.get(k)) for k in ("input", "output", "cacheRead", "cacheWrite", "totalTokens"))


def walk_calls(session: Session, ctx: m.SessionContext, prices: ModelCatalog | None = None, estimator: str = "pi") -> CallWalk:
    """Every call on the path of `ctx` (from the root to its leaf), with the context each one was sent; priced by
    `prices` (None: the session's rules' model catalog); `transcript_estimate` by the index's estimator `estimator`
    (one counted in characters is divided by the rules' `CHARS_PER_TOKEN_ESTIMATE`, rounded up)."""
    rules = rules_of(session)
    chars_per_token = 0.0 if estimator == "pi" else estimator_chars_per_token(session, estimator)
    prices = prices or rules.model_catalog.load_catalog()
    calculate_context_tokens = rules.tokens.calculate_context_tokens
    tree, entries = session.tree, session.entries
    branch_points = set(tree.branch_points())
    calls: list[CallPoint] = []
    markers: list[tuple[str, m.Entry, dict[str, Any]]] = []
    marker_before: list[int] = []
    synthetic: list[m.Entry] = []
    zero: list[m.Entry] = []
    running: m.SessionContext | None = None
    estimate = 0
    sent_count = 0
    added: list[AddedMessage] = []
    compaction_id: str | None = None
    prev_request_ms: int | float | None = None

    ledger: list[tuple[bool, list[m.ContextMessage]]] = []

    def describe(row: m.ContextMessage) -> AddedMessage:
        """A context row as an `AddedMessage` (its pi tokens, whether pi sends it)."""
        tokens = row.estimate("pi") or 0
        other = None if estimator == "pi" else row_estimate(row, estimator, chars_per_token)
        return AddedMessage(row.entry_id, row.line, row.role, row.tool_name, tokens, _sent(entries, row), other)

    first_pos: dict[str, int] = {}  # entry id -> its first position on the path (build_context's first-kept scan)
    ids, shape_of = entries.ids, entries.shape_of
    for pos, idx in checked(enumerate(ctx.path)):
        entry_id = ids[idx]
        if entry_id is not None:
            first_pos.setdefault(entry_id, pos)
        etype, role = shape_of(idx)[:2]
        is_marker = etype in (m.COMPACTION, m.BRANCH_SUMMARY) or idx in branch_points
        # An `Entry` is built only for a call or a marker (building one per path position cost a tenth of a timeline).
        e = entries[idx] if is_marker or (role == "assistant" and etype == m.MESSAGE) else None
        usage = e.usage if e is not None and e.role == "assistant" and e.type == m.MESSAGE else None
        if e is not None and usage is not None:
            if e.provider == SYNTHETIC_PROVIDER:
                synthetic.append(e)
            elif _is_zero(usage):
                zero.append(e)
            else:
                request_ms = e.message_timestamp
                gap = float(request_ms - prev_request_ms) if request_ms is not None and prev_request_ms is not None else None
                calls.append(
                    CallPoint(
                        index=len(calls),
                        entry_index=idx,
                        path_position=pos,
                        entry_id=e.id,
                        line=e.line,
                        request_ms=request_ms,
                        provider=e.provider,
                        model=e.model,
                        stop_reason=e.stop_reason,
                        usage=usage,
                        transcript_estimate=estimate,
                        context_messages=sent_count,
                        compaction_id=compaction_id,
                        cost=cost_of_call(usage, e.provider, e.model, prices),
                        added=added,
                        gap_ms=gap,
                        context_tokens=calculate_context_tokens(usage),
                        ledger_at=len(ledger),
                    )
                )
                added = []
                if request_ms is not None:
                    prev_request_ms = request_ms
        if is_marker:
            assert e is not None
            markers.append((_marker_kind(e, idx in branch_points), e, _marker_detail(tree, e, ctx.path, pos)))
            marker_before.append(len(calls))
        # Advance the context past this entry: extend it, or rebuild it with the engine's rules.
        before = len(running.messages) if running is not None else 0
        if running is not None and etype != m.COMPACTION and extend_context(tree, running, idx):
            step: list[m.ContextMessage] = []
            for row in running.messages[before:]:
                a = describe(row)
                added.append(a)
                if a.sent:
                    estimate += a.tokens
                    sent_count += 1
                    step.append(row)
            if step:
                ledger.append((False, step))
            continue
        old = {r.entry_index for r in running.messages} if running is not None else set()
        running = _rebuild(tree, ctx.path, pos, first_pos)
        rows = [describe(r) for r in running.messages]
        estimate = sum(a.tokens for a in rows if a.sent)
        sent_count = sum(1 for a in rows if a.sent)
        ledger.append((True, [r for r, a in zip(running.messages, rows) if a.sent]))
        present = {r.entry_id for r in running.messages}
        if etype == m.COMPACTION:
            # After a compaction the summary is new; of the messages added since the last call, those in the
            # kept tail stay candidates.
            compaction_id = entry_id
            added = [a for a in added if a.entry_id in present] + rows[:1]
        else:
            added = [a for a in added if a.entry_id in present] + [
                a for r, a in zip(running.messages, rows) if r.entry_index not in old
            ]
    return CallWalk(
        calls=calls,
        markers=[
            PathMarker(kind, e.id, e.line, before if before < len(calls) else None, detail)
            for (kind, e, detail), before in zip(markers, marker_before)
        ],
        skipped_synthetic=synthetic,
        skipped_zero_usage=zero,
        unsent_messages=sum(1 for r in ctx.messages if not _sent(entries, r)),
        ledger=ledger,
    )


def row_estimate(row: m.ContextMessage, estimator: str, chars_per_token: float) -> int:
    """The row's tokens by the index's estimator `estimator`: its figure, divided by `chars_per_token` and rounded up
    when that is positive (an estimator counted in characters; `estimator_chars_per_token`)."""
    value = row.estimate(estimator) or 0
    return math.ceil(value / chars_per_token) if chars_per_token > 0 else value


def estimator_chars_per_token(session: Session, estimator: str) -> float:
    """The divisor that turns `estimator`'s figure into tokens: the rules' chars per token for an estimator in
    characters, 0 (none) for one in tokens; ValueError for a name the index does not hold."""
    for est in index_estimators(session):
        if est.name == estimator:
            return float(rules_of(session).tokens.CHARS_PER_TOKEN_ESTIMATE) if est.unit != "tok" else 0.0
    raise ValueError(f"unknown estimator {estimator!r}")


def _marker_kind(e: m.Entry, is_branch_point: bool) -> str:
    if e.type == m.COMPACTION:
        return "compaction"
    if e.type == m.BRANCH_SUMMARY:
        return "branch_summary"
    return "branch_point" if is_branch_point else e.type


def _marker_detail(tree: Any, e: m.Entry, path: Sequence[int], pos: int) -> dict[str, Any]:
    if e.type == m.COMPACTION:
        data = e.data or {}
        return {"first_kept_entry_id": data.get("firstKeptEntryId"), "tokens_before": data.get("tokensBefore")}
    if e.type == m.BRANCH_SUMMARY:
        return {"from_id": (e.data or {}).get("fromId")}
    children = tree.child_indices(e)
    follows = path[pos + 1] if pos + 1 < len(path) else None
    return {
        "children": len(children),
        "follows_entry_id": tree.entries[follows].id if follows is not None else None,
        "other_children": [tree.entries.id_of(c) for c in children if c != follows],
    }


def unknown_cost_calls(calls: list[CallPoint]) -> int:
    """How many calls have neither a recorded cost nor a table price."""
    return sum(1 for c in calls if c.cost.source == COST_UNKNOWN)


def priced_usage(session: Session, ctx: m.SessionContext) -> dict[str, Any]:
    """`stats`' cost of a session whose file records none (Claude Code, Codex): `cost.priced_cost` of the calls on
    the active path (the timeline's calls: its `cost.total`) and of every entry's, by `cost.agent_price_table`."""
    entries = session.entries
    table = agent_price_table(rules_of(session).model_catalog.load_catalog())

    def calls(indices: Iterable[int]) -> list[tuple[dict[str, Any], str | None, str | None]]:
        out = []
        for i in indices:
            etype, role = entries.shape_of(i)[:2]
            if etype != m.MESSAGE or role != "assistant":
                continue
            e = entries[i]
            if e.usage is not None and e.provider != SYNTHETIC_PROVIDER and not _is_zero(e.usage):
                out.append((e.usage, e.provider, e.model))
        return out

    return {"active_path": priced_cost(calls(ctx.path), table), "all_entries": priced_cost(calls(range(len(entries))), table)}
