"""JavaScript `JSON.stringify` for values parsed from JSON, byte for byte.

OpenClaw and pi measure tool-call arguments, unknown content blocks and `details` as
`JSON.stringify(value).length` (ECMA-262 `JSON.stringify` + `Number::toString`, UTF-16 length). Python's
`json.dumps` differs in spacing, number formatting (`1.0`, `1e+21` vs `1e21`, big integers) and surrogate
handling, so this module reproduces the JavaScript serialisation for the types a JSON parser produces:

* `dict` (string keys) -> `{"k":v,...}`. Keys keep their order, except that JavaScript lists *array-index*
  keys (canonical decimal integers below 2**32-1) first, in ascending numeric order, as every JS object does.
* `list`/`tuple` -> `[a,b]`; `str` -> quoted string; `bool` -> `true`/`false`; `None` -> `null`.
* `int`/`float` -> JavaScript number text: `1.0` -> `1`, `-0.0` -> `0`, `1e21` -> `1e+21`, `1e-7` -> `1e-7`,
  integers beyond 2**53 rounded to the nearest double first (`9007199254740993` -> `9007199254740992`),
  NaN/Infinity (and integers too large for a double) -> `null`.
* Strings: `"` and `\\` escaped, `\\b \\f \\n \\r \\t` short escapes, other controls below U+0020 as
  `\\u00xx`, lone surrogates as `\\udxxx` (lowercase hex, as JS does); everything else, including `/`, non-ASCII
  and U+2028/U+2029, written as itself.

Anything else (sets, bytes, objects) raises `TypeError`, and a self-referencing container raises
`JSStringifyError`; callers treat both as "JSON.stringify threw", as the TypeScript code does with `catch`.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

__all__ = [
    "JSStringifyError",
    "js_len",
    "js_number_to_string",
    "js_string_literal",
    "js_stringify",
    "js_stringify_len",
    "js_truthy",
]


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness of a JSON value: `null`, `false`, `0`, `NaN` and `""` are falsy; every object and
    array is truthy, even an empty one."""
    if value is None or value is False:
        return False
    if isinstance(value, (dict, list)):
        return True
    if isinstance(value, (int, float)):
        return value == value and value != 0
    if isinstance(value, str):
        return value != ""
    return True


class JSStringifyError(ValueError):
    """The value cannot be serialised the way `JSON.stringify` would (JS would throw)."""


_MAX_SAFE = 2**53
_ARRAY_INDEX_LIMIT = 2**32 - 1

# Characters JSON.stringify escapes, plus surrogate code points (handled specially).
_ESCAPE_RE = re.compile("[\x00-\x1f\"\\\\\ud800-\udfff]")
# Characters that need a long `\u00xx` escape (or are surrogates) — rare; searched before counting.
_LONG_ESCAPE_RE = re.compile("[\x00-\x07\x0b\x0e-\x1f\ud800-\udfff]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_SHORT_ESCAPES = {
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
    '"': '\\"',
    "\\": "\\\\",
}


def js_len(s: str) -> int:
    """Length of `s` as JavaScript counts it: UTF-16 code units (a non-BMP character counts 2).

    Surrogate code points already present in a Python string (lone or as a pair) count 1 each, as in JS.
    """
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) >> 1


def _join_surrogate_pairs(s: str) -> str:
    """Combine high+low surrogate code points into one character, as JS sees them; lone ones stay."""
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _escape_match(m: re.Match[str]) -> str:
    ch = m.group()
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    return "\\u%04x" % ord(ch)


def js_string_literal(s: str) -> str:
    """`JSON.stringify(s)` for a string: the quoted, escaped literal."""
    if _ESCAPE_RE.search(s) is None:
        return '"' + s + '"'
    if _SURROGATE_RE.search(s) is not None:
        s = _join_surrogate_pairs(s)
    return '"' + _ESCAPE_RE.sub(_escape_match, s) + '"'


def _string_literal_len(s: str) -> int:
    """UTF-16 length of `js_string_literal(s)`, computed without building it."""
    if s.isascii():
        n = len(s) + 2
        if s.isprintable():  # no control characters at all
            return n + s.count('"') + s.count("\\")
    else:
        n = js_len(s) + 2
    n += s.count('"') + s.count("\\")
    n += s.count("\n") + s.count("\t") + s.count("\r") + s.count("\b") + s.count("\f")
    if _LONG_ESCAPE_RE.search(s) is not None:
        if _SURROGATE_RE.search(s) is not None:
            s = _join_surrogate_pairs(s)  # a joined pair is one astral character: 2 units, no escape
        n += 5 * len(_LONG_ESCAPE_RE.findall(s))  # 1 unit becomes 6 (`\u00xx` / `\udxxx`)
    return n


