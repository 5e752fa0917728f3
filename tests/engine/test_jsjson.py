"""inspector.js.jsjson: JavaScript JSON.stringify, byte for byte."""

from __future__ import annotations

import enum
import json
import math
import random
import re
import shutil
import struct
import subprocess
import uuid
from datetime import UTC, datetime
from decimal import Decimal

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.js import jsjson
from inspector.js.jsjson import JSStringifyError, js_len, js_number_to_string, js_stringify, js_stringify_len

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


# ---- numbers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (-0.0, "0"),
        (0, "0"),
        (5.0, "5"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e16, "10000000000000000"),
        (123456789012345678.0, "123456789012345680"),
        (1.5e300, "1.5e+300"),
        (0.30000000000000004, "0.30000000000000004"),
        (0.0021650000000000003, "0.0021650000000000003"),
        (2.5e-6, "0.0000025"),
        (9.9e-7, "9.9e-7"),
        (3e-7, "3e-7"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1.5e-7, "1.5e-7"),
        (0.1, "0.1"),
        (-2.5, "-2.5"),
        (123456789012345680000.0, "123456789012345680000"),
        (123456789012345678901, "123456789012345680000"),  # int beyond 2**53: rounded to double first
        (9007199254740993, "9007199254740992"),
        (-9007199254740993, "-9007199254740992"),
        (9007199254740992, "9007199254740992"),
        (2**60, "1152921504606847000"),
        (1.5e21, "1.5e+21"),
        (-1e21, "-1e+21"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (float("nan"), "null"),
        (float("inf"), "null"),
        (float("-inf"), "null"),
        (10**400, "null"),  # JSON.parse gives Infinity
        (True, "true"),
        (False, "false"),
    ],
)
def test_number_formatting(value: object, expected: str) -> None:
    assert js_stringify(value) == expected
    assert js_stringify_len(value) == len(expected)


def test_orjson_parsed_big_numbers() -> None:
    # orjson gives a float beyond 64 bits and an int within; both must print like JS.
    parsed = orjson.loads(b"[123456789012345678901, 9007199254740993, 1.0, -0.0, 1e21]")
    assert js_stringify(parsed) == "[123456789012345680000,9007199254740992,1,0,1e+21]"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_text_round_trips_and_uses_js_exponent_rule(x: float) -> None:
    text = js_number_to_string(x)
    assert float(text) == x
    if x == 0:
        assert text == "0"
        return
    exponent = Decimal(repr(x)).adjusted()  # decimal exponent of the leading shortest digit
    if exponent >= 21 or exponent <= -7:
        assert re.fullmatch(r"-?[1-9](\.[0-9]*[1-9])?e[+-][1-9][0-9]*", text), text
        assert int(text.split("e")[1]) == exponent
    else:
        assert re.fullmatch(r"-?[0-9]+(\.[0-9]*[1-9])?", text), text
    assert text.lstrip("-").replace(".", "").strip("0").split("e")[0] == repr(abs(x)).split("e")[0].replace(".", "").strip("0")


# ---- strings --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("plain", '"plain"'),
        ('q"b\\s/', '"q\\"b\\\\s/"'),
        ("\b\f\n\r\t", '"\\b\\f\\n\\r\\t"'),
        ("\x00\x01\x1f\x7f", '"\\u0000\\u0001\\u001f\x7f"'),
        ("é中😀", '"é中😀"'),
        ("\u2028\u2029", '"\u2028\u2029"'),
        ("\ud800", '"\\ud800"'),
        ("a\udfffb", '"a\\udfffb"'),
        ("\ud83d\ude00", '"😀"'),  # a surrogate pair held as two code points is one character in JS
        ("\ude00\ud83d", '"\\ude00\\ud83d"'),  # reversed: two lone surrogates
    ],
)
def test_string_escapes(value: str, expected: str) -> None:
    assert js_stringify(value) == expected
    assert js_stringify_len(value) == js_len(expected)


def test_js_len_counts_utf16_units() -> None:
    assert js_len("abc") == 3
    assert js_len("é") == 1
    assert js_len("中") == 1
    assert js_len("😀") == 2
    assert js_len("\ud800") == 1
    assert js_len("\ud83d\ude00") == 2


