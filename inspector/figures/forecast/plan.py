"""The compaction forecast: what OpenClaw would do if it compacted this session now, by a release's rules.

`plan_compaction(session, ctx, options, rules)` runs the rule set's preparation (`rules.prepare`), the safeguard
steps on top of it (`rules.safeguard`, `rules.chunking`, `rules.boundary`), lists the stages a run would execute
(`rules.stages`) and evaluates every trigger (`rules.triggers`), all from the session index: only the few
messages whose content decides something are read from disk. A release's rule module may offer more than
2026.4.12's (2026.9: the scaled `keepRecentTokens`, the reserve cap, who compacts, the pre-prompt route's
measurement, the stage split); the plan carries those figures only when the rules give them, so a 2026.4.12
plan is what it always was. `CompactionPlan.to_json()` is `plan --json`; `rows` says, for
every context message, the part it plays, so a UI can draw the plan on the transcript.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from inspector.base.cancel import checked, progress
from inspector.figures.rules_of import rules_of
from inspector.figures.session_figures import WindowOptions, window_for, window_json
from inspector.model import entries as m
from inspector.rules.context_basis import basis_of
from inspector.rules.ruleset import RuleSet
from inspector.session.session import Session

if TYPE_CHECKING:  # the shapes of a release's results
    from inspector.rules.openclaw_2026_4_12.compaction.chunking import Chunking
    from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem
    from inspector.rules.openclaw_2026_4_12.compaction.prepare import NothingToPlan, Preparation
    from inspector.rules.openclaw_2026_4_12.compaction.settings import ContextEngineInfo, EffectiveSettings, ModeInfo
    from inspector.rules.openclaw_2026_4_12.compaction.stages import Stage
    from inspector.rules.openclaw_2026_4_12.compaction.triggers import Triggers

# What a context message becomes (`ContextRole.plan`).
PREVIOUS_SUMMARY = "previous_summary"
SUMMARIZED = "summarized"
TURN_PREFIX = "turn_prefix"
KEPT = "kept"


@dataclass(slots=True)
class PlanOptions:
    """Inputs beside the session: OpenClaw config data, explicit overrides, the prompt size, the early thresholds."""

    config: dict[str, Any] | None = None
    context_window: int | None = None
    keep_recent_tokens: int | None = None
    reserve_tokens: int | None = None
    prompt_tokens: int = 0
    early_thresholds: Sequence[float] | None = None
    """Early-warning fractions of the window (None: the rules' `DEFAULT_EARLY_THRESHOLDS`)."""
    ratio_formula: str = "openclaw"


@dataclass(frozen=True, slots=True)
class MessageRef:
    """A message of `messages_to_summarize` / `turn_prefix_messages`: its entry, and its context row (if any)."""

    entry_id: str | None
    line: int
    context_index: int | None
    role: str
    tokens: int

    def to_json(self) -> dict[str, Any]:
        return {"entry_id": self.entry_id, "line": self.line, "context_index": self.context_index, "role": self.role, "tokens": self.tokens}


@dataclass(slots=True)
class HistoryShare:
    """OpenClaw's history-share prune: it runs when the new content (`tokensBefore` minus what is summarized)
    exceeds `floor(ctx * maxHistoryShare * 1.2)`, and drops the oldest token-share chunks of
    `messages_to_summarize` until the rest fits `budget_tokens`; the dropped ones get their own summary.
    """

    applies: bool
    new_content_tokens: int
    trigger_tokens: int
    max_history_share: float
    budget_tokens: int
    dropped_chunks: int = 0
    dropped_messages: int = 0
    dropped_tokens: int = 0
    kept_tokens: int = 0
    dropped_positions: list[int] = field(default_factory=list)
    dropped_context_indexes: list[int] = field(default_factory=list)
    orphaned_positions: list[int] = field(default_factory=list)
    dropped_chunking: Chunking | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "applies": self.applies,
            "new_content_tokens": self.new_content_tokens,
            "trigger_tokens": self.trigger_tokens,
            "max_history_share": self.max_history_share,
            "budget_tokens": self.budget_tokens,
            "dropped_chunks": self.dropped_chunks,
            "dropped_messages": self.dropped_messages,
            "dropped_tokens": self.dropped_tokens,
            "kept_tokens": self.kept_tokens,
            "dropped_positions": self.dropped_positions,
            "dropped_context_indexes": self.dropped_context_indexes,
            "orphaned_positions": self.orphaned_positions,
            "dropped_chunking": self.dropped_chunking.to_json() if self.dropped_chunking else None,
        }


