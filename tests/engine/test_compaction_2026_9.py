"""The OpenClaw 2026.9.6 compaction rules that changed, each beside 2026.4.12's answer to the same input.

Sizes: `estimateTokens` is ceil(chars/4) for ASCII text, so a text of 4n characters is n tokens.
"""

from __future__ import annotations

from oracle.cases import builder, split_turn_session, usage

from inspector.figures.forecast.plan import PlanOptions, plan_compaction
from inspector.rules.openclaw_2026_4_12.compaction.items import SummaryItem
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

APRIL = rule_set("openclaw-2026.4.12")
SEPT = rule_set("openclaw-2026.9.6")


def _plan(b, tmp_path, rules, **kw):
    path = b.write(tmp_path / "s.jsonl")
    s = open_session(path)
    return plan_compaction(s, s.context(), PlanOptions(config=kw.pop("config", {}), **kw), rules)


def test_the_compaction_parts_that_changed_are_2026_9s_own():
    for part in ("compaction_settings", "prepare", "safeguard", "chunking", "triggers", "assembly", "boundary", "prompts"):
        assert SEPT.owns(part) and SEPT.part(part) is not APRIL.part(part), part
    for part in ("stages",):
        assert not SEPT.owns(part) and SEPT.part(part) is APRIL.part(part), part


def test_reserve_capped_at_a_quarter_of_the_window():
    cap = SEPT.compaction_settings.cap_reserve_tokens
    assert (cap(20000, 32000).effective, cap(20000, 32000).capped) == (8000, True)
    assert (cap(20000, 80000).effective, cap(20000, 80000).capped) == (20000, False)
    assert cap(20000, 3).effective == 0 and cap(-5, 1000).effective == 0
    sept = SEPT.compaction_settings.resolve_settings({}, context_window=32000)
    april = APRIL.compaction_settings.resolve_settings({})
    assert (sept.reserve_tokens, sept.reserve_requested, april.reserve_tokens) == (8000, 20000, 20000)


def test_retired_config_keys_change_nothing():
    config = {"agents": {"defaults": {"compaction": {"reserveTokens": 50000, "reserveTokensFloor": 30000, "maxHistoryShare": 0.8}}}}
    sept = SEPT.compaction_settings.resolve_settings(config)
    april = APRIL.compaction_settings.resolve_settings(config)
    assert (sept.reserve_tokens, sept.max_history_share) == (20000, 0.5)
    assert (april.reserve_tokens, april.max_history_share) == (50000, 0.8)
    assert sept.retired_keys == ("reserveTokens", "reserveTokensFloor", "maxHistoryShare")
    assert sept.quality_guard is True and april.quality_guard is False  # on by default in 2026.9


def test_who_compacts():
    resolve = SEPT.compaction_settings.resolve_compactor
    default_mode = {"agents": {"defaults": {"compaction": {"mode": "default"}}}}
    assert resolve(None, {"provider": "anthropic", "modelId": "claude"}).agent_threshold is False  # safeguard by default
    assert resolve(default_mode, {"provider": "anthropic", "modelId": "claude"}).agent_threshold is True
    for model in ({"provider": "zai", "modelId": "x"}, {"provider": "p", "modelId": "GLM-4.6"}, {"provider": "p", "modelId": "openrouter/z-ai/glm"}):
        assert resolve(default_mode, model).agent_threshold is False, model
    assert resolve(default_mode, {"provider": "ollama", "modelId": "ollama/glm-4"}).agent_threshold is True
    assert "sessions.compact" in resolve(None).manual
    assert not hasattr(APRIL.compaction_settings, "resolve_compactor")


def test_threshold_trigger_off_in_safeguard_mode(tmp_path):
    b, _ = split_turn_session()
    sept = _plan(b, tmp_path, SEPT, context_window=6000).triggers.threshold
    april = _plan(b, tmp_path, APRIL, context_window=6000).triggers.threshold
    assert sept.would_compact is False and "safeguard" in sept.skipped
    assert april.would_compact is True  # 2026.4.12: 6000 > 6000 - 20000, pi's threshold fires


