"""The figures the CLI prints and the UI shows, computed once here (the UI never computes).

`context_overview` and `session_figures` build the typed figures of `inspector.figures.overview` that the inspector's
header, gauge, breakdown and notice bar render; `session_stats` (`stats --json`) and `context_report`
(`context --json`) print the same objects. Field names are a stable contract (documented in the README): add
fields freely, never rename.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.counting.bulk import UNREADABLE, count_lines, rows_line_jobs
from inspector.counting.counter import TokenCounter, get_token_counter
from inspector.figures.breakdown import context_breakdown
from inspector.figures.overview import ContextOverview, ContextUsage, SessionFigures, guard_to_json, window_to_json
from inspector.figures.rules_of import rules_of
from inspector.figures.sizes import estimate_sizes, index_estimators, running_totals
from inspector.host.openclaw_config import load_openclaw_config
from inspector.model import entries as m
from inspector.rules.ruleset import RuleSet
from inspector.session.context import compactions_on_path
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.window_guard import ContextWindow, Guard

USAGE_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
COST_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "total")


@dataclass(slots=True)
class WindowOptions:
    """Where the context window comes from: OpenClaw config data, and an explicit override."""

    config: dict[str, Any] | None = None
    override: int | None = None
    agent: str | None = None
    """The agent that wrote the session when it is not OpenClaw (`claude-code`, `codex`): its own compaction rule
    (`figures.forecast.other_agents.agent_rule`) replaces OpenClaw's reserve in the thresholds."""


def load_window_options(
    config_path: Path | None, override: int | None, *, env: Mapping[str, str] | None = None, home: Path | None = None,
    agent: str | None = None,
) -> tuple[WindowOptions, str | None]:
    """OpenClaw's config (never fatal: a broken file gives `{}` and a one-line error), the window override and the
    agent that wrote the session when not OpenClaw (`WindowOptions.agent`)."""
    loaded = load_openclaw_config(config_path, env=env, home=home)
    return WindowOptions(config=loaded.data, override=override, agent=agent), loaded.error


def window_for(rules: RuleSet, ctx: m.SessionContext, options: WindowOptions) -> ContextWindow:
    """The context window `rules` give the context's model under `options` (its `resolve_context_window`)."""
    model = ctx.model or {}
    return rules.window_guard.resolve_context_window(model.get("provider"), model.get("modelId"), options.config, options.override)  # type: ignore[no-any-return]


def window_guard(rules: RuleSet, window: ContextWindow, model: dict[str, Any] | None = None) -> Guard:
    """The window guard of `rules` for `window` (2026.4.12: warn below 32000, block below 16000), with its log text."""
    model = model or {}
    return rules.window_guard.evaluate_context_window_guard(window, provider=model.get("provider"), model_id=model.get("modelId"))  # type: ignore[no-any-return]


def guard_json(rules: RuleSet, window: ContextWindow, model: dict[str, Any] | None = None) -> dict[str, Any]:
    """`window_guard(rules, window, model)` as JSON (`level`, `warn_below`, `hard_min`, `message`)."""
    return guard_to_json(window_guard(rules, window, model))


def window_json(window: ContextWindow) -> dict[str, Any]:
    """`window` as JSON (`tokens`, `source`, optional `capped_by`)."""
    return window_to_json(window)


def sum_usage(entries: Iterable[m.Entry]) -> dict[str, Any]:
    """Σ of recorded usage (tokens and USD cost) over assistant entries (summed packed: `model.sum_packed_usage`)."""
    return usage_totals(e.usage_packed for e in entries)


def usage_totals(packed: Iterable[bytes | None] | m.UsageSum) -> dict[str, Any]:
    """Σ of packed recorded usages (`EntryTable.usages`, `Entry.usage_packed`, or their `UsageSum`), as
    `sum_usage` reports it."""
    tokens, cost, calls = (packed if isinstance(packed, m.UsageSum) else m.UsageSum().plus(packed)).result()
    totals: dict[str, Any] = dict(tokens)
    totals["cost"] = {k: round(v, 10) for k, v in cost.items()}
    totals["assistant_calls"] = calls
    return totals



