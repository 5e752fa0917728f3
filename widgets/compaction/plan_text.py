"""The compaction forecast's side panel as Rich text: status, gauge, triggers and stages of one `CompactionPlan`.

Every figure is the plan's own (`inspector.figures.forecast.plan`); these functions only format. Text that comes from
the session (an overflow error message) goes through `inspector.base.textsafe.one_line` into a `Text`, never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from inspector.base.textsafe import one_line
from inspector.figures.forecast.plan import CompactionPlan
from inspector.rules.context_basis import short
from inspector.write.preflight import Check

GAUGE_MIN_WIDTH = 10


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def status_text(plan: CompactionPlan) -> Text:
    """One or two lines: nothing to plan (with pi's reason), or where the cut falls and what is summarized."""
    out = Text()
    if plan.nothing_to_plan is not None:
        out.append("Nothing to plan: ", style="bold")
        out.append(plan.nothing_to_plan.reason)
        return out
    summarized = len(plan.messages_to_summarize)
    prefix = len(plan.turn_prefix_messages)
    out.append(f"cut before line {_n(plan.first_kept_line)}", style="bold")
    out.append(f" · {_n(plan.tokens_before)} tokens before · {summarized} to summarize")
    if plan.is_split_turn:
        out.append(f" · split turn ({prefix} in its prefix)")
    keep = plan.scaled_keep
    if keep is not None and keep.scaled:
        out.append(f"\nkeep {keep.keep_recent_tokens:,.0f} = {keep.configured:,} / {keep.scale:.3g} (usage / estimate)")
    if plan.boundary_only:
        out.append("\nnothing real to summarize: a boundary entry only")
    out.append(f"\n{plan.llm_calls} model call(s) · {len(plan.stages)} stage(s)")
    return out


def gauge_text(plan: CompactionPlan, width: int) -> Text:
    """A bar of the context against the window: `┃` the reserve line (pi's threshold), `╎` each early threshold.

    Below it, the numbers: context tokens of the window (with their basis: never a usage recorded before the latest
    compaction), the reserve, then the legend with the threshold and the
    early thresholds in tokens.
    """
    t = plan.triggers.threshold
    window = max(1, t.context_window)
    cells = max(GAUGE_MIN_WIDTH, width)
    used = plan.context_tokens
    fill = min(cells, round(cells * used / window))
    bar = ["█"] * fill + ["░"] * (cells - fill)
    for w in plan.triggers.early_warnings:
        at = min(cells - 1, max(0, round(cells * w.threshold_tokens / window)))
        bar[at] = "╎"
    reserve_at = min(cells - 1, max(0, round(cells * t.threshold_tokens / window)))
    bar[reserve_at] = "┃"
    out = Text()
    style = "bold red" if t.would_compact else ""
    out.append("".join(bar[:fill]), style=style or "green")
    out.append("".join(bar[fill:]), style="dim")
    pct = 100 * used / window
    basis = f", {short(plan.context_basis)}" if plan.context_basis else ""
    out.append(f"\n{used:,} / {t.context_window:,} ({pct:.1f}%{basis}) · reserve {t.reserve_tokens:,}")
    early = " / ".join(f"{w.threshold_tokens:,}" for w in plan.triggers.early_warnings)
    out.append(f"\n┃ {t.threshold_tokens:,} compacts" + (f" · ╎ {early} early" if early else ""), style="dim")
    return out


def triggers_text(plan: CompactionPlan, threshold_label: str = "pi threshold") -> Text:
    """Each trigger with its numbers: the agent core's threshold (named `threshold_label`, the rule set's
    `triggers.THRESHOLD_LABEL`), OpenClaw's pre-prompt route, overflow, early warnings, engine."""
    tr = plan.triggers
    t = tr.threshold
    out = Text()
    out.append("Triggers", style="bold")
    if t.skipped:
        out.append(f"\n{threshold_label}: not checked ({t.skipped})")
    else:
        verdict = "fires" if t.would_compact else "no"
        out.append(
            f"\n{threshold_label}: {_n(t.context_tokens)} > {t.context_window:,} − {t.reserve_tokens:,} = {t.threshold_tokens:,}? "
        )
        out.append(verdict, style="bold red" if t.would_compact else "green")
        if t.tokens_to_threshold is not None and not t.would_compact:
            out.append(f" · {t.tokens_to_threshold:,} to go")
    p = tr.pre_prompt
    out.append(f"\npre-prompt route (prompt {p.prompt_tokens:,}): ")
    out.append(p.route, style="bold red" if p.route != "fits" else "green")
    out.append(f" · {p.estimated_prompt_tokens:,} of {p.prompt_budget_before_reserve:,} budget")
    measured = getattr(p, "measured_tokens", None)
    if measured is not None:
        out.append(f" · measured {measured:,} + 1.2 × later messages")
    s = plan.settings
    requested = getattr(s, "reserve_requested", s.reserve_tokens)
    if getattr(s, "reserve_cap", None) is not None and s.reserve_tokens < requested:
        out.append(f"\nreserve capped at a quarter of the window: {s.reserve_tokens:,} (requested {requested:,})")
    who = plan.compactor
    if who is not None:
        out.append(f"\nagent threshold: {'on' if who.agent_threshold else 'off'} ({who.agent_threshold_reason})")
        out.append(f"\nmanual: {who.manual}", style="dim")
    o = tr.overflow
    if o.is_overflow:
        out.append(f"\noverflow: the last assistant message is a context overflow ({o.kind or 'error'})", style="bold red")
        if o.error_message:
            out.append("\n  " + one_line(o.error_message, 60))
        if not o.would_compact:
            out.append(" · stale or another model: no retry")
    else:
        out.append("\noverflow: no")
    for w in tr.early_warnings:
        state = "crossed" if w.crossed else f"{w.remaining_tokens:,} left"
        out.append(f"\nearly {w.fraction:g} ({w.threshold_tokens:,}): {state}", style="yellow" if w.crossed else "")
    out.append(f"\nmode: {plan.mode.mode} ({plan.mode.reason})")
    engine = plan.context_engine
    if engine.builtin:
        out.append(f"\ncontext engine: {engine.engine} (OpenClaw's built-in)")
    else:
        out.append(f"\ncontext engine: plugin {engine.engine!r}", style="bold yellow")
        out.append("\n  this forecast is the built-in's: the plugin decides when and how to compact", style="yellow")
        if engine.note:
            out.append("\n  " + one_line(engine.note, 200), style="yellow")
    if not tr.auto_compaction_enabled:
        out.append("\nauto-compaction: off (a plugin owns compaction)")
    return out


def stages_text(plan: CompactionPlan) -> Text:
    """The stages a run would execute, in order, with their model calls."""
    out = Text()
    out.append("Stages", style="bold")
    if not plan.stages:
        out.append("\n(none)", style="dim")
        return out
    for i, stage in enumerate(plan.stages, 1):
        calls = f" · {stage.llm_calls} call" + ("s" if stage.llm_calls != 1 else "") if stage.llm_calls else ""
        out.append(f"\n{i:>2}. {stage.label}{calls}")
    return out


def checks_text(checks: Sequence[Check]) -> Text:
    """The summary checks `compact` computes for this plan (`inspector.write.runner.forecast_checks`) that failed,
    each a warning line, and the release's quality guard (`guard`, 2026.9.6: on or off, the retries a failing
    summary gets, a summary still failing cancels the compaction), a plain line (empty: nothing to say)."""
    out = Text()
    for check in checks:
        if not check.ok or check.name == "guard":
            out.append("\n" if out else "")
            out.append(f"{check.name}: ", style="bold" if check.ok else "bold yellow")
            out.append(one_line(check.detail, 600), style="" if check.ok else "yellow")
    return out


def gateway_text(gw: dict[str, Any]) -> Text:
    """OpenClaw's last recorded precheck and compaction beside the forecast, and each disagreement
    (`inspector.figures.diagnosis.gateway.forecast_comparison`); every log value made inert."""
    out = Text()
    out.append("OpenClaw's log", style="bold")
    out.append(f" ({gw['events']:,} event{'s' if gw['events'] != 1 else ''})")
    pre, comp = gw["last_precheck"], gw["last_compaction"]
    if pre is not None:
        f = pre["figures"]
        earlier = "" if gw["same_context"] else " (an earlier context)"
        out.append("\n" + one_line(f"last precheck: {f.get('route')}, estimate {f.get('estimated_prompt_tokens')}, budget "
                                   f"{f.get('prompt_budget_before_reserve')}{earlier}", 200))
    if comp is not None:
        f = comp["figures"]
        out.append("\n" + one_line(f"last compaction: {f.get('outcome')} ({f.get('trigger')}), {f.get('tokens_before')} → "
                                   f"{f.get('tokens_after')} tok", 200))
    for d in gw["disagreements"]:
        out.append("\n")
        out.append(one_line(d["message"], 200), style="bold")
    return out
