"""Estimates by name, not by slot (`inspector.storage.estimate_layout`): rows read an estimate by its name, only
storage knows slots, and a rule set with another number of estimators goes through the storage accessors and the
figures without a change to either.

- `Estimates` is a read-only name -> int mapping in the rule set's order; `to_json()` keys it by each `--json` field;
- `EstimateLayout` puts a rule set's estimators in the first slots of a row (the rest hold 0; -1 everywhere for an
  entry of no message), reads one by name, many at once (`sizes`), and refuses more estimators than a row holds;
- the reader packs with the layout of the session's rule set's estimators, in the order `estimate_all` computes them, and a
  snapshot restores the very same layout object;
- a two-estimator release, packed into a session's table: `row.estimate`, `estimate_sizes`, `context_breakdown`,
  `context --json` and `stats --json` follow its estimators.
"""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

import pytest
from conftest import assistant, entry, header, msg, tool_result, user, write_lines

from inspector.figures.breakdown import context_breakdown
from inspector.figures.session_figures import WindowOptions, context_report, session_stats
from inspector.figures.sizes import estimate_sizes, index_estimators
from inspector.model import entries as m
from inspector.read.estimates import reader_estimates
from inspector.rules.openclaw_2026_4_12 import tokens
from inspector.rules.ruleset import DEFAULT_RULES, Estimator, Release, rule_set
from inspector.session import snapshot
from inspector.session.session import Session, open_session
from inspector.session.tree import SessionTree
from inspector.storage import nums_layout as nl
from inspector.storage.entry_table import EntryTable
from inspector.storage.estimate_layout import EstimateLayout, estimate_layout

USAGE = {"input": 1000, "output": 50, "cacheRead": 200, "cacheWrite": 0, "totalTokens": 1250, "cost": {"total": 0.01}}

TWO = Release(
    id="test-two-estimators",
    title="a release with two estimators",
    openclaw_version=None,
    pi_version="0.0.0",
    estimators=(
        Estimator("pi", "pi_tokens", "tok", "pi chars/4", "pi's estimateTokens"),
        Estimator("guard", "guard_chars", "chars", "guard chars", "the tool-result guard's size, under another name"),
    ),
    max_session_version=3,
)
"""A release that brings two estimators (their values, in these tests: the reader's `pi` and `tool_guard`)."""
TWO_LAYOUT = estimate_layout(TWO.estimators)
FROM_READER = {"pi": "pi", "guard": "tool_guard"}
"""The reader's estimate each of `TWO`'s takes its value from."""

READER_LAYOUT = reader_estimates().layout
"""The layout the reader packs a session of the default rule set with."""


def session_file(tmp_path: Path) -> Path:
    return write_lines(
        tmp_path / "s.jsonl",
        [
            header(),
            entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"),
            msg("u1", "m1", user("read both files")),
            msg("a1", "u1", assistant("", tool_calls=[("c1", "read", {"path": "a.py"}), ("c2", "exec", {})], usage=USAGE)),
            msg("t1", "a1", tool_result("c1", "read", "x" * 4000, details={"lines": 1})),
            msg("t2", "t1", tool_result("c2", "exec", "y" * 900)),
            msg("a2", "t2", assistant("both read", usage=USAGE)),
            msg("u2", "a2", user("and now? 你好")),
        ],
    )


def repacked(session: Session, layout: EstimateLayout) -> Session:
    """`session` with its entries' estimates packed again by `layout` (each taken from the reader's, by name)."""
    tree = SessionTree(EntryTable(layout))
    for e in session.entries:
        est = e.estimates
        values = None if est is None else tuple(est[FROM_READER[name]] for name in layout.names)
        flags = m.FLAG_MIGRATED_ROLE * e.migrated_role + m.FLAG_EXCLUDED_FROM_CONTEXT * e.excluded_from_context
        flags += m.FLAG_NON_OBJECT_USAGE * e.non_object_usage
        nums = layout.pack_nums(e.line, e.offset, e.length, values, e.message_timestamp, flags)
        tree.add(dataclasses.replace(e, nums=nums, layout=layout))
    session.tree = tree
    session._context_cache.clear()
    return session


# -- Estimates --------------------------------------------------------------------------------------------------