@dataclass(frozen=True, slots=True)
class ContextRole:
    """The part one context message plays in the plan (what a UI draws on the transcript row).

    `plan` is `previous_summary`, `summarized`, `turn_prefix` or `kept`; `first_kept` marks the first kept
    row (the cut line is drawn above it); `part`/`chunk` place a summarized message in the history summary's
    parts and chunks (for a turn-prefix message, in the prefix summary's chunks).
    """

    context_index: int
    entry_id: str | None
    line: int
    role: str
    tokens: int
    plan: str
    position: int | None = None
    first_kept: bool = False
    dropped_by_history_share: bool = False
    preserved_turn: bool = False
    oversized: bool = False
    part: int | None = None
    chunk: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "context_index": self.context_index,
            "entry_id": self.entry_id,
            "line": self.line,
            "role": self.role,
            "tokens": self.tokens,
            "plan": self.plan,
            "position": self.position,
            "first_kept": self.first_kept,
            "dropped_by_history_share": self.dropped_by_history_share,
            "preserved_turn": self.preserved_turn,
            "oversized": self.oversized,
            "part": self.part,
            "chunk": self.chunk,
        }


@dataclass(slots=True)
class CompactionPlan:
    """Everything `plan --json` reports.

    pi's preparation: `first_kept_entry_id`/`first_kept_line` (where the kept tail starts), `is_split_turn`,
    `tokens_before` (pi `estimateContextTokens`: last valid usage + chars/4 after it), `previous_summary` and
    `boundary_start` (the previous compaction's kept tail is summarized again), `messages_to_summarize` and
    `turn_prefix_messages`, `file_ops` (pi's lists for `details`, merged with a pi-written previous compaction's).
    `nothing_to_plan` says why pi would not compact (then those fields are empty).

    OpenClaw's safeguard on top: `boundary_only` (no real conversation message: a boundary entry with
    `boundary_summary` is written), `history_share`, `preserved_turns` (positions in `messages_to_summarize`),
    `chunking` (the history summary's parts and chunks, positions in `messages_to_summarize`),
    `turn_prefix_chunking`, `stages` (the run's steps, `llm_calls` their sum), `triggers`, `mode`,
    `context_engine`, `settings` (each with its source), `context_window`, `context_tokens`, and `rows`
    (one per context message: the part it plays).
    """

    file: str
    leaf_id: str | None
    context_window: dict[str, Any]
    settings: EffectiveSettings
    mode: ModeInfo
    context_engine: ContextEngineInfo
    triggers: Triggers
    context_tokens: int
    nothing_to_plan: NothingToPlan | None = None
    first_kept_entry_id: str | None = None
    first_kept_line: int | None = None
    is_split_turn: bool = False
    tokens_before: int | None = None
    tokens_before_basis: str | None = None
    """What `tokens_before` (pi's `estimateContextTokens`, the figure the entry records) rests on: a usage recorded
    before the latest compaction counts there (`inspector.rules.context_basis`)."""
    previous_summary: Any = None
    boundary_start: dict[str, Any] | None = None
    messages_to_summarize: list[MessageRef] = field(default_factory=list)
    turn_prefix_messages: list[MessageRef] = field(default_factory=list)
    read_files: list[Any] = field(default_factory=list)
    modified_files: list[Any] = field(default_factory=list)
    boundary_only: bool = False
    boundary_summary: str | None = None
    history_share: HistoryShare | None = None
    preserved_positions: list[int] = field(default_factory=list)
    chunking: Chunking | None = None
    turn_prefix_chunking: Chunking | None = None
    stages: list[Stage] = field(default_factory=list)
    rows: list[ContextRole] = field(default_factory=list)
    compactor: Any = None
    """Who compacts (2026.9 `Compactor`); None under rules that have no such figure."""
    scaled_keep: Any = None
    """The `keepRecentTokens` the cut point used (2026.9 `ScaledKeep`); None under rules that do not scale it."""
    split_kind: str | None = None
    """What `chunking.token_share_parts` holds when not 2026.4.12's token-share parts (`stage_split`)."""
    summary_limits: Any = None
    """What caps the stored summary and the latest unresolved request it may carry (2026.9 `SummaryLimits`); None
    under rules that have no such figure."""
    context_basis: str = ""
    """What `context_tokens` rests on (`inspector.rules.context_basis`): never a usage recorded before the latest
    compaction (the rules' `context_usage.context_now`)."""
    context_stale_usage_tokens: int | None = None
    """The recorded usage `context_tokens` leaves out because it predates the latest compaction (None: none)."""
    preparation: Any = None
    """The rules' `Preparation` the plan was made from (not in `to_json`): what a compaction run summarizes."""

    @property
    def llm_calls(self) -> int:
        """Model calls the run would make at least (chunks, merges, prefix), per the stages."""
        return sum(s.llm_calls for s in self.stages)

    def to_json(self) -> dict[str, Any]:
        refs = self.messages_to_summarize
        return {
            "file": self.file,
            "leaf_id": self.leaf_id,
            "nothing_to_plan": {"reason": self.nothing_to_plan.reason, "code": self.nothing_to_plan.code} if self.nothing_to_plan else None,
            "mode": self.mode.mode,
            "mode_reason": self.mode.reason,
            "context_engine": self.context_engine.to_json(),
            "context_window": self.context_window,
            "settings": self.settings.to_json(),
            "context_tokens": self.context_tokens,
            "context_basis": self.context_basis,
            "context_stale_usage_tokens": self.context_stale_usage_tokens,
            "first_kept_entry_id": self.first_kept_entry_id,
            "first_kept_line": self.first_kept_line,
            "is_split_turn": self.is_split_turn,
            "tokens_before": self.tokens_before,
            "tokens_before_basis": self.tokens_before_basis,
            "previous_summary": self.previous_summary,
            "boundary_start": self.boundary_start,
            "messages_to_summarize": [r.to_json() for r in refs],
            "messages_to_summarize_tokens": sum(r.tokens for r in refs),
            "turn_prefix_messages": [r.to_json() for r in self.turn_prefix_messages],
            "turn_prefix_tokens": sum(r.tokens for r in self.turn_prefix_messages),
            "file_ops": {"read_files": self.read_files, "modified_files": self.modified_files},
            "boundary_only": self.boundary_only,
            "boundary_summary": self.boundary_summary,
            "history_share": self.history_share.to_json() if self.history_share else None,
            "preserved_turns": {
                "positions": self.preserved_positions,
                "context_indexes": [refs[p].context_index for p in self.preserved_positions if refs[p].context_index is not None],
            },
            "chunking": self.chunking.to_json() if self.chunking else None,
            "turn_prefix_chunking": self.turn_prefix_chunking.to_json() if self.turn_prefix_chunking else None,
            "stages": [s.to_json() for s in self.stages],
            "llm_calls": self.llm_calls,
            "triggers": self.triggers.to_json(),
            "rows": [r.to_json() for r in self.rows],
            **self._release_json(),
        }

    def _release_json(self) -> dict[str, Any]:
        """The figures only some releases' rules give (absent from a 2026.4.12 plan)."""
        out: dict[str, Any] = {}
        if self.compactor is not None:
            out["compactor"] = self.compactor.to_json()
        if self.scaled_keep is not None:
            out["scaled_keep"] = self.scaled_keep.to_json()
        if self.summary_limits is not None:
            out["summary_limits"] = self.summary_limits.to_json()
        if self.split_kind is not None:
            out["split_kind"] = self.split_kind
        return out


