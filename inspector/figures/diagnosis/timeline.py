"""The context timeline of a session: every call, its jumps, the thresholds crossed, repeats, overhead, cost, cache.

`build_timeline(session, options)` is the one engine entry point: `session-inspector timeline --json` prints its
`to_json()`, and the app's views render the same `Timeline` object (chart points, jump and compaction marks,
the repeats panel, the not-in-transcript share, the over-the-window state).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.figures.diagnosis.attribution import TIKTOKEN_ESTIMATOR, TOKENIZER, Attribution, attribute
from inspector.figures.diagnosis.calls import AddedMessage, CallPoint, CallWalk, walk_calls
from inspector.figures.diagnosis.cost import COST_PRICE_TABLE, COST_RECORDED, COST_UNKNOWN
from inspector.figures.diagnosis.fill import FillState, agent_rule_of, fill_state
from inspector.figures.diagnosis.gateway import timeline_section
from inspector.figures.diagnosis.overhead import OverheadSummary, summarize_overhead
from inspector.figures.diagnosis.prompt_cache import CacheSummary, cache_ttl, summarize_cache
from inspector.figures.diagnosis.repeats import Repeat, find_repeats
from inspector.figures.diagnosis.thresholds import ThresholdCrossing, find_crossings, threshold_lines
from inspector.figures.rules_of import rules_of
from inspector.figures.session_figures import WindowOptions, guard_json, sum_usage, window_for, window_json
from inspector.model import entries as m
from inspector.rules.agent_prices import agent_price_table
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.figures.diagnosis.savings import Savings
    from inspector.figures.forecast.other_agents import AgentRule
    from inspector.host.gateway_log import GatewayLog
    from inspector.rules.openclaw_2026_4_12.compaction.settings import ReserveTokens
    from inspector.rules.openclaw_2026_4_12.window_guard import ContextWindow

DEFAULT_TOP_JUMPS = 10
DERIVED_FIELDS = {
    "transcript_estimate": "pi's chars/4 estimate (estimateTokens) of the context messages sent before the call, "
    "rebuilt with pi's buildSessionContext rules (after a compaction: summary + kept tail); errored/aborted assistants "
    "and excludeFromContext bash runs are not sent and not counted",
    "not_in_transcript": "derived: prompt_tokens - transcript_estimate (system prompt, tool schemas, injected context, "
    "and the estimator's own error); never recorded in the session file",
    "transcript_tokens": "derived: tiktoken's count of the same messages, image blocks at the estimator's own image figure "
    "(tiktoken does not count images); null without a tokenizer",
    "overhead_tokens": "derived: the part of not_in_transcript really outside the transcript (attribution.method_text)",
    "estimator_error_tokens": "derived: the part of not_in_transcript that is the estimator's error on the transcript "
    "(overhead_tokens + estimator_error_tokens = not_in_transcript)",
    "prompt_tokens": "recorded: input + cacheRead + cacheWrite",
    "cost": "recorded usage.cost.total, else the bundled price table (cost_source says which)",
}
MAX_CAUSES = 20


@dataclass(frozen=True, slots=True)
class TimelineOptions:
    """Where the window and thresholds come from, and how many jumps to keep."""

    window: WindowOptions = field(default_factory=WindowOptions)
    early_fractions: tuple[float, ...] | None = None
    """The early-warning thresholds, as fractions of the window (None: the session's rules' defaults)."""
    top_jumps: int = DEFAULT_TOP_JUMPS
    gateway: GatewayLog | None = None
    """What OpenClaw's Gateway log recorded of the session (`figures.diagnosis.gateway`); None: no `gateway` section."""
    estimator: str = "pi"
    """What `transcript_estimate` is counted with: an estimator of the index (`figures.sizes.index_estimators`) or
    `tiktoken`."""
    tokenizer: str | None = TOKENIZER
    """The tiktoken encoding the attribution counts the transcript with (None, as `--no-tiktoken`: the estimator is
    calibrated instead; `estimator` "tiktoken" always counts)."""