def test_estimates_are_a_read_only_mapping_by_name_in_the_rule_sets_order() -> None:
    est = m.Estimates(("pi", "guard"), ("pi_tokens", "guard_chars"), (3, 12))
    assert est["pi"] == 3 and est["guard"] == 12 and est.get("nope") is None and "pi" in est and "nope" not in est
    assert list(est) == ["pi", "guard"] and dict(est) == {"pi": 3, "guard": 12} and len(est) == 2
    assert est.to_json() == {"pi_tokens": 3, "guard_chars": 12}
    assert list(est.to_json()) == ["pi_tokens", "guard_chars"]
    assert est == {"pi": 3, "guard": 12} and est != {"pi": 3, "guard": 13}
    with pytest.raises(KeyError):
        est["nope"]
    with pytest.raises(TypeError):
        est["pi"] = 4  # type: ignore[index]
    with pytest.raises(AttributeError):
        est.pi_tokens  # type: ignore[attr-defined]  # noqa: B018


# -- the layout -------------------------------------------------------------------------------------------------


def test_a_layout_fills_the_first_slots_and_reads_them_back_by_name() -> None:
    row = TWO_LAYOUT.pack_nums(7, 100, 50, (3, 12), 1767225601000, m.FLAG_EXCLUDED_FROM_CONTEXT)
    assert nl.WIDE.unpack(row)[nl.FIRST_ESTIMATE : nl.TIMESTAMP_FIELD] == (3, 12, 0, 0)
    assert [TWO_LAYOUT.slot(name) for name in ("pi", "guard")] == [nl.FIRST_ESTIMATE, nl.FIRST_ESTIMATE + 1]
    assert TWO_LAYOUT.estimate(row, "pi") == 3 and TWO_LAYOUT.estimate(row, "guard") == 12
    assert TWO_LAYOUT.estimates(row) == {"pi": 3, "guard": 12}
    assert (TWO_LAYOUT.line(row), TWO_LAYOUT.offset(row), TWO_LAYOUT.length(row)) == (7, 100, 50)
    assert TWO_LAYOUT.message_timestamp(row) == 1767225601000 and TWO_LAYOUT.flags(row) == m.FLAG_EXCLUDED_FROM_CONTEXT
    with pytest.raises(KeyError):
        TWO_LAYOUT.estimate(row, "tool_guard")

    none = TWO_LAYOUT.pack_nums(8, 150, 9, None, None)
    assert nl.WIDE.unpack(none)[nl.FIRST_ESTIMATE : nl.TIMESTAMP_FIELD] == nl.NO_ESTIMATES
    assert TWO_LAYOUT.estimates(none) is None and TWO_LAYOUT.estimate(none, "guard") is None
    assert TWO_LAYOUT.message_timestamp(none) is None

    # The reader's fast path packs the same numbers (narrow while they fit).
    fast = TWO_LAYOUT.pack_row(7, 100, 50, (3, 12), 1767225601000, m.FLAG_EXCLUDED_FROM_CONTEXT)
    assert len(fast) == nl.NARROW_SIZE and fast == nl.pack_row(*nl.WIDE.unpack(row))
    assert list(TWO_LAYOUT.sizes([row, none, row], "guard")) == [12, 0, 12]
    assert list(TWO_LAYOUT.sizes(iter([]), "pi")) == []


def test_a_layout_refuses_more_estimators_than_a_row_holds_and_repeated_names() -> None:
    est = TWO.estimators[0]
    many = tuple(dataclasses.replace(est, name=f"e{k}", field=f"e{k}") for k in range(nl.ESTIMATE_SLOTS + 1))
    with pytest.raises(ValueError, match="at most"):
        EstimateLayout(many)
    EstimateLayout(many[: nl.ESTIMATE_SLOTS])  # a full row is fine
    with pytest.raises(ValueError, match="repeat"):
        EstimateLayout((est, est))
    with pytest.raises(ValueError):
        TWO_LAYOUT.pack_nums(1, 0, 1, (1, 2, 3), None)  # three estimates for two estimators


def test_the_reader_packs_the_estimates_of_its_rule_set_in_the_order_estimate_all_computes_them() -> None:
    assert READER_LAYOUT.estimators == rule_set(DEFAULT_RULES).estimators == tokens.ESTIMATORS
    assert READER_LAYOUT.names == ("pi", "openclaw_prune", "openclaw_compaction", "tool_guard")
    msg_ = tool_result("c1", "read", "x" * 4000, details={"lines": 1})
    row = READER_LAYOUT.pack_nums(1, 0, 1, tokens.estimate_all(msg_), None)
    assert READER_LAYOUT.estimates(row) == {
        "pi": tokens.pi_estimate_tokens(msg_),
        "openclaw_prune": tokens.openclaw_prune_chars(msg_),
        "openclaw_compaction": tokens.openclaw_compaction_tokens(msg_),
        "tool_guard": tokens.tool_guard_chars(msg_),
    }


