"""JavaScript string measures the estimators share: UTF-16 lengths, OpenClaw's CJK weighting, JSON lengths.

All lengths are JavaScript string lengths (UTF-16 code units, spec §3.3). `estimate_string_chars` is OpenClaw's
`estimateStringChars` ([OC] `src/utils/cjk-chars.ts`); `string_lens` gives the raw and the weighted length in one
encode; `json_len_or` and `unknown_chars` are `JSON.stringify(...).length` with the fallbacks the TypeScript uses when
it throws. Nothing here knows about messages.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from inspector.js.jsjson import JSStringifyError, js_len, js_stringify_len

__all__ = [
    "CHARS_PER_TOKEN_ESTIMATE",
    "UNKNOWN_THROW_CHARS",
    "ceil_div4",
    "estimate_string_chars",
    "json_len_or",
    "str_len",
    "string_lens",
    "unknown_chars",
]

CHARS_PER_TOKEN_ESTIMATE = 4
"""Characters per token in every chars/4 heuristic (pi `estimateTokens`, OpenClaw `cjk-chars.ts`)."""
UNKNOWN_THROW_CHARS = 256
"""Guard `estimateUnknownChars`: `JSON.stringify` threw."""

# cjk-chars.ts NON_LATIN_RE as pinned by [OC] (2026-04-13). OpenClaw PR #96442 (2026-06) later added the
# fullwidth forms U+FF01-FF60 and U+FFE0-FFE6; they are deliberately NOT counted here (spec §3.3 step 1).
_NON_LATIN_RANGES = "\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f"


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The exact path's patterns, compiled on first use (their wide ranges cost a command ~8 ms to compile, and
    most sessions never reach the exact path): weighted characters *or* surrogate code points (surrogates only
    occur in strings that did not come from orjson and are sorted out on a slow path); weighted characters;
    surrogates; and OpenClaw's CJK_SURROGATE_HIGH_RE (a high surrogate D840-D87E, then a low one): astral code
    points U+20000..U+2FBFF."""
    return (
        re.compile("[" + _NON_LATIN_RANGES + "\ud800-\udfff]"),
        re.compile("[" + _NON_LATIN_RANGES + "]"),
        re.compile("[\ud800-\udfff]"),
        re.compile("[\U00020000-\U0002fbff]"),
    )


def _weighted_from_regex(s: str, utf16_len: int) -> int:
    """estimateStringChars given the already known UTF-16 length (s non-empty, non-ASCII): the exact path."""
    non_latin_or_surrogate, non_latin, surrogate, high_d840_d87e = _patterns()
    matches = non_latin_or_surrogate.findall(s)
    if not matches:
        return utf16_len
    if surrogate.search(s) is not None:
        # Join surrogate pairs the way a JS string holds them; lone surrogates never match.
        s = s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        n = len(non_latin.findall(s))
    else:
        n = len(matches)
    if n == 0:
        return utf16_len
    pairs = len(high_d840_d87e.findall(s)) if utf16_len != len(s) else 0
    return utf16_len - pairs + n * (CHARS_PER_TOKEN_ESTIMATE - 1)


# Fast path on the UTF-16 code units' high bytes (bytes.translate runs at memory speed; the regex at ~5-50 ns
# a character). High byte < 0x2E: never weighted. 0x2F-0x9F, 0xA0-0xA4, 0xAC-0xD6, 0xF9-0xFA: every unit in
# them is a weighted BMP character. 0x2E, 0xD7 (ranges that start/end mid-block) need the exact path, and so do
# 0xD8-0xDF (surrogates) unless they are all halves of astral characters outside plane 2 (`_plain_astral`).
_HIGH_NEVER = bytes(range(0x2E))
_HIGH_WEIGHTED = bytes([*range(0x2F, 0xA5), *range(0xAC, 0xD7), 0xF9, 0xFA])
_HIGH_EDGE = bytes([0x2E, 0xD7, *range(0xD8, 0xE0)])


