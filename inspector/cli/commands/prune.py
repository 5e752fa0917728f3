"""`session-inspector prune PATH`: what OpenClaw's context pruning would do to this session's next request.

Read-only: the session file is never written (OpenClaw's pruning works in memory too). The preview reproduces
OpenClaw 2026.4.12 (commit 8f8492d1) with pi 0.66.1; see `inspector.figures.pruning.preview`.

Numeric flags are range-checked by their argparse types (a clear error, exit 2). Bounds follow OpenClaw's config
schema (`zod-schema`, 2026.4.12) where it has them: `keepLastAssistants`, `minPrunableToolChars` and
`softTrim.{maxChars,headChars,tailChars}` are `z.number().int().nonnegative()` (zod 4: safe integers, so
0..2**53-1); `softTrimRatio`/`hardClearRatio` are `z.number().min(0).max(1)`. Where it has none, ours:

* `--ttl`: OpenClaw takes any duration `parseDurationMs` reads; the flag takes 0..8.64e15 ms (100,000,000 days,
  the span of JavaScript's `Date`, so every expiry time can be shown);
* `--context-window`: 1..2**31-1 tokens (a window is a positive integer; no model comes near 2**31 tokens);
* `--now`: an ISO-8601 time JavaScript reads the same way, in years 1..9999.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from inspector.base.clock import FixedClock
from inspector.base.durations import format_duration_ms
from inspector.base.textsafe import make_inert, one_line
from inspector.cli.commands._common import (
    EXIT_ERROR,
    add_session_options,
    console,
    encoding_of,
    human,
    model_label,
    note_rules_config,
    open_or_fail,
    print_json,
    rule_choice,
)
from inspector.cli.commands._foreign import not_applicable
from inspector.figures.pruning.preview import PreviewOptions, PrunePreview, build_preview
from inspector.js.timeutil import ms_from_iso
from inspector.rules.durations import MAX_SAFE_INTEGER, DurationError, parse_duration_ms
from inspector.rules.ruleset import RuleSet, rule_set

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.pruning.settings import SettingsOverrides

MAX_CONTEXT_WINDOW = 2**31 - 1
MAX_TTL_MS = 8_640_000_000_000_000
_INT_RE = re.compile(r"[+-]?[0-9]+")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# ------------------------------------------------------------------------------------------ argument types


def int_in_range(lo: int, hi: int, what: str) -> Callable[[str], int]:
    """An argparse type: a decimal integer in [lo, hi]."""

    def parse(text: str) -> int:
        if not _INT_RE.fullmatch(text.strip()):
            raise argparse.ArgumentTypeError(f"{what} must be a whole number from {lo:,} to {hi:,}, got {text!r}")
        value = int(text)
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{what} must be from {lo:,} to {hi:,}, got {value:,}")
        return value

    return parse


def ratio_arg(text: str) -> float:
    """An argparse type: a number from 0 to 1 (OpenClaw's schema: `z.number().min(0).max(1)`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a ratio must be a number from 0 to 1, got {text!r}") from None
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise argparse.ArgumentTypeError(f"a ratio must be from 0 to 1, got {text!r}")
    return value


def ttl_arg(text: str) -> str:
    """An argparse type: a duration `parseDurationMs` reads (bare numbers are minutes), at most 8.64e15 ms.
    Returns the text itself: it is merged into the raw config like the same value in openclaw.json."""
    try:
        ms = parse_duration_ms(text, default_unit="m")
    except DurationError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (examples: 5m, 1h, 90s, 1h30m)") from None
    if ms > MAX_TTL_MS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is {ms:.3g} ms; at most {MAX_TTL_MS:,} ms (100,000,000 days, JavaScript's Date range)"
        )
    return text


def now_arg(text: str) -> FixedClock:
    """An argparse type: `--now ISO` as a fixed clock (exact to the millisecond)."""
    try:
        at = _EPOCH + timedelta(milliseconds=ms_from_iso(text))
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO-8601 time in years 1-9999 (e.g. 2026-03-01T10:00:00Z)") from None
    return FixedClock(at)


context_window_arg = int_in_range(1, MAX_CONTEXT_WINDOW, "--context-window")
count_arg = int_in_range(0, MAX_SAFE_INTEGER, "the value")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `prune` command."""
    p = sub.add_parser(
        "prune",
        help="preview OpenClaw's cache-TTL context pruning (soft trim / hard clear) for the next request",
        description=(
            "Reproduce OpenClaw's context pruning (2026.4.12) on the session's current context: settings from "
            "openclaw.json (agents.defaults.contextPruning) overridden by flags, the cache-TTL gate, soft trim and "
            "hard clear, the savings, and the tool-result context guard. Nothing is written."
        ),
        conflict_handler="resolve",  # --context-window is redefined below with a range-checked type
    )
    add_session_options(p, leaf=True)
    p.add_argument("--context-window", type=context_window_arg, default=None, metavar="N",
                   help=f"override the context window (tokens, 1..{MAX_CONTEXT_WINDOW})")
    p.add_argument("--now", type=now_arg, default=None, metavar="ISO", help="evaluate the TTL gate at this time (default: now)")
    p.add_argument("--force", action="store_true", help="run the pruner even when the TTL gate is closed")
    p.add_argument("--ttl", type=ttl_arg, default=None, metavar="DURATION", help="contextPruning.ttl (e.g. 5m, 1h; bare numbers are minutes)")
    p.add_argument("--keep-last-assistants", type=count_arg, default=None, metavar="N")
    p.add_argument("--soft-trim-ratio", type=ratio_arg, default=None, metavar="R", help="0..1")
    p.add_argument("--hard-clear-ratio", type=ratio_arg, default=None, metavar="R", help="0..1")
    p.add_argument("--min-prunable-tool-chars", type=count_arg, default=None, metavar="N")
    p.add_argument("--soft-trim-max-chars", type=count_arg, default=None, metavar="N")
    p.add_argument("--soft-trim-head-chars", type=count_arg, default=None, metavar="N")
    p.add_argument("--soft-trim-tail-chars", type=count_arg, default=None, metavar="N")
    p.add_argument("--no-hard-clear", action="store_true", help="hardClear.enabled = false")
    p.add_argument("--hard-clear-placeholder", default=None, metavar="TEXT")
    p.add_argument("--tools-allow", action="append", default=None, metavar="GLOB", help="tools.allow (repeatable)")
    p.add_argument("--tools-deny", action="append", default=None, metavar="GLOB", help="tools.deny (repeatable; deny wins)")
    p.add_argument(
        "--drop-thinking-for-estimate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="estimate with thinking blocks dropped (or, with --no-..., kept); default: OpenClaw's transcript policy",
    )
    p.add_argument("--all", action="store_true", help="list every message, not only tool results")
    p.set_defaults(func=run)


def overrides_from_args(args: argparse.Namespace, rules: RuleSet | None = None) -> SettingsOverrides:
    """The flag overrides, in the raw `contextPruning` shape, as the rule set `rules` takes them (default 2026.4.12's)."""
    overrides_type = (rules if rules is not None else rule_set()).pruning_settings.SettingsOverrides
    return overrides_type(  # type: ignore[no-any-return]
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
    """Build the preview and print it (JSON or text)."""
    if not_applicable(args, "OpenClaw's context pruning"):
        return 0
    from inspector.host.openclaw_config import load_openclaw_config

    session = open_or_fail(args.path)
    if session is None:
        return EXIT_ERROR
    loaded = load_openclaw_config(args.config)
    note_rules_config(loaded.data)
    rules = rule_choice().rules
    overrides = overrides_from_args(args, rules)
    unsupported = overrides.unsupported() if hasattr(overrides, "unsupported") else []
    if unsupported:
        print(
            f"session-inspector prune: {', '.join(unsupported)}: not a setting in OpenClaw {rules.release.openclaw_version} "
            f"(built in; its settings are ttl, tools and hardClear)",
            file=sys.stderr,
        )
        return 2
    options = PreviewOptions(
        clock=args.now,
        force=args.force,
        config=loaded.data,
        config_path=loaded.path if loaded.exists else None,
        config_error=loaded.error,
        overrides=overrides,
        context_window=args.context_window,
        drop_thinking_for_estimate=args.drop_thinking_for_estimate,
        leaf_id=args.leaf,
        encoding=encoding_of(args),
    )
    try:
        preview = build_preview(session, options, rules=rules)
    except KeyError:
        print(f"session-inspector: no entry with id {make_inert(repr(args.leaf))} in {make_inert(str(args.path))}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print_json(preview.to_json())
        return 0
    print_human(preview, show_all=args.all)
    return 0


# ------------------------------------------------------------------------------------------------- human


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.1f}%"


def inert(value: Any) -> str:
    """Any value from the session or config as one inert line (no escape codes, no markup: printed as Text)."""
    return make_inert(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False), keep_newlines=False)


def print_human(preview: PrunePreview, *, show_all: bool = False) -> None:
    """A summary, then one row per tool result (or per message with `show_all`); the `if_enabled` projection after."""
    data = preview.to_json()
    c = console()
    line = lambda s: c.print(Text(s))
    model = data["pruning_model"]
    line(f"{inert(data['file'])}  (leaf {human(data['leaf_id'], missing='none')}; model {model_label(model)})")
    line(f"reproduces OpenClaw {data['openclaw_version']}")
    pr = data["pruning"]
    auto = pr["anthropic_auto_default"]
    mode = pr["configured_mode"]
    line(
        f"pruning: mode {'unset' if mode is None else inert(repr(mode))} "
        f"({'enabled' if pr['enabled'] else 'not enabled: previewing as if mode were cache-ttl'})"
        + ("; Anthropic auto-default applies (mode cache-ttl, ttl 1h unless set)" if auto["applies"] else "")
    )
    elig = pr["eligibility"]
    line(f"provider: {'eligible' if elig['eligible'] else 'NOT eligible'}: {inert(elig['reason'])}")
    if data["config"]["error"]:
        line(f"config: {inert(data['config']['error'])}")
    if "server_tool_clearing" in data:
        _print_2026_9_settings(line, data)
    else:
        _print_settings(line, data)
    dt = data["drop_thinking"]
    line(f"thinking blocks for the estimate: {'dropped' if dt['drop'] else 'kept'} ({dt['source']}: {inert(dt['reason'])})")
    win = data["context_window"]
    line(f"window: {win['tokens']:,} tokens ({inert(win['source'])}) = {data['char_window']:,} chars")
    line("")
    line("== NOW: what OpenClaw does with this file")
    _print_scenario(c, data, show_all, title="now")
    projection = data["if_enabled"]
    if projection is not None:
        line("")
        line("== IF ENABLED: a projection, not what OpenClaw does now (no cache touch for this model yet; the first "
             "touch is assumed at the last assistant message)")
        _print_scenario(c, projection, show_all, title="if enabled")
    for d in data["diagnostics"]:
        line(f"diagnostic: {d['kind']}: {inert(d['message'])}" + (f" (entry {inert(d['entry_id'])}, line {d['line']})" if d["entry_id"] else ""))


def _print_settings(line: Callable[[str], None], data: dict[str, Any]) -> None:
    """OpenClaw 2026.4.12's settings line: every setting."""
    s, pr = data["settings"], data["pruning"]
    line(
        f"settings: ttl {format_duration_ms(s['ttlMs'])} ({inert(pr['ttl_source'])}), keepLastAssistants {s['keepLastAssistants']}, "
        f"softTrimRatio {s['softTrimRatio']}, hardClearRatio {s['hardClearRatio']}, minPrunableToolChars "
        f"{s['minPrunableToolChars']:,}, softTrim {s['softTrim']['maxChars']}/{s['softTrim']['headChars']}/"
        f"{s['softTrim']['tailChars']}, hardClear {'on' if s['hardClear']['enabled'] else 'off'}"
        + (f", tools {inert(s['tools'])}" if s["tools"] else "")
    )


def _print_2026_9_settings(line: Callable[[str], None], data: dict[str, Any]) -> None:
    """OpenClaw 2026.9.6's settings (ttl, hardClear, tools), what is built in, retired keys, server-side clearing."""
    s, pr = data["settings"], data["pruning"]
    hard = s["hardClear"]
    line(
        f"settings: ttl {format_duration_ms(s['ttlMs'])} ({inert(pr['ttl_source'])}), hardClear "
        f"{'on' if hard['enabled'] else 'off'} ({inert(hard['placeholder'])})"
        + (f", tools {inert(s['tools'])}" if s["tools"] else "")
        + "; built in: the last 3 assistants kept, soft trim from 30% (results over 4,000 chars to 1,500 + 1,500), "
        "hard clear from 50% with 50,000 prunable chars"
    )
    if pr["retired_keys"]:
        line(f"config: {', '.join(pr['retired_keys'])}: not settings in 2026.9.6 (its schema rejects them; "
             "`openclaw doctor` deletes them); ignored here")
    sc = data["server_tool_clearing"]
    if sc is not None:
        edit = sc["edit"]
        applies = {True: "yes", False: "no", None: "if API-key auth"}[sc["applies"]]
        line(
            f"server-side clearing ({edit['type']}): {applies}: {inert(sc['reason'])}; trigger "
            f"{edit['trigger']['value']:,} input tokens, keep {edit['keep']['value']} tool uses, clear at least "
            f"{edit['clear_at_least']['value']:,} tokens"
            + (f", exclude {inert(edit['exclude_tools'])}" if edit["exclude_tools"] else "")
        )
        if sc["input_tokens_estimate"] is not None:
            line(
                f"server-side clearing estimate: context ~{sc['input_tokens_estimate']:,} tokens; "
                f"{len(sc['clearable_indexes'])} older tool result(s), ~{sc['clearable_tokens']:,} tokens, may be cleared"
                + (" -> the server would clear" if sc["would_clear"] else " -> below the trigger or clear-at-least: nothing cleared")
            )
    pj = data["projections"]
    if pj["snapshot"] is not None:
        snap = pj["snapshot"]
        line(
            f"already pruned: {len(pj['replayed'])} tool result(s) replayed as earlier rounds left them "
            f"(openclaw.cache-ttl entry {inert(snap['entry_id'])}, line {snap['line']}; replayed whatever the gate)"
        )


def _print_scenario(c: Console, data: dict[str, Any], show_all: bool, *, title: str) -> None:
    line = lambda s: c.print(Text(s))
    g = data["gate"]
    line(
        f"gate: {'OPEN' if g['open'] else 'closed'} at {g['now'] or g['now_ms']}: {inert(g['reason'])}"
        + (" [forced]" if g["forced"] else "")
    )
    line(f"OpenClaw would prune on the next request: {'yes' if data['would_openclaw_prune'] else 'no'}")
    t = data["totals"]
    stage = data["stage"] + (f" ({inert(data['estimate_error'])})" if data["estimate_error"] else "")
    line(
        f"result: {stage}; cutoff index {human(data['cutoff_index'], missing='none')}, "
        f"first user index {human(data['first_user_index'], missing='none')}; chars "
        f"{t['chars_before']:,} -> {t['chars_after']:,} ({_pct(t['ratio_before'])} -> {_pct(t['ratio_after'])} of the window)"
    )
    parts = [f"{name} {v['before']:,} -> {v['after']:,}" for name, v in t["tokens"].items() if v["before"] is not None]
    line("tokens: " + "; ".join(parts))
    cw = t["cache_write_avoided"]
    if cw["usd_per_token"] is not None and cw["tokens"]["chars_div_4"]:
        line(
            f"cache write avoided on the first request after the TTL: ~{cw['tokens']['chars_div_4']:,} tokens, "
            f"${cw['usd']['chars_div_4']:.4f} at ${cw['usd_per_million']:.2f}/M ({inert(cw['price_source'])})"
        )
    tg = data["tool_guard"]
    line(
        f"tool guard: {len(tg['truncated'])} result(s) over {tg['max_single_tool_result_chars']:,} chars; context "
        f"{tg['context_chars_after']:,} / {tg['max_context_chars']:,}"
        + (f" -> {tg['error']}" if tg["overflow"] else " (no overflow)")
    )
    table = Table(title_justify="left", title=f"{'Messages' if show_all else 'Tool results'} [{title}]")
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