def test_a_layout_is_one_object_per_rule_set_even_through_a_snapshot(tmp_path: Path) -> None:
    assert estimate_layout(TWO.estimators) is TWO_LAYOUT
    assert pickle.loads(pickle.dumps(TWO_LAYOUT)) is TWO_LAYOUT
    session = open_session(session_file(tmp_path))
    session.context()
    back = snapshot.load(snapshot.dump(session), session.path)
    assert back.entries.layout is READER_LAYOUT
    assert all(row.layout is READER_LAYOUT for row in back.context().messages)
    assert [r.estimates for r in back.context().messages] == [r.estimates for r in session.context().messages]


def test_a_table_takes_entries_of_its_own_layout_only() -> None:
    table = EntryTable(TWO_LAYOUT)
    table.append(m.Entry(0, TWO_LAYOUT.pack_nums(1, 0, 1, (1, 2), None), TWO_LAYOUT, m.MESSAGE, "a", None))
    assert table[0].layout is TWO_LAYOUT and table[0].estimate("guard") == 2
    with pytest.raises(ValueError):
        table.append(m.Entry(1, READER_LAYOUT.pack_nums(2, 1, 1, (1, 2, 3, 4), None), READER_LAYOUT, m.MESSAGE, "b", "a"))


# -- a release with two estimators, end to end ------------------------------------------------------------------


def test_a_release_with_two_estimators_goes_through_the_rows_and_the_figures(tmp_path: Path) -> None:
    reader = open_session(session_file(tmp_path))
    reader_ctx = reader.context()
    two = repacked(open_session(session_file(tmp_path)), TWO_LAYOUT)
    ctx = two.context()
    assert [r.entry_id for r in ctx.messages] == [r.entry_id for r in reader_ctx.messages]
    assert index_estimators(two) == TWO.estimators

    # The rows: by name, the release's names only.
    for row, old in zip(ctx.messages, reader_ctx.messages, strict=True):
        assert row.layout is TWO_LAYOUT and two.entries[row.entry_index].layout is TWO_LAYOUT
        assert row.estimate("pi") == old.estimate("pi") and row.estimate("guard") == old.estimate("tool_guard")
        assert list(row.estimates or ()) == ["pi", "guard"]
        with pytest.raises(KeyError):
            row.estimate("openclaw_prune")
    assert two.entries[0].estimates is None  # the model change maps to no message

    # The figures: sizes and the breakdown under either estimator, an unknown one refused.
    assert list(estimate_sizes(ctx.messages, "guard")) == list(estimate_sizes(reader_ctx.messages, "tool_guard"))
    assert list(estimate_sizes(ctx.messages, "guard", 1, 3)) == list(estimate_sizes(reader_ctx.messages, "tool_guard", 1, 3))
    got = context_breakdown(two, ctx, "guard").to_json()
    want = context_breakdown(reader, reader_ctx, "tool_guard").to_json()
    assert got["estimator"] == "guard_chars" and {**got, "estimator": None} == {**want, "estimator": None}
    with pytest.raises(ValueError, match="one of pi, guard"):
        context_breakdown(two, ctx, "openclaw_prune")

    # `context --json` and `stats --json` carry the release's estimates, by their fields.
    report = context_report(two, ctx, WindowOptions(), encoding=None)
    assert [list(r["estimates"]) for r in report["messages"]] == [["pi_tokens", "guard_chars", "tiktoken"]] * len(ctx.messages)
    assert [r["estimates"]["guard_chars"] for r in report["messages"]] == [r.estimate("tool_guard") for r in reader_ctx.messages]
    old_report = context_report(reader, reader_ctx, WindowOptions(), encoding=None)
    assert [r["cumulative_pi_tokens"] for r in report["messages"]] == [r["cumulative_pi_tokens"] for r in old_report["messages"]]
    assert report["totals"]["guard_chars"] == old_report["totals"]["tool_guard_chars"]
    stats = session_stats(two, WindowOptions(), encoding=None)["context"]
    old_stats = session_stats(reader, WindowOptions(), encoding=None)["context"]
    assert stats["estimates"] == {"pi_tokens": old_stats["estimates"]["pi_tokens"],
                                  "guard_chars": old_stats["estimates"]["tool_guard_chars"], "tiktoken": None}
    ratios = stats["estimator_ratios"]
    assert list(ratios) == ["samples", "recorded_prompt_tokens", "pi_tokens", "guard_chars_div4"]
    assert ratios["samples"] == 2
    assert (ratios["pi_tokens"], ratios["guard_chars_div4"]) == (
        old_stats["estimator_ratios"]["pi_tokens"], old_stats["estimator_ratios"]["tool_guard_chars_div4"])
    assert stats["breakdown"]["estimator"] == "pi_tokens"
