"""`prune_context_messages`: one fixture per branch of OpenClaw's pruneContextMessages (spec §3.4).

Every fixture uses a 1000-token window (4000 chars), so softTrimRatio 0.3 trips at 1200 estimated chars and
hardClearRatio 0.5 at 2000. Message sizes are spelled out so each expected number can be checked by hand.
"""

from __future__ import annotations

import copy

from inspector.rules.openclaw_2026_4_12.pruning.pruner import (
    PRUNED_CONTEXT_IMAGE_MARKER,
    STAGE_BELOW_HARD_CLEAR_RATIO,
    STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS,
    STAGE_BELOW_SOFT_TRIM_RATIO,
    STAGE_HARD_CLEAR_DISABLED,
    STAGE_HARD_CLEARED,
    STAGE_NO_CONTEXT_WINDOW,
    STAGE_TOO_FEW_ASSISTANTS,
    prune_context_messages,
    soft_trim_tool_result,
    take_head_from_joined_text,
    take_tail_from_joined_text,
)
from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings, HardClearSettings, SoftTrimSettings
from inspector.rules.openclaw_2026_4_12.tokens import openclaw_prune_chars

WINDOW = 1000  # tokens -> char window 4000
PLACEHOLDER = "[Old tool result content cleared]"  # 33 chars


def user(text: str) -> dict:
    return {"role": "user", "content": text, "timestamp": 1}


def call(cid: str = "c1", name: str = "read") -> dict:
    # arguments {} -> JSON "{}" = 2 chars
    return {"role": "assistant", "content": [{"type": "toolCall", "id": cid, "name": name, "arguments": {}}], "timestamp": 2}


def reply(text: str = "ok") -> dict:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "timestamp": 3}


def result(text: str | list, name: str = "read", cid: str = "c1", details: object = None) -> dict:
    content = [{"type": "text", "text": text}] if isinstance(text, str) else text
    msg = {"role": "toolResult", "toolCallId": cid, "toolName": name, "content": content}
    if details is not None:
        msg["details"] = details
    msg["isError"] = False
    msg["timestamp"] = 4
    return msg


def settings(**kw) -> ContextPruningSettings:
    soft = kw.pop("soft", SoftTrimSettings(max_chars=100, head_chars=20, tail_chars=10))
    hard = kw.pop("hard", HardClearSettings())
    base = dict(keep_last_assistants=1, min_prunable_tool_chars=0)
    base.update(kw)
    return ContextPruningSettings(soft_trim=soft, hard_clear=hard, **base)


def prune(msgs, s=None, window=WINDOW, **kw):
    return prune_context_messages(msgs, s or settings(), context_window_tokens=window, **kw)


def text_of(msg: dict) -> str:
    assert len(msg["content"]) == 1 and msg["content"][0]["type"] == "text"
    return msg["content"][0]["text"]


# ------------------------------------------------------------------------------------------- soft trim ratio


def soft_case(user_chars: int) -> list[dict]:
    # total = user_chars + 2 (toolCall {}) + 500 (tool text) + 2 ("ok")
    return [user("u" * user_chars), call(), result("r" * 480 + "0123456789" + "abcdefghij"), reply()]


def test_just_under_soft_trim_ratio_changes_nothing():
    msgs = soft_case(695)  # 1199 / 4000 < 0.3
    r = prune(msgs)
    assert r.total_chars_before == 1199
    assert r.stage == STAGE_BELOW_SOFT_TRIM_RATIO
    assert not r.changed and r.messages == msgs
    assert r.actions == ["keep"] * 4


def test_at_soft_trim_ratio_soft_trims_with_exact_text():
    msgs = soft_case(696)  # 1200 / 4000 == 0.3: not below
    r = prune(msgs)
    assert r.total_chars_before == 1200
    assert r.actions == ["keep", "keep", "soft_trim", "keep"]
    expected = (
        "r" * 20
        + "\n...\n"
        + "abcdefghij"
        + "\n\n[Tool result trimmed: kept first 20 chars and last 10 chars of 500 chars.]"
    )
    assert text_of(r.messages[2]) == expected
    assert r.chars_after[2] == len(expected)
    assert r.total_chars_after == 1200 - 500 + len(expected)
    assert r.stage == STAGE_BELOW_HARD_CLEAR_RATIO
    assert r.soft_trim_raw_lens == {2: 500}


# ------------------------------------------------------------------------------------------- hard clear ratio


def hard_case(user_chars: int) -> list[dict]:
    # tool text 500 <= maxChars 1000: soft trim leaves it alone, so the hard-clear ratio sees the raw total
    return [user("u" * user_chars), call(), result("r" * 500), reply()]