def estimator_ratios(session: Session, ctx: m.SessionContext, tiktoken_counts: list[int | None] | None) -> dict[str, Any]:
    """How far each estimator is from what the provider recorded, over the context's assistant calls.

    For every assistant message with recorded usage, the prompt it was sent with is estimated as the sum of
    the context messages before it; the recorded prompt is `input + cacheRead + cacheWrite`. The ratio is
    Σ estimate / Σ recorded (1.0 = exact; below 1 the estimator undercounts — note that the system prompt and
    tool schemas are never in the transcript, so every estimator is expected to be somewhat below 1). Each of the
    index's estimators has a ratio, those in tokens first (keyed by their field), then those in characters divided
    by the rules' `CHARS_PER_TOKEN_ESTIMATE` (keyed by their field and `_div4`).
    """
    chars_per_token = rules_of(session).tokens.CHARS_PER_TOKEN_ESTIMATE
    entries = session.entries
    running_tiktoken = 0
    sampled: list[int] = []  # the positions of the sampled calls
    tik_sum = 0
    recorded_sum: int | float = 0
    samples = 0
    for pos, row in enumerate(ctx.messages):
        e = entries[row.entry_index]
        u = e.usage if e.role == "assistant" else None
        if u and e.provider != "openclaw":
            prompt = sum(
                v for k in ("input", "cacheRead", "cacheWrite") if isinstance((v := u.get(k)), (int, float)) and not isinstance(v, bool)
            )
            if prompt > 0:
                samples += 1
                recorded_sum += prompt
                sampled.append(pos)
                tik_sum += running_tiktoken
        count = tiktoken_counts[pos] if tiktoken_counts is not None else None
        if count is not None:
            running_tiktoken += count
    out: dict[str, Any] = {"samples": samples, "recorded_prompt_tokens": recorded_sum}
    if recorded_sum:
        for est in sorted(index_estimators(session), key=lambda e: e.unit != "tok"):
            running = running_totals(estimate_sizes(ctx.messages, est.name))
            est_sum = sum(running[pos - 1] for pos in sampled if pos)  # the messages before each sampled call
            if est.unit == "tok":
                out[est.field] = round(est_sum / recorded_sum, 4)
            else:
                out[f"{est.field}_div4"] = round(est_sum / chars_per_token / recorded_sum, 4)
        if tiktoken_counts is not None:
            out["tiktoken"] = round(tik_sum / recorded_sum, 4)
    return out


def tiktoken_counts_for(session: Session, ctx: m.SessionContext, encoding: str | None) -> tuple[list[int | None] | None, dict[str, Any]]:
    """tiktoken count of every context message (content re-read from disk), and the counter's status.

    Counts already in `session.token_counts[encoding in use]` (by entry offset) are reused; the others are
    counted by `inspector.counting.bulk.count_lines` (large sequential reads, worker processes for big
    contexts) and stored there. A summary message of a compaction comes from the index, not from disk.
    """
    return tiktoken_counts_of(session, ctx.messages, encoding)


def tiktoken_counts_of(session: Session, rows: Sequence[m.ContextMessage], encoding: str | None) -> tuple[list[int | None] | None, dict[str, Any]]:
    """`tiktoken_counts_for` of any context rows (those of several contexts: a timeline's)."""
    if encoding is None:
        return None, {"enabled": False}
    counter = get_token_counter(encoding)
    info = {"enabled": counter.available, "encoding": counter.name, "notice": counter.notice}
    if not counter.available:
        return [None] * len(rows), info
    known = session.token_counts.setdefault(counter.name, {})
    entries = session.entries
    counts, summaries, todo = rows_line_jobs(session, rows, known)
    for pos in summaries:
        counts[pos] = _count_loaded(session, entries[rows[pos].entry_index], counter, known)
    if todo:
        found = count_lines(str(session.path), todo, session.version, encoding)
        for job in todo:
            count = found.get(job.pos)
            if count == UNREADABLE:  # changed on disk: the usual read reports it
                count = _count_loaded(session, entries[rows[job.pos].entry_index], counter, known)
            elif count is not None:
                known[job.offset] = count
            counts[job.pos] = count
    return counts, info


