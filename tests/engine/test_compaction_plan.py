"""The whole forecast on fixture sessions: each case of issue 9, numbers worked out by hand from the rules.

Sizes: pi `estimateTokens` is ceil(chars/4), so a text of 4n ASCII characters is n tokens.
"""

from __future__ import annotations

import os

from oracle.cases import (
    after_compaction_session,
    boundary_session,
    builder,
    oversized_session,
    previous_compaction_session,
    share_session,
    split_turn_session,
    usage,
)

from inspector.figures.forecast.plan import KEPT, PREVIOUS_SUMMARY, SUMMARIZED, TURN_PREFIX, PlanOptions, plan_compaction
from inspector.rules.openclaw_2026_4_12.compaction.boundary import build_structured_fallback_summary
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session


def _plan(b: SessionBuilder, tmp_path, **kw):
    path = b.write(tmp_path / "s.jsonl")
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    s = open_session(path)
    config = kw.pop("config", {})
    plan = plan_compaction(s, s.context(), PlanOptions(config=config, **kw))
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before  # planning never writes
    return s, plan


def test_nothing_to_plan_after_a_compaction(tmp_path):
    _, plan = _plan(after_compaction_session(), tmp_path)
    data = plan.to_json()
    assert data["nothing_to_plan"]["code"] == "last_is_compaction"
    assert data["first_kept_entry_id"] is None and data["messages_to_summarize"] == [] and data["stages"] == []
    assert data["triggers"]["threshold"]["skipped"] == "the last assistant message predates the latest compaction"
    assert [r["plan"] for r in data["rows"]] == [PREVIOUS_SUMMARY, KEPT, KEPT]


def test_nothing_to_plan_in_an_empty_session(tmp_path):
    _, plan = _plan(builder(), tmp_path)
    assert plan.nothing_to_plan.code == "empty" and plan.rows == []


def test_split_turn(tmp_path):
    b, ids = split_turn_session()
    s, plan = _plan(b, tmp_path, keep_recent_tokens=2100)
    # back from the end: a4 100, r3 2000 -> 2100 >= 2100 at r3; the first cut point at/after it is a4, an
    # assistant: the turn started at u2, so u2..r3 is the turn prefix and u1, a1 are summarized.
    data = plan.to_json()
    assert (data["first_kept_entry_id"], data["is_split_turn"], data["tokens_before"]) == (ids["a4"], True, 6000)
    assert data["first_kept_line"] == s.entry_by_id(ids["a4"]).line
    assert [m["entry_id"] for m in data["messages_to_summarize"]] == [ids["u1"], ids["a1"]]
    assert [m["entry_id"] for m in data["turn_prefix_messages"]] == [ids[k] for k in ("u2", "a2", "r2", "a3", "r3")]
    assert (data["messages_to_summarize_tokens"], data["turn_prefix_tokens"]) == (200, 100 + 6 + 2000 + 6 + 2000)
    assert data["file_ops"] == {"read_files": ["src/x.ts"], "modified_files": ["src/y.ts"]}
    assert data["boundary_start"]["entry_id"] == ids["u1"] and data["previous_summary"] is None
    assert [r["plan"] for r in data["rows"]] == [SUMMARIZED] * 2 + [TURN_PREFIX] * 5 + [KEPT]
    assert [r["first_kept"] for r in data["rows"]] == [False] * 7 + [True]
    # the summary input is [u1, a1] (the default 3 recent turns would preserve both: only one user message there)
    assert data["preserved_turns"]["positions"] == [0, 1]
    assert [st["name"] for st in data["stages"]] == ["preserve_recent_turns", "history_summary", "split_turn_prefix", "assembly"]
    assert data["stages"][1]["llm_calls"] == 0  # nothing left to summarize: the structured fallback
    assert data["turn_prefix_chunking"]["chunks"][0]["positions"] == [0, 1, 2, 3, 4]
    # the same session with the default keepRecentTokens (20000) keeps everything from the first message
    _, plan = _plan(b, tmp_path)
    assert plan.first_kept_entry_id == ids["u1"] and plan.messages_to_summarize == [] and not plan.is_split_turn


