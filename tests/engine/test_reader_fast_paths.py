"""The reader's fast paths give exactly what the general paths give.

- `model.sum_packed_usage` (figures' usage totals, summed column by column from the packed usage) equals adding
  the unpacked usage dicts one by one, as `figures.sum_usage` used to;
- `tokens.fused.stringify_len_or_throw` (tool-call arguments and `details` measured from orjson's output) equals
  `JSON.stringify(value).length` from `jsjson` (and -1 where JavaScript throws);
- `estimate_all`'s ASCII fast paths equal the four estimators on ASCII text full of digits, dots and escapes.
"""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.figures.session_figures import sum_usage
from inspector.js.jsjson import JSStringifyError, js_stringify, js_stringify_len
from inspector.model import entries as m
from inspector.read.estimates import reader_estimates
from inspector.rules.openclaw_2026_4_12.tokens import (
    estimate_all,
    openclaw_compaction_tokens,
    openclaw_prune_chars,
    pi_estimate_tokens,
    tool_guard_chars,
)
from inspector.rules.openclaw_2026_4_12.tokens.fused import stringify_len_or_throw

LAYOUT = reader_estimates().layout

# -- usage totals ------------------------------------------------------------------------------------------------


def _reference_totals(usages: list[object]) -> dict:
    """The loop `figures.sum_usage` ran over every entry's unpacked usage dict before it summed packed usage."""
    totals: dict = dict.fromkeys(m.USAGE_KEYS, 0)
    cost: dict = dict.fromkeys(m.COST_KEYS, 0.0)
    calls = 0
    for raw in usages:
        u = m.unpack_usage(m.pack_usage(raw))
        if not u:
            continue
        calls += 1
        for k in m.USAGE_KEYS:
            if k in u:
                totals[k] += u[k]
        for k, v in u.get("cost", {}).items():
            cost[k] += v
    totals["cost"] = {k: round(v, 10) for k, v in cost.items()}
    totals["assistant_calls"] = calls
    return totals


def _entries(usages: list[object]) -> list[m.Entry]:
    return [
        m.Entry(i, LAYOUT.pack_nums(i + 1, 0, 1, None, None), LAYOUT, m.MESSAGE, f"e{i}", None, role="assistant", usage_packed=m.pack_usage(u))
        for i, u in enumerate(usages)
    ]


