"""`session-inspector timeline PATH`: every LLM call on the active path, where the context jumped, what repeats.

`--json` prints `Timeline.to_json()` (calls, jumps, thresholds_crossed, repeats, overhead, cache, cost, fill; and
`gateway`, what OpenClaw's Gateway log recorded of the session, when it recorded anything or `--gateway-log` is given);
`--csv` prints one row per call; without either, a compact table, the top jumps and the top repeats. Every figure
is computed by `inspector.figures.diagnosis`; this module only renders.
"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

from inspector.base.durations import format_duration_ms
from inspector.base.textsafe import make_inert, one_line
from inspector.cli.commands._common import (
    EXIT_ERROR,
    add_gateway_log_option,
    add_session_options,
    bounded_int,
    console,
    encoding_of,
    gateway_log_of,
    human,
    model_label,
    open_context,
    print_json,
)
from inspector.cli.commands._foreign import shown_file, shown_window_source
from inspector.figures.diagnosis.calls import AddedMessage, CallPoint
from inspector.figures.diagnosis.repeats import SUGGESTIONS
from inspector.figures.diagnosis.savings import DEFAULT_NEXT_CALLS, Savings, build_savings
from inspector.figures.diagnosis.timeline import DEFAULT_TOP_JUMPS, Timeline, TimelineOptions, build_timeline
from inspector.rules.context_basis import short

CSV_FIELDS = (
    "index",
    "entry_id",
    "line",
    "request_at",
    "provider",
    "model",
    "stop_reason",
    "prompt_tokens",
    "input",
    "output_tokens",
    "cache_read",
    "cache_write",
    "context_tokens",
    "transcript_estimate",
    "not_in_transcript",
    "cache_hit_ratio",
    "cost",
    "cost_source",
    "recorded_cost",
    "context_messages",
    "compaction_id",
    "added_messages",
    "added_tokens",
    "gap_ms",
    "transcript_tokens",
    "overhead_tokens",
    "estimator_error_tokens",
)
ESTIMATOR_CHOICES = ("pi", "openclaw_prune", "openclaw_compaction", "tool_guard", "tiktoken")
HUMAN_REPEATS = 10


def early_fractions_arg(raw: str) -> tuple[float, ...]:
    """`0.5,0.7` → (0.5, 0.7): comma-separated fractions of the window, each in (0, 1]."""
    try:
        values = tuple(float(part) for part in raw.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{raw!r}: expected fractions like 0.5,0.7") from None
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"{raw!r}: every fraction must be > 0 and <= 1")
    return values


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `timeline` subcommand."""
    p = sub.add_parser(
        "timeline",
        help="every LLM call on the active path: prompt vs transcript, jumps and their cause, thresholds, repeats, cost",
    )
    add_session_options(p, leaf=True)
    p.add_argument("--csv", action="store_true", help="one CSV row per call (instead of tables)")
    p.add_argument("--top", type=bounded_int(0, 1_000_000, "jumps to list"), default=DEFAULT_TOP_JUMPS, metavar="N", help=f"largest jumps to report (default {DEFAULT_TOP_JUMPS})")
    p.add_argument(
        "--early-thresholds",
        type=early_fractions_arg,
        default=None,
        metavar="F,F",
        help="early-warning fractions of the window (default: the session's rules'; 0.5,0.7 under openclaw-2026.4.12)",
    )
    p.add_argument(
        "--estimator",
        choices=ESTIMATOR_CHOICES,
        default="pi",
        help="what the transcript estimate is counted with (default pi: pi's chars/4; tiktoken: the tokenizer)",
    )
    p.add_argument(
        "--next",
        type=bounded_int(1, 100_000, "calls to project"),
        default=DEFAULT_NEXT_CALLS,
        metavar="N",
        help=f"what fixing it would save over the next N calls (default {DEFAULT_NEXT_CALLS})",
    )
    add_gateway_log_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run `timeline`; returns 0, or 2 for a file that cannot be opened or bad arguments."""
    if args.json and args.csv:
        print("session-inspector: --json and --csv are exclusive", file=sys.stderr)
        return EXIT_ERROR
    if args.context_window is not None and args.context_window <= 0:
        print("session-inspector: --context-window must be a positive integer", file=sys.stderr)
        return EXIT_ERROR
    opened = open_context(args)
    if opened is None:
        return EXIT_ERROR
    session, ctx, opts, config_error = opened
    gateway = gateway_log_of(args, session, opts.config)
    timeline = build_timeline(
        session, ctx, TimelineOptions(window=opts, early_fractions=args.early_thresholds, top_jumps=max(0, args.top), gateway=gateway, estimator=args.estimator,
                                       tokenizer=encoding_of(args))
    )
    timeline.savings = build_savings(session, ctx, timeline, args.next, opts.config)
    if args.json:
        data = timeline.to_json()
        if config_error:
            data["config_error"] = config_error
        print_json(data)
    elif args.csv:
        write_csv(timeline.calls)
    else:
        render(timeline, config_error)
    return 0


def _csv_cell(value: Any) -> Any:
    if isinstance(value, str):
        return make_inert(value, keep_newlines=False)
    return "" if value is None else value


def write_csv(calls: list[CallPoint]) -> None:
    """One row per call, `CSV_FIELDS` as the header (strings made inert: they come from the session file)."""
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for call in calls:
        row = call.to_json()
        writer.writerow([_csv_cell(row[k]) for k in CSV_FIELDS])
    sys.stdout.flush()


# ------------------------------------------------------------------------------------------------- human


def _t(value: object) -> Text:
    return Text("" if value is None else make_inert(str(value), keep_newlines=False))


def _n(value: int | float | None) -> str:
    if value is None:
        return ""
    return f"{value:,.0f}" if isinstance(value, (int, float)) else str(value)


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.0f}%"


def _marks(timeline: Timeline) -> dict[int, list[str]]:
    marks: dict[int, list[str]] = {}
    for mk in timeline.walk.markers:
        if mk.before_call is not None:
            marks.setdefault(mk.before_call, []).append({"compaction": "C", "branch_point": "B", "branch_summary": "S"}.get(mk.kind, "?"))
    for rank, jump in enumerate(timeline.jumps[:5], 1):
        marks.setdefault(jump.call_index, []).append(f"J{rank}")
    for t in timeline.thresholds:
        if t.call_index is not None:
            marks.setdefault(t.call_index, []).append(f">{t.name}")
    return marks


def render(timeline: Timeline, config_error: str | None = None) -> None:
    """The compact human view: header, one row per call, thresholds, top jumps, top repeats, totals."""
    c = console()
    data_model = timeline.model or {}
    win = timeline.window
    c.print(_t(f"{shown_file(timeline.file)}  (leaf {human(timeline.leaf_id, missing='none')}; model {model_label(data_model)})"))
    c.print(_t(f"window {win.tokens:,} tokens ({shown_window_source(win.source)}); guard {timeline.guard['level']} (about the window's size)"))
    fill_style = "bold red" if timeline.fill.over_window else ""
    basis = f" ({short(timeline.fill.basis)})" if timeline.fill.basis else ""
    c.print(Text(make_inert(f"context now{basis}: {timeline.fill.message}", keep_newlines=False), style=fill_style))
    if config_error:
        c.print(_t(f"config: {config_error}"))

    calls = timeline.calls
    marks = _marks(timeline)
    rows: list[list[str]] = []
    previous = None
    for call in calls:
        delta = call.prompt_tokens - previous.prompt_tokens if previous is not None else None
        rows.append(
            [
                str(call.index),
                str(call.line),
                _n(call.prompt_tokens),
                "" if delta is None else f"{delta:+,.0f}",
                _n(call.transcript_estimate),
                _n(call.not_in_transcript),
                _n(call.overhead_tokens),
                _n(call.estimator_error_tokens),
                _n(call.output_tokens),
                _pct(call.cache_hit_ratio),
                f"{call.cost.total:.4f}" + ("*" if call.cost.source != "recorded" else ""),
                " ".join(marks.get(call.index, [])),
            ]
        )
        previous = call
    table = Table(
        title=f"Calls on the active path ({len(calls)})", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1, 0, 0)
    )
    headers = ("#", "line", "prompt", "Δ", "transcr.", "not in tr.", "overhead", "est. err", "out", "hit", "cost", "marks")
    for i, col in enumerate(headers):
        if col == "marks":
            table.add_column(col, justify="left", overflow="fold")
        else:
            width = max([len(col)] + [len(r[i]) for r in rows])
            table.add_column(col, justify="right", no_wrap=True, min_width=width)
    for r in rows:
        table.add_row(*(_t(v) for v in r))
    c.print(table)
    c.print(
        _t(
            f"transcr. = {timeline.attribution.estimator} estimate of the transcript sent; not in tr. = prompt - transcr. (derived) = "
            "overhead (outside the transcript) + est. err (the estimator's error, by the tokenizer); hit = cacheRead/prompt; "
            "cost in USD (* from the price table); marks: C compaction, B branch point, S branch summary before the call, "
            "Jn n-th largest jump, >name first crossing"
        )
    )

    th = Table(title="Thresholds (first call whose prompt went above)", title_justify="left")
    for col in ("threshold", "tokens", "of window", "first call", "line", "prompt", "times"):
        th.add_column(col, justify="left" if col in ("threshold", "first call") else "right")
    for t in timeline.thresholds:
        th.add_row(*(_t(v) for v in (t.name, _n(t.tokens), _pct(t.fraction), t.entry_id or "never", t.line, _n(t.prompt_tokens), t.times)))
    c.print(th)
    reserve = timeline.reserve
    agent = timeline.agent_rule
    if agent is None:
        c.print(_t(f"compaction threshold = window - reserveTokens {reserve.reserve_tokens:,} ({reserve.describe()})"))
    else:
        known = "not known" if agent.threshold_tokens is None else f"{agent.threshold_tokens:,} tokens"
        c.print(_t(f"compaction threshold = {agent.agent}'s own auto-compaction, {known}: {agent.rule}" + (f" ({agent.note})" if agent.note else "")))

    if timeline.jumps:
        jt = Table(title="Largest jumps", title_justify="left")
        for col in ("call", "entry", "Δ prompt", "explained", "tokenizer", "overhead Δ", "caused by (largest first)"):
            jt.add_column(col, justify="left" if col in ("entry", "caused by (largest first)") else "right", overflow="fold")
        for j in timeline.jumps:
            causes = ", ".join(_cause(a) for a in j.causes[:3])
            if len(j.causes) > 3:
                causes += f", +{len(j.causes) - 3} more"
            if j.across_compaction:
                causes += " (across a compaction)"
            overhead = "" if j.overhead_change is None else f"{j.overhead_change:+,.0f}"
            jt.add_row(*(_t(v) for v in (j.call_index, j.entry_id, f"{j.delta_tokens:+,.0f}", _n(j.explained_tokens), _n(j.tokenizer_tokens), overhead, causes)))
        c.print(jt)

    if timeline.repeats:
        rt = Table(title=f"Repeats ({len(timeline.repeats)}, ranked by tokens sent twice)", title_justify="left")
        for col in ("kind", "tool", "count", "tokens", "wasted", "what", "lines", "fix"):
            rt.add_column(col, justify="right" if col in ("count", "tokens", "wasted") else "left", overflow="fold")
        for rep in timeline.repeats[:HUMAN_REPEATS]:
            lines = ", ".join(str(x) for x in rep.lines[:6]) + (", …" if len(rep.lines) > 6 else "")
            wasted = _n(rep.wasted_tokens) + (f" ({rep.summarized_away} after a compaction)" if rep.summarized_away else "")
            rt.add_row(
                _t(rep.kind), _t(rep.tool_name), _t(rep.count), _t(_n(rep.tokens)), _t(wasted), Text(one_line(rep.subject, 60)), _t(lines),
                _t(SUGGESTIONS[rep.kind]),
            )
        c.print(rt)
    else:
        c.print(_t("repeats: none found"))

    o = timeline.overhead
    if o.calls_used:
        c.print(
            _t(
                f"not in the transcript (derived, {o.calls_used} calls from {o.first_entry_id} to {o.last_entry_id}): latest "
                f"{_n(o.latest)} tokens = {_pct(o.latest_share)} of the prompt; median {_n(o.median)}, min {_n(o.minimum)}, "
                f"max {_n(o.maximum)}; trend {o.trend.direction} ({o.trend.slope_tokens_per_call:+,.1f}/call)"
                if o.trend.slope_tokens_per_call is not None
                else f"not in the transcript (derived, 1 call {o.first_entry_id}): {_n(o.latest)} tokens = {_pct(o.latest_share)} of the prompt"
            )
        )
    at = timeline.attribution
    c.print(_t(f"split ({at.method}, ratio {at.calibration.ratio:.3f} over {at.calibration.steps} steps): {at.verdict}"))
    if at.recorded_prompt is not None:
        p = at.recorded_prompt
        c.print(_t(f"  recorded system prompt ({p.source}, line {p.line}): {p.chars:,} chars ≈ {p.tokens:,} tokens of the overhead, "
                   "sent before the transcript on every call, not counted in it"))
    for x in at.misestimated[:HUMAN_REPEATS]:
        c.print(_t(f"  mis-estimated: {x.entry_id} line {x.line} {x.role}{'/' + x.tool_name if x.tool_name else ''}: "
                   f"estimate {x.estimate:,}, tokenizer {x.tokenizer:,} (x{x.ratio if x.ratio is not None else 'inf'})"))
    ca = timeline.cache
    c.print(
        _t(
            f"cache: hit ratio {_pct(ca.hit_ratio)}; {len(ca.expiry_writes)} write(s) after a gap over the TTL "
            f"{format_duration_ms(ca.ttl_ms)} ({ca.ttl_source}): {_n(ca.expiry_write_tokens)} tokens, ${ca.expiry_write_cost:.4f}"
        )
    )
    co = timeline.cost
    c.print(
        _t(
            f"cost: ${co.total:.4f} ({co.recorded_calls} recorded, {co.price_table_calls} from the price table, "
            f"{co.unknown_calls} unknown; prices: pi-ai catalog, extracted {co.table['extracted']})"
        )
    )
    if timeline.savings is not None:
        render_savings(c, timeline.savings)
    if timeline.gateway is not None:
        render_gateway(c, timeline.gateway)
    sk = timeline.walk
    c.print(
        _t(
            f"skipped: {len(sk.skipped_synthetic)} synthetic OpenClaw assistant(s), {len(sk.skipped_zero_usage)} zero-usage; "
            f"{sk.unsent_messages} message(s) of the context not sent (errored/aborted assistants, excluded bash runs)"
        )
    )


def render_savings(c: Any, savings: Savings) -> None:
    """The next N calls as they are, with pruning, compacted now: tokens, cost, what each saves."""
    i = savings.inputs
    c.print(
        _t(
            f"next {i.next_calls} calls (from {_n(i.base_prompt)} tokens, +{_n(i.growth_per_call)}/call, cache hit "
            f"{_pct(i.cache_read_share)}, {i.price.key if i.price else 'no price'}):"
        )
    )
    for s in savings.scenarios:
        cost = "cost unknown" if s.cost is None else f"${s.cost:.4f}"
        saved = "" if s.name == "as_is" else f"; saves {_n(s.saved_tokens)} tokens" + ("" if s.saved_cost is None else f", ${s.saved_cost:.4f}")
        c.print(_t(f"  {s.name}: {_n(s.prompt_tokens)} prompt tokens, {cost}{saved}"))
    if i.compacted_prompt is not None:
        c.print(_t(f"  (compacted_now: a summary of {_n(i.summary_tokens)} tokens: {i.summary_tokens_source})"))
    for note in savings.notes:
        c.print(_t(f"  ({note})"))


def _cause(a: AddedMessage) -> str:
    """One cause of a jump: entry, role/tool, estimate, and the tokenizer's count where it differs."""
    text = f"{a.entry_id} {a.role}{'/' + a.tool_name if a.tool_name else ''} {a.tokens:,}"
    if a.tokenizer_tokens is not None and a.tokenizer_tokens != a.tokens:
        text += f" (tokenizer {a.tokenizer_tokens:,})"
    return text