@dataclass(frozen=True, slots=True)
class Jump:
    """An increase of the prompt between two consecutive calls, and the messages added in between, largest first.

    `explained_tokens` is the estimator's count of those messages (what the transcript accounts for);
    `across_compaction` says a compaction sits between the two calls. `transcript_change` and `overhead_change` split
    the increase (`figures.diagnosis.attribution`): the transcript's growth in the provider's tokens, and the rest;
    `attributed_to` names the larger.
    """

    call_index: int
    entry_id: str | None
    line: int
    previous_entry_id: str | None
    prompt_before: int | float
    prompt_after: int | float
    causes: list[AddedMessage]
    across_compaction: bool
    overhead_change: int | float | None = None
    estimator_error_change: int | float | None = None

    @property
    def transcript_change(self) -> int | float | None:
        """The transcript's growth in the provider's tokens (the increase minus the overhead's change)."""
        return None if self.overhead_change is None else self.delta_tokens - self.overhead_change

    @property
    def attributed_to(self) -> str | None:
        """`transcript` or `overhead`: which part of the increase is larger (None: not split)."""
        if self.overhead_change is None or self.transcript_change is None:
            return None
        return "overhead" if self.overhead_change > self.transcript_change else "transcript"

    @property
    def tokenizer_tokens(self) -> int | None:
        """The tokenizer's count of the causes (None: not counted)."""
        counts = [c.tokenizer_tokens for c in self.causes]
        return None if not counts or any(n is None for n in counts) else sum(n for n in counts if n is not None)

    @property
    def delta_tokens(self) -> int | float:
        """The prompt increase, in tokens."""
        return self.prompt_after - self.prompt_before

    @property
    def explained_tokens(self) -> int:
        """pi's estimate of the causes: what the transcript accounts for."""
        return sum(c.tokens for c in self.causes)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "entry_id": self.entry_id,
            "line": self.line,
            "call_index": self.call_index,
            "previous_entry_id": self.previous_entry_id,
            "delta_tokens": self.delta_tokens,
            "prompt_before": self.prompt_before,
            "prompt_after": self.prompt_after,
            "cause_entry_ids": [c.entry_id for c in self.causes],
            "causes": [c.to_json() for c in self.causes],
            "explained_tokens": self.explained_tokens,
            "across_compaction": self.across_compaction,
            "tokenizer_tokens": self.tokenizer_tokens,
            "transcript_change": self.transcript_change,
            "overhead_change": self.overhead_change,
            "estimator_error_change": self.estimator_error_change,
            "attributed_to": self.attributed_to,
        }


def find_jumps(calls: list[CallPoint], top: int = DEFAULT_TOP_JUMPS) -> list[Jump]:
    """The `top` largest prompt increases between consecutive calls (ties: earlier first)."""
    rises = [(cur.prompt_tokens - prev.prompt_tokens, cur.index) for prev, cur in zip(calls, calls[1:]) if cur.prompt_tokens > prev.prompt_tokens]
    rises.sort(key=lambda r: (-r[0], r[1]))
    jumps: list[Jump] = []
    for _, i in rises[: max(0, top)]:
        prev, cur = calls[i - 1], calls[i]
        jumps.append(
            Jump(
                call_index=cur.index,
                entry_id=cur.entry_id,
                line=cur.line,
                previous_entry_id=prev.entry_id,
                prompt_before=prev.prompt_tokens,
                prompt_after=cur.prompt_tokens,
                causes=sorted((a for a in cur.added if a.sent), key=lambda a: -a.tokens)[:MAX_CAUSES],
                across_compaction=cur.compaction_id != prev.compaction_id,
                overhead_change=_change(prev.overhead_tokens, cur.overhead_tokens),
                estimator_error_change=_change(prev.estimator_error_tokens, cur.estimator_error_tokens),
            )
        )
    return jumps


def _change(before: int | float | None, after: int | float | None) -> int | float | None:
    return None if before is None or after is None else after - before


@dataclass(frozen=True, slots=True)
class CostSummary:
    """Σ cost over the calls, split by where each call's figure came from."""

    total: float
    recorded: float
    price_table: float
    recorded_calls: int
    price_table_calls: int
    unknown_calls: int
    table: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "total": self.total,
            "recorded": self.recorded,
            "price_table": self.price_table,
            "recorded_calls": self.recorded_calls,
            "price_table_calls": self.price_table_calls,
            "unknown_calls": self.unknown_calls,
            "price_table_source": self.table,
        }


def summarize_cost(calls: list[CallPoint], table: dict[str, Any]) -> CostSummary:
    """Per-session cost: recorded where present, else the price table `table` describes (see
    `inspector.figures.diagnosis.cost`)."""

    def total(source: str) -> float:
        """Σ cost of the calls whose cost came from `source`."""
        return round(sum(c.cost.total for c in calls if c.cost.source == source), 10)

    return CostSummary(
        total=round(sum(c.cost.total for c in calls), 10),
        recorded=total(COST_RECORDED),
        price_table=total(COST_PRICE_TABLE),
        recorded_calls=sum(1 for c in calls if c.cost.source == COST_RECORDED),
        price_table_calls=sum(1 for c in calls if c.cost.source == COST_PRICE_TABLE),
        unknown_calls=sum(1 for c in calls if c.cost.source == COST_UNKNOWN),
        table=table,
    )