def test_scaled_keep_moves_the_cut_point(tmp_path):
    b, ids = split_turn_session()
    # usage 6000 vs estimate 4412: scale 1.36, keep 2300 -> 1691: the walk stops at r3 (2100), cut at a4.
    sept = _plan(b, tmp_path, SEPT, keep_recent_tokens=2300)
    april = _plan(b, tmp_path, APRIL, keep_recent_tokens=2300)
    assert sept.scaled_keep.scale == 6000 / 4412 and sept.scaled_keep.scaled
    assert round(sept.scaled_keep.keep_recent_tokens) == 1691
    assert sept.first_kept_entry_id == ids["a4"]
    assert april.first_kept_entry_id == ids["a3"]  # unscaled: 4106 >= 2300 at r2, cut at a3
    assert "scaled_keep" in sept.to_json() and "scaled_keep" not in april.to_json()


def test_scale_is_one_without_usage():
    keep = SEPT.prepare.scaled_keep(20000, 0, 5000)
    assert (keep.scale, keep.keep_recent_tokens, keep.scaled) == (1, 20000, False)
    assert SEPT.prepare.scaled_keep(10, 1e9, 1).scale == 10  # at most keepRecentTokens


def test_cut_at_a_custom_message_starts_a_turn(tmp_path):
    b = builder()
    b.user("a" * 400)
    b.assistant("b" * 400, usage=usage(1000))
    b.user("c" * 400)
    cm = b.custom_message("note", "d" * 4000)  # 1000
    b.assistant("e" * 400, usage=usage(2500))
    plan = _plan(b, tmp_path, SEPT, keep_recent_tokens=1050)
    assert plan.first_kept_entry_id == cm and plan.is_split_turn is False
    april = _plan(b, tmp_path, APRIL, keep_recent_tokens=1050)
    assert april.first_kept_entry_id != cm  # pi 0.66.1 does not count custom messages toward the kept tail


def test_file_ops_2026_9_shapes():
    ops = SEPT.prepare.FileOps()
    SEPT.prepare.extract_file_ops_from_message(
        {"role": "assistant", "content": [
            {"type": "toolCall", "name": "mcp__fs__Read", "arguments": {"file_path": "a.py"}},
            {"type": "toolCall", "name": "Write", "arguments": {"filePath": "b.py"}},
        ]},
        ops,
    )
    SEPT.prepare.extract_file_ops_from_message(
        {"role": "toolResult", "toolName": "apply_patch", "content": [], "details": {"summary": {"added": ["c.py"], "modified": ["d.py"]}}},
        ops,
    )
    assert ops.lists() == (["a.py"], ["b.py", "c.py", "d.py"])
    april = APRIL.prepare.FileOps()
    APRIL.prepare.extract_file_ops_from_message({"role": "assistant", "content": [{"type": "toolCall", "name": "Write", "arguments": {"filePath": "b.py"}}]}, april)
    assert april.lists() == ([], [])


def _items(*specs) -> list[SummaryItem]:
    """`("a", tokens, ("c1", "c2"))` assistant with calls, `("r", tokens, "c1")` result, `("u", tokens)` user."""
    out = []
    for k, spec in enumerate(specs):
        kind, tokens = spec[0], spec[1]
        if kind == "a":
            out.append(SummaryItem(k, k, "assistant", tokens, tuple(spec[2]) if len(spec) > 2 else ()))
        elif kind == "r":
            out.append(SummaryItem(k, k, "toolResult", tokens, (), spec[2]))
        else:
            out.append(SummaryItem(k, k, "user", tokens))
    return out


def _pos(chunks):
    return [[it.position for it in c] for c in chunks]


def test_chunks_keep_a_tool_call_with_its_results():
    items = _items(("u", 10), ("a", 10, ("c1", "c2")), ("r", 50, "c1"), ("r", 50, "c2"), ("u", 10))
    assert _pos(SEPT.safeguard.chunk_messages_by_max_tokens(items, 72)) == [[0], [1, 2, 3], [4]]
    assert _pos(APRIL.safeguard.chunk_messages_by_max_tokens(items, 72)) == [[0, 1], [2], [3, 4]]