def hard_settings(**kw) -> ContextPruningSettings:
    return settings(soft=SoftTrimSettings(max_chars=1000, head_chars=20, tail_chars=10), **kw)


def test_just_under_hard_clear_ratio_keeps_the_result():
    r = prune(hard_case(1495), hard_settings())  # 1999 / 4000 < 0.5
    assert r.total_chars_before == 1999
    assert r.stage == STAGE_BELOW_HARD_CLEAR_RATIO
    assert not r.changed
    assert r.prunable_indexes == [2]


def test_at_hard_clear_ratio_clears_with_placeholder():
    msgs = hard_case(1496)  # 2000 / 4000 == 0.5
    r = prune(msgs, hard_settings())
    assert r.stage == STAGE_HARD_CLEARED
    assert r.actions == ["keep", "keep", "hard_clear", "keep"]
    assert r.messages[2]["content"] == [{"type": "text", "text": PLACEHOLDER}]
    assert r.total_chars_after == 2000 - 500 + 33
    assert r.prunable_tool_chars == 500


def test_hard_clear_goes_oldest_first_and_stops_below_ratio():
    # 1100 + 2 + 600 + 2 + 600 + 2 = 2306; clearing the first gives 1739 < 2000 -> the second stays
    msgs = [user("u" * 1100), call("a"), result("x" * 600, cid="a"), call("b"), result("y" * 600, cid="b"), reply()]
    r = prune(msgs, hard_settings())
    assert r.actions == ["keep", "keep", "hard_clear", "keep", "keep", "keep"]
    assert r.total_chars_after == 2306 - 600 + 33
    assert r.messages[4] is msgs[4]


def test_hard_clear_can_clear_a_soft_trimmed_result():
    # soft trim cuts 5000 -> 111 chars but the user message alone keeps the ratio >= 0.5
    msgs = [user("u" * 2100), call(), result("z" * 5000), reply()]
    r = prune(msgs)
    assert r.actions[2] == "hard_clear"
    assert text_of(r.messages[2]) == PLACEHOLDER
    assert r.chars_after[2] == 33


def test_hard_clear_disabled_stops_after_soft_trim():
    msgs = [user("u" * 2100), call(), result("z" * 5000), reply()]
    r = prune(msgs, settings(hard=HardClearSettings(enabled=False)))
    assert r.stage == STAGE_HARD_CLEAR_DISABLED
    assert r.actions[2] == "soft_trim"


def test_custom_placeholder():
    r = prune(hard_case(1496), hard_settings(hard=HardClearSettings(placeholder="<gone>")))
    assert text_of(r.messages[2]) == "<gone>"


# ------------------------------------------------------------------------------------- minPrunableToolChars


def test_min_prunable_tool_chars_gate_is_strictly_below():
    msgs = hard_case(1496)  # prunable tool chars = 500
    below = prune(msgs, hard_settings(min_prunable_tool_chars=501))
    assert below.stage == STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS
    assert below.prunable_tool_chars == 500 and not below.changed
    at = prune(msgs, hard_settings(min_prunable_tool_chars=500))
    assert at.stage == STAGE_HARD_CLEARED and at.actions[2] == "hard_clear"


def test_min_prunable_counts_soft_trimmed_sizes():
    # 5000-char result soft-trims to 111; with min 112 no hard clear happens although the ratio stays high
    msgs = [user("u" * 2100), call(), result("z" * 5000), reply()]
    trimmed_len = 20 + 5 + 10 + len("\n\n[Tool result trimmed: kept first 20 chars and last 10 chars of 5000 chars.]")
    r = prune(msgs, settings(min_prunable_tool_chars=trimmed_len + 1))
    assert r.prunable_tool_chars == trimmed_len
    assert r.stage == STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS
    assert r.actions[2] == "soft_trim"


# ------------------------------------------------------------------------------ cutoff and first user message


def test_no_user_message_means_nothing_is_prunable():
    msgs = [call(), result("z" * 5000), reply()]
    r = prune(msgs)
    assert r.first_user_index is None and r.prune_start_index == 3
    assert not r.changed and r.prunable_indexes == []


def test_results_before_the_first_user_message_are_protected():
    msgs = [call("boot"), result("b" * 5000, cid="boot"), user("u" * 2000), call(), result("z" * 5000), reply()]
    r = prune(msgs)
    assert r.first_user_index == 2
    assert r.messages[1] is msgs[1]
    assert r.actions[4] in ("soft_trim", "hard_clear")


