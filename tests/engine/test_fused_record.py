"""The indexer's fused record path (2026.4.12's `tokens.fused_record`, the reader's `ReaderEstimates.fused`) gives exactly the general path's record.

`extract_record` builds a user, assistant or tool-result entry's `MessageRecord` in one pass over the message;
`records.message_record_reference` builds it field by field and then runs `estimate_all` (itself held equal to
the four estimators in test_tokens). Compared on generated messages full of edge values (wrong types, CJK,
emoji, lone surrogates, floats and big integers in arguments and details, duplicate keys in the JSON text), on
the corpus and on both benchmark shapes. Also the byte-level UTF-16 length the JSON lengths use.
"""

from __future__ import annotations

import copy
import json

import pytest
from conftest import CORPUS, bench_generator
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.js.jsjson import js_stringify
from inspector.read.estimates import reader_estimates
from inspector.read.records import MessageRecord, decode_line, extract_record, message_record_reference
from inspector.rules.openclaw_2026_4_12.tokens import estimate_all
from inspector.rules.openclaw_2026_4_12.tokens.fused import stringify_len_or_throw, utf16_len_of_utf8
from inspector.rules.openclaw_2026_4_12.tokens.fused_record import BY_ROLE


def _reference(line: bytes, version: int = 3) -> tuple:
    """The general path's record for a line (parsed as `extract_record` parses it)."""
    obj, note = decode_line(line)
    return tuple(message_record_reference(obj, version, note, estimate_all))


def _check_line(line: bytes, version: int = 3) -> None:
    rec = extract_record(line, version, reader_estimates())
    assert type(rec) is MessageRecord
    expected = _reference(line, version)
    assert tuple(rec) == expected
    assert [type(v) for v in rec] == [type(v) for v in expected]  # an int must not come back as a float


_text = st.text(st.sampled_from('ab 1.0e"\\\n\t你한⺀\u2e7f\u9fff😀\U0002fa20\U00020000éß✓\x00\x1f'), max_size=14)
_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.0, 1e21, 1e-7, 0.1, -0.0, 2**53, 2**53 + 1, 10**16, 99999999999999999, 2**64 - 1, 9999999999999999999]),
    _text,
)
_value = st.recursive(_scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(_text, c, max_size=3), max_leaves=10)
_kind = st.sampled_from(["text", "thinking", "toolCall", "image", "redacted_thinking", "audio", None])
_block = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _text | _value),
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, "thinkingSignature": s}, _text | _value, _text | _value),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d, "thinking": d}, _text | _value),
    st.builds(lambda i, n, a: {"type": "toolCall", "id": i, "name": n, "arguments": a}, _text | _value, _text | _value, _value),
    st.builds(lambda i, n: {"type": "toolCall", "id": i, "name": n}, _text, _text),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
    st.builds(lambda k, v: {"type": k, "v": v}, _kind | _value, _value),
    st.builds(lambda v: {"v": v}, _value),
    _value,
)
_content = st.one_of(_text, st.lists(_block, max_size=5), _value)
_usage = st.one_of(
    st.none(), _value, st.just({"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4, "totalTokens": 10,
                                "cost": {"input": 0.1, "output": 0.2, "cacheRead": 0, "cacheWrite": 0, "total": 0.3}}),
)
_message = st.builds(
    lambda role, content, extra: {"role": role, "content": content, **extra},
    st.sampled_from(["user", "assistant", "toolResult"]),
    _content,
    st.fixed_dictionaries({}, optional={
        "details": _value, "toolName": _text | _value, "toolCallId": _text | _value, "provider": _text | _value,
        "model": _text | _value, "stopReason": _text | _value, "usage": _usage, "timestamp": _scalar,
        "excludeFromContext": _value,
    }),
)


def _line(msg: dict, eid: object = "e1", parent: object = None) -> bytes:
    # json.dumps writes lone surrogates as \ud800 escapes (orjson refuses them; the reader's fallback reads them)
    return json.dumps({"type": "message", "id": eid, "parentId": parent, "message": msg}, ensure_ascii=False,
                      allow_nan=False).encode("utf-8", "surrogatepass")