def _refs(session: Session, path: Sequence[int], positions: list[int], ctx_index: dict[int, int], items: list[SummaryItem]) -> list[MessageRef]:
    entries = session.entries
    out = []
    for pos, item in zip(positions, items):
        e = entries[path[pos]]
        out.append(MessageRef(e.id, e.line, ctx_index.get(e.index), item.role, item.tokens))
    return out


def _history_share(
    rules: RuleSet, items: list[SummaryItem], prefix: list[SummaryItem], tokens_before: int, window: int, share: float, refs: list[MessageRef], ratio_formula: str
) -> tuple[HistoryShare, list[SummaryItem]]:
    summarizable = rules.items.total_tokens(items) + rules.items.total_tokens(prefix)
    new_content = max(0, math.floor(tokens_before - summarizable))
    trigger = math.floor(window * share * rules.safeguard.HISTORY_SHARE_TRIGGER_FACTOR)
    hs = HistoryShare(new_content > trigger, new_content, trigger, share, max(1, math.floor(window * share)), kept_tokens=rules.items.total_tokens(items))
    if not hs.applies:
        return hs, items
    pruned = rules.safeguard.prune_history_for_context_share(items, window, share, 2)
    hs.budget_tokens = pruned.budget_tokens
    if pruned.dropped_chunks <= 0:
        return hs, items
    hs.dropped_chunks = pruned.dropped_chunks
    hs.dropped_messages = pruned.dropped_messages
    hs.dropped_tokens = pruned.dropped_tokens
    hs.kept_tokens = pruned.kept_tokens
    hs.dropped_positions = [it.position for it in pruned.dropped if it.position is not None]
    hs.orphaned_positions = [it.position for it in pruned.orphaned if it.position is not None]
    hs.dropped_context_indexes = [
        c for c in (refs[p].context_index for p in hs.dropped_positions + hs.orphaned_positions) if c is not None
    ]
    hs.dropped_chunking = rules.chunking.plan_chunking("dropped_history", pruned.dropped, window, ratio_formula=ratio_formula)
    return hs, pruned.messages