def test_fewer_assistants_than_keep_last_assistants():
    msgs = [user("u" * 2000), call(), result("z" * 5000), reply()]
    r = prune(msgs, settings(keep_last_assistants=3))
    assert r.stage == STAGE_TOO_FEW_ASSISTANTS and r.cutoff_index is None
    assert not r.changed


def test_cutoff_protects_the_last_assistants_and_what_follows():
    msgs = [user("u" * 2000), call("a"), result("x" * 5000, cid="a"), call("b"), result("y" * 5000, cid="b"), reply()]
    r = prune(msgs, settings(keep_last_assistants=2))
    assert r.cutoff_index == 3
    assert r.actions[2] != "keep"
    assert r.messages[4] is msgs[4]


def test_keep_last_assistants_zero_makes_everything_prunable():
    msgs = [user("u" * 2000), call(), result("z" * 5000)]
    r = prune(msgs, settings(keep_last_assistants=0))
    assert r.cutoff_index == 3
    assert r.actions[2] != "keep"


def test_no_context_window():
    r = prune(soft_case(5000), window=0)
    assert r.stage == STAGE_NO_CONTEXT_WINDOW and not r.changed and r.char_window is None


# ---------------------------------------------------------------------------------------------- multi-part


def test_head_and_tail_across_parts_joined_by_newline():
    parts = ["AAAA", "BBBB", "CCCC"]
    assert take_head_from_joined_text(parts, 6) == "AAAA\nB"
    assert take_head_from_joined_text(parts, 5) == "AAAA\n"
    assert take_tail_from_joined_text(parts, 6) == "B\nCCCC"
    assert take_tail_from_joined_text(parts, 5) == "\nCCCC"
    assert take_tail_from_joined_text(parts, 4) == "CCCC"  # no separator once the budget is spent
    assert take_head_from_joined_text(parts, 4) == "AAAA"
    assert take_head_from_joined_text(parts, 0) == "" and take_tail_from_joined_text([], 3) == ""


def test_multi_part_text_result_is_trimmed_as_one_joined_text():
    msg = result([{"type": "text", "text": t} for t in ("AAAA", "BBBB", "CCCC")])
    s = settings(soft=SoftTrimSettings(max_chars=10, head_chars=6, tail_chars=6))
    out = soft_trim_tool_result(msg, s)
    assert out is not None
    assert text_of(out) == "AAAA\nB\n...\nB\nCCCC\n\n[Tool result trimmed: kept first 6 chars and last 6 chars of 14 chars.]"


def test_multi_part_within_limits_is_left_as_is():
    msg = result([{"type": "text", "text": t} for t in ("AAAA", "BBBB", "CCCC")])
    assert soft_trim_tool_result(msg, settings(soft=SoftTrimSettings(14, 6, 6))) is None  # rawLen 14 <= maxChars
    assert soft_trim_tool_result(msg, settings(soft=SoftTrimSettings(10, 7, 7))) is None  # head+tail >= rawLen


# -------------------------------------------------------------------------------------------------- images


def img() -> dict:
    return {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}


def test_short_result_with_image_becomes_one_text_block():
    msg = result([{"type": "text", "text": "see"}, img()])
    out = soft_trim_tool_result(msg, settings())
    assert out is not None and out["content"] == [{"type": "text", "text": "see\n" + PRUNED_CONTEXT_IMAGE_MARKER}]
    assert openclaw_prune_chars(msg) == 3 + 8000
    assert openclaw_prune_chars(out) == 4 + len(PRUNED_CONTEXT_IMAGE_MARKER)


def test_image_only_result_becomes_the_marker():
    out = soft_trim_tool_result(result([img()]), settings())
    assert out is not None and text_of(out) == PRUNED_CONTEXT_IMAGE_MARKER


def test_long_result_with_image_trims_across_the_marker():
    msg = result([{"type": "text", "text": "A" * 120}, img(), {"type": "text", "text": "B" * 120}])
    s = settings(soft=SoftTrimSettings(max_chars=200, head_chars=170, tail_chars=30))
    out = soft_trim_tool_result(msg, s)
    raw_len = 120 + 38 + 120 + 2
    head = "A" * 120 + "\n" + PRUNED_CONTEXT_IMAGE_MARKER + "\n" + "B" * 10
    assert len(head) == 170
    assert text_of(out) == head + "\n...\n" + "B" * 30 + f"\n\n[Tool result trimmed: kept first 170 chars and last 30 chars of {raw_len} chars.]"