def test_stage_split_replaces_token_share_parts():
    items = _items(("u", 100), ("a", 10, ("c1",)), ("r", 300, "c1"), ("u", 100), ("a", 100))
    split = SEPT.safeguard.build_stage_split_plan(items, 200)
    # target 305: the group a1+r2 (310) would overflow the first part, which closes after u0; the last part takes the rest
    assert split.mode == "split" and _pos(split.chunks) == [[0], [1, 2, 3, 4]]
    assert SEPT.safeguard.build_stage_split_plan(items, 10_000).mode == "single"
    assert SEPT.safeguard.build_stage_split_plan(items[:3], 1).mode == "single"  # fewer than 4 messages
    plan = SEPT.chunking.plan_chunking("x", items, 10_000, max_chunk_tokens=200)
    assert plan.staged and [p.positions for p in plan.token_share_parts] == [[0], [1, 2, 3, 4]]
    april = APRIL.chunking.plan_chunking("x", items, 10_000, max_chunk_tokens=200)
    assert [c.positions for c in april.chunks] != [c.positions for c in plan.chunks]
    assert "stage split" in plan.stage_reason


def test_history_prune_drops_whole_groups():
    items = _items(("u", 100), ("a", 10, ("c1",)), ("r", 2000, "c1"), ("u", 100))
    pruned = SEPT.safeguard.prune_history_for_context_share(items, 2000, 0.5, 2)
    # budget 1000: [u0] | [a1 r2 u3] -> drop u0; [a1 r2] | [u3] -> drop the tool group; one message left
    assert (pruned.dropped_chunks, [it.position for it in pruned.messages]) == (2, [3])
    assert [it.position for it in pruned.dropped] == [0, 1, 2] and pruned.dropped_tokens == 2110


def test_oversized_fallback_omits_the_whole_tool_batch():
    items = _items(("u", 10), ("a", 10, ("c1",)), ("r", 600, "c1"), ("u", 10))
    fb = SEPT.safeguard.build_oversized_fallback_plan(items, 1000)
    assert [it.position for it in fb.small] == [0, 3]
    assert fb.notes == ["[Large toolResult (~1K tokens) omitted from summary]"]


def test_pre_prompt_route_uses_the_measured_context_usage(tmp_path):
    b = builder()
    b.user("a" * 400)
    measured = {**usage(1000), "contextUsage": {"state": "available", "totalTokens": 50_000}}
    b.assistant("b" * 400, usage=measured)
    b.user("c" * 4000)  # after the measurement: 12 + 1000
    sept = _plan(b, tmp_path, SEPT, context_window=60_000, prompt_tokens=100).triggers.pre_prompt
    april = _plan(b, tmp_path, APRIL, context_window=60_000, prompt_tokens=100).triggers.pre_prompt
    assert (sept.measured_tokens, sept.pressure_source, sept.messages_tokens) == (50_000, "provider_context_usage", 1012)
    assert sept.estimated_prompt_tokens == 50_000 + round((1012 + 12 + 100) * 1.2 + 0.4999)
    assert sept.effective_reserve_tokens == 15_000 and sept.route != "fits"
    assert april.estimated_prompt_tokens < 2000 and april.route == "fits"


def test_pre_prompt_route_without_measurement_adds_tool_schemas(tmp_path):
    b = builder()
    b.user("a" * 400)
    path = b.write(tmp_path / "s.jsonl")
    s = open_session(path)
    route = SEPT.triggers.pre_prompt_route(s, s.context(), 100_000, 20_000, 0, tool_schema_tokens=500)
    assert (route.measured_tokens, route.pressure_source) == (None, "transcript_estimate")
    assert route.estimated_prompt_tokens == -(-(12 + 100 + 12) * 12 // 10) + 500
