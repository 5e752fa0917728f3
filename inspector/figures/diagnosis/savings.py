"""What fixing it would save: the tokens and cost of the next N calls as the session stands, with pruning, compacted now.

`project(inputs)` is the arithmetic (the test works it by hand); `build_savings` gathers its inputs from the
session and its timeline:

- `base_prompt`: the last call's recorded prompt; `growth_per_call`: the session's own call rate, the mean prompt
  increase over the last `RATE_CALLS` steps between consecutive calls since the last compaction (0 when it shrinks);
  `output_per_call`: the mean recorded output of those calls;
- the prompt's split into uncached input, cache reads and cache writes (the session's own cache hit ratio):
  Σ over the calls of each, over Σ prompt;
- the prices of the last call's model (the rules' model catalog; else the per-token prices its recorded
  `usage.cost` shows, `recorded_prices`; neither: costs None);
- `tokens_per_estimate`: the provider's tokens per estimated token at the last call
  (`(prompt − overhead_tokens) / transcript_estimate`, `figures.diagnosis.attribution`), which turns the pruning and
  compaction figures (pi estimates) into the provider's tokens;
- with pruning: OpenClaw's pruner with the current settings run now (`figures.pruning.preview`, forced past the TTL
  gate), its estimate saved (`cut`) taken off the calls whose TTL gate would be open. The next calls come at the
  session's own pace: call j at the last call's request time + j × `call_gap_ms`, the median gap between the
  requests of the last `RATE_CALLS` calls since the last compaction. Each call touches the prompt cache, so the gate
  of call j is the rules' `ttl_expired(call j−1's time, call j's time, ttl)`: open for every call when the gap
  reaches the TTL, for none when the session calls faster (the cache stays warm: OpenClaw prunes nothing; what an
  earlier round left pruned under 2026.9.6 is replayed whatever the gate, and is in the preview's figure already).
  Without request times every call is assumed open, and a note says so;
- compacted now: the forecast (`figures.forecast.plan`): overhead + kept messages + a summary in place of the
  transcript, plus the summarization calls (the summarized messages as input, the summary as output). The summary's
  size is this session's own last compaction summary on the path (its pi estimate), else `SUMMARY_TOKENS`, an
  assumption (`summary_tokens_source` in the JSON says which; the summarizers are not run by a read-only figure).

Call j of the next N (j = 1..N) sends `base − cut_j + j × growth` tokens (`cut_j` = the cut when pruning applies to
it, else 0); every scenario keeps the session's cache split and output per call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.base.durations import format_duration_ms
from inspector.figures.diagnosis.calls import CallPoint
from inspector.figures.diagnosis.prompt_cache import cache_ttl
from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.figures.rules_of import rules_of
from inspector.model import entries as m
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.figures.diagnosis.timeline import Timeline
    from inspector.rules.openclaw_2026_4_12.model_catalog import KnownModel

DEFAULT_NEXT_CALLS = 10
RATE_CALLS = 10
SUMMARY_TOKENS = 2000
AS_IS = "as_is"
PRUNED = "with_pruning"
COMPACTED = "compacted_now"


USAGE_KINDS = ("input", "output", "cacheRead", "cacheWrite")


def _positive(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def recorded_prices(calls: list[CallPoint], known_model: Callable[..., KnownModel]) -> KnownModel | None:
    """A catalog entry (made by `known_model`, the rules' `KnownModel`) with the per-million prices the calls'
    recorded `usage.cost` shows, the latest first (a kind never recorded with tokens and a cost is priced 0); None
    when no call recorded any."""
    found: dict[str, float] = {}
    for call in reversed(calls):
        cost = call.usage.get("cost")
        if not isinstance(cost, dict):
            continue
        for kind in USAGE_KINDS:
            tokens, usd = _positive(call.usage.get(kind)), _positive(cost.get(kind))
            if kind not in found and tokens is not None and usd is not None:
                found[kind] = usd / tokens * 1e6
    if not found:
        return None
    last = calls[-1]
    return known_model(last.provider or "?", f"{last.model} (recorded usage.cost)", 0, 0, *(found.get(kind, 0.0) for kind in USAGE_KINDS))


@dataclass(frozen=True, slots=True)
class SavingsInputs:
    """What the projection is made of (module docstring)."""

    next_calls: int
    base_prompt: float
    growth_per_call: float
    output_per_call: float
    input_share: float
    cache_read_share: float
    cache_write_share: float
    price: KnownModel | None
    pruning_cut: float | None
    """Tokens pruning takes off every call (None: no pruning figure)."""
    compacted_prompt: float | None
    """The prompt right after compacting now (None: nothing to compact)."""
    compaction_input: float = 0.0
    compaction_output: float = 0.0
    pruned_calls: tuple[bool, ...] | None = None
    """Per next call, whether pruning applies to it (its TTL gate open, or a sticky cut); None: every call."""
    call_gap_ms: float | None = None
    ttl_ms: int | None = None
    summary_tokens: float = SUMMARY_TOKENS
    summary_tokens_source: str = "assumed"

    def pruned(self, j: int) -> bool:
        """Whether pruning applies to call `j` (1-based)."""
        return self.pruned_calls is None or self.pruned_calls[j - 1]


@dataclass(frozen=True, slots=True)
class Scenario:
    """The next N calls under one scenario: Σ prompt tokens and Σ cost (None: no price), and what it saves."""

    name: str
    prompt_tokens: float
    cost: float | None
    extra_cost: float = 0.0
    """One-off cost (the compaction's summarization calls), included in `cost`."""
    saved_tokens: float = 0.0
    saved_cost: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "name": self.name,
            "prompt_tokens": round(self.prompt_tokens),
            "cost": None if self.cost is None else round(self.cost, 6),
            "one_off_cost": round(self.extra_cost, 6),
            "saved_tokens": round(self.saved_tokens),
            "saved_cost": None if self.saved_cost is None else round(self.saved_cost, 6),
        }


@dataclass(slots=True)
class Savings:
    """The three scenarios (`as_is`, `with_pruning`, `compacted_now`; absent ones left out) and their inputs."""

    inputs: SavingsInputs
    scenarios: list[Scenario] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        i = self.inputs
        return {
            "derived": True,
            "next_calls": i.next_calls,
            "base_prompt": round(i.base_prompt),
            "growth_per_call": round(i.growth_per_call, 1),
            "output_per_call": round(i.output_per_call, 1),
            "cache_hit_ratio": round(i.cache_read_share, 4),
            "price_key": i.price.key if i.price is not None else None,
            "pruning_cut": None if i.pruning_cut is None else round(i.pruning_cut),
            "compacted_prompt": None if i.compacted_prompt is None else round(i.compacted_prompt),
            "summary_tokens": round(i.summary_tokens),
            "summary_tokens_source": i.summary_tokens_source,
            "call_gap_ms": None if i.call_gap_ms is None else round(i.call_gap_ms),
            "ttl_ms": i.ttl_ms,
            "pruned_calls": i.next_calls if i.pruned_calls is None else sum(i.pruned_calls),
            "scenarios": [s.to_json() for s in self.scenarios],
            "notes": list(self.notes),
        }


def _call_cost(inputs: SavingsInputs, prompt: float) -> float | None:
    if inputs.price is None:
        return None
    return inputs.price.cost_of(
        prompt * inputs.input_share, inputs.output_per_call, prompt * inputs.cache_read_share, prompt * inputs.cache_write_share
    )


def _scenario(inputs: SavingsInputs, name: str, start: float, extra_cost: float = 0.0, cut: float = 0.0) -> Scenario:
    """The next calls from a prompt of `start` (call j sends `start + j × growth`, less `cut` where pruning applies)."""
    prompts = [max(0.0, start + j * inputs.growth_per_call - (cut if inputs.pruned(j) else 0.0)) for j in range(1, inputs.next_calls + 1)]
    costs = [_call_cost(inputs, p) for p in prompts]
    cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None) + extra_cost
    return Scenario(name, sum(prompts), cost, extra_cost)


