"""The typed figures (`inspector.figures.overview`, `figures.session_figures`, `inspector.figures.breakdown`, `inspector.figures.sizes`,
`inspector.figures.file_summary`): one object per figure, and `stats --json` / `context --json` print exactly those objects."""

from __future__ import annotations

import json

from conftest import assistant, entry, header, msg, tool_result, user, write_lines

from inspector.figures.breakdown import Breakdown, context_breakdown
from inspector.figures.file_summary import UNSUPPORTED, SummaryCache, summarize_session
from inspector.figures.overview import DAMAGE_KINDS, ContextUsage, damaged_lines, is_unsupported
from inspector.figures.session_figures import (
    WindowOptions,
    context_overview,
    context_report,
    load_window_options,
    session_figures,
    session_stats,
)
from inspector.figures.sizes import UNKNOWN, estimate_sizes, recorded_context_running, recorded_output_sizes, running_totals
from inspector.rules.openclaw_2026_4_12.tokens import calculate_context_tokens
from inspector.rules.openclaw_2026_4_12.tokens.context_usage import context_now, last_context_usage
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

USAGE = {"input": 1000, "output": 50, "cacheRead": 200, "cacheWrite": 0, "totalTokens": 1250, "cost": {"total": 0.01}}


def session_file(tmp_path, name="s.jsonl"):
    """Two tools, a compaction in force, a session name, a damaged line: every figure has something to say."""
    return write_lines(
        tmp_path / name,
        [
            header(),
            entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"),
            msg("u1", "m1", user("read both files")),
            msg("a1", "u1", assistant("", tool_calls=[("c1", "read", {"path": "a.py"}), ("c2", "exec", {"command": "ls"})])),
            msg("t1", "a1", tool_result("c1", "read", "x" * 4000)),
            msg("t2", "t1", tool_result("c2", "exec", "y" * 900)),
            msg("a2", "t2", assistant("both read", usage=USAGE)),
            entry("compaction", "k1", "a2", summary="S" * 400, firstKeptEntryId="a1", tokensBefore=5000),
            entry("session_info", "n1", "k1", name="figures"),
            msg("u2", "n1", user("and now?")),
            "{damaged",
        ],
    )


def test_overview_is_what_stats_json_prints(tmp_path):
    session = open_session(session_file(tmp_path))
    ctx = session.context()
    opts = WindowOptions(override=20_000)
    figures = session_figures(session, ctx, opts)
    stats = session_stats(session, opts, encoding=None)
    o = figures.overview.to_json()
    for key in ("file", "format", "version", "valid", "size_bytes", "session_name", "leaf_id", "model", "thinking_level",
                "context_window", "guard", "context_fill"):
        assert o[key] == stats[key], key
    assert o["entries"] == stats["entries"]["total"]
    assert o["estimate_context_tokens"] == stats["context"]["estimate_context_tokens"] == context_now(session, ctx)
    assert figures.breakdown.to_json() == stats["context"]["breakdown"]
    assert [d.to_json() for d in figures.diagnostics] == stats["diagnostics"]
    assert figures.overview.guard.level == "warn" and figures.overview.window.source == "flag"
    assert figures.overview.fill == round(figures.overview.usage.tokens / 20_000, 4)
    assert figures.to_json()["damaged_lines"] == [11] == figures.damaged_lines


def test_context_report_uses_the_same_overview_and_running_totals(tmp_path):
    session = open_session(session_file(tmp_path))
    ctx = session.context()
    opts = WindowOptions()
    report = context_report(session, ctx, opts, encoding=None)
    o = context_overview(session, ctx, opts)
    assert report["context_window"] == o.to_json()["context_window"] and report["guard"] == o.to_json()["guard"]
    assert report["totals"]["estimate_context_tokens"] == o.usage.to_json()
    running = 0
    for row in report["messages"]:
        running += row["estimates"]["pi_tokens"]
        assert row["cumulative_pi_tokens"] == running


def test_usage_round_trips_and_fill_is_none_for_a_zero_window(tmp_path):
    session = open_session(session_file(tmp_path))
    ctx = session.context()
    usage = ContextUsage.from_json(context_now(session, ctx))
    assert usage.to_json() == context_now(session, ctx)
    assert usage.tokens == usage.usage_tokens + usage.trailing_tokens
    # the only usage (a2's) predates the compaction in force: left out, every message estimated
    assert (usage.usage_tokens, usage.basis, usage.stale_usage_tokens) == (0, "estimate", calculate_context_tokens(USAGE))
    raw = ContextUsage.from_json(last_context_usage(session, ctx))  # pi's estimateContextTokens counts it
    assert (raw.usage_tokens, raw.basis, raw.stale_usage_tokens) == (calculate_context_tokens(USAGE), "estimate_plus_trailing", None)
    zero = context_overview(session, ctx, WindowOptions())
    object.__setattr__(zero.window, "tokens", 0)
    assert zero.fill is None


