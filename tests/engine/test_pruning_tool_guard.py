"""The tool-result context guard (spec §5): single-result truncation and the whole-context overflow check.

A 2000-token window gives maxSingleToolResultChars = max(1024, floor(2000*2*0.5)) = 2000 and
maxContextChars = max(1024, floor(2000*4*0.9)) = 7200; a tool result estimates as 2x its text (plus details).
"""

from __future__ import annotations

from inspector.rules.openclaw_2026_4_12.pruning.tool_guard import (
    PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE,
    evaluate_tool_result_context_guard,
    format_context_limit_truncation_notice,
    guard_limits,
    truncate_text_to_budget,
)
from inspector.rules.openclaw_2026_4_12.tokens import tool_guard_chars


def result(content, details=None, role="toolResult"):
    msg = {"role": role, "toolCallId": "c", "toolName": "read", "content": content}
    if details is not None:
        msg["details"] = details
    msg["isError"] = False
    return msg


def text(t):
    return [{"type": "text", "text": t}]


def test_limits():
    assert guard_limits(2000) == (2000, 7200, 2000)
    assert guard_limits(100) == (100, 1024, 1024)
    assert guard_limits(200_000.7) == (200_000, 720_000, 200_000)


def test_notice_text():
    assert format_context_limit_truncation_notice(535) == "[... 535 more characters truncated]"
    assert format_context_limit_truncation_notice(0) == "[... 1 more characters truncated]"


def test_truncation_without_newlines_fills_the_budget_exactly():
    t = truncate_text_to_budget("x" * 1500, 1000)
    assert t.cut_point == 965 and not t.cut_at_newline
    assert t.text == "x" * 965 + "[... 535 more characters truncated]"
    assert len(t.text) == 1000


def test_truncation_cuts_at_a_newline_past_70_percent():
    body = ("x" * 99 + "\n") * 15  # newlines at 99, 199, ..., 1499
    t = truncate_text_to_budget(body, 1000)
    assert t.cut_at_newline and t.cut_point == 899
    assert t.text == body[:899] + "[... 601 more characters truncated]"


def test_truncation_ignores_a_newline_before_70_percent():
    body = "x" * 600 + "\n" + "y" * 900
    t = truncate_text_to_budget(body, 1000)
    assert not t.cut_at_newline and t.cut_point == 965


def test_guard_truncates_an_oversized_result_and_drops_details():
    msgs = [{"role": "user", "content": "hi"}, result(text("x" * 1500), details={"big": True})]
    assert tool_guard_chars(msgs[1]) == 2 * (1500 + len('{"big":true}'))
    rep = evaluate_tool_result_context_guard(msgs, 2000)
    assert [g.index for g in rep.truncated] == [1]
    g = rep.truncated[0]
    assert g.kind == "truncated" and g.text_budget == 1000
    after = rep.messages_after[1]
    assert "details" not in after and after["toolCallId"] == "c" and after["isError"] is False
    assert after["content"] == text("x" * 965 + "[... 535 more characters truncated]")
    assert g.estimate_after == 2000
    assert msgs[1]["details"] == {"big": True}  # input untouched
    assert not rep.overflow


def test_result_at_the_limit_is_left_alone():
    rep = evaluate_tool_result_context_guard([result(text("x" * 1000))], 2000)
    assert rep.truncated == [] and rep.context_chars_after == 2000


def test_small_text_with_image_keeps_only_the_text():
    msg = result(text("hi") + [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], details={"k": 1})
    rep = evaluate_tool_result_context_guard([msg], 2000)
    g = rep.truncated[0]
    assert g.kind == "text_only"
    assert rep.messages_after[0]["content"] == text("hi") and "details" not in rep.messages_after[0]


def test_image_only_result_becomes_the_notice():
    msg = result([{"type": "image", "data": "AAAA", "mimeType": "image/png"}])
    rep = evaluate_tool_result_context_guard([msg], 2000)
    # estimate 16000, over by 14000 -> floor(14000 / 2) = 7000
    assert rep.messages_after[0]["content"] == text("[... 7000 more characters truncated]")


def test_string_content_stays_a_string_and_role_tool_is_recognized():
    msg = result("y" * 1500, role="tool")
    rep = evaluate_tool_result_context_guard([msg], 2000)
    assert rep.messages_after[0]["content"] == "y" * 965 + "[... 535 more characters truncated]"


def test_overflow_after_truncation():
    msgs = [{"role": "user", "content": "u" * 7000}, result(text("x" * 100))]
    rep = evaluate_tool_result_context_guard(msgs, 2000)
    assert rep.context_chars_after == 7200 and not rep.overflow  # not over
    msgs[0]["content"] += "u"
    rep = evaluate_tool_result_context_guard(msgs, 2000)
    assert rep.overflow and rep.error == PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE


def test_cut_inside_a_surrogate_pair_keeps_the_lone_half():
    body = "x" * 964 + "😀" + "z" * 600
    t = truncate_text_to_budget(body, 1000)
    assert t.cut_point == 965
    assert t.text.startswith("x" * 964 + "\ud83d[... ")


def test_suffix_length_is_refined_across_a_digit_boundary():
    # first guess: 9990 omitted (4 digits) -> body 964 -> 10026 omitted (5 digits) -> body 963
    t = truncate_text_to_budget("x" * 10_990, 1000)
    assert t.cut_point == 963
    assert t.text == "x" * 963 + "[... 10027 more characters truncated]"
    assert len(t.text) == 1000