def _where(chunking: Chunking | None) -> dict[int, tuple[int | None, int | None]]:
    out: dict[int, tuple[int | None, int | None]] = {}
    if chunking is not None:
        for c in chunking.chunks:
            for p in c.positions:
                out[p] = (c.part, c.index)
    return out


def _rows(session: Session, ctx: m.SessionContext, plan: CompactionPlan, prep: Preparation | None) -> list[ContextRole]:
    entries = session.entries
    summarize = {}
    prefix = {}
    first_kept_entry = -1
    if prep is not None:
        summarize = {ctx.path[p]: k for k, p in enumerate(prep.summarize_pos)}
        prefix = {ctx.path[p]: k for k, p in enumerate(prep.turn_prefix_pos)}
        after_cut = set(ctx.path[prep.first_kept_pos :])
        first_kept_entry = next((r.entry_index for r in ctx.messages if r.entry_index in after_cut and r.entry_index != ctx.compaction_index), -1)
    hs = plan.history_share
    dropped = set(hs.dropped_positions + hs.orphaned_positions) if hs else set()
    preserved = set(plan.preserved_positions)
    history_where = _where(plan.chunking)
    prefix_where = _where(plan.turn_prefix_chunking)
    oversized = set(plan.chunking.oversized) if plan.chunking else set()
    prefix_oversized = set(plan.turn_prefix_chunking.oversized) if plan.turn_prefix_chunking else set()
    out = []
    for row in checked(ctx.messages):
        e = entries[row.entry_index]
        tokens = row.estimate("openclaw_compaction") or 0
        idx = row.entry_index
        if idx == ctx.compaction_index and e.type == m.COMPACTION:
            out.append(ContextRole(row.index, row.entry_id, row.line, row.role, tokens, PREVIOUS_SUMMARY))
        elif idx in summarize:
            p = summarize[idx]
            part, chunk = history_where.get(p, (None, None))
            out.append(
                ContextRole(
                    row.index, row.entry_id, row.line, row.role, tokens, SUMMARIZED, p,
                    dropped_by_history_share=p in dropped, preserved_turn=p in preserved, oversized=p in oversized, part=part, chunk=chunk,
                )
            )
        elif idx in prefix:
            p = prefix[idx]
            part, chunk = prefix_where.get(p, (None, None))
            out.append(ContextRole(row.index, row.entry_id, row.line, row.role, tokens, TURN_PREFIX, p, oversized=p in prefix_oversized, part=part, chunk=chunk))
        else:
            out.append(ContextRole(row.index, row.entry_id, row.line, row.role, tokens, KEPT, first_kept=idx == first_kept_entry))
    return out