def project(inputs: SavingsInputs) -> Savings:
    """The scenarios of the module docstring, each with what it saves against `as_is`."""
    as_is = _scenario(inputs, AS_IS, inputs.base_prompt)
    out = Savings(inputs, [as_is])
    others: list[Scenario] = []
    if inputs.pruning_cut is not None:
        others.append(_scenario(inputs, PRUNED, inputs.base_prompt, cut=inputs.pruning_cut))
    if inputs.compacted_prompt is not None:
        one_off = 0.0
        if inputs.price is not None:
            one_off = inputs.price.cost_of(inputs.compaction_input, inputs.compaction_output, 0, 0)
        others.append(_scenario(inputs, COMPACTED, inputs.compacted_prompt, one_off))
    for s in others:
        saved_cost = None if s.cost is None or as_is.cost is None else as_is.cost - s.cost
        out.scenarios.append(Scenario(s.name, s.prompt_tokens, s.cost, s.extra_cost, as_is.prompt_tokens - s.prompt_tokens, saved_cost))
    return out


def _rate(calls: list[CallPoint]) -> tuple[float, float]:
    """Mean prompt increase (≥ 0) and mean output over the last `RATE_CALLS` steps since the last compaction."""
    last = calls[-1]
    segment = [c for c in calls if c.compaction_id == last.compaction_id][-(RATE_CALLS + 1) :]
    steps = [b.prompt_tokens - a.prompt_tokens for a, b in zip(segment, segment[1:])]
    growth = max(0.0, sum(steps) / len(steps)) if steps else 0.0
    outputs = [float(c.output_tokens) for c in segment[-RATE_CALLS:]]
    return growth, sum(outputs) / len(outputs)


def _call_gap(calls: list[CallPoint]) -> float | None:
    """The median gap between the requests of the last `RATE_CALLS` calls since the last compaction (None: no times)."""
    last = calls[-1]
    gaps = sorted(c.gap_ms for c in [c for c in calls if c.compaction_id == last.compaction_id][-RATE_CALLS:] if c.gap_ms is not None and c.gap_ms >= 0)
    if not gaps:
        return None
    mid = len(gaps) // 2
    return gaps[mid] if len(gaps) % 2 else (gaps[mid - 1] + gaps[mid]) / 2