# ---- containers -----------------------------------------------------------------------------------------------


def test_compact_containers_keep_key_order() -> None:
    value = {"z": [1, 2.5, None, True], "a": {"k": "v"}, "empty": {}, "list": []}
    assert js_stringify(value) == '{"z":[1,2.5,null,true],"a":{"k":"v"},"empty":{},"list":[]}'
    assert js_stringify_len(value) == len(js_stringify(value))


def test_nested_values_use_js_numbers_and_escapes() -> None:
    value = {"a": [1, 2.0, None, True], "é": "中\n\t\"\\\x01\u2028/", "s": "\ud800x", "p": ["\ud83d\ude00"]}
    assert js_stringify(value) == '{"a":[1,2,null,true],"é":"中\\n\\t\\"\\\\\\u0001\u2028/","s":"\\ud800x","p":["😀"]}'


def test_array_index_keys_come_first_like_js_objects() -> None:
    value = {"b": 1, "10": 2, "2": 3, "01": 4, "-1": 5, "4294967295": 6, "4294967294": 7}
    assert js_stringify(value) == '{"2":3,"10":2,"4294967294":7,"b":1,"01":4,"-1":5,"4294967295":6}'
    assert js_stringify_len(value) == len(js_stringify(value))


def test_non_json_values_throw() -> None:
    with pytest.raises(TypeError):
        js_stringify({"a": {1, 2}})
    with pytest.raises(TypeError):
        js_stringify_len(b"bytes")
    with pytest.raises(TypeError):
        js_stringify({1: "non-string key"})
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(JSStringifyError):
        js_stringify(loop)
    with pytest.raises(JSStringifyError):
        js_stringify_len(loop)


# ---- properties -------------------------------------------------------------------------------------------------

_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=30)
# Keys include array indices (JS lists them first), near misses ("01", "-1") and 2**32-1, which is no index.
_keys = _text | st.integers(min_value=0, max_value=2**33).map(str) | st.sampled_from(["01", "-1", "1.5", "4294967295"])
_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _text,
    lambda children: st.lists(children, max_size=5)
    | st.lists(children, max_size=3).map(tuple)
    | st.dictionaries(_keys, children, max_size=5),
    max_leaves=25,
)
_plain_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=30),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(st.characters(exclude_categories=("Cs",)), max_size=8).filter(lambda k: not k[:1].isdigit()), children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=300)
@given(_json_values)
def test_length_matches_built_string(value: object) -> None:
    assert js_stringify_len(value) == js_len(js_stringify(value))