def _count_loaded(session: Session, e: m.Entry, counter: TokenCounter, known: dict[int, int]) -> int | None:
    """The count of `e`'s message loaded by `Session.load_message` (remembered in `known`)."""
    msg = session.load_message(e)
    count = counter.count_message(msg) if msg is not None else None
    if count is not None:
        known[e.offset] = count
    return count


def context_overview(session: Session, ctx: m.SessionContext, window_options: WindowOptions) -> ContextOverview:
    """The headline figures of `ctx`: file facts, model, OpenClaw's window and guard, pi's context-now estimate."""
    rules = rules_of(session)
    window = window_for(rules, ctx, window_options)
    header = session.header or {}
    session_id = header.get("id")
    return ContextOverview(
        file=str(session.path),
        format=session.format,
        version=session.version,
        valid=session.valid,
        size_bytes=session.file_size,
        entries=len(session.entries),
        session_name=session.tree.session_name,
        session_id=session_id if isinstance(session_id, str) else None,
        leaf_id=ctx.leaf_id,
        model=ctx.model,
        thinking_level=ctx.thinking_level,
        window=window,
        guard=window_guard(rules, window, ctx.model),
        usage=ContextUsage.from_json(rules.context_usage.context_now(session, ctx)),
    )


def session_figures(
    session: Session,
    ctx: m.SessionContext,
    window_options: WindowOptions,
    estimator: str = "pi",
    top: int = 10,
    previous: SessionFigures | None = None,
) -> SessionFigures:
    """Overview, breakdown (under the estimator called `estimator`, `top` largest) and diagnostics of `ctx`.

    With `previous`, its breakdown and diagnostics (linear in the session's size) are reused and only the
    overview is recomputed: the cheap path for frequent live refreshes of very large sessions.
    """
    overview = context_overview(session, ctx, window_options)
    if previous is not None:
        return SessionFigures(overview, previous.breakdown, previous.diagnostics)
    return SessionFigures(overview, context_breakdown(session, ctx, estimator, top=top), tuple(session.all_diagnostics(ctx)))


def context_report(
    session: Session,
    ctx: m.SessionContext,
    window_options: WindowOptions,
    encoding: str | None = "cl100k_base",
) -> dict[str, Any]:
    """`context --json`: one row per context message with every estimator, plus window and guard."""
    overview = context_overview(session, ctx, window_options)
    counts, tik_info = tiktoken_counts_for(session, ctx, encoding)
    estimators = index_estimators(session)
    fields = [est.field for est in estimators]
    columns = [estimate_sizes(ctx.messages, est.name) for est in estimators]  # 0 for a message without estimates
    cumulative = running_totals(estimate_sizes(ctx.messages, "pi"))
    entries = session.entries
    rows = []
    for pos, (row, values) in enumerate(zip(ctx.messages, zip(*columns) if columns else repeat(()))):
        e = entries[row.entry_index]
        est: dict[str, int | None] = dict(zip(fields, values))
        est["tiktoken"] = counts[pos] if counts is not None else None
        rows.append(
            {
                "index": row.index,
                "entry_id": row.entry_id,
                "entry_type": e.type,
                "line": row.line,
                "role": row.role,
                "tool_name": row.tool_name,
                "estimates": est,
                "cumulative_pi_tokens": cumulative[pos],
                "usage": row.usage,
                "excluded_from_llm": row.excluded_from_llm,
                "timestamp": e.message_timestamp,
            }
        )
    return {
        "file": overview.file,
        "format": overview.format,
        "version": overview.version,
        "leaf_id": overview.leaf_id,
        "model": overview.model,
        "thinking_level": overview.thinking_level,
        "context_window": window_to_json(overview.window),
        "guard": guard_to_json(overview.guard),
        "tiktoken": tik_info,
        "totals": {
            **{field: sum(column) for field, column in zip(fields, columns)},
            "tiktoken": sum(c for c in counts if c is not None) if counts is not None else None,
            "estimate_context_tokens": overview.usage.to_json(),
        },
        "diagnostics": [d.to_json() for d in session.all_diagnostics(ctx)],
        "messages": rows,
    }


