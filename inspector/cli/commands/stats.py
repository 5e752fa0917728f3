"""`session-inspector stats PATH`: what a session file holds and how full its context is."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from inspector.cli.commands._common import (
    EXIT_ERROR,
    add_session_options,
    console,
    encoding_of,
    for_source,
    human,
    model_label,
    number_column,
    open_context,
    print_json,
    rule_choice,
    warn,
)
from inspector.figures.overview import ContextUsage
from inspector.figures.session_figures import session_stats

if TYPE_CHECKING:
    from rich.text import Text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="counts, tree, compactions, token totals per estimator, usage, window, diagnostics")
    add_session_options(p, leaf=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    opened = open_context(args, encoding_of(args))
    if opened is None:
        return EXIT_ERROR
    session, ctx, opts, config_error = opened
    data = session_stats(session, opts, encoding_of(args), leaf_id=args.leaf)
    if opts.agent is not None:  # a Claude Code / Codex file records no cost: the price table's, as the timeline's
        from inspector.figures.diagnosis.calls import priced_usage

        for path, cost in priced_usage(session, session.context(args.leaf) if args.leaf else ctx).items():
            data["usage"][path]["cost"] = cost
    if config_error:
        data["config_error"] = config_error
        warn(f"config: {config_error}")
    if args.json:
        print_json(data)
    else:
        render(for_source(data))
    return 0


def _t(value: object) -> Text:
    from rich.text import Text

    return Text("" if value is None else str(value))


def render(data: dict) -> None:
    """Human-readable stats (every value also in `--json`)."""
    from rich.table import Table

    from inspector.base.textsafe import make_inert

    c = console()
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    model = data.get("model") or {}
    win = data["context_window"]
    guard = data["guard"]
    usage = data["context"]["estimate_context_tokens"]
    rows = [
        ("file", data["file"]),
        ("format", data["format"] + (f" v{data['version']}" if data["version"] is not None else "") + ("" if data["valid"] else "  (INVALID for pi)")),
        ("session", (data.get("session_name") or "") + f"  {human((data.get('header') or {}).get('id'), missing='')}"),
        ("model", f"{model_label(model)}  thinking {human(data['thinking_level'])}"),
        ("context window", f"{win['tokens']:,} tokens  (source: {win['source']})"),
        ("guard", f"{guard['level']}" + (f": {guard['message']}" if guard.get("message") else "")),
        (
            "context now",
            f"{usage['tokens']:,} tokens = {100 * (data['context_fill'] or 0):.1f}% of window "
            f"({ContextUsage.from_json(usage).describe()})",
        ),
        ("entries", f"{data['entries']['total']:,}  " + ", ".join(f"{k} {v}" for k, v in data["entries"]["by_type"].items())),
        ("roles", ", ".join(f"{k} {v}" for k, v in data["entries"]["by_role"].items())),
        (
            "tree",
            f"leaf {human(data['leaf_id'], missing='none')}, path {data['tree']['path_length']}, off-path {data['tree']['off_path_entries']}, "
            f"branch points {len(data['tree']['branch_points'])}, roots {data['tree']['roots']}",
        ),
    ]
    source = data.get("source")
    if source is not None and source.get("kind") != "sqlite":
        source = None  # a Claude Code / Codex file: `file` and `format` above say it
    if source is not None:  # a session of an OpenClaw SQLite store (read through its mirror, the `file` above)
        rows.insert(1, ("store", f"{source['store']}  session {human(source['session_key'], missing='?')} ({source['session_id']})"))
    for k, v in rows:
        head.add_row(_t(k), _t(make_inert(str(v))))
    c.print(head)

    est = Table(title="Context estimates (active path)", title_justify="left")
    est.add_column("estimator", justify="left")
    number_column(est, "total")
    est.add_column("ratio to recorded", justify="right", overflow="fold")
    ctx = data["context"]
    ratios = ctx["estimator_ratios"]
    for estimator in sorted(rule_choice().rules.estimators, key=lambda e: e.unit != "tok"):  # the session's, tokens first
        value = ctx["estimates"].get(estimator.field)
        if value is None:
            continue
        ratio = ratios.get(estimator.field if estimator.unit == "tok" else f"{estimator.field}_div4", "")
        est.add_row(_t(estimator.heading), _t(f"{value:,} {estimator.unit}"), _t(ratio))
    tik = ctx["tiktoken"]
    if tik.get("enabled"):
        est.add_row(_t(f"tiktoken {tik.get('encoding')}"), _t(f"{ctx['estimates']['tiktoken']:,} tok"), _t(ratios.get("tiktoken", "")))
    elif tik.get("notice"):
        est.add_row(_t("tiktoken"), _t("unavailable"), _t(tik["notice"]))
    c.print(est)

    u = data["usage"]["all_entries"]
    c.print(
        _t(
            f"recorded usage (all {u['assistant_calls']} calls): input {u['input']:,}, output {u['output']:,}, "
            f"cacheRead {u['cacheRead']:,}, cacheWrite {u['cacheWrite']:,}, cost ${u['cost']['total']:.4f}"
            + (" (price table: the file records no cost)" if "price_table_source" in u["cost"] else "")
        )
    )
    if data["compactions"]:
        t = Table(title="Compactions", title_justify="left")
        for col in ("line", "entry", "kind", "first kept", "tokensBefore", "fromHook", "in force"):
            if col in ("line", "tokensBefore"):
                number_column(t, col)
            else:
                t.add_column(col, overflow="fold")
        for comp in data["compactions"]:
            t.add_row(
                *(
                    _t(human(comp[k], missing=""))
                    for k in ("line", "entry_id", "kind", "first_kept_entry_id", "tokens_before", "from_hook", "in_force")
                )
            )
        c.print(t)
    if data["diagnostics"]:
        t = Table(title=f"Diagnostics ({len(data['diagnostics']):,})", title_justify="left")
        where = "seq" if source is not None else "line"  # a store session's diagnostics name the event's seq
        number_column(t, where)
        for col in ("severity", "kind", "message"):
            t.add_column(col, overflow="fold")
        for d in data["diagnostics"][:200]:
            t.add_row(_t(d[where]), _t(d["severity"]), _t(d["kind"]), _t(make_inert(d["message"])))
        c.print(t)

