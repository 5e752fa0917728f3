"""`session-inspector plan PATH`: when OpenClaw would compact this session, where it would cut, how it would chunk."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from rich.table import Table
from rich.text import Text

from inspector.base.textsafe import make_inert, one_line
from inspector.cli.commands._common import (
    EXIT_ERROR,
    add_gateway_log_option,
    add_session_options,
    console,
    gateway_log_of,
    open_context,
    print_json,
    rule_choice,
)
from inspector.cli.commands._foreign import foreign_source, not_applicable
from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.rules.compaction_terms import RATIO_FORMULAS
from inspector.rules.context_basis import context_basis_note, short


def _int_arg(minimum: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum or value > 2**31 - 1:
            raise argparse.ArgumentTypeError(f"must be between {minimum} and {2**31 - 1}, got {value}")
        return value

    return parse


def thresholds_arg(text: str) -> list[float]:
    """`0.5,0.7`: fractions of the context window in (0, 1]."""
    out = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {part!r}") from None
        if not math.isfinite(value) or not 0 < value <= 1:
            raise argparse.ArgumentTypeError(f"thresholds are fractions of the window in (0, 1], got {part!r}")
        out.append(value)
    return out


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="compaction forecast: triggers, cut point, split turn, history-share prune, parts, chunks, stages")
    add_session_options(p, leaf=True)
    p.add_argument("--keep-recent-tokens", type=_int_arg(1), default=None, metavar="N", help="override keepRecentTokens")
    p.add_argument("--reserve-tokens", type=_int_arg(0), default=None, metavar="N", help="override reserveTokens (the floor is not applied)")
    p.add_argument("--prompt-tokens", type=_int_arg(0), default=0, metavar="N", help="size of the next prompt for the pre-prompt route (default 0)")
    p.add_argument(
        "--early-thresholds",
        type=thresholds_arg,
        default=None,
        metavar="F,F",
        help="early-warning fractions of the window (default: the session's rules'; 0.5,0.7 under openclaw-2026.4.12)",
    )
    p.add_argument("--ratio-formula", choices=RATIO_FORMULAS, default="openclaw", help="adaptive chunk ratio: OpenClaw's code or the older published formula")
    add_gateway_log_option(p)
    p.set_defaults(func=run)


def _agent_plan(args: argparse.Namespace) -> int:
    """A Claude Code / Codex session: OpenClaw's plan does not apply; the agent's own auto-compaction forecast does."""
    from inspector.figures.forecast.other_agents import agent_forecast
    from inspector.figures.rules_of import rules_of
    from inspector.figures.session_figures import window_for

    mirror = foreign_source()
    opened = open_context(args)
    if opened is None or mirror is None:
        return EXIT_ERROR
    session, ctx, opts, _config_error = opened
    tokens = rules_of(session).context_usage.last_context_usage(session, ctx)["tokens"]
    forecast = agent_forecast(mirror.format, tokens, window_for(rules_of(session), ctx, opts).tokens)
    data = forecast.to_json()
    if getattr(args, "json", False):
        not_applicable(args, "OpenClaw's compaction (its plan)", {"agent_forecast": data})
        return 0
    not_applicable(args, "OpenClaw's compaction (its plan)")
    left = data["tokens_left"]
    threshold = "not known" if data["threshold_tokens"] is None else f"{data['threshold_tokens']:,} tokens"
    console().print(Text(make_inert(
        f"{forecast.agent}'s own auto-compaction: threshold {threshold}; context now {tokens:,} tokens"
        + ("" if left is None else f"; {left:,} tokens left" if left > 0 else "; the next request compacts")
        + f"\nrule: {forecast.rule}" + (f"\nnote: {forecast.note}" if forecast.note else ""),
    )))
    return 0


def run(args: argparse.Namespace) -> int:
    if foreign_source() is not None:
        return _agent_plan(args)
    opened = open_context(args)
    if opened is None:
        return EXIT_ERROR
    session, ctx, opts, config_error = opened
    from inspector.write.runner import forecast_checks

    options = PlanOptions(
        config=opts.config,
        context_window=opts.override,
        keep_recent_tokens=args.keep_recent_tokens,
        reserve_tokens=args.reserve_tokens,
        prompt_tokens=args.prompt_tokens,
        early_thresholds=args.early_thresholds,
        ratio_formula=args.ratio_formula,
    )
    try:
        plan = plan_compaction(session, ctx, options, rules=rule_choice().rules)
        checks = forecast_checks(session, ctx, plan, options, rule_choice().rules)
    except ValueError as exc:
        print(f"session-inspector: {exc}", file=sys.stderr)
        return EXIT_ERROR
    data = plan.to_json()
    data["checks"] = [c.to_json() for c in checks]
    if config_error:
        data["config_error"] = config_error
    gateway = gateway_log_of(args, session, opts.config)
    if gateway is not None:
        from inspector.figures.diagnosis.gateway import forecast_comparison, last_entry_ms

        data["gateway"] = forecast_comparison(gateway, data["triggers"], last_entry_ms(session))
    if args.json:
        print_json(data)
    else:
        render(data, rule_choice().rules.triggers.THRESHOLD_LABEL)
    return 0


def _t(value: object) -> Text:
    return Text("" if value is None else make_inert(str(value)))


def _lines(data: dict[str, Any], positions: list[int], key: str = "messages_to_summarize") -> str:
    refs = data[key]
    lines = [refs[p]["line"] for p in positions if p < len(refs)]
    if not lines:
        return ""
    return f"{lines[0]}" if len(lines) == 1 else f"{min(lines)}-{max(lines)}"


def render(data: dict[str, Any], threshold_label: str = "pi threshold") -> None:
    """Human-readable forecast (every value is also in `--json`); the agent core's threshold row is named
    `threshold_label` (the rule set's `triggers.THRESHOLD_LABEL`)."""
    c = console()
    s = data["settings"]
    win = data["context_window"]
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    engine = data["context_engine"]
    rows = [
        ("file", data["file"]),
        ("mode", f"{data['mode']}  ({data['mode_reason']})"),
        ("context engine", engine["id"] + ("" if engine["builtin"] else f"  NOTE: {engine['note']}")),
        ("context window", f"{win['tokens']:,} tokens  (source: {win['source']})"),
        ("keepRecentTokens", f"{s['keepRecentTokens']['value']:,}  ({s['keepRecentTokens']['source']})"),
        ("reserveTokens", f"{s['reserveTokens']['value']:,}  ({s['reserveTokens']['source']}; floor {s['reserveTokens']['floor']:,})"),
        ("context now", f"{data['context_tokens']:,} tokens  ({context_basis_note(data.get('context_basis'), data.get('context_stale_usage_tokens'))})"),
    ]
    rows.extend(_release_rows(data))
    for k, v in rows:
        head.add_row(_t(k), _t(v))
    c.print(head)
    _render_triggers(c, data["triggers"], threshold_label)
    if data.get("gateway") is not None:
        _render_gateway(c, data["gateway"])
    if data["nothing_to_plan"]:
        c.print(_t(f"Nothing to plan: {data['nothing_to_plan']['reason']}"))
        return
    cut = Table.grid(padding=(0, 2))
    cut.add_column(style="bold")
    cut.add_column()
    prev = data["previous_summary"]
    cut_rows = [
        ("first kept entry", f"{data['first_kept_entry_id']} (line {data['first_kept_line']})" + ("  SPLIT TURN" if data["is_split_turn"] else "")),
        ("tokensBefore", f"{data['tokens_before']:,}  ({short(data.get('tokens_before_basis'))})"),
        ("boundary start", f"{(data['boundary_start'] or {}).get('entry_id')} (line {(data['boundary_start'] or {}).get('line')})"),
        ("previous summary", f"{len(prev):,} chars" if isinstance(prev, str) else "none"),
        ("to summarize", f"{len(data['messages_to_summarize'])} messages, {data['messages_to_summarize_tokens']:,} tokens"),
        ("turn prefix", f"{len(data['turn_prefix_messages'])} messages, {data['turn_prefix_tokens']:,} tokens"),
        ("files", f"{len(data['file_ops']['read_files'])} read, {len(data['file_ops']['modified_files'])} modified"),
        ("LLM calls", f"at least {data['llm_calls']}"),
    ]
    keep = data.get("scaled_keep")
    if keep is not None:
        cut_rows.insert(
            1,
            (
                "keep (scaled)",
                f"{keep['keep_recent_tokens']:,.0f} tokens = {keep['configured']:,} / {keep['scale']:.4g} "
                f"(usage {keep['usage_tokens']:,} / estimate {keep['estimated_tokens']:,})",
            ),
        )
    if data["boundary_only"]:
        cut_rows.append(("boundary only", "nothing real to summarize: OpenClaw writes a boundary compaction"))
    for k, v in cut_rows:
        cut.add_row(_t(k), _t(v))
    c.print(cut)
    hs = data["history_share"]
    if hs:
        c.print(
            _t(
                f"history share: new content {hs['new_content_tokens']:,} vs trigger {hs['trigger_tokens']:,} -> "
                + (
                    f"prune: {hs['dropped_messages']} messages ({hs['dropped_tokens']:,} tokens) dropped in {hs['dropped_chunks']} chunk(s), "
                    f"{hs['kept_tokens']:,} kept (budget {hs['budget_tokens']:,})"
                    if hs["applies"]
                    else "no prune"
                )
            )
        )
    _render_chunking(c, data, data["chunking"], "messages_to_summarize", "History summary")
    if data["turn_prefix_chunking"]:
        _render_chunking(c, data, data["turn_prefix_chunking"], "turn_prefix_messages", "Split-turn prefix")
    st = Table(title="Stages", title_justify="left")
    for col in ("#", "stage", "LLM calls", "what"):
        st.add_column(col)
    for i, stage in enumerate(data["stages"], 1):
        st.add_row(_t(i), _t(stage["name"]), _t(stage["llm_calls"]), _t(stage["label"]))
    c.print(st)
    render_checks(c, data.get("checks") or [])


def render_checks(c: Any, checks: list[dict[str, Any]]) -> None:
    """The summary checks `compact` computes (`write.runner.forecast_checks`), a failed one as a warning."""
    if not checks:
        return
    c.print(Text("Checks of the summary (the offline rules summary; `compact` computes the same):", style="bold"))
    for check in checks:
        c.print(Text(make_inert(f"  {'ok    ' if check['ok'] else 'WARN  '} {check['name']}: {check['detail']}", keep_newlines=False),
                     style="" if check["ok"] else "yellow"))


def _release_rows(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The head rows only some releases' rules give (none for 2026.4.12)."""
    out = []
    reserve = data["settings"]["reserveTokens"]
    if reserve.get("cap") is not None:
        out.append(("reserve cap", f"{reserve['cap']:,} (a quarter of the window; requested {reserve['requested']:,})"))
    retired = data["settings"].get("retiredKeys")
    if retired:
        out.append(("retired config", ", ".join(retired) + " (ignored)"))
    who = data.get("compactor")
    if who is not None:
        out.append(("agent threshold", ("on: " if who["agent_threshold"] else "off: ") + who["agent_threshold_reason"]))
        out.append(("manual compaction", who["manual"]))
    return out


def _render_chunking(c: Any, data: dict[str, Any], ch: dict[str, Any], key: str, title: str) -> None:
    if not ch:
        return
    t = Table(
        title=f"{title}: ratio {ch['adaptive_chunk_ratio']:.4f} ({ch['ratio_formula']}), maxChunkTokens {ch['max_chunk_tokens']:,}, "
        f"chunk limit {ch['chunk_limit_tokens']:,}; {ch['stage_reason']}",
        title_justify="left",
    )
    for col in ("part", "chunk", "messages", "tokens", "lines", "oversized"):
        t.add_column(col, justify="right" if col in ("messages", "tokens") else "left")
    for chunk in ch["chunks"]:
        t.add_row(
            _t("" if chunk["part"] is None else chunk["part"] + 1),
            _t(chunk["index"] + 1),
            _t(chunk["message_count"]),
            _t(f"{chunk['tokens']:,}"),
            _t(_lines(data, chunk["positions"], key)),
            _t(", ".join(str(data[key][p]["line"]) for p in chunk["oversized"])),
        )
    c.print(t)


def _render_triggers(c: Any, tr: dict[str, Any], threshold_label: str) -> None:
    t = Table(title="Triggers", title_justify="left")
    for col in ("trigger", "fires", "numbers"):
        t.add_column(col)
    th = tr["threshold"]
    if th["context_tokens"] is None:
        nums = f"not checked: {th['skipped']}"
    else:
        nums = (
            f"{th['context_tokens']:,} ({th['source']}) > {th['context_window']:,} - {th['reserve_tokens']:,} = {th['threshold_tokens']:,}"
            f"  ({th['tokens_to_threshold']:,} to go)"
        )
    t.add_row(_t(threshold_label), _t("YES" if th["would_compact"] else "no"), _t(nums))
    ov = tr["overflow"]
    detail = f"{ov['kind']} overflow" if ov["is_overflow"] else "last assistant is not an overflow"
    if ov["error_message"]:
        detail += f": {one_line(ov['error_message'], 120)}"
    if ov["is_overflow"] and not ov["would_compact"]:
        detail += " (ignored: " + ("stale" if ov["stale"] else "other model") + ")"
    t.add_row(_t("overflow"), _t("YES" if ov["would_compact"] else "no"), _t(detail))
    pp = tr["pre_prompt"]
    t.add_row(
        _t(f"pre-prompt ({pp['prompt_tokens']:,}-token prompt)"),
        _t(pp["route"]),
        _t(
            f"estimate {pp['estimated_prompt_tokens']:,} vs budget {pp['prompt_budget_before_reserve']:,} "
            f"(reserve {pp['effective_reserve_tokens']:,}); overflow {pp['overflow_tokens']:,}"
            + (f"; measured {pp['measured_tokens']:,} + 1.2 x later messages" if pp.get("measured_tokens") is not None else "")
            + ("" if pp["tool_result_reducible_chars"] is None else f"; tool results could give {pp['tool_result_reducible_chars']:,} chars")
        ),
    )
    for w in tr["early_warnings"]:
        t.add_row(
            _t(f"early {w['fraction']:g}"),
            _t("crossed" if w["crossed"] else "no"),
            _t(f"{w['threshold_tokens']:,} tokens; {w['remaining_tokens']:,} remaining"),
        )
    if not tr["auto_compaction_enabled"]:
        t.add_row(_t("auto-compaction"), _t("plugin"), _t("a context engine plugin may own compaction"))
    c.print(t)


def _render_gateway(c: Any, gw: dict[str, Any]) -> None:
    """OpenClaw's last recorded precheck and compaction beside the forecast, and where they disagree."""
    pre, comp = gw["last_precheck"], gw["last_compaction"]
    c.print(_t(f"OpenClaw's Gateway log: {gw['events']} event(s) of {gw['session_key'] or gw['session_id']} in {len(gw['files'])} file(s)"))
    if pre is not None:
        f = pre["figures"]
        c.print(
            _t(
                f"  last precheck {pre['time']}: route {f.get('route')}, estimate {f.get('estimated_prompt_tokens')}, budget "
                f"{f.get('prompt_budget_before_reserve')}, overflow {f.get('overflow_tokens')}"
                + ("" if gw["same_context"] else " (before the session's last entry)")
            )
        )
    if comp is not None:
        f = comp["figures"]
        c.print(_t(f"  last compaction {comp['time']}: {f.get('outcome')} (trigger {f.get('trigger')}), {f.get('tokens_before')} -> {f.get('tokens_after')} tokens"))
    for d in gw["disagreements"]:
        c.print(_t(f"  disagreement: {d['message']}"))
    for d in gw["diagnostics"]:
        c.print(_t(f"  gateway log: {d['file']}" + (f" line {d['line']}" if d["line"] is not None else "") + f": {d['message']}"))
