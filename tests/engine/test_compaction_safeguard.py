"""OpenClaw's safeguard helpers (no runnable oracle): hand-worked fixtures from the rules, and properties.

Every expected number below is worked out by hand from the OpenClaw 2026.4 code the functions port
(`splitMessagesByTokenShare`, `chunkMessagesByMaxTokens`, `computeAdaptiveChunkRatio`, `isOversizedForSummary`,
`repairToolUseResultPairing`, `pruneHistoryForContextShare`, `splitPreservedRecentTurns`).
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.rules.openclaw_2026_4_12.compaction.items import SYNTHETIC_TOOL_RESULT_TOKENS, SummaryItem
from inspector.rules.openclaw_2026_4_12.compaction.safeguard import (
    chunk_messages_by_max_tokens,
    compute_adaptive_chunk_ratio,
    is_oversized_for_summary,
    legacy_adaptive_chunk_ratio,
    max_chunk_tokens_for,
    normalize_parts,
    prune_history_for_context_share,
    repair_tool_use_result_pairing,
    resolve_recent_turns_preserve,
    split_messages_by_token_share,
    split_preserved_recent_turns,
)


def _items(*specs) -> list[SummaryItem]:
    """(role, tokens[, calls or result id[, stop]]) -> items with positions 0.."""
    out = []
    for pos, spec in enumerate(specs):
        role, tokens = spec[0], spec[1]
        calls: tuple[str, ...] = ()
        result = None
        if role == "assistant" and len(spec) > 2:
            calls = tuple(spec[2])
        if role == "toolResult":
            result = spec[2] if len(spec) > 2 else None
        stop = spec[3] if len(spec) > 3 else ("toolUse" if calls else "stop")
        out.append(SummaryItem(pos, pos, role, tokens, calls, result, stop if role == "assistant" else None))
    return out


def _pos(groups) -> list[list[int | None]]:
    return [[m.position for m in g] for g in groups]


def test_synthetic_tool_result_size():
    # "[openclaw] missing tool result ... repair." is 105 chars: ceil(105/4)
    assert SYNTHETIC_TOOL_RESULT_TOKENS == 27


@pytest.mark.parametrize(("parts", "n", "expected"), [(2, 10, 2), (2, 1, 1), (1, 5, 1), (0.5, 5, 1), (float("nan"), 5, 1), (3.9, 2, 2), (7, 9, 7)])
def test_normalize_parts(parts, n, expected):
    assert normalize_parts(parts, n) == expected


def test_token_share_split_even():
    assert _pos(split_messages_by_token_share(_items(("user", 10), ("assistant", 10), ("user", 10), ("assistant", 10)))) == [[0, 1], [2, 3]]


def test_token_share_split_moves_back_to_the_tool_call():
    # total 60, target 30. u1 10; a1 -> 20, pending {x}; r_x -> 50 > 30 with pending cleared: split at a1.
    msgs = _items(("user", 10), ("assistant", 10, ["x"]), ("toolResult", 30, "x"), ("user", 10))
    assert _pos(split_messages_by_token_share(msgs)) == [[0], [1, 2, 3]]


def test_token_share_split_waits_for_all_results():
    # target 40: nothing closes while x or y is pending, even far over the target.
    msgs = _items(("assistant", 5, ["x", "y"]), ("toolResult", 50, "x"), ("user", 5), ("toolResult", 10, "y"), ("user", 10))
    parts = split_messages_by_token_share(msgs)
    assert _pos(parts) == [[0, 1, 2, 3], [4]] or all(len(p) for p in parts)
    assert _pos(parts) == [[0, 1, 2, 3], [4]]


def test_token_share_split_aborted_assistant_does_not_hold():
    # an aborted assistant's calls are not pending: the split falls between it and its result.
    msgs = _items(("user", 100), ("assistant", 500, ["x"], "aborted"), ("toolResult", 500, "x"), ("user", 100))
    assert _pos(split_messages_by_token_share(msgs)) == [[0, 1], [2, 3]]


def test_chunk_by_max_tokens():
    # max 1200 -> limit floor(1200/1.2) = 1000; the 1500-token message is over the limit: a chunk of its own.
    msgs = _items(("user", 600), ("assistant", 500), ("toolResult", 1500), ("user", 100), ("user", 899))
    assert _pos(chunk_messages_by_max_tokens(msgs, 1200)) == [[0], [1], [2], [3, 4]]
    assert chunk_messages_by_max_tokens([], 10) == []


def test_chunks_may_split_a_call_from_its_result():
    """chunkMessagesByMaxTokens knows nothing of tool pairing (OpenClaw's code): a chunk can end after the call."""
    msgs = _items(("assistant", 900, ["x"]), ("toolResult", 900, "x"))
    assert _pos(chunk_messages_by_max_tokens(msgs, 1200)) == [[0], [1]]


def test_adaptive_chunk_ratio():
    # avg 1000 over ctx 100000: 1000*1.2/100000 = 0.012 <= 0.1 -> 0.4
    assert compute_adaptive_chunk_ratio(_items(("user", 1000), ("user", 1000)), 100_000) == 0.4
    # avg 10000: 0.12 > 0.1 -> 0.4 - min(0.24, 0.25) = 0.16 (float: 0.16000000000000003)
    ratio = compute_adaptive_chunk_ratio(_items(("user", 5000), ("user", 15000)), 100_000)
    assert ratio == 0.4 - 0.24
    assert max_chunk_tokens_for(100_000, ratio) == 16000 - 4096
    # avg 50000: 0.6 -> reduction capped at BASE - MIN -> 0.4 - (0.4 - 0.15) = 0.15000000000000002 (as in JS)
    assert compute_adaptive_chunk_ratio(_items(("user", 50_000)), 100_000) == 0.4 - (0.4 - 0.15)
    assert compute_adaptive_chunk_ratio([], 100_000) == 0.4
    # the older published formula: max(0.15, 0.4 - avg/ctx) = 0.4 - 0.1
    assert legacy_adaptive_chunk_ratio(_items(("user", 10_000)), 100_000) == 0.4 - 0.1
    assert max_chunk_tokens_for(1000, 0.4) == 1  # floor(400) - 4096 < 1


def test_oversized_for_summary():
    # tokens * 1.2 > ctx * 0.5: 41667*1.2 = 50000.4 > 50000; 41666*1.2 = 49999.2
    assert is_oversized_for_summary(_items(("toolResult", 41_667))[0], 100_000)
    assert not is_oversized_for_summary(_items(("toolResult", 41_666))[0], 100_000)


def test_repair_moves_drops_and_inserts():
    msgs = _items(
        ("toolResult", 7, "orphan"),  # 0: before any call: dropped
        ("assistant", 5, ["a", "b"]),  # 1
        ("user", 3),  # 2: between the call and its result: moved after the results
        ("toolResult", 4, "a"),  # 3
        ("toolResult", 4, "a"),  # 4: second result for "a" in the span: the first one wins, not counted
        ("assistant", 6),  # 5
    )
    rep = repair_tool_use_result_pairing(msgs)
    assert [(m.position, m.role, m.tool_result_id) for m in rep.messages] == [
        (1, "assistant", None),
        (3, "toolResult", "a"),
        (None, "toolResult", "b"),  # synthetic result for the missing one
        (2, "user", None),
        (5, "assistant", None),
    ]
    assert (rep.dropped_orphan_count, rep.dropped_duplicate_count, len(rep.added), rep.moved) == (1, 0, 1, True)
    assert rep.messages[2].tokens == 27


def test_repair_leaves_good_pairs_alone():
    msgs = _items(("user", 1), ("assistant", 2, ["a"]), ("toolResult", 3, "a"), ("assistant", 4, ["b"], "error"))
    rep = repair_tool_use_result_pairing(msgs)
    assert rep.messages is msgs and not rep.moved  # an error assistant gets no synthetic result


def test_history_share_prune_drops_oldest_chunks():
    # ctx 1000, share 0.5: budget 500. 1200 > 500: parts [u,a][u,a] -> drop 600; 600 > 500: [u][a] -> drop 300.
    res = prune_history_for_context_share(_items(("user", 300), ("assistant", 300), ("user", 300), ("assistant", 300)), 1000)
    assert (res.budget_tokens, res.dropped_chunks, res.dropped_messages, res.dropped_tokens, res.kept_tokens) == (500, 2, 3, 900, 300)
    assert [m.position for m in res.dropped] == [0, 1, 2]
    assert [m.position for m in res.messages] == [3]


def test_history_share_prune_counts_orphans():
    # [u,a(aborted)][r,u]: dropping the first part orphans r (its call was dropped): repaired away, counted.
    msgs = _items(("user", 100), ("assistant", 500, ["x"], "aborted"), ("toolResult", 500, "x"), ("user", 100))
    res = prune_history_for_context_share(msgs, 1000)
    assert (res.dropped_chunks, res.dropped_messages, res.dropped_tokens, res.kept_tokens) == (1, 3, 600, 100)
    assert [m.position for m in res.orphaned] == [2]
    assert [m.position for m in res.messages] == [3]


def test_history_share_prune_within_budget():
    res = prune_history_for_context_share(_items(("user", 10)), 1000)
    assert (res.dropped_chunks, res.kept_tokens) == (0, 10)


def test_preserved_recent_turns():
    msgs = _items(
        ("user", 1),  # 0
        ("assistant", 1),  # 1
        ("user", 1),  # 2: turn 2 of the last 2
        ("assistant", 1, ["c"]),  # 3
        ("toolResult", 1, "c"),  # 4: result of a preserved call: preserved
        ("custom", 1),  # 5: not user/assistant: stays in the summary
        ("user", 1),  # 6
    )
    res = split_preserved_recent_turns(msgs, 2)
    assert [m.position for m in res.preserved] == [2, 3, 4, 6]
    assert [m.position for m in res.summarizable] == [0, 1, 5]
    # fewer user messages than turns: every user message and the last 2*N conversation messages
    res = split_preserved_recent_turns(_items(("user", 1), ("assistant", 1), ("assistant", 1), ("assistant", 1)), 3)
    assert [m.position for m in res.preserved] == [0, 1, 2, 3]
    assert split_preserved_recent_turns(msgs, 0).preserved == []


def test_recent_turns_preserve_resolution():
    assert resolve_recent_turns_preserve(None) == 3
    assert resolve_recent_turns_preserve(50) == 12
    assert resolve_recent_turns_preserve(-2) == 0
    assert resolve_recent_turns_preserve(2.7) == 2
    assert resolve_recent_turns_preserve("5") == 3


# -- properties --------------------------------------------------------------------------------------------------


@st.composite
def conversations(draw) -> list[SummaryItem]:
    """Plausible summarizer inputs: users, assistants with 0-3 calls, their results (sometimes missing), customs."""
    specs = []
    n_call = 0
    for _ in range(draw(st.integers(0, 30))):
        kind = draw(st.sampled_from(["user", "assistant", "custom"]))
        tokens = draw(st.integers(0, 5000))
        if kind != "assistant":
            specs.append((kind, tokens))
            continue
        calls = [f"c{n_call + k}" for k in range(draw(st.integers(0, 3)))]
        n_call += len(calls)
        stop = draw(st.sampled_from(["toolUse", "stop", "aborted", "error"]))
        specs.append(("assistant", tokens, calls, stop))
        for cid in calls:
            if draw(st.integers(0, 9)):
                specs.append(("toolResult", draw(st.integers(0, 8000)), cid))
    return _items(*specs)


def _pending_violations(parts: list[list[SummaryItem]]) -> list[str]:
    """Results of a live (not aborted/error) assistant that land in another part than the call."""
    where = {}
    out = []
    for p, part in enumerate(parts):
        for m in part:
            if m.role == "assistant" and m.stop_reason not in ("aborted", "error"):
                for cid in m.tool_call_ids:
                    where[cid] = p
            elif m.role == "toolResult" and m.tool_result_id in where and where[m.tool_result_id] != p:
                out.append(f"result {m.tool_result_id} in part {p}, call in part {where[m.tool_result_id]}")
    return out


@settings(max_examples=300, deadline=None)
@given(conversations(), st.integers(1, 4))
def test_token_share_parts_cover_in_order_keep_pairs_and_balance(msgs, parts):
    split = split_messages_by_token_share(msgs, parts)
    assert [m for part in split for m in part] == msgs  # cover, in order, nothing repeated
    assert all(split) and len(split) <= max(1, normalize_parts(parts, len(msgs)))
    assert not _pending_violations(split)
    target = sum(m.tokens for m in msgs) / max(1, normalize_parts(parts, len(msgs)))
    for part, nxt in zip(split, split[1:]):
        first = nxt[0]
        # OpenClaw's rule: a part closes before a message that would take it over the target, or moves back
        # to the assistant whose results completed an over-target part.
        assert sum(m.tokens for m in part) + first.tokens > target or (first.role == "assistant" and first.tool_call_ids)


@settings(max_examples=300, deadline=None)
@given(conversations(), st.integers(1, 20_000))
def test_chunks_cover_in_order_and_respect_the_limit(msgs, max_tokens):
    chunks = chunk_messages_by_max_tokens(msgs, max_tokens)
    assert [m for c in chunks for m in c] == msgs
    limit = max(1, math.floor(max_tokens / 1.2))
    for c in chunks:
        assert c and (sum(m.tokens for m in c) <= limit or len(c) == 1 or c[-1].tokens > limit)


@settings(max_examples=300, deadline=None)
@given(conversations())
def test_repair_pairs_every_live_call(msgs):
    out = repair_tool_use_result_pairing(msgs).messages
    seen = set()
    for i, m in enumerate(out):
        if m.role == "toolResult":
            assert m.tool_result_id not in seen or m.tool_result_id is None
            seen.add(m.tool_result_id)
        if m.role == "assistant" and m.tool_call_ids and m.stop_reason not in ("aborted", "error"):
            results = [x.tool_result_id for x in out[i + 1 : i + 1 + len(m.tool_call_ids)]]
            assert results == list(m.tool_call_ids)


@settings(max_examples=200, deadline=None)
@given(conversations(), st.integers(100, 50_000))
def test_prune_accounts_for_every_message(msgs, ctx):
    res = prune_history_for_context_share(msgs, ctx)
    assert res.kept_tokens == sum(m.tokens for m in res.messages)
    assert res.dropped_tokens == sum(m.tokens for m in res.dropped)
    assert res.dropped_messages == len(res.dropped) + len(res.orphaned)
    assert res.kept_tokens <= res.budget_tokens or res.dropped_chunks == 0 or len(split_messages_by_token_share(res.messages, 2)) <= 1