def _shortest_digits(r: str) -> tuple[str, int]:
    """Shortest round-trip decimal digits `d` and exponent `n` with |x| = 0.d × 10**n, from `r = repr(x)`.

    Python's `repr(float)` and ECMAScript `Number::toString` both choose the shortest digit string that
    reads back as the same double (closest to the exact value when several qualify), so the digits agree.
    """
    r = r.lstrip("-")
    exp = 0
    epos = r.find("e")
    if epos >= 0:
        exp = int(r[epos + 1 :])
        r = r[:epos]
    dot = r.find(".")
    if dot >= 0:
        int_part, frac_part = r[:dot], r[dot + 1 :]
    else:
        int_part, frac_part = r, ""
    digits = int_part + frac_part
    n = len(int_part) + exp
    stripped = digits.lstrip("0")
    n -= len(digits) - len(stripped)
    return stripped.rstrip("0"), n


def _float_to_js(x: float) -> str:
    r = repr(x)
    if "e" not in r:
        # Positional repr: |x| in [1e-4, 1e16), or inf/nan. Same digits and layout as JS, bar a trailing ".0".
        if "n" in r:  # 'inf', '-inf', 'nan'
            return "null"
        if r.endswith(".0"):
            return "0" if x == 0 else r[:-2]  # -0 prints as 0
        return r
    digits, n = _shortest_digits(r)
    sign = "-" if x < 0 else ""
    k = len(digits)
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    exp_text = ("e+" if e >= 0 else "e-") + str(abs(e))
    if k == 1:
        return sign + digits + exp_text
    return sign + digits[0] + "." + digits[1:] + exp_text