def test_history_share_prune(tmp_path):
    b, ids = share_session()
    cfg = {"agents": {"defaults": {"compaction": {"recentTurnsPreserve": 1}}}}
    _, plan = _plan(b, tmp_path, config=cfg, context_window=100_000, keep_recent_tokens=10_100)
    data = plan.to_json()
    # cut at the last user (100 + 10000 >= 10100); 5 turns = 50500 tokens to summarize.
    assert data["first_kept_entry_id"] == ids[10] and len(data["messages_to_summarize"]) == 10
    hs = data["history_share"]
    # new content 200000 - 50500 = 149500 > floor(100000 * 0.5 * 1.2) = 60000: prune to floor(100000 * 0.5) = 50000.
    # 50500 > 50000: token-share parts (target 25250) [u1 a1 u2 a2 | u3 ...] -> drop the first (20200 tokens).
    assert (hs["applies"], hs["new_content_tokens"], hs["trigger_tokens"], hs["budget_tokens"]) == (True, 149_500, 60_000, 50_000)
    assert (hs["dropped_chunks"], hs["dropped_messages"], hs["dropped_tokens"], hs["kept_tokens"]) == (1, 4, 20_200, 30_300)
    assert hs["dropped_positions"] == [0, 1, 2, 3] and hs["dropped_context_indexes"] == [0, 1, 2, 3]
    assert hs["dropped_chunking"]["chunks"][0]["positions"] == [0, 1, 2, 3]
    # one turn preserved (u5, a5); u3 a3 u4 a4 = 20200 tokens fit maxChunkTokens 40000 - 4096: one chunk
    assert data["preserved_turns"]["positions"] == [8, 9]
    ch = data["chunking"]
    assert (ch["adaptive_chunk_ratio"], ch["max_chunk_tokens"], ch["staged"]) == (0.4, 35_904, False)
    assert [c["positions"] for c in ch["chunks"]] == [[4, 5, 6, 7]]
    assert [st["name"] for st in data["stages"]] == [
        "history_share_prune", "dropped_history_summary", "preserve_recent_turns", "history_summary", "assembly"
    ]
    assert data["llm_calls"] == 2
    rows = data["rows"]
    assert [r["dropped_by_history_share"] for r in rows[:10]] == [True] * 4 + [False] * 6
    assert [r["preserved_turn"] for r in rows[:10]] == [False] * 8 + [True] * 2
    assert [r["chunk"] for r in rows[:10]] == [None] * 4 + [0] * 4 + [None] * 2


def test_history_share_not_triggered(tmp_path):
    b, _ = share_session()
    _, plan = _plan(b, tmp_path, context_window=200_000, keep_recent_tokens=10_100)
    hs = plan.history_share
    # 149500 <= floor(200000 * 0.5 * 1.2) = 120000? no: 149500 > 120000, but 50500 tokens fit the 100000 budget
    assert (hs.applies, hs.dropped_chunks, hs.kept_tokens) == (True, 0, 50_500)


def test_oversized_and_staged_parts(tmp_path):
    b, kept = oversized_session()
    cfg = {"agents": {"defaults": {"compaction": {"recentTurnsPreserve": 0}}}}
    _, plan = _plan(b, tmp_path, config=cfg, context_window=100_000, keep_recent_tokens=200)
    data = plan.to_json()
    assert data["first_kept_entry_id"] == kept and not data["is_split_turn"]
    ch = data["chunking"]
    # 42807 tokens over 6 messages: avg 7134.5 * 1.2 / 100000 = 0.0856 <= 0.1 -> ratio 0.4, max 35904, limit 29920.
    # 42807 > 35904 with 6 messages: 2 token-share parts (target 21403.5); the tool result completes an
    # over-target part, so the split moves back to its call: [u1] [a1 r1 a2 u2 a3].
    assert (ch["total_tokens"], ch["max_chunk_tokens"], ch["chunk_limit_tokens"], ch["staged"]) == (42_807, 35_904, 29_920, True)
    assert [p["positions"] for p in ch["token_share_parts"]] == [[0], [1, 2, 3, 4, 5]]
    assert [p["tokens"] for p in ch["token_share_parts"]] == [1, 42_806]
    # chunks (limit 29920): the 42500-token result is over the limit: alone
    assert [(c["part"], c["positions"]) for c in ch["chunks"]] == [(0, [0]), (1, [1]), (1, [2]), (1, [3, 4, 5])]
    assert ch["oversized"] == [2] and ch["chunks"][2]["oversized"] == [2]
    assert ch["llm_calls"] == 5 and data["llm_calls"] == 5
    assert [st["name"] for st in data["stages"]] == ["history_summary"] * 4 + ["history_summary_merge", "assembly"]
    assert [r["oversized"] for r in data["rows"]][:6] == [False, False, True, False, False, False]
    assert [r["part"] for r in data["rows"]][:6] == [0, 1, 1, 1, 1, 1]
    # the older formula is available by name
    _, legacy = _plan(b, tmp_path, config=cfg, context_window=100_000, keep_recent_tokens=200, ratio_formula="legacy")
    assert legacy.chunking.adaptive_chunk_ratio == 0.4 - 42_807 / 6 / 100_000


