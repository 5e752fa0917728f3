"""`session-inspector prune PATH`: what OpenClaw's context pruning would do to this session's next request.

Read-only: the session file is never written (OpenClaw's pruning works in memory too).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import orjson
from rich.table import Table
from rich.text import Text

from ..pruning.preview import PreviewOptions, PrunePreview, build_preview
from ..pruning.settings import DurationError, SettingsOverrides, parse_duration_ms
from ..pruning.ttl import format_duration_ms, ms_from_iso
from ..textsafe import one_line
from ._common import EXIT_ERROR, add_session_options, console, encoding_of, open_or_fail


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prune",
        help="preview OpenClaw's cache-TTL context pruning (soft trim / hard clear) for the next request",
        description=(
            "Reproduce OpenClaw's context pruning on the session's current context: settings from openclaw.json "
            "(agents.defaults.contextPruning) overridden by flags, the cache-TTL gate, soft trim and hard clear, the "
            "savings, and the tool-result context guard. Nothing is written."
        ),
    )
    add_session_options(p, leaf=True)
    p.add_argument("--now", default=None, metavar="ISO", help="evaluate the TTL gate at this time (default: now)")
    p.add_argument("--force", action="store_true", help="run the pruner even when the TTL gate is closed")
    p.add_argument("--ttl", default=None, metavar="DURATION", help="contextPruning.ttl (e.g. 5m, 1h; bare numbers are minutes)")
    p.add_argument("--keep-last-assistants", type=int, default=None, metavar="N")
    p.add_argument("--soft-trim-ratio", type=float, default=None, metavar="R")
    p.add_argument("--hard-clear-ratio", type=float, default=None, metavar="R")
    p.add_argument("--min-prunable-tool-chars", type=int, default=None, metavar="N")
    p.add_argument("--soft-trim-max-chars", type=int, default=None, metavar="N")
    p.add_argument("--soft-trim-head-chars", type=int, default=None, metavar="N")
    p.add_argument("--soft-trim-tail-chars", type=int, default=None, metavar="N")
    p.add_argument("--no-hard-clear", action="store_true", help="hardClear.enabled = false")
    p.add_argument("--hard-clear-placeholder", default=None, metavar="TEXT")
    p.add_argument("--tools-allow", action="append", default=None, metavar="GLOB", help="tools.allow (repeatable)")
    p.add_argument("--tools-deny", action="append", default=None, metavar="GLOB", help="tools.deny (repeatable; deny wins)")
    p.add_argument(
        "--drop-thinking-for-estimate",
        action="store_true",
        help="estimate as if the transcript policy drops thinking blocks (dropThinkingBlocks)",
    )
    p.add_argument("--all", action="store_true", help="list every message, not only tool results")
    p.set_defaults(func=run)


def overrides_from_args(args: argparse.Namespace) -> SettingsOverrides:
    """The flag overrides, in the raw `contextPruning` shape."""
    return SettingsOverrides(
        ttl=args.ttl,
        keep_last_assistants=args.keep_last_assistants,
        soft_trim_ratio=args.soft_trim_ratio,
        hard_clear_ratio=args.hard_clear_ratio,
        min_prunable_tool_chars=args.min_prunable_tool_chars,
        soft_trim_max_chars=args.soft_trim_max_chars,
        soft_trim_head_chars=args.soft_trim_head_chars,
        soft_trim_tail_chars=args.soft_trim_tail_chars,
        hard_clear_enabled=False if args.no_hard_clear else None,
        hard_clear_placeholder=args.hard_clear_placeholder,
        tools_allow=args.tools_allow,
        tools_deny=args.tools_deny,
    )


def run(args: argparse.Namespace) -> int:
    from ..config import load_openclaw_config

    now_ms = None
    if args.now is not None:
        try:
            now_ms = ms_from_iso(args.now)
        except ValueError:
            print(f"session-inspector: --now {args.now!r} is not an ISO-8601 time", file=sys.stderr)
            return EXIT_ERROR
    if args.ttl is not None:
        try:
            parse_duration_ms(args.ttl)
        except (DurationError, OverflowError) as exc:
            print(f"session-inspector: --ttl: {exc}", file=sys.stderr)
            return EXIT_ERROR
    if args.context_window is not None and args.context_window <= 0:
        print("session-inspector: --context-window must be a positive integer", file=sys.stderr)
        return EXIT_ERROR
    session = open_or_fail(args.path)
    if session is None:
        return EXIT_ERROR
    loaded = load_openclaw_config(args.config)
    options = PreviewOptions(
        now_ms=now_ms,
        force=args.force,
        config=loaded.data,
        config_path=loaded.path if loaded.exists else None,
        config_error=loaded.error,
        overrides=overrides_from_args(args),
        context_window=args.context_window,
        drop_thinking_for_estimate=args.drop_thinking_for_estimate,
        leaf_id=args.leaf,
        encoding=encoding_of(args),
    )
    try:
        preview = build_preview(session, options)
    except KeyError:
        print(f"session-inspector: no entry with id {args.leaf!r} in {args.path}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        write_json(preview.to_json())
        return 0
    print_human(preview, show_all=args.all)
    return 0


def write_json(data: Any) -> None:
    """orjson, or (when soft trim left a lone surrogate, which UTF-8 cannot hold) ASCII JSON with `\\udxxx` escapes."""
    try:
        out = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        out = json.dumps(data, ensure_ascii=True, indent=2).encode("ascii")
    sys.stdout.buffer.write(out + b"\n")
    sys.stdout.flush()


# ------------------------------------------------------------------------------------------------- human


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.1f}%"


def print_human(preview: PrunePreview, *, show_all: bool = False) -> None:
    """A summary, then one row per tool result (or per message with `show_all`)."""
    data = preview.to_json()
    c = console()
    line = lambda s: c.print(Text(s))  # noqa: E731
    model = data["model"] or {}
    line(f"{data['file']}  (leaf {data['leaf_id']}; model {model.get('provider')}/{model.get('modelId')})")
    pr = data["pruning"]
    auto = pr["anthropic_auto_default"]
    mode = pr["configured_mode"]
    line(
        f"pruning: mode {'unset' if mode is None else repr(mode)} ({'enabled' if pr['enabled'] else 'not enabled: previewing as if mode were cache-ttl'})"
        + ("; Anthropic auto-default applies (mode cache-ttl, ttl 1h unless set)" if auto["applies"] else "")
    )
    elig = pr["eligibility"]
    line(f"provider: {'eligible' if elig['eligible'] else 'NOT eligible'}: {elig['reason']}")
    if data["config"]["error"]:
        line(f"config: {data['config']['error']}")
    s = data["settings"]
    line(
        f"settings: ttl {format_duration_ms(s['ttlMs'])} ({pr['ttl_source']}), keepLastAssistants {s['keepLastAssistants']}, "
        f"softTrimRatio {s['softTrimRatio']}, hardClearRatio {s['hardClearRatio']}, minPrunableToolChars "
        f"{s['minPrunableToolChars']:,}, softTrim {s['softTrim']['maxChars']}/{s['softTrim']['headChars']}/"
        f"{s['softTrim']['tailChars']}, hardClear {'on' if s['hardClear']['enabled'] else 'off'}"
        + (f", tools {json.dumps(s['tools'], ensure_ascii=False)}" if s["tools"] else "")
    )
    g = data["gate"]
    line(f"gate: {'OPEN' if g['open'] else 'closed'} at {g['now']}: {g['reason']}" + (" [forced]" if g["forced"] else ""))
    win = data["context_window"]
    line(
        f"window: {win['tokens']:,} tokens ({win['source']}) = {data['char_window']:,} chars; cutoff index "
        f"{data['cutoff_index']}, first user index {data['first_user_index']}"
    )
    t = data["totals"]
    line(
        f"result: {data['stage']}; chars {t['chars_before']:,} -> {t['chars_after']:,} ({_pct(t['ratio_before'])} -> "
        f"{_pct(t['ratio_after'])} of the window)"
    )
    tok = t["tokens"]
    parts = []
    for name, v in tok.items():
        if v["before"] is not None:
            parts.append(f"{name} {v['before']:,} -> {v['after']:,}")
    line("tokens: " + "; ".join(parts))
    cw = t["cache_write_avoided"]
    if cw["usd_per_token"] is not None and cw["tokens"]["chars_div_4"]:
        line(
            f"cache write avoided on the first request after the TTL: ~{cw['tokens']['chars_div_4']:,} tokens, "
            f"${cw['usd']['chars_div_4']:.4f} at ${cw['usd_per_million']:.2f}/M ({cw['price_source']})"
        )
    tg = data["tool_guard"]
    line(
        f"tool guard: {len(tg['truncated'])} result(s) over {tg['max_single_tool_result_chars']:,} chars; context "
        f"{tg['context_chars_after']:,} / {tg['max_context_chars']:,}"
        + (f" -> {tg['error']}" if tg["overflow"] else " (no overflow)")
    )
    table = Table(title_justify="left", title="Messages" if show_all else "Tool results")
    cols = ["#", "line"] + (["role"] if show_all else []) + ["tool", "action", "chars", "after", "cache", "note"]
    for col in cols:
        numeric = col in ("#", "line", "chars", "after")
        table.add_column(col, justify="right" if numeric else "left", no_wrap=col != "note", overflow="fold")
    for r in data["messages"]:
        if not show_all and r["role"] != "toolResult":
            continue
        cache = "" if r["cache_expired"] is None else ("expired" if r["cache_expired"] else "warm")
        notes = [r["protected"]] if r["protected"] else []
        if r["tool_guard"]:
            notes.append(f"guard: {r['tool_guard']['kind']} to {r['tool_guard']['estimate_after']:,}")
        values = [r["index"], r["line"]] + ([r["role"]] if show_all else [])
        values += [r["tool_name"] or "", r["action"], f"{r['chars_before']:,}", f"{r['chars_after']:,}", cache, "; ".join(notes)]
        table.add_row(*(Text(one_line(str(v), 60)) for v in values))
    c.print(table)