def js_number_to_string(value: int | float) -> str:
    """JavaScript's text for a number as `JSON.stringify` writes it (`null` for NaN/±Infinity).

    Python ints are first converted to the double JavaScript would have parsed (exact up to 2**53, then
    rounded to nearest, ties to even); an int too large for a double is Infinity in JS, hence `null`.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(int(value))
        try:
            value = float(value)
        except OverflowError:
            return "null"
    return _float_to_js(float(value))


def _is_array_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and int(key) < _ARRAY_INDEX_LIMIT
    )


def _ordered_keys(d: dict[Any, Any]) -> list[Any]:
    """Keys in JavaScript property order: array indices ascending, then the rest in insertion order."""
    keys = list(d)
    index_keys = [k for k in keys if isinstance(k, str) and k[:1].isdigit() and _is_array_index(k)]
    if not index_keys:
        return keys
    index_set = set(index_keys)
    return sorted(index_keys, key=int) + [k for k in keys if k not in index_set]


def _has_index_key(d: dict[Any, Any]) -> bool:
    for k in d:
        if isinstance(k, str) and k[:1].isdigit() and _is_array_index(k):
            return True
    return False


def _check_key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"JSON object key must be a string, not {type(key).__name__}")
    return key


def _stringify(value: Any, out: list[str]) -> None:
    t = type(value)
    if t is str:
        out.append(js_string_literal(value))
    elif t is dict:
        if not value:
            out.append("{}")
            return
        out.append("{")
        first = True
        keys = _ordered_keys(value) if _has_index_key(value) else value
        for k in keys:
            if not first:
                out.append(",")
            first = False
            out.append(js_string_literal(_check_key(k)))
            out.append(":")
            _stringify(value[k], out)
        out.append("}")
    elif t is list or t is tuple:
        if not value:
            out.append("[]")
            return
        out.append("[")
        first = True
        for item in value:
            if not first:
                out.append(",")
            first = False
            _stringify(item, out)
        out.append("]")
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, (int, float)):
        out.append(js_number_to_string(value))
    elif isinstance(value, str):
        out.append(js_string_literal(str(value)))
    elif isinstance(value, dict):
        _stringify(dict(value), out)
    elif isinstance(value, (list, tuple)):
        _stringify(list(value), out)
    else:
        raise TypeError(f"{type(value).__name__} is not a JSON value")


def _stringify_len(value: Any) -> int:
    t = type(value)
    if t is str:
        return _string_literal_len(value)
    if t is dict:
        if not value:
            return 2
        n = 1 + len(value)  # braces + (len-1) commas + ... ; colons added per key below
        for k, v in value.items():
            n += _string_literal_len(_check_key(k)) + 1 + _stringify_len(v)
        return n
    if t is list or t is tuple:
        if not value:
            return 2
        n = 1 + len(value)  # brackets + commas
        for item in value:
            n += _stringify_len(item)
        return n
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if t is int:
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return len(str(value))
        return len(js_number_to_string(value))
    if t is float:
        if value.is_integer() and -_MAX_SAFE <= value <= _MAX_SAFE:
            return len(str(int(value)))
        return len(_float_to_js(value))
    if isinstance(value, (bool, int, float, str, dict, list, tuple)):
        return len(_stringify_to_text(value))
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def _stringify_to_text(value: Any) -> str:
    out: list[str] = []
    _stringify(value, out)
    return "".join(out)


# orjson writes what JSON.stringify writes for strings (same short escapes, lower-case \u00xx, everything else
# raw, and it refuses lone surrogates), booleans, null, containers (compact) and integers up to 2**53. Only
# floats, bigger integers and JS's array-index key order need help: `_js_ready` hands orjson a copy where those
# numbers are `orjson.Fragment`s holding JavaScript's text and such objects have their keys in JS order.


class _NotPlainJSON(Exception):
    """A value the orjson fast path must not serialise (a non-JSON type or a subclass): use the exact path."""


def _js_ready(value: Any) -> Any:
    """`value` itself when orjson would write it as JSON.stringify does; else a copy that orjson writes so."""
    t = type(value)
    if t is str or t is bool or value is None:
        return value
    if t is int:
        return value if -_MAX_SAFE <= value <= _MAX_SAFE else orjson.Fragment(js_number_to_string(value))
    if t is float:
        return orjson.Fragment(_float_to_js(value))
    if t is dict:
        return _js_ready_dict(value)
    if t is list or t is tuple:
        return _js_ready_list(value)
    raise _NotPlainJSON


def _js_ready_dict(d: dict[Any, Any]) -> dict[Any, Any]:
    out = None
    for k, v in d.items():
        if type(v) is str:
            continue
        new = _js_ready(v)
        if new is not v:
            if out is None:
                out = d.copy()
            out[k] = new
    src = d if out is None else out
    for k in d:
        if k[:1].isdigit() and _is_array_index(k):
            return {key: src[key] for key in _ordered_keys(d)}
    return src


def _js_ready_list(a: list[Any] | tuple[Any, ...]) -> list[Any] | tuple[Any, ...]:
    out = None
    for i, v in enumerate(a):
        if type(v) is str:
            continue
        new = _js_ready(v)
        if new is not v:
            if out is None:
                out = list(a)
            out[i] = new
    return a if out is None else out


def js_stringify(value: Any) -> str:
    """Reproduce JavaScript `JSON.stringify(value)` (no indentation) for a JSON-parsed Python value.

    Raises `TypeError` for non-JSON types and `JSStringifyError` for self-referencing containers.
    Fast path: orjson on `_js_ready(value)`; anything it cannot vouch for (lone surrogates, subclasses,
    non-string keys, nesting deeper than orjson's 254 levels) goes through the exact serialiser.
    """
    try:
        return orjson.dumps(_js_ready(value)).decode("utf-8")
    except (_NotPlainJSON, TypeError, AttributeError, RecursionError):
        pass  # orjson.JSONEncodeError is a TypeError; a key like (1,) has no .isdigit(); cycles recurse forever
    try:
        return _stringify_to_text(value)
    except RecursionError as exc:
        raise JSStringifyError("value is too deeply nested or circular") from exc


# orjson writes strings exactly as JavaScript does (same short escapes, lower-case \u00xx, everything else
# raw) and refuses lone surrogates; only numbers can differ (1.0 vs 1, 1e+16 vs 10000000000000000, digits
# past 2^53). Any digit followed by '.', 'e' or 15 more digits -- in a number or inside a string -- sends
# the value down the exact path. (Digits are mapped to '0' first: bytes searches beat a regex 5x here.)
_DIGITS_TO_ZERO = bytes.maketrans(b"123456789", b"000000000")


def _maybe_js_number_differs(out: bytes) -> bool:
    t = out.translate(_DIGITS_TO_ZERO)
    return b"0." in t or b"0e" in t or b"0E" in t or b"0000000000000000" in t


_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_JSON_NUMBER = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def _number_length_delta(out: bytes) -> int:
    """JS length minus orjson length over every number token of orjson's output (strings skipped)."""
    delta = 0
    if b'\\"' in out:
        outside = _JSON_STRING.sub(b'""', out)
    else:  # no escaped quote: every '"' delimits a string, so the even pieces are what lies outside them
        outside = b" ".join(out.split(b'"')[0::2])
    for tok in _JSON_NUMBER.findall(outside):
        is_float = b"." in tok or b"e" in tok or b"E" in tok
        if not is_float and len(tok.lstrip(b"-")) < 16:
            continue
        value = float(tok) if is_float else int(tok)
        delta += len(js_number_to_string(value)) - len(tok)
    return delta


def js_stringify_len(value: Any) -> int:
    """`JSON.stringify(value).length` in JavaScript (UTF-16 code units), without building the string.

    Key order does not change the length, so no reordering is done here. Raises like `js_stringify`.
    Fast path: orjson's serialisation, when it provably equals JavaScript's (no floats, no big integers).
    """
    if type(value) in (dict, list):
        try:
            out = orjson.dumps(value)
        except (orjson.JSONEncodeError, TypeError):
            out = None
        if out is not None:
            n = len(out) if out.isascii() else js_len(out.decode("utf-8"))
            return n + _number_length_delta(out) if _maybe_js_number_differs(out) else n
    try:
        return _stringify_len(value)
    except RecursionError as exc:
        raise JSStringifyError("value is too deeply nested or circular") from exc


def json_kind(value: Any) -> str:
    """The JSON name of a parsed value's type ("an array", "a string", "null"), never a Python class name."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else "a value"