def plan_compaction(session: Session, ctx: m.SessionContext, options: PlanOptions | None = None, rules: RuleSet | None = None) -> CompactionPlan:
    """The forecast for the context `ctx` of `session` by `rules` (default: 2026.4.12; see the module docstring)."""
    opts = options or PlanOptions()
    rules = rules or rules_of(session)
    progress("settings and triggers")
    window = window_for(rules, ctx, WindowOptions(config=opts.config, override=opts.context_window))
    cs = rules.compaction_settings
    if hasattr(cs, "cap_reserve_tokens"):
        settings = cs.resolve_settings(opts.config, opts.keep_recent_tokens, opts.reserve_tokens, context_window=window.tokens)
    else:
        settings = cs.resolve_settings(opts.config, opts.keep_recent_tokens, opts.reserve_tokens)
    engine = cs.resolve_context_engine(opts.config)
    compactor = cs.resolve_compactor(opts.config, ctx.model) if hasattr(cs, "resolve_compactor") else None
    now = rules.context_usage.context_now(session, ctx)
    context_tokens = int(now["tokens"])
    tr = rules.triggers
    if compactor is not None:
        threshold = tr.threshold_trigger(
            session, ctx, window.tokens, settings.reserve_tokens, compactor.agent_threshold, compactor.agent_threshold_reason
        )
    else:
        threshold = tr.threshold_trigger(session, ctx, window.tokens, settings.reserve_tokens)
    triggers = tr.Triggers(
        threshold,
        tr.overflow_trigger(session, ctx, window.tokens),
        tr.pre_prompt_route(session, ctx, window.tokens, settings.reserve_tokens, opts.prompt_tokens),
        tr.early_warnings(context_tokens, window.tokens, tr.DEFAULT_EARLY_THRESHOLDS if opts.early_thresholds is None else opts.early_thresholds),
        auto_compaction_enabled=engine.builtin,
    )
    plan = CompactionPlan(
        file=str(session.path),
        leaf_id=ctx.leaf_id,
        context_window=window_json(window),
        settings=settings,
        mode=cs.resolve_mode(opts.config),
        context_engine=engine,
        triggers=triggers,
        context_tokens=context_tokens,
        context_basis=now["basis"],
        context_stale_usage_tokens=now["stale_usage_tokens"],
        compactor=compactor,
        split_kind=getattr(rules.chunking, "SPLIT_KIND", None),
    )
    progress("cut point")
    prep = rules.prepare.prepare_compaction(session, ctx, settings.compaction_settings())
    progress("stages")
    if isinstance(prep, rules.prepare.NothingToPlan):
        plan.nothing_to_plan = prep
        plan.rows = _rows(session, ctx, plan, None)
        return plan
    plan.scaled_keep = getattr(prep, "keep", None)
    check = rules.boundary.check_boundary(session, ctx, prep)
    if check.range_positions is not None:  # 2026.9: the safeguard summarizes the boundary-scoped range instead
        prep.summarize_pos, prep.turn_prefix_pos = check.range_positions, []
    plan.boundary_only = check.boundary_only
    plan.preparation = prep
    _fill(rules, session, ctx, plan, prep, window.tokens, opts.ratio_formula)
    progress("rows")
    plan.rows = _rows(session, ctx, plan, prep)
    return plan


