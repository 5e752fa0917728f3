"""JavaScript string operations on Python `str`, in UTF-16 code units (spec §3.3).

OpenClaw slices tool-result text with `String.prototype.slice`, which counts UTF-16 code units, so a cut can
fall inside a surrogate pair and leave a lone surrogate. Python strings may hold lone surrogate code points,
so we keep them: encode with `surrogatepass`, slice the bytes, decode with `surrogatepass`.
"""

from __future__ import annotations

import re

_CODEC = "utf-16-le"
_ERRORS = "surrogatepass"

# Characters JavaScript's String.prototype.trim removes: WhiteSpace and LineTerminator (ECMA-262 §12.2, §12.3).
JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WHITESPACE_CLASS = "[" + re.escape(JS_WHITESPACE) + "]"
"""JavaScript's regex `\\s` as a Python character class: the same characters as `trim` (Python's `\\s` and
`str.isspace` also take U+001C-U+001F and U+0085, and miss U+FEFF)."""
_JS_WHITESPACE_RUN = re.compile(JS_WHITESPACE_CLASS + "+")


def utf16_units(s: str) -> bytes:
    """`s` as UTF-16-LE bytes (two bytes per code unit); lone surrogates pass through."""
    return s.encode(_CODEC, _ERRORS)


def from_utf16_units(b: bytes) -> str:
    """Inverse of `utf16_units`; a lone surrogate half becomes a lone surrogate code point."""
    return b.decode(_CODEC, _ERRORS)


def js_slice(s: str, start: int, end: int | None = None) -> str:
    """JavaScript `s.slice(start, end)` for non-negative `start`/`end` (UTF-16 positions)."""
    if s.isascii():
        return s[start:end]
    b = utf16_units(s)
    stop = None if end is None else 2 * end
    return from_utf16_units(b[2 * start : stop])


def js_last_index_of(s: str, needle: str, from_index: int) -> int:
    """JavaScript `s.lastIndexOf(needle, fromIndex)` for a one-unit BMP `needle` (UTF-16 positions)."""
    if s.isascii():
        return s.rfind(needle, 0, max(0, from_index) + len(needle))
    b = utf16_units(s)
    unit = utf16_units(needle)
    pos = min(max(0, from_index), len(b) // 2 - 1)
    while pos >= 0:
        if b[2 * pos : 2 * pos + 2] == unit:
            return pos
        pos -= 1
    return -1


def js_trim(s: str) -> str:
    """JavaScript `s.trim()`."""
    return s.strip(JS_WHITESPACE)


def js_trim_start(s: str) -> str:
    """JavaScript `s.trimStart()`."""
    return s.lstrip(JS_WHITESPACE)


def js_trim_end(s: str) -> str:
    """JavaScript `s.trimEnd()`."""
    return s.rstrip(JS_WHITESPACE)


def js_collapse_whitespace(s: str) -> str:
    """JavaScript `s.replace(/\\s+/g, " ")`: each run of whitespace becomes one space."""
    return _JS_WHITESPACE_RUN.sub(" ", s)


def js_starts_with_whitespace(s: str) -> bool:
    """JavaScript `/^\\s/.test(s)`."""
    return bool(s) and s[0] in JS_WHITESPACE