@settings(max_examples=600, deadline=None)
@given(_message, st.sampled_from(["e1", None, 5]), st.sampled_from([None, "p", 7]))
def test_fused_record_equals_the_general_path(msg: dict, eid: object, parent: object) -> None:
    line = _line(msg, eid, parent)
    _check_line(line)  # lone surrogates and out-of-range numbers included: read by the general decoder


@settings(max_examples=200, deadline=None)
@given(_message, st.sampled_from(["\ud800", "a\udc00b", "\udbff\udfff"]))
def test_fused_record_on_lone_surrogates_equals_the_general_path(msg: dict, lone: str) -> None:
    msg = copy.deepcopy(msg)
    msg["content"] = [{"type": "text", "text": lone}, {"type": "toolCall", "id": lone, "name": lone, "arguments": {"a": lone}}]
    msg["details"] = {"d": lone}
    line = _line(msg)
    _check_line(line)  # orjson refuses lone surrogates: the reader's fallback decoder reads them


def test_duplicate_keys_keep_the_last_value_like_json_parse() -> None:
    lines = [
        b'{"type":"message","id":"a","message":{"role":"user","content":"a","content":"bbbbbbbbb","timestamp":1,"timestamp":2.5}}',
        b'{"type":"message","id":"a","message":{"role":"user","role":"assistant","content":[{"type":"text","text":"x",'
        b'"text":"yyyy"},{"type":"toolCall","arguments":{"a":1,"a":2.5},"name":"q","name":"zz","id":"1","id":"2"}],'
        b'"model":"a","model":"b","usage":{"input":1,"input":5}}}',
        b'{"type":"message","id":"a","message":{"role":"toolResult","content":[{"type":"text","text":"x"}],'
        b'"details":{"a":"x","a":"yyyyy"},"details":null}}',
    ]
    for line in lines:
        _check_line(line)
    rec = extract_record(lines[1], 3, reader_estimates())
    assert rec.role == "assistant" and rec.model == "b" and rec.tool_name == "zz" and rec.tool_call_ids == ("2",)


def test_every_fused_role_is_checked() -> None:
    assert set(BY_ROLE) == {"user", "assistant", "toolResult"}


def _lines_of(path) -> list[bytes]:
    return [line for line in path.read_bytes().split(b"\n") if line.strip()]


def test_fused_record_on_the_corpus() -> None:
    files = sorted(CORPUS.glob("**/*.jsonl"))
    if not files:
        pytest.skip(f"corpus not available: {CORPUS}")
    checked = 0
    for path in files:
        for line in _lines_of(path):
            rec = extract_record(line, 3, reader_estimates())
            if type(rec) is MessageRecord and rec.role in BY_ROLE:
                assert tuple(rec) == _reference(line)
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("shape", ["chat", "tools"])
def test_fused_record_on_both_benchmark_shapes(tmp_path, shape: str) -> None:
    path = tmp_path / f"{shape}.jsonl"
    bench_generator().generate(path, entries=1200, seed=11, shape=shape)
    roles = set()
    for line in _lines_of(path):
        rec = extract_record(line, 3, reader_estimates())
        if type(rec) is MessageRecord:
            assert tuple(rec) == _reference(line)
            roles.add(rec.role)
    assert roles == {"user", "assistant", "toolResult"}


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40).filter(lambda s: not any("\ud800" <= c <= "\udfff" for c in s)))
def test_utf16_length_of_utf8_bytes(s: str) -> None:
    assert utf16_len_of_utf8(s.encode("utf-8")) == len(s.encode("utf-16-le")) // 2


@pytest.mark.parametrize(
    "number", [99999999999999999, 9999999999999999999, 2**64 - 1, -(2**63), 2**53 + 1, 1.0, -0.0, 1e21, 1e-7, 0.1, 5e-324]
)
def test_json_length_of_numbers_javascript_writes_differently(number: object) -> None:
    # 99999999999999999 is the double 1e17 in JavaScript: JSON.stringify writes 100000000000000000 (one digit more)
    for value in ({"n": number}, {"a": [{"n": number}], "s": "1.5"}, {"a": list(range(100)) + [number]}):
        assert stringify_len_or_throw(value) == len(js_stringify(value).encode("utf-16-le", "surrogatepass")) // 2