@dataclass(slots=True)
class Timeline:
    """Everything `timeline` reports, computed once; `to_json()` is `session-inspector timeline --json`."""

    file: str
    leaf_id: str | None
    model: dict[str, Any] | None
    window: ContextWindow
    guard: dict[str, Any]
    reserve: ReserveTokens
    walk: CallWalk
    jumps: list[Jump]
    thresholds: list[ThresholdCrossing]
    repeats: list[Repeat]
    overhead: OverheadSummary
    attribution: Attribution
    cache: CacheSummary
    cost: CostSummary
    fill: FillState
    recorded_totals: dict[str, Any]
    skipped_totals: dict[str, Any]
    gateway: dict[str, Any] | None = None
    """The `gateway` section (`figures.diagnosis.gateway.timeline_section`), only when a log was given."""
    savings: Savings | None = None
    """What fixing it would save over the next calls (`figures.diagnosis.savings.build_savings`), when asked for."""
    agent_rule: AgentRule | None = None
    """On a Claude Code / Codex session: the agent's own compaction rule (the compaction threshold's source)."""

    @property
    def calls(self) -> list[CallPoint]:
        """The calls, in path order."""
        return self.walk.calls

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "file": self.file,
            "leaf_id": self.leaf_id,
            "model": self.model,
            "context_window": window_json(self.window),
            "guard": self.guard,
            "fill": self.fill.to_json(),
            "compaction_reserve": self.reserve.to_json(),
            "calls": [c.to_json() for c in self.calls],
            "skipped": self.walk.skipped_json(),
            "unsent_messages": self.walk.unsent_messages,
            "markers": [mk.to_json() for mk in self.walk.markers],
            "jumps": [j.to_json() for j in self.jumps],
            "thresholds_crossed": [t.to_json() for t in self.thresholds],
            "repeats": [r.to_json() for r in self.repeats],
            "overhead": self.overhead.to_json(),
            "attribution": self.attribution.to_json(),
            "cache": self.cache.to_json(),
            "cost": self.cost.to_json(),
            "totals": {"calls": self.recorded_totals, "skipped": self.skipped_totals},
            "derived_fields": DERIVED_FIELDS,
            **({} if self.gateway is None else {"gateway": self.gateway}),
            **({} if self.savings is None else {"savings": self.savings.to_json()}),
            **({} if self.agent_rule is None else {"agent_compaction": self.agent_rule.to_json()}),
        }


def build_timeline(session: Session, ctx: m.SessionContext, options: TimelineOptions | None = None) -> Timeline:
    """The timeline of the active path of `ctx` (the path from its leaf to the root)."""
    options = options or TimelineOptions()
    rules = rules_of(session)
    window = window_for(rules, ctx, options.window)
    config = options.window.config
    reserve = rules.compaction_settings.resolve_reserve_tokens(config)
    prices = rules.model_catalog.load_catalog()
    if options.window.agent is not None:
        prices = agent_price_table(prices)  # Claude Code / Codex: the current release's catalog for newer models
    # The repeats first: what they read from disk is freed before the walk's rows are made, not on top of them.
    repeats = find_repeats(session, ctx.path)
    walk = walk_calls(session, ctx, prices, "pi" if options.estimator == TIKTOKEN_ESTIMATOR else options.estimator)
    attribution = attribute(session, walk, options.estimator, options.tokenizer)
    early = rules.triggers.DEFAULT_EARLY_THRESHOLDS if options.early_fractions is None else options.early_fractions
    agent = agent_rule_of(options.window.agent, window.tokens)
    lines = threshold_lines(window.tokens, reserve, early, agent)
    guard = guard_json(rules, window, ctx.model)
    now = rules.context_usage.context_now(session, ctx)
    ttl_ms, ttl_source = cache_ttl(rules, config)
    entries = session.entries
    gateway = None if options.gateway is None else timeline_section(options.gateway, walk, window.tokens - reserve.reserve_tokens)
    walk.ledger = []  # replayed by the attribution only: a kept timeline does not hold every context row ever sent
    return Timeline(
        file=str(session.path),
        leaf_id=ctx.leaf_id,
        model=ctx.model,
        window=window,
        guard=guard,
        reserve=reserve,
        walk=walk,
        jumps=find_jumps(walk.calls, options.top_jumps),
        thresholds=find_crossings(walk.calls, lines, window.tokens),
        repeats=repeats,
        overhead=summarize_overhead(walk.calls),
        attribution=attribution,
        cache=summarize_cache(walk.calls, ttl_ms, ttl_source),
        cost=summarize_cost(walk.calls, prices.describe()),
        fill=fill_state(now["tokens"], window.tokens, lines, guard["level"], now["basis"], agent),
        recorded_totals=sum_usage([entries[c.entry_index] for c in walk.calls]),
        skipped_totals=sum_usage(walk.skipped_synthetic + walk.skipped_zero_usage),
        gateway=gateway,
        agent_rule=agent,
    )
