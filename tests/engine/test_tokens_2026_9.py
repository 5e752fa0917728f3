"""OpenClaw 2026.9.6's estimators and usage rules, one case per rule that changed: each case also shows that
2026.4.12's function gives a different number (tests/integration/test_tokens_2026_9_oracle.py checks them all
against the real functions)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from oracle.token_cases_2026_9 import random_message

from inspector.rules import openclaw_2026_4_12 as april_release
from inspector.rules.openclaw_2026_4_12 import tokens as april
from inspector.rules.openclaw_2026_9_6 import tokens as sept
from inspector.rules.ruleset import rule_set


def _usage(total: int, **extra: Any) -> dict[str, Any]:
    return {"input": total, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total, **extra}


def _assistant(usage: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": "x" * 40}], "stopReason": "stop"}
    if usage is not None:
        msg["usage"] = usage
    return {**msg, **extra}


def test_the_rule_set_takes_this_tokens_part() -> None:
    rules = rule_set("openclaw-2026.9.6")
    assert rules.owns("tokens") and rules.tokens is sept
    assert [e.name for e in rules.estimators] == [e.name for e in april_release.RELEASE.estimators]
    assert [e.field for e in sept.ESTIMATORS] == [e.field for e in april.ESTIMATORS]
    assert set(april.__all__) <= set(sept.__all__)


@pytest.mark.parametrize(
    ("text", "chars", "april_chars"),
    [
        ("\u00b7", 4, 1),  # common bucket: the middle dot
        ("中文", 8, 8),  # common CJK: unchanged
        ("\uff01", 4, 1),  # fullwidth forms are common now
        ("\u1100", 12, 1),  # rare BMP: Hangul Jamo
        ("\u2e80", 12, 4),  # rare BMP (2026.4.12: common)
        ("\ufe10", 8, 1),  # two-token
        ("\U0001d360", 12, 2),  # three-token supplementary (counting rods)
        ("\U00020000", 16, 4),  # supplementary ideograph: no surrogate-pair subtraction
        ("\U0002fa20中", 6, 5),  # outside every bucket next to a weighted one: 2 (2026.4.12 subtracted the pair)
        ("\ud840", 1, 1),  # a lone surrogate is one unweighted unit
    ],
)
def test_estimate_string_chars_buckets(text: str, chars: int, april_chars: int) -> None:
    assert sept.estimate_string_chars(text) == chars
    assert april.estimate_string_chars(text) == april_chars


def test_split_surrogate_pairs_are_joined_as_javascript_reads_them() -> None:
    assert sept.estimate_string_chars("\ud840\udc00") == sept.estimate_string_chars("\U00020000") == 16


def test_raw_weight_two_doubles_the_length_and_lowers_the_extras() -> None:
    assert sept.estimate_string_chars_raw_weight("ab", 2) == 4
    assert sept.estimate_string_chars_raw_weight("中", 2) == 4  # 2 + 2
    assert sept.estimate_string_chars_raw_weight("\u1100", 2) == 12  # 2 + 10
    assert sept.estimate_string_chars_raw_weight("\U00020000", 2) == 16  # 4 + 12


def test_agent_core_estimate_weights_cjk() -> None:
    msg = {"role": "assistant", "content": [{"type": "text", "text": "中文中文"}]}
    assert sept.pi_estimate_tokens(msg) == 4  # 16 chars
    assert april.pi_estimate_tokens(msg) == 1


def test_images_count_8000_chars_user_images_too() -> None:
    user = {"role": "user", "content": [{"type": "image", "data": "x"}]}
    tool = {"role": "toolResult", "content": [{"type": "image", "data": "x"}]}
    # + the image placeholder ("[image data omitted from summary input]", 39 chars, + 17)
    assert sept.pi_estimate_chars(user) == sept.pi_estimate_chars(tool) == 8000 + 39 + 17
    assert april.pi_estimate_chars(user) == 0 and april.pi_estimate_chars(tool) == 4800


def test_omitted_blocks_add_their_placeholders_once() -> None:
    msg = {"role": "user", "content": [{"type": "document"}, {"type": "file"}, {"type": "text", "text": "ab"}]}
    assert sept.pi_estimate_chars(msg) == 2 + len(sept.estimators.NON_TEXT_OMITTED_PLACEHOLDER) + 17
    assert april.pi_estimate_chars(msg) == 2


def test_text_blocks_are_joined_by_newlines() -> None:
    msg = {"role": "toolResult", "content": [{"type": "text", "text": "abcd"}, {"type": "text", "text": "abcd"}]}
    assert sept.pi_estimate_tokens(msg) == 3  # "abcd\nabcd": 9 chars
    assert april.pi_estimate_tokens(msg) == 2


def test_the_sender_suffix_counts() -> None:
    msg = {"role": "user", "content": "hi", "__openclaw": {"senderId": " u1\0 ", "senderName": "", "senderUsername": "bo"}}
    assert sept.persisted_sender_suffix(msg) == ' sender={"id":"u1","username":"bo"}'
    assert sept.pi_estimate_chars(msg) == 2 + 35
    assert april.pi_estimate_chars(msg) == 2
    assert sept.persisted_sender_suffix({**msg, "__openclaw": {"senderName": "bo"}}) == ""


def test_tool_call_without_arguments_counts_undefined() -> None:
    msg = {"role": "assistant", "content": [{"type": "toolCall", "name": "read"}]}
    assert sept.pi_estimate_chars(msg) == 4 + len("undefined")
    assert april.pi_estimate_chars(msg) == 4


def test_excluded_messages_count_nothing() -> None:
    bash = {"role": "bashExecution", "command": "ls", "output": "a", "excludeFromContext": True}
    assert sept.pi_estimate_tokens(bash) == sept.tool_guard_chars(bash) == 0
    assert april.pi_estimate_tokens(bash) == 1


def test_compaction_skips_the_runtime_context_message() -> None:
    msg = {"role": "custom", "customType": "openclaw.runtime-context", "content": "x" * 400}
    assert sept.openclaw_compaction_tokens(msg) == 0
    assert sept.pi_estimate_tokens(msg) == april.openclaw_compaction_tokens(msg) == 100


def test_pruning_counts_assistant_images_and_malformed_text() -> None:
    assistant = {"role": "assistant", "content": [{"type": "image", "data": "x"}]}
    assert sept.openclaw_prune_chars(assistant) == 8000
    assert april.openclaw_prune_chars(assistant) == 0
    user = {"role": "user", "content": [{"type": "text", "text": 5}]}
    assert sept.openclaw_prune_chars(user) == len('{"type":"text","text":5}')
    assert april.openclaw_prune_chars(user) == 0


def test_pruning_after_drop_thinking_blocks() -> None:
    msg = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "thinkingSignature": "s"}]}
    assert sept.openclaw_prune_chars(msg) == 4
    assert sept.openclaw_prune_chars(msg, drop_thinking_blocks=True) == len("[assistant reasoning omitted]")


def test_guard_tool_results_weigh_text_twice_images_16000_and_drop_details() -> None:
    msg = {"role": "toolResult", "content": [{"type": "text", "text": "ab中"}, {"type": "image"}], "details": {"a": 1}}
    assert sept.tool_guard_chars(msg) == (2 * 3 + 2) + 16000
    assert april.tool_guard_chars(msg) == 2 * (3 + 8000 + len('{"a":1}'))
    odd = {"role": "tool", "content": [{"type": "document"}]}
    assert sept.tool_guard_chars(odd) == 2 * len('{"type":"document"}')


def test_guard_measures_bash_summaries_and_custom_messages_by_their_text() -> None:
    bash = {"role": "bashExecution", "command": "ls", "output": "", "exitCode": 0}
    summary = {"role": "compactionSummary", "summary": "done"}
    custom = {"role": "custom", "content": "x" * 10}
    assert sept.tool_guard_chars(bash) == len(sept.bash_execution_to_text(bash))
    assert sept.tool_guard_chars(summary) == len(sept.compaction_summary_text("done"))
    assert sept.tool_guard_chars(custom) == 10
    assert april.tool_guard_chars(bash) == april.tool_guard_chars(summary) == april.tool_guard_chars(custom) == 256


def test_estimate_all_is_the_four_estimators_in_order() -> None:
    rng = random.Random(3)
    for _ in range(500):
        msg = random_message(rng)
        assert sept.estimate_all(msg) == (
            sept.pi_estimate_tokens(msg),
            sept.openclaw_prune_chars(msg),
            sept.openclaw_compaction_tokens(msg),
            sept.tool_guard_chars(msg),
        )


def test_measured_context_usage_is_preferred() -> None:
    usage = _usage(500, contextUsage={"state": "available", "totalTokens": 900})
    assert sept.calculate_context_tokens(usage) == 900
    assert april.calculate_context_tokens(usage) == 500
    assert sept.calculate_context_tokens(_usage(500, contextUsage={"state": "pending", "totalTokens": 900})) == 500


def test_a_zero_usage_does_not_count() -> None:
    messages = [_assistant(_usage(1000)), _assistant(_usage(0))]
    assert sept.estimate_context_tokens(messages)["last_usage_index"] == 0
    assert april.estimate_context_tokens(messages)["last_usage_index"] == 1


def test_a_cli_usage_is_a_barrier_and_everything_is_estimated() -> None:
    messages = [_assistant(_usage(1000)), _assistant(_usage(50), api="cli"), {"role": "user", "content": "x" * 8}]
    got = sept.estimate_context_tokens(messages)
    assert got == {"tokens": 10 + 10 + 2, "usage_tokens": 0, "trailing_tokens": 22, "last_usage_index": None}
    assert april.estimate_context_tokens(messages)["last_usage_index"] == 1
    measured = _usage(50, contextUsage={"state": "available", "totalTokens": 70})
    assert sept.estimate_context_tokens([_assistant(measured, api="cli")])["usage_tokens"] == 70


def test_unavailable_usage_is_skipped_or_a_barrier() -> None:
    skipped = _assistant(_usage(50, contextUsage={"state": "unavailable"}))
    barrier = _assistant(_usage(0, contextUsage={"state": "unavailable"}))
    assert sept.estimate_context_tokens([_assistant(_usage(1000)), skipped])["last_usage_index"] == 0
    assert sept.estimate_context_tokens([_assistant(_usage(1000)), barrier])["last_usage_index"] is None
    assert sept.is_unavailable_context_barrier("assistant", barrier["usage"], None)
    assert not sept.is_unavailable_context_barrier("assistant", skipped["usage"], None)


def test_rows_without_api_use_the_same_walk() -> None:
    rows = [april.UsageRow("user", None, None, 3), april.UsageRow("assistant", "stop", _usage(100), 10)]
    got = sept.context_tokens_from_end(reversed(rows), 2)
    assert (got.tokens, got.last_usage_index) == (100, 1)