def compaction_kind(session: Session, entry_id: str | None, fk: Any, first_index: int | None) -> str:
    """How a compaction entry (`entry_id`, its `firstKeptEntryId` `fk`) keeps history: split_turn, turn_boundary,
    manual (self-reference), boundary_only, non_message_start, first_kept_missing. Read from the columns (no `Entry`
    built).

    `first_index`: the index of the first entry that is not a session header (`first_entry_index`)."""
    if fk is not None and fk == entry_id:
        return "manual"
    target = session.tree.by_id.get(fk) if isinstance(fk, str) else None
    if target is None:
        return "first_kept_missing"
    if target == first_index:
        return "boundary_only"
    etype, role = session.entries.shape_of(target)[:2]
    if role == "assistant":
        return "split_turn"
    if etype != m.MESSAGE:
        return "non_message_start"
    return "turn_boundary"


CompactionFacts = tuple[str | None, int, Any, Any, Any, str, int | None]
"""What `stats` shows of a compaction entry apart from where the context is: `(entry_id, line, first_kept_entry_id,
tokens_before, from_hook, kind, summary_chars)`."""


def _compaction_facts(session: Session, compaction_indices: list[int]) -> list[tuple[int, CompactionFacts]]:
    """`(index, facts)` of every compaction entry (`compaction_indices`, in order). Kept in `session.figure_state` and
    extended by the compactions added since (a session may hold thousands: their JSON read again on every command
    was a tenth of an appended run). A kind can change only when an id repeats (every kind is worked out again), or
    when a missing first kept entry arrives (those are)."""
    entries = session.entries
    rows, duplicates = len(entries), len(session.tree.duplicates)
    first_index = first_entry_index(session) if compaction_indices else None
    kept = session.figure_state.get("compactions")
    facts: list[tuple[int, CompactionFacts]] = []
    start = 0
    if kept is not None and kept[1:3] == (duplicates, first_index) and kept[0] <= rows:
        start, facts = kept[0], list(kept[3])
        if start < rows:
            facts = [
                (i, f if f[5] != "first_kept_missing" else (*f[:5], compaction_kind(session, f[0], f[2], first_index), f[6]))
                for i, f in facts
            ]
    for i in compaction_indices[bisect_left(compaction_indices, start) :]:
        data = entries.data_of(i) or {}
        entry_id = entries.id_of(i)
        summary = data.get("summary")
        first_kept = data.get("firstKeptEntryId")
        facts.append(
            (
                i,
                (
                    entry_id,
                    entries.line_of(i),
                    first_kept,
                    data.get("tokensBefore"),
                    data.get("fromHook"),
                    compaction_kind(session, entry_id, first_kept, first_index),
                    len(summary or "") if isinstance(summary, str) else None,
                ),
            )
        )
    session.figure_state["compactions"] = (rows, duplicates, first_index, facts)  # one assignment (other threads)
    return facts


def first_entry_index(session: Session) -> int | None:
    """The index of the first entry that is not a session header (None: there is none)."""
    type_of = session.entries.type_of
    return next((i for i in range(len(session.entries)) if type_of(i) != m.SESSION), None)


ShapeTotals = tuple[Counter[str], Counter[str], Counter[tuple[str | None, str | None]]]
"""Entries by type, messages by role, assistant messages by `(provider, model)`."""