def test_breakdown_is_typed_and_shares_assistant_turns_between_their_tools(tmp_path):
    session = open_session(session_file(tmp_path))
    ctx = session.context()
    b = context_breakdown(session, ctx, "pi", top=3)
    assert isinstance(b, Breakdown) and len(b.largest) == 3
    assert b.total == sum(r.estimates["pi"] for r in ctx.messages if r.estimates)
    assert sum(r.size for r in b.by_role) == b.total
    tools = {t.name: t for t in b.by_tool}
    assert tools["read"].results == 1 and tools["read"].calls == 1 and tools["exec"].calls == 1
    assert [x.size for x in b.largest] == sorted((x.size for x in b.largest), reverse=True)
    j = b.to_json()
    assert list(j) == ["estimator", "total", "by_role", "by_tool", "largest"]
    assert list(j["by_tool"][0]) == ["name", "calls", "results", "size", "share"]
    assert list(j["by_role"][0]) == ["name", "messages", "size", "share"]


def test_previous_figures_reuse_breakdown_and_diagnostics(tmp_path):
    session = open_session(session_file(tmp_path))
    ctx = session.context()
    first = session_figures(session, ctx, WindowOptions())
    again = session_figures(session, ctx, WindowOptions(override=50_000), previous=first)
    assert again.breakdown is first.breakdown and again.diagnostics is first.diagnostics
    assert again.overview.window.tokens == 50_000


def test_sizes_and_running_totals(tmp_path):
    session = open_session(session_file(tmp_path))
    msgs = session.context().messages
    pi = estimate_sizes(msgs, "pi")
    assert list(pi) == [r.estimates["pi"] if r.estimates else 0 for r in msgs]
    assert list(estimate_sizes(msgs, "openclaw_prune", 1, 3)) == [r.estimates["openclaw_prune"] for r in msgs[1:3]]
    totals = running_totals(pi)
    assert list(totals) == [sum(pi[: i + 1]) for i in range(len(pi))]
    assert list(running_totals(pi, 2, None, totals[1])) == list(totals[2:])
    out = recorded_output_sizes(msgs)
    assert [v for v in out if v != UNKNOWN] == [20, 50]  # a1 (conftest's default usage), a2
    assert [out[i] == UNKNOWN for i in range(len(msgs))] == [r.role != "assistant" for r in msgs]
    calculate = rule_set().tokens.calculate_context_tokens
    ctx_running = recorded_context_running(msgs, calculate)
    first = next(i for i, r in enumerate(msgs) if r.usage)
    assert all(v == UNKNOWN for v in ctx_running[:first])
    assert ctx_running[-1] == calculate_context_tokens(USAGE) and ctx_running[first] == calculate_context_tokens(msgs[first].usage)
    assert list(recorded_context_running(msgs, calculate, first + 1, None, ctx_running[first])) == list(ctx_running[first + 1 :])


def test_damage_kinds_and_unsupported(tmp_path):
    session = open_session(session_file(tmp_path))
    assert damaged_lines(session.all_diagnostics()) == [11]
    assert "unparseable" in DAMAGE_KINDS and not is_unsupported(session)
    foreign = tmp_path / "cc.jsonl"
    foreign.write_text('{"type":"user","uuid":"a","message":{"role":"user","content":"hi"}}\n', encoding="utf-8")
    assert is_unsupported(open_session(foreign))


def test_summary_and_its_cache(tmp_path):
    path = session_file(tmp_path)
    session = open_session(path)
    s = summarize_session(path)
    assert s.messages == len(session.context().messages) and s.compactions == 1 and s.name == "figures"
    assert s.context_tokens == context_now(session, session.context())["tokens"]
    assert s.to_json() == {"messages": s.messages, "context_tokens": s.context_tokens, "compactions": 1,
                           "session_name": "figures", "error": None}
    foreign = tmp_path / "cc.jsonl"
    foreign.write_text('{"type":"user"}\n', encoding="utf-8")
    assert summarize_session(foreign).error == UNSUPPORTED
    assert "nope" in (summarize_session(tmp_path / "nope.jsonl").error or "")
    cache = SummaryCache()
    assert cache.get(path) is None
    first = cache.compute(path)
    assert cache.get(path) is first and cache.get_or_compute(path) is first
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(msg("a3", "u2", assistant("fine"))) + "\n")
    assert cache.get(path) is None
    assert cache.get_or_compute(path).messages == first.messages + 1


def test_load_window_options_reports_a_broken_config(tmp_path):
    good = tmp_path / "openclaw.json"
    good.write_text('{agents: {defaults: {contextTokens: 64000}}}', encoding="utf-8")
    opts, error = load_window_options(good, None)
    assert error is None and opts.config == {"agents": {"defaults": {"contextTokens": 64000}}} and opts.override is None
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    opts, error = load_window_options(bad, 1234)
    assert opts.config == {} and opts.override == 1234 and error and "bad.json" in error
