"""OpenClaw 2026.9.6's fused estimates (`tokens.fused.estimate_all`, `tokens.fused_record.BY_ROLE`, the reader's
`ReaderEstimates.fused` under `openclaw-2026.9.6`) give exactly the plain estimators and the general path's record.

`estimate_all` is compared with the four estimators of `tokens.estimators` (each held to OpenClaw's functions by
tests/integration/test_tokens_2026_9_oracle.py); `extract_record` with `records.message_record_reference` over
that `estimate_all`. Inputs: test_fused_record's generated messages (wrong types, CJK, emoji, lone surrogates,
floats and big integers in arguments) with what 2026.9.6 reads besides (persisted senders, `excludeFromContext:
true`, toolResult blocks, every weight bucket, null blocks, images in assistant messages), the token oracle's random
messages of every role, the corpus and both benchmark shapes.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from conftest import CORPUS, bench_generator
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle.token_cases_2026_9 import BUCKET_SAMPLES, OUTSIDE, random_message
from test_fused_record import _block, _line, _text, _value

from inspector.read.estimates import reader_estimates
from inspector.read.records import MessageRecord, decode_line, extract_record, message_record_reference
from inspector.rules.openclaw_2026_9_6 import tokens
from inspector.rules.openclaw_2026_9_6.tokens.fused_record import BY_ROLE
from inspector.rules.openclaw_2026_9_6.tokens.measure import weighted_lens

RULES = "openclaw-2026.9.6"


def _plain(msg: Any) -> tuple[int, int, int, int]:
    """The four estimators, one by one."""
    return (tokens.pi_estimate_tokens(msg), tokens.openclaw_prune_chars(msg), tokens.openclaw_compaction_tokens(msg),
            tokens.tool_guard_chars(msg))


def _check_line(line: bytes, version: int = 3) -> MessageRecord:
    rec = extract_record(line, version, reader_estimates(RULES))
    assert type(rec) is MessageRecord
    obj, note = decode_line(line)
    expected = tuple(message_record_reference(obj, version, note, tokens.estimate_all))
    assert tuple(rec) == expected
    assert [type(v) for v in rec] == [type(v) for v in expected]  # an int must not come back as a float
    assert rec.estimates == _plain(obj["message"]) or type(obj["message"]) is not dict
    return rec


_weighted = st.sampled_from([chr(cp) for bucket in BUCKET_SAMPLES for cp in bucket] + [chr(cp) for cp in OUTSIDE])
_text9 = st.one_of(_text, st.lists(st.one_of(_weighted, _text), max_size=6).map("".join))
_block9 = st.one_of(
    _block,
    st.builds(lambda t: {"type": "text", "text": t}, _text9),
    st.builds(lambda k, t: {"type": k, "text": t}, st.sampled_from(["toolResult", "tool_result"]), _text9 | _value),
    st.builds(lambda k, c: {"type": k, "content": c}, st.sampled_from(["toolResult", "tool_result"]), _text9 | _value),
    st.builds(lambda t: {"type": "thinking", "thinking": t}, _text9),
    st.builds(lambda n, a: {"type": "toolCall", "id": "c", "name": n, "arguments": a}, _text9, st.dictionaries(_text9, _text9 | _value, max_size=3)),
    st.builds(lambda a: {"type": "toolCall", "id": "c", "name": "n", "arguments": a}, st.none() | _value),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
    st.none(),
)
_sender = st.one_of(
    _value,
    st.fixed_dictionaries({}, optional={"senderId": _text9 | _value, "senderName": _text9 | _value, "senderUsername": _text9 | _value}),
)
_message9 = st.builds(
    lambda role, content, extra: {"role": role, "content": content, **extra},
    st.sampled_from(["user", "assistant", "toolResult"]),
    st.one_of(_text9, st.lists(_block9, max_size=6), _value),
    st.fixed_dictionaries({}, optional={
        "__openclaw": _sender, "excludeFromContext": st.sampled_from([True, False, 1, "true", None]),
        "toolName": _text9, "toolCallId": _text9, "usage": _value, "timestamp": st.integers(0, 2**41), "details": _value,
    }),
)


@settings(max_examples=800, deadline=None)
@given(_message9, st.sampled_from(["e1", None, 5]), st.sampled_from([None, "p", 7]))
def test_fused_record_equals_the_general_path(msg: dict, eid: object, parent: object) -> None:
    _check_line(_line(msg, eid, parent))  # lone surrogates and out-of-range numbers included: the general decoder


@settings(max_examples=200, deadline=None)
@given(_message9, st.sampled_from(["\ud800", "a\udc00b", "\udbff\udfff", "\ud840\udc00"]))
def test_fused_record_on_lone_surrogates_equals_the_general_path(msg: dict, lone: str) -> None:
    msg = copy.deepcopy(msg)
    msg["content"] = [{"type": "text", "text": lone}, {"type": "toolCall", "id": lone, "name": lone, "arguments": {"a": lone}}]
    _check_line(_line(msg))


@settings(max_examples=600, deadline=None)
@given(_message9 | st.builds(lambda m, r: {**m, "role": r}, _message9, st.sampled_from(["custom", "tool", "bashExecution", "x"])))
def test_estimate_all_equals_the_four_estimators(msg: dict) -> None:
    assert tokens.estimate_all(msg) == _plain(msg)


def test_estimate_all_on_every_role_of_the_token_cases() -> None:
    rng = random.Random(2026_9)
    messages = [random_message(rng) for _ in range(4000)]
    for msg in messages[::7]:
        msg["excludeFromContext"] = True
    assert [tokens.estimate_all(msg) for msg in messages] == [_plain(msg) for msg in messages]
    assert len({msg["role"] for msg in messages}) == 9  # user, assistant, toolResult, tool, custom, bash, summaries, system


@settings(max_examples=500, deadline=None)
@given(_text9)
def test_weighted_lens_are_the_three_measures(s: str) -> None:
    assert weighted_lens(s) == (tokens.js_len(s), tokens.estimate_string_chars(s), tokens.estimate_string_chars_raw_weight(s, 2))


def test_every_fused_role_is_checked() -> None:
    assert set(BY_ROLE) == {"user", "assistant", "toolResult"}
    assert reader_estimates(RULES).fused == BY_ROLE


def _lines_of(path) -> list[bytes]:
    return [line for line in path.read_bytes().split(b"\n") if line.strip()]


def test_fused_record_on_the_corpus() -> None:
    files = sorted(CORPUS.glob("**/*.jsonl"))
    if not files:
        pytest.skip(f"corpus not available: {CORPUS}")
    checked = 0
    for path in files:
        for line in _lines_of(path):
            rec = extract_record(line, 3, reader_estimates(RULES))
            if type(rec) is MessageRecord and rec.role in BY_ROLE:
                _check_line(line)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("shape", ["chat", "tools"])
def test_fused_record_on_both_benchmark_shapes(tmp_path, shape: str) -> None:
    path = tmp_path / f"{shape}.jsonl"
    bench_generator().generate(path, entries=1200, seed=11, shape=shape)
    roles = set()
    for line in _lines_of(path):
        if b'"type":"message"' in line:
            roles.add(_check_line(line).role)
    assert roles == {"user", "assistant", "toolResult"}