_HIGH_EDGE_BMP = bytes([0x2E, 0xD7])


def _weighted_from_units(s: str, units: bytes) -> int:
    """estimateStringChars of `s` given its UTF-16-LE encoding `units`."""
    utf16_len = len(units) >> 1
    high = units[1::2].translate(None, _HIGH_NEVER)
    if not high:
        return utf16_len
    edges = len(high) - len(high.translate(None, _HIGH_EDGE))
    if edges and (len(high.translate(None, _HIGH_EDGE_BMP)) != len(high) or not _plain_astral(s, edges)):
        return _weighted_from_regex(s, utf16_len)
    n = len(high) - len(high.translate(None, _HIGH_WEIGHTED))
    return utf16_len + n * (CHARS_PER_TOKEN_ESTIMATE - 1)


def _plain_astral(s: str, surrogate_units: int) -> bool:
    """Whether the surrogate units of `s` (`surrogate_units` of them in its UTF-16 form) all come from astral code
    points outside plane 2: no surrogate code point of its own (two of them could make a pair in JavaScript) and
    nothing in U+20000..U+2FFFF (weighted, or a CJK_SURROGATE_HIGH_RE pair). Then only its BMP characters are
    weighted, and the high-byte count holds (the emoji of a chat need no regex: compiling its ranges costs ~8 ms)."""
    planes = s.encode("utf-32-le", "surrogatepass")[2::4]  # the plane of every code point
    astral = len(planes) - planes.count(0)
    return surrogate_units == 2 * astral and 2 not in planes


def _weighted_from(s: str, utf16_len: int) -> int:
    """estimateStringChars given the already known UTF-16 length (s non-empty, non-ASCII)."""
    return _weighted_from_units(s, s.encode("utf-16-le", "surrogatepass"))


def estimate_string_chars(s: Any) -> int:
    """OpenClaw `estimateStringChars` ([OC] `src/utils/cjk-chars.ts`, spec §3.3 steps 1-3).

    1. `n` = code points in U+2E80–9FFF, A000–A4FF, AC00–D7AF, F900–FAFF, 20000–2FA1F.
    2. `n == 0` -> the UTF-16 length.
    3. Otherwise UTF-16 length − (surrogate pairs with high surrogate D840–D87E, i.e. U+20000–U+2FBFF) + 3n.

    So an emoji always counts 2, and a character in U+2FA20–U+2FBFF counts 2 alone but 1 next to a weighted
    character. A non-string counts 0.
    """
    if type(s) is not str:
        return 0
    if s.isascii():
        return len(s)
    return _weighted_from(s, js_len(s))


def string_lens(s: str) -> tuple[int, int]:
    """(UTF-16 length, estimateStringChars) of a string in one go."""
    if s.isascii():
        n = len(s)
        return n, n
    units = s.encode("utf-16-le", "surrogatepass")
    return len(units) >> 1, _weighted_from_units(s, units)


def ceil_div4(chars: int) -> int:
    """`Math.ceil(chars / 4)` on integers."""
    return -(-chars // CHARS_PER_TOKEN_ESTIMATE)


def json_len_or(value: Any, fallback: int) -> int:
    """`JSON.stringify(value).length`, or `fallback` where JavaScript would throw (cycles, BigInt-like values...)."""
    try:
        return js_stringify_len(value)
    except (TypeError, ValueError, JSStringifyError):
        return fallback


def unknown_chars(value: Any) -> int:
    """tool-result-char-estimator.ts `estimateUnknownChars` (a present value; `undefined` is handled by callers).

    A string counts its length (not quoted); anything else its `JSON.stringify` length (`null` -> 4); 256 if that
    throws.
    """
    if type(value) is str:
        return js_len(value)
    return json_len_or(value, UNKNOWN_THROW_CHARS)


def str_len(value: Any) -> int:
    """The JavaScript length of a string; 0 for anything else."""
    return js_len(value) if type(value) is str else 0