def shape_totals(session: Session) -> ShapeTotals:
    """`ShapeTotals` of the session, each in the order its keys first appear (`most_common` keeps it for ties).
    Kept in `session.figure_state` and extended by the rows added since: a pass over every shape (thousands in a
    big session) cost ~3 ms of every appended run."""
    entries = session.entries
    rows = len(entries)
    kept: tuple[Any, ...] = session.figure_state.get("shape_totals") or (0, Counter(), Counter(), Counter())
    if kept[0] == rows:
        return kept[1], kept[2], kept[3]
    start = kept[0] if kept[0] < rows else 0
    by_type: Counter[str] = Counter(kept[1] if start else ())  # copies: a count handed out never changes
    by_role: Counter[str] = Counter(kept[2] if start else ())
    models: Counter[tuple[str | None, str | None]] = Counter(kept[3] if start else ())
    shapes = entries.shapes
    for code, n in entries.shape_counts_since(start, rows).items():  # codes in the order they first appear
        shape = shapes[code]
        by_type[shape[0]] += n
        if shape[0] == m.MESSAGE and shape[1]:
            by_role[shape[1]] += n
        if shape[1] == "assistant":
            models[(shape[3], shape[4])] += n
    session.figure_state["shape_totals"] = (rows, by_type, by_role, models)  # one assignment (other threads)
    return by_type, by_role, models


def session_stats(
    session: Session,
    window_options: WindowOptions,
    encoding: str | None = "cl100k_base",
    leaf_id: str | None = None,
) -> dict[str, Any]:
    """`stats --json`: counts, tree shape, compactions, models, token totals, usage, window, diagnostics."""
    ctx = session.context(leaf_id)
    entries = session.entries
    figures = session_figures(session, ctx, window_options, "pi", top=10)
    overview = figures.overview
    by_type, by_role, models = shape_totals(session)
    compaction_indices = entries.indices_of_type(m.COMPACTION)
    on_path = compactions_on_path(entries, ctx)
    compactions = [
        {
            "entry_id": entry_id,
            "line": line,
            "on_path": i in on_path,
            "in_force": i == ctx.compaction_index,
            "first_kept_entry_id": first_kept,
            "tokens_before": tokens_before,
            "from_hook": from_hook,
            "kind": kind,
            "summary_chars": summary_chars,
        }
        for i, (entry_id, line, first_kept, tokens_before, from_hook, kind, summary_chars) in _compaction_facts(
            session, compaction_indices
        )
    ]
    counts, tik_info = tiktoken_counts_for(session, ctx, encoding)
    ctx_totals: dict[str, int | None] = {
        est.field: sum(estimate_sizes(ctx.messages, est.name)) for est in index_estimators(session)
    }
    ctx_totals["tiktoken"] = sum(c for c in counts if c is not None) if counts is not None else None
    return {
        "file": overview.file,
        "format": overview.format,
        "version": overview.version,
        "valid": overview.valid,
        "size_bytes": overview.size_bytes,
        "header": m.header_json(session.header),
        "session_name": overview.session_name,
        "entries": {"total": overview.entries, "by_type": dict(sorted(by_type.items())), "by_role": dict(sorted(by_role.items()))},
        "leaf_id": overview.leaf_id,
        "tree": {
            "roots": len(session.tree.roots()),
            "orphans": len(session.tree.orphans()),
            "branch_points": list(map(entries.id_of, session.tree.branch_points())),
            "path_length": len(ctx.path),
            "off_path_entries": len(entries) - len(ctx.path),
            "labels": dict(session.tree.labels),
        },
        "compactions": compactions,
        "models": [{"provider": p, "model": mo, "assistant_messages": n} for (p, mo), n in models.most_common()],
        "model": overview.model,
        "thinking_level": overview.thinking_level,
        "context": {
            "messages": len(ctx.messages),
            "estimates": ctx_totals,
            "estimate_context_tokens": overview.usage.to_json(),
            "tiktoken": tik_info,
            "estimator_ratios": estimator_ratios(session, ctx, counts),
            "breakdown": figures.breakdown.to_json(),
        },
        "usage": {"all_entries": usage_totals(entries.usage_total()), "active_path": usage_totals(session.path_usage(ctx))},
        "context_window": window_to_json(overview.window),
        "guard": guard_to_json(overview.guard),
        "context_fill": overview.fill,
        "diagnostics": [d.to_json() for d in figures.diagnostics],
    }