def _same(a: object, b: object) -> bool:
    """Equal, and of the same type everywhere (an int total must not come back as a float)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return type(a) is type(b) and a == b


_number = st.one_of(
    st.integers(0, 300_000),
    st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False),
    st.floats(0, 10, allow_nan=False),
    st.sampled_from([0.5, -0.0, 1e308, float("inf"), 2.0**53, 2.0**53 + 2]),
)
_field = st.one_of(_number, st.none(), st.text(max_size=2), st.booleans())
_usage = st.one_of(
    st.fixed_dictionaries({}, optional=dict.fromkeys(m.USAGE_KEYS, _field) | {"cost": st.one_of(
        st.fixed_dictionaries({}, optional=dict.fromkeys(m.COST_KEYS, _field)), st.none(), st.integers())}),
    st.none(),
    st.just({}),
    st.integers(),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_usage, max_size=30))
def test_sum_usage_equals_adding_unpacked_dicts(usages: list[object]) -> None:
    assert _same(sum_usage(_entries(usages)), _reference_totals(usages))


def test_sum_usage_across_batches_keeps_the_order_of_float_additions() -> None:
    """More usages than one batch: integral totals stay exact ints, costs are added in file order, and a
    fractional token count met in a later batch turns the total into a float exactly where the loop did."""
    usages: list[object] = []
    for i in range(10_000):
        c = 0.1 + i * 1e-7
        usages.append(
            {"input": i, "output": 2**40 + i, "cacheRead": 0, "cacheWrite": 3, "totalTokens": 7 if i != 6000 else 7.25,
             "cost": {"input": c, "output": 1e-9 * i, "cacheRead": 0, "cacheWrite": 1e16, "total": c * 3}}
        )
    usages[123] = None
    usages[9000] = {"cost": {}}  # nothing standard: not a call
    totals = sum_usage(_entries(usages))
    assert _same(totals, _reference_totals(usages))
    assert totals["assistant_calls"] == 9_998 and type(totals["input"]) is int and type(totals["totalTokens"]) is float


def test_packed_usage_with_no_standard_field_is_not_a_call() -> None:
    assert m.sum_packed_usage([m.pack_usage({"foo": 1}), None, m.pack_usage({"output": 3})])[2] == 1


# -- JSON.stringify lengths of arguments and details ---------------------------------------------------------------

_text = st.text(st.sampled_from('ab1.0e9E5-+"\\\n\t\x01 é中😀'), max_size=20)
_scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.sampled_from([1.0, 1e21, 1e-7, 0.1, -0.0]), _text
)
_value = st.recursive(_scalar, lambda c: st.lists(c, max_size=4) | st.dictionaries(_text, c, max_size=4), max_leaves=40)


def _js_length_or_throw(value: object) -> int:
    try:
        return js_stringify_len(value)
    except (TypeError, ValueError, JSStringifyError):
        return -1


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(_text, _value, max_size=6))
def test_arguments_length_equals_json_stringify(value: dict) -> None:
    n = stringify_len_or_throw(value)
    assert n == _js_length_or_throw(value)
    assert n == len(js_stringify(value).encode("utf-16-le", "surrogatepass")) // 2


def test_arguments_length_digits_in_strings_and_deep_values() -> None:
    # digits and dots inside strings only: orjson's output is JavaScript's
    assert stringify_len_or_throw({"cmd": "sleep 1.5 && echo 10000000000000000e5"}) == len('{"cmd":"sleep 1.5 && echo 10000000000000000e5"}')
    # a float or a big integer anywhere: JavaScript's number text decides
    assert stringify_len_or_throw({"t": "1.5", "x": [{"y": 1.0}]}) == len('{"t":"1.5","x":[{"y":1}]}')
    assert stringify_len_or_throw({"t": "1.5", "n": 2**60}) == len('{"t":"1.5","n":1152921504606846976}')
    deep: dict = {"v": "2.5"}
    for _ in range(300):  # deeper than the walk's budget: the exact path decides
        deep = {"a": [deep, 7]}
    assert stringify_len_or_throw(deep) == js_stringify_len(deep)
    assert stringify_len_or_throw({"s": {1, 2}}) == -1  # JSON.stringify would throw


# -- ASCII fast paths of estimate_all ------------------------------------------------------------------------------

_ascii = st.text(st.characters(max_codepoint=127), max_size=40)
_block = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _ascii),
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, "thinkingSignature": s}, _ascii, _ascii),
    st.builds(lambda n, a: {"type": "toolCall", "id": "c", "name": n, "arguments": a}, _ascii, st.dictionaries(_ascii, _value, max_size=3)),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
)
_message = st.builds(
    lambda role, content, details: {"role": role, "content": content, **({} if details is None else {"details": details})},
    st.sampled_from(["user", "assistant", "toolResult"]),
    st.one_of(_ascii, st.lists(_block, max_size=4)),
    st.one_of(st.none(), st.dictionaries(_ascii, _value, max_size=3), _value),
)


@settings(max_examples=400, deadline=None)
@given(_message)
def test_ascii_fast_paths_equal_the_estimators(msg: dict) -> None:
    assert estimate_all(msg) == (pi_estimate_tokens(msg), openclaw_prune_chars(msg), openclaw_compaction_tokens(msg), tool_guard_chars(msg))


# -- the line scanner's chunks -------------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=12), st.booleans(), st.integers(1, 9))
def test_scanner_chunks_split_lines_like_bytes_split(tmp_path_factory, lines: list[bytes], trailing: bool, chunk: int) -> None:
    """Whatever the chunk size, lines crossing chunk boundaries come out whole, with their offsets; what follows
    the last newline stays pending."""
    from inspector.read.lines import LineScanner

    data = b"\n".join(lines) + (b"\n" if trailing else b"")
    path = tmp_path_factory.mktemp("scan") / "s.jsonl"
    path.write_bytes(data)
    scanner = LineScanner(path, chunk_size=chunk)
    got = list(scanner.scan())
    pieces = data.split(b"\n")
    complete, tail = pieces[:-1], pieces[-1]
    starts = [sum(len(p) + 1 for p in complete[:i]) for i in range(len(complete))]
    assert got == [(i + 1, starts[i], p) for i, p in enumerate(complete)]
    assert scanner.pending == tail and scanner.consumed == len(data) - len(tail)