@settings(max_examples=300)
@given(_plain_values)
def test_matches_python_json_where_they_agree(value: object) -> None:
    # Without floats, big ints, surrogates and index-like keys, JS output equals compact json.dumps.
    assert js_stringify(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@settings(max_examples=200)
@given(_json_values)
def test_output_parses_back(value: object) -> None:
    back = json.loads(js_stringify(value))
    assert js_stringify(back) == js_stringify(value)


# ---- against real JavaScript ------------------------------------------------------------------------------------


def _node_stringify(values: list[object]) -> list[str]:
    """JSON.stringify each value in node; values travel as ASCII JSON (lone surrogates as escapes)."""
    script = (
        "let d='';process.stdin.on('data',c=>d+=c);process.stdin.on('end',()=>{"
        "const vs=JSON.parse(d);process.stdout.write(JSON.stringify(vs.map(v=>JSON.stringify(v))));});"
    )
    payload = json.dumps(values, ensure_ascii=True, allow_nan=False)
    done = subprocess.run([NODE, "-e", script], input=payload, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


@needs_node
def test_numbers_match_node() -> None:
    rng = random.Random(1234)
    values: list[object] = [0.1, 1e21, 1e-7, 123456789012345680000.0, 5e-324, 2.2250738585072014e-308, 1 / 3]
    while len(values) < 3000:
        bits = rng.getrandbits(64)
        x = struct.unpack("<d", bits.to_bytes(8, "little"))[0]
        if math.isfinite(x):
            values.append(x)
    values += [rng.uniform(-1e6, 1e6) for _ in range(500)]
    values += [float(rng.randint(-(10**22), 10**22)) for _ in range(500)]
    values += [rng.randint(-(2**64), 2**64) for _ in range(500)]  # JS parses these literals as doubles
    assert [js_stringify(v) for v in values] == _node_stringify(values)


@needs_node
def test_strings_and_objects_match_node() -> None:
    rng = random.Random(99)
    alphabet = ["a", '"', "\\", "/", "\n", "\x00", "\x1f", "\x7f", "é", "中", "😀", "\u2028", "\ud800", "\udc00", "\U0002fa20"]
    values: list[object] = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(400)]
    values.append({"b": 1, "10": [1.0, -0.0], "2": {"x": None}, "01": "z", "a": [True, False]})
    values.append([{"path": "src/中文/😀.py", "content": "line1\nline2\t\"q\"", "n": 1e-7}])
    expected = _node_stringify(values)
    assert [js_stringify(v) for v in values] == expected
    assert [js_stringify_len(v) for v in values] == [js_len(s) for s in expected]


# -- the orjson fast paths of js_stringify and js_stringify_len must agree with the exact serialiser everywhere --

_finite_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF)),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _finite_json_values, max_size=5))
def test_fast_path_length_equals_exact_length(args):
    assert jsjson.js_stringify_len(args) == len(jsjson.js_stringify(args).encode("utf-16-le", "surrogatepass")) // 2


def test_fast_path_is_taken_for_plain_tool_arguments_and_skipped_for_floats():
    plain = {"path": "src/app.py", "limit": 200, "flags": ["-la", "\u00e9\U0001f600"], "n": None}
    assert jsjson.js_stringify_len(plain) == len(jsjson.js_stringify(plain).encode("utf-16-le", "surrogatepass")) // 2
    assert jsjson.js_stringify_len({"x": 1.0}) == len('{"x":1}')
    assert jsjson.js_stringify_len({"x": 1e16}) == len('{"x":10000000000000000}')
    assert jsjson.js_stringify_len({"x": 9007199254740993}) == len('{"x":9007199254740992}')
    assert jsjson.js_stringify_len({"x": "\ud800"}) == len('{"x":"\\ud800"}')


def _exact(value: object) -> str:
    """The exact (recursive, orjson-free) serialiser: the reference the fast path must reproduce."""
    return jsjson._stringify_to_text(value)


@settings(max_examples=500, deadline=None)
@given(_json_values)
def test_js_stringify_fast_path_equals_exact_serialiser(value: object) -> None:
    assert js_stringify(value) == _exact(value)


def test_js_stringify_does_not_modify_its_argument() -> None:
    value = {"b": [1.0, {"x": 2**60}], "10": 0.5, "a": "s"}
    before = repr(value)
    assert js_stringify(value) == '{"10":0.5,"b":[1,{"x":1152921504606847000}],"a":"s"}'
    assert repr(value) == before and list(value) == ["b", "10", "a"]


def test_subclasses_and_deep_nesting_take_the_exact_path() -> None:
    class Big(enum.IntEnum):
        HUGE = 2**60

    class Text(str):
        pass

    class Ratio(float):
        pass

    value = {"e": Big.HUGE, "t": Text("x"), "r": Ratio(2.0), Text("k"): [Ratio(1e21)]}
    assert js_stringify(value) == '{"e":1152921504606847000,"t":"x","r":2,"k":[1e+21]}' == _exact(value)
    deep: object = 1.0
    for _ in range(400):  # deeper than orjson's 254 levels
        deep = [deep]
    assert js_stringify(deep) == "[" * 400 + "1" + "]" * 400


@pytest.mark.parametrize("odd", [enum.Enum("Colour", "RED").RED, uuid.UUID(int=7), datetime(2026, 1, 1, tzinfo=UTC)])
def test_values_json_parse_never_gives_throw_even_where_orjson_could_write_them(odd: object) -> None:
    with pytest.raises(TypeError):
        js_stringify({"a": [odd]})