def _latest_request(rules: RuleSet, session: Session, ctx: m.SessionContext) -> str | None:
    """The rules' `extract_latest_user_request` of the context, reading only the user messages from the end."""
    for cm in reversed(ctx.messages):
        if cm.role == "user":
            found = rules.latest_request.extract_latest_user_request([session.load_message(session.entries[cm.entry_index]) or {}])
            if found:
                return str(found)
    return None


def _fill(rules: RuleSet, session: Session, ctx: m.SessionContext, plan: CompactionPlan, prep: Preparation, window: int, ratio_formula: str) -> None:
    entries = session.entries
    path = ctx.path
    ctx_index = {r.entry_index: r.index for r in ctx.messages}
    items = rules.items.items_for_positions(session, path, prep.summarize_pos)
    prefix = rules.items.items_for_positions(session, path, prep.turn_prefix_pos)
    refs = _refs(session, path, prep.summarize_pos, ctx_index, items)
    first_kept = entries[path[prep.first_kept_pos]]
    start = entries[path[prep.boundary_start]] if prep.boundary_start < len(path) else None
    plan.first_kept_entry_id = prep.first_kept_entry_id
    plan.first_kept_line = first_kept.line
    plan.is_split_turn = prep.is_split_turn
    plan.tokens_before = prep.tokens_before
    plan.tokens_before_basis = basis_of(rules.context_usage.last_context_usage(session, ctx))
    plan.previous_summary = prep.previous_summary
    plan.boundary_start = {"entry_id": start.id, "line": start.line} if start is not None else None
    plan.messages_to_summarize = refs
    plan.turn_prefix_messages = _refs(session, path, prep.turn_prefix_pos, ctx_index, prefix)
    plan.read_files, plan.modified_files = prep.file_ops.lists()
    if rules.has("latest_request"):
        latest = _latest_request(rules, session, ctx)
        plan.summary_limits = rules.latest_request.summary_limits(plan.read_files, plan.modified_files, latest, plan.mode.mode)
    if plan.boundary_only:
        plan.boundary_summary = rules.boundary.build_structured_fallback_summary(prep.previous_summary)
    s = plan.settings
    hs, kept = _history_share(rules, items, prefix, prep.tokens_before, window, s.max_history_share, refs, ratio_formula)
    plan.history_share = hs
    split = rules.safeguard.split_preserved_recent_turns(kept, s.recent_turns_preserve)
    plan.preserved_positions = sorted(it.position for it in split.preserved if it.position is not None)
    summarizable = split.summarizable
    plan.chunking = rules.chunking.plan_chunking("messages_to_summarize", summarizable, window, summarizable + prefix, ratio_formula)
    if prep.is_split_turn and prefix:
        plan.turn_prefix_chunking = rules.chunking.plan_chunking(
            "turn_prefix_messages", prefix, window, ratio_formula=ratio_formula, max_chunk_tokens=plan.chunking.max_chunk_tokens
        )
    plan.stages = rules.stages.build_stages(
        rules.stages.StageInputs(
            mode=plan.mode.mode,
            boundary_only=plan.boundary_only,
            provider=s.provider,
            is_split_turn=prep.is_split_turn,
            history=plan.chunking,
            turn_prefix=plan.turn_prefix_chunking,
            dropped=hs.dropped_chunking,
            dropped_count=hs.dropped_messages,
            preserved_count=len(split.preserved),
            quality_guard=s.quality_guard,
            reserve_tokens=s.reserve_tokens,
            has_file_ops=bool(plan.read_files or plan.modified_files),
            has_previous_summary=prep.previous_summary is not None,
            summarize_count=len(items),
            summarize_tokens=rules.items.total_tokens(items),
        )
    )