def test_boundary_only(tmp_path):
    b, note = boundary_session()
    _, plan = _plan(b, tmp_path, keep_recent_tokens=200)
    data = plan.to_json()
    # the cut at the user is pulled back over the custom_message entry (not a `message` entry), which is a turn
    # start of its own: pi calls that a split turn with an empty prefix.
    assert (data["first_kept_entry_id"], data["is_split_turn"], data["turn_prefix_messages"]) == (note, True, [])
    assert [m["role"] for m in data["messages_to_summarize"]] == ["user", "assistant"]
    assert data["boundary_only"] and data["boundary_summary"] == build_structured_fallback_summary(None)
    assert [st["name"] for st in data["stages"]] == ["boundary"] and data["llm_calls"] == 0


def test_previous_compaction_is_resummarized_with_its_files(tmp_path):
    b, ids = previous_compaction_session()
    tail, kept = ids["tail"], ids["kept"]
    _, plan = _plan(b, tmp_path, keep_recent_tokens=150)
    data = plan.to_json()
    assert data["boundary_start"]["entry_id"] == tail and data["previous_summary"] == "## Goal\nold"
    assert data["first_kept_entry_id"] == kept
    # the previous compaction entry itself is not a message to summarize
    assert [m["role"] for m in data["messages_to_summarize"]] == ["user", "assistant", "user", "assistant"]
    # pi-written details are merged: read-only files exclude the modified ones
    assert data["file_ops"] == {"read_files": ["old.md"], "modified_files": ["src/x.ts"]}
    assert data["rows"][0]["plan"] == PREVIOUS_SUMMARY and data["rows"][0]["context_index"] == 0


def test_hook_details_are_not_merged(tmp_path):
    b = builder()
    tail = b.user("kept tail " * 40)
    b.compaction("s", tail, 9000, details={"readFiles": ["old.md"], "modifiedFiles": []}, from_hook=True)
    b.user("more " * 100)
    b.assistant("done " * 100, usage=usage(4000))
    _, plan = _plan(b, tmp_path, keep_recent_tokens=100)
    assert plan.read_files == [] and plan.modified_files == []


def test_default_mode_and_plugin_engine(tmp_path):
    b, _ = split_turn_session()
    cfg = {"agents": {"defaults": {"compaction": {"mode": "default"}}}, "plugins": {"slots": {"contextEngine": "lossless-claw"}}}
    _, plan = _plan(b, tmp_path, config=cfg, keep_recent_tokens=2100)
    data = plan.to_json()
    assert (data["mode"], data["context_engine"]["builtin"], data["triggers"]["auto_compaction_enabled"]) == ("default", False, False)
    assert [(st["name"], st["llm_calls"]) for st in data["stages"]] == [("history_summary", 1), ("split_turn_prefix", 1), ("assembly", 0)]
    assert "16,000" not in data["stages"][-1]["label"] and "<read-files>" in data["stages"][-1]["label"]


def test_leaf_on_another_branch(tmp_path):
    b, ids = split_turn_session()
    b.branch(ids["a1"])
    side = b.user("side question " * 10)
    b.assistant("side answer", usage=usage(700))
    s = open_session(b.write(tmp_path / "s.jsonl"))
    plan = plan_compaction(s, s.context(ids["a4"]), PlanOptions(config={}, keep_recent_tokens=2100))
    assert plan.leaf_id == ids["a4"] and plan.first_kept_entry_id == ids["a4"]
    plan = plan_compaction(s, s.context(), PlanOptions(config={}, keep_recent_tokens=1))
    assert plan.leaf_id != ids["a4"] and side in [r.entry_id for r in plan.rows]
