"""`session-inspector context PATH`: one row per message of the context the model sees."""

from __future__ import annotations

import argparse

from inspector.base.textsafe import make_inert
from inspector.cli.commands._common import (
    EXIT_ERROR,
    add_session_options,
    console,
    encoding_of,
    for_source,
    number_column,
    open_context,
    print_json,
    warn,
)
from inspector.figures.session_figures import context_report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("context", help="the rebuilt context, one row per message, with every estimator")
    add_session_options(p, leaf=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    opened = open_context(args, encoding_of(args))
    if opened is None:
        return EXIT_ERROR
    session, ctx, opts, config_error = opened
    data = context_report(session, ctx, opts, encoding_of(args))
    if config_error:
        data["config_error"] = config_error
        warn(f"config: {config_error}")
    if args.json:
        print_json(data)
        return 0
    from rich.table import Table  # only for the table: a `--json` run never imports Rich
    from rich.text import Text

    c = console()
    data = for_source(data)
    title = make_inert(f"Context of {data['file']} (leaf {data['leaf_id'] or 'none'})", keep_newlines=False)
    t = Table(title=title, title_justify="left")
    for col in ("#", "line", "entry", "role", "tool", "pi tok", "prune ch", "compact tok", "guard ch", "tiktoken", "recorded ctx", "cum pi"):
        if col in ("entry", "role", "tool"):
            t.add_column(col, justify="left")
        else:
            number_column(t, col)
    for r in data["messages"]:
        e = r["estimates"]
        u = r["usage"]
        recorded = ""
        if isinstance(u, dict):
            recorded = str(u.get("totalTokens") or "")
        t.add_row(
            *(
                Text(make_inert(str(v), keep_newlines=False))
                for v in (
                    r["index"],
                    r["line"],
                    r["entry_id"] or "",
                    r["role"],
                    r["tool_name"] or "",
                    e["pi_tokens"],
                    e["openclaw_prune_chars"],
                    e["openclaw_compaction_tokens"],
                    e["tool_guard_chars"],
                    "" if e["tiktoken"] is None else e["tiktoken"],
                    recorded,
                    r["cumulative_pi_tokens"],
                )
            )
        )
    c.print(t)
    win = data["context_window"]
    c.print(Text(f"window {win['tokens']:,} ({win['source']}), guard {data['guard']['level']}; diagnostics: {len(data['diagnostics'])}"))
    return 0