def gateway_figures(event: dict[str, Any]) -> str:
    """The figures of one Gateway event as one inert line (`key value`, the kind's own)."""
    f = event["figures"]
    keys = {
        "overflow_precheck": ("phase", "route", "estimated_prompt_tokens", "prompt_budget_before_reserve", "overflow_tokens"),
        "overflow": ("source", "trigger", "observed_tokens", "preflight_estimated_tokens", "error"),
        "compaction_attempt": ("trigger", "attempt", "max_attempts", "tokens_before"),
        "compaction_result": ("trigger", "outcome", "reason", "tokens_before", "tokens_after"),
        "compaction_skipped": ("reason",),
        "loop_abort": ("tool", "detector", "count"),
        "loop_warning": ("tool", "detector", "count"),
    }.get(event["kind"], ())
    return "; ".join(f"{k} {_n(f[k]) if isinstance(f.get(k), (int, float)) else f.get(k)}" for k in keys if k in f)


def render_gateway(c: Any, gateway: dict[str, Any]) -> None:
    """What OpenClaw's Gateway log recorded: one row per event at its call, the disagreements, the diagnostics."""
    events = gateway["events"]
    key = gateway["session_key"] or gateway["session_id"] or "unknown"
    gt = Table(title=f"OpenClaw's Gateway log ({len(events)} event(s) of {key}; {len(gateway['files'])} file(s))", title_justify="left")
    for col in ("time", "kind", "call", "figures"):
        gt.add_column(col, overflow="fold")
    for e in events:
        call = "" if e["call_index"] is None else f"{e['relation']} {e['call_index']}"
        gt.add_row(_t(e["time"]), _t(e["kind"]), _t(call), _t(gateway_figures(e)))
    c.print(gt)
    for d in gateway["disagreements"]:
        c.print(_t(f"disagreement: {d['message']}"))
    for d in gateway["diagnostics"]:
        c.print(_t(f"gateway log: {d['file']}" + (f" line {d['line']}" if d["line"] is not None else "") + f": {d['message']}"))