def test_image_results_are_soft_trimmed_by_the_pruner_even_when_short():
    msgs = [user("u" * 1200), call(), result([{"type": "text", "text": "see"}, img()]), reply()]
    r = prune(msgs, hard_settings())
    assert r.actions[2] == "soft_trim"
    assert r.total_chars_after == r.total_chars_before - 8003 + 4 + 38


# ---------------------------------------------------------------------------------------------- CJK, UTF-16


def test_cjk_result_is_weighted_for_the_ratio_but_trimmed_by_raw_length():
    cjk = "中" * 90  # raw length 90 <= maxChars 100, estimate 90 * 4 = 360
    msgs = [user("u" * 1700), call(), result(cjk), reply()]
    assert openclaw_prune_chars(msgs[2]) == 360
    r = prune(msgs)
    # 1700 + 2 + 360 + 2 = 2064 >= 2000: no soft trim (raw 90 chars), but hard clear takes it
    assert r.total_chars_before == 2064
    assert r.soft_trim_raw_lens == {}
    assert r.actions[2] == "hard_clear"
    assert r.total_chars_after == 2064 - 360 + 33


def test_cjk_result_over_max_chars_is_cut_by_code_units():
    msg = result("中文" * 60)  # 120 units
    out = soft_trim_tool_result(msg, settings())
    assert text_of(out).startswith("中文" * 10 + "\n...\n" + "中文" * 5 + "\n\n[Tool result trimmed:")
    assert text_of(out).endswith("of 120 chars.]")


def test_emoji_cut_leaves_lone_surrogates_like_javascript():
    # "😀" is 2 UTF-16 units; head 20 ends inside it, tail 10 starts inside the last one
    text = "a" * 19 + "😀" + "m" * 100 + "😀" + "z" * 9
    assert len(text.encode("utf-16-le")) // 2 == 132
    out = soft_trim_tool_result(result(text), settings())
    body = text_of(out)
    assert body.startswith("a" * 19 + "\ud83d\n...\n\ude00" + "z" * 9 + "\n\n")
    assert body.endswith("of 132 chars.]")


# ---------------------------------------------------------------------------------------------- allow/deny


def test_allow_and_deny_globs_with_deny_winning():
    msgs = [user("u" * 2000)]
    names = ["Read_File", "read_secret", "exec", "grep", "READ_ALL"]
    for i, name in enumerate(names):
        msgs += [call(f"c{i}", name), result("z" * 5000, name=name, cid=f"c{i}")]
    msgs.append(reply())
    s = settings(tools={"allow": ["read*", " Exec "], "deny": ["read_secret", "*_all"]})
    r = prune(msgs, s)
    acted = {msgs[i]["toolName"] for i, a in enumerate(r.actions) if a != "keep"}
    assert r.prunable_indexes == [2, 6]
    assert acted == {"Read_File", "exec"}


def test_deny_star_protects_everything():
    msgs = [user("u" * 2000), call(), result("z" * 5000), reply()]
    r = prune(msgs, settings(tools={"deny": ["*"]}))
    assert not r.changed and r.prunable_indexes == []


# ----------------------------------------------------------------------------------- fields and immutability


def test_details_tool_call_id_and_is_error_are_kept_in_key_order():
    details = {"path": "/x", "lines": 5000}
    msg = result("z" * 5000, details=details)
    msg["isError"] = True
    msgs = [user("u" * 2100), call(), msg, reply()]
    snapshot = copy.deepcopy(msgs)
    r = prune(msgs)
    out = r.messages[2]
    assert list(out) == list(msg)
    assert out["details"] == details and out["toolCallId"] == "c1" and out["isError"] is True
    assert msgs == snapshot  # input untouched
    assert r.messages[0] is msgs[0] and r.messages[1] is msgs[1] and r.messages[3] is msgs[3]


def test_drop_thinking_for_estimate_spares_the_latest_assistant():
    thinking = {"type": "thinking", "thinking": "t" * 800, "thinkingSignature": "s" * 200}
    older = {"role": "assistant", "content": [thinking, {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}]}
    latest = {"role": "assistant", "content": [dict(thinking), {"type": "text", "text": "ok"}]}
    msgs = [user("u" * 200), older, result("r" * 50), latest]
    plain = prune(msgs)
    dropped = prune(msgs, drop_thinking_blocks_for_estimate=True)
    assert plain.chars_before[1] == 1002 and dropped.chars_before[1] == 2
    assert plain.chars_before[3] == dropped.chars_before[3] == 1002
    assert dropped.total_chars_before == plain.total_chars_before - 1000
