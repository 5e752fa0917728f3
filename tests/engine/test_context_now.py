"""The context now (`rules.context_usage.context_now`): pi's `estimateContextTokens`, except that a usage recorded
before the latest compaction never counts (each release's `getContextUsage` check of the replies after it), with
the figure's basis."""

from __future__ import annotations

import pytest
from conftest import assistant, entry, header, msg, user, write_lines

from inspector.figures.sizes import estimate_sizes
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

APRIL, SEPT = "openclaw-2026.4.12", "openclaw-2026.9.6"
RELEASES = (APRIL, SEPT)
PRE = 150_000


def usage(total: int, **extra) -> dict:
    return {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total, "cost": {"total": 0}, **extra}


def compacted(tmp_path, *after) -> object:
    """A session whose reply before the compaction recorded `PRE` tokens (kept by the compaction), then `after`."""
    lines = [
        header(),
        msg("u1", None, user("x" * 4000)),
        msg("a1", "u1", assistant("y" * 400, usage=usage(PRE))),
        entry("compaction", "k1", "a1", summary="S" * 800, firstKeptEntryId="u1", tokensBefore=PRE),
    ]
    parent = "k1"
    for n, message in enumerate(after):
        lines.append(msg(f"m{n}", parent, message, ts=f"2026-01-01T00:00:{10 + n:02d}.000Z"))
        parent = f"m{n}"
    return write_lines(tmp_path / "s.jsonl", lines)


def figures(path, rules_id: str) -> tuple[dict, dict, int]:
    """(context_now, last_context_usage, the estimate of every context message) by `rules_id`."""
    session = open_session(path, rules_id)
    ctx = session.context()
    rules = rule_set(rules_id).context_usage
    return rules.context_now(session, ctx), rules.last_context_usage(session, ctx), sum(estimate_sizes(ctx.messages, "pi"))


def assert_estimated(now: dict, estimate: int, stale: int | None) -> None:
    assert now == {"tokens": estimate, "usage_tokens": 0, "trailing_tokens": estimate, "last_usage_index": None,
                   "basis": "estimate", "stale_usage_tokens": stale}


@pytest.mark.parametrize("rules_id", RELEASES)
def test_right_after_a_compaction_the_kept_usage_is_left_out(tmp_path, rules_id):
    now, raw, estimate = figures(compacted(tmp_path), rules_id)
    assert raw["usage_tokens"] == PRE and raw["last_usage_index"] is not None  # pi's estimateContextTokens counts it
    assert_estimated(now, estimate, PRE)
    assert 0 < estimate < PRE


@pytest.mark.parametrize("rules_id", RELEASES)
def test_a_user_message_after_the_compaction_changes_nothing(tmp_path, rules_id):
    now, raw, estimate = figures(compacted(tmp_path, user("and now?")), rules_id)
    assert raw["tokens"] > PRE
    assert_estimated(now, estimate, PRE)


@pytest.mark.parametrize("rules_id", RELEASES)
def test_a_reply_after_the_compaction_is_the_usage_again(tmp_path, rules_id):
    now, raw, _ = figures(compacted(tmp_path, user("q"), assistant("a", usage=usage(9_000))), rules_id)
    assert now == {**raw, "basis": "recorded_usage", "stale_usage_tokens": None} and now["tokens"] == 9_000
    now, raw, _ = figures(compacted(tmp_path, user("q"), assistant("a", usage=usage(9_000)), user("z" * 400)), rules_id)
    assert now == {**raw, "basis": "estimate_plus_trailing", "stale_usage_tokens": None} and now["tokens"] == 9_000 + 100


@pytest.mark.parametrize("rules_id", RELEASES)
def test_an_aborted_or_failed_reply_after_the_compaction_is_not_a_usage(tmp_path, rules_id):
    for stop in ("aborted", "error"):
        now, _, estimate = figures(compacted(tmp_path, user("q"), assistant("a", usage=usage(9_000), stop=stop)), rules_id)
        assert_estimated(now, estimate, PRE)


def test_a_zero_usage_reply_after_the_compaction(tmp_path):
    path = compacted(tmp_path, user("q"), assistant("a", usage=usage(0)))
    # pi 0.66.1: the reply decides (no positive usage: unknown); its zero usage is the one estimateContextTokens finds
    now, raw, estimate = figures(path, APRIL)
    assert raw["usage_tokens"] == 0 and raw["last_usage_index"] is not None
    assert_estimated(now, estimate, None)
    # 2026.9.6: a zero usage is no usage; the walk finds the kept one, left out
    now, raw, estimate = figures(path, SEPT)
    assert raw["usage_tokens"] == PRE
    assert_estimated(now, estimate, PRE)


def test_an_unavailable_context_usage_after_the_compaction(tmp_path):
    unavailable = usage(9_000, contextUsage={"state": "unavailable"})
    path = compacted(tmp_path, user("q"), assistant("a", usage=unavailable))
    # 2026.9.6 passes over it (the size is estimated from the content); pi 0.66.1 knows no contextUsage
    now, _, estimate = figures(path, SEPT)
    assert_estimated(now, estimate, PRE)
    now, raw, _ = figures(path, APRIL)
    assert now == {**raw, "basis": "recorded_usage", "stale_usage_tokens": None} and now["tokens"] == 9_000
    # an earlier reply after the compaction with a usage is trusted by 2026.9.6 too
    path = compacted(tmp_path, user("q"), assistant("a", usage=usage(9_000)), user("r"), assistant("b", usage=unavailable))
    now, raw, _ = figures(path, SEPT)
    assert now == {**raw, "basis": "estimate_plus_trailing", "stale_usage_tokens": None} and raw["usage_tokens"] == 9_000


@pytest.mark.parametrize("rules_id", RELEASES)
def test_without_a_compaction_it_is_estimate_context_tokens(tmp_path, rules_id):
    cases = {
        "recorded_usage": [user("q"), assistant("a", usage=usage(5_000))],
        "estimate_plus_trailing": [user("q"), assistant("a", usage=usage(5_000)), user("more")],
        "estimate": [user("q"), assistant("a", usage=usage(5_000), stop="error")],
    }
    for basis, messages in cases.items():
        lines = [header()]
        for n, message in enumerate(messages):
            lines.append(msg(f"m{n}", f"m{n - 1}" if n else None, message))
        now, raw, _ = figures(write_lines(tmp_path / f"{basis}.jsonl", lines), rules_id)
        assert now == {**raw, "basis": basis, "stale_usage_tokens": None}, basis