def pruned_calls(expired: Callable[[float, float, float], bool], start_ms: float, gap_ms: float, ttl_ms: int, n: int) -> tuple[bool, ...]:
    """Per next call j = 1..n (at `start_ms + j × gap_ms`): whether its TTL gate, `expired(previous call's time, its
    time, ttl_ms)` (the rules' `ttl_expired`), is open."""
    return tuple(bool(expired(start_ms + (j - 1) * gap_ms, start_ms + j * gap_ms, ttl_ms)) for j in range(1, n + 1))


def _summary_size(ctx: m.SessionContext) -> tuple[float | None, str]:
    """The pi estimate of the compaction summary in `ctx` (None: none), and where the summary size comes from."""
    for row in ctx.messages:
        if row.role == "compactionSummary" and (tokens := row.estimate("pi")):
            return float(tokens), f"this session's compaction summary (entry {row.entry_id}, pi estimate)"
    return None, f"assumed: {SUMMARY_TOKENS:,} tokens (no compaction summary in the context to measure)"


def build_savings(session: Session, ctx: m.SessionContext, timeline: Timeline, next_calls: int = DEFAULT_NEXT_CALLS, config: dict[str, Any] | None = None) -> Savings | None:
    """The savings of the session as it stands (None: no call to project from)."""
    calls = [c for c in timeline.calls if c.prompt_tokens > 0]
    if not calls:
        return None
    last = calls[-1]
    notes: list[str] = []
    prompt_sum = float(sum(c.prompt_tokens for c in calls))
    growth, output = _rate(calls)
    overhead = float(last.overhead_tokens if last.overhead_tokens is not None else last.not_in_transcript)
    per_estimate = (last.prompt_tokens - overhead) / last.transcript_estimate if last.transcript_estimate > 0 else 1.0
    catalog = rules_of(session).model_catalog
    price = catalog.load_catalog().lookup(last.provider, last.model) or recorded_prices(calls, catalog.KnownModel)
    if price is None:
        notes.append(f"no price for {last.provider}/{last.model}: costs unknown")
    rules = rules_of(session)
    ttl_ms, _ = cache_ttl(rules, config)
    gap = _call_gap(calls)
    pruned: tuple[bool, ...] | None = None
    if gap is None or last.request_ms is None:
        notes.append("pruning: no request times to place the TTL gate: assumed open at every call")
    else:
        pruned = pruned_calls(rules.ttl.ttl_expired, float(last.request_ms), gap, ttl_ms, next_calls)
        if not any(pruned):
            notes.append(f"pruning: a call every {format_duration_ms(gap)} keeps the cache warm (ttl {format_duration_ms(ttl_ms)}): OpenClaw would prune nothing")
    summary, summary_source = _summary_size(ctx)
    summary_tokens = (summary if summary is not None else float(SUMMARY_TOKENS)) * (per_estimate if summary is not None else 1.0)
    cut: float | None = None
    try:
        preview = build_preview(session, PreviewOptions(force=True, config=config, leaf_id=ctx.leaf_id, encoding=None))
        before, after = preview.tokens_before.get("pi"), preview.tokens_after.get("pi")
        if before is not None and after is not None:
            cut = max(0.0, (before - after) * per_estimate)
    except (ValueError, KeyError, TypeError) as exc:  # a preview it cannot make: say so, project the rest
        notes.append(f"pruning: {exc}")
    compacted: float | None = None
    summarized = 0.0
    plan = plan_compaction(session, ctx, PlanOptions(config=config))
    if plan.nothing_to_plan is None and plan.rows:
        kept = sum(r.tokens or 0 for r in plan.rows if r.plan == "kept")
        summarized = sum(r.tokens or 0 for r in plan.rows if r.plan != "kept") * per_estimate
        compacted = overhead + kept * per_estimate + summary_tokens
    else:
        notes.append("compaction: " + (plan.nothing_to_plan.reason if plan.nothing_to_plan else "no messages"))
    inputs = SavingsInputs(
        next_calls=next_calls,
        base_prompt=float(last.prompt_tokens),
        growth_per_call=growth,
        output_per_call=output,
        input_share=float(sum(c.input for c in calls)) / prompt_sum,
        cache_read_share=float(sum(c.cache_read for c in calls)) / prompt_sum,
        cache_write_share=float(sum(c.cache_write for c in calls)) / prompt_sum,
        price=price,
        pruning_cut=cut,
        compacted_prompt=compacted,
        compaction_input=summarized,
        compaction_output=summary_tokens if compacted is not None else 0.0,
        pruned_calls=pruned,
        call_gap_ms=gap,
        ttl_ms=ttl_ms,
        summary_tokens=summary_tokens,
        summary_tokens_source=summary_source,
    )
    out = project(inputs)
    out.notes.extend(notes)
    return out
