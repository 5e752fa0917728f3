"""OpenClaw 2026.9.6's string measure: `estimateStringChars` with five weight buckets.

[OC9] `packages/normalization-core/src/cjk-chars.ts` (dist `cjk-chars-*.mjs`) rewrote the measure of 2026.4.12
(`inspector.rules.openclaw_2026_4_12.tokens.measure.estimate_string_chars`): the weighted code points fall in five
buckets, each charged on top of the string's UTF-16 length (code units, as before), and nothing is subtracted for
surrogate pairs any more:

| bucket | code points | extra chars each (raw weight 1) | with raw weight 2 |
|---|---|---|---|
| common | U+00B7, 3000-319F, 4E00-9FA5, AC00-D7AF, FF01-FF60 | +3 | +2 |
| rare BMP | 1100-11FF, 2E80-2FFF, 31A0-4DFF, 9FA6-9FFF, A000-A4FF, A700-A707, A960-A97F, D7B0-D7FF, F900-FAFF | +11 | +10 |
| two-token | U+02C7, 02C9-02CB, 02D9, 02EA-02EB, 0305, 0323, FE10-FE4F, FF61-FFDC, FFE0-FFE6 | +7 | +6 |
| three-token supplementary | 1D360-1D371 | +10 | +8 |
| supplementary | 16FE0-16FFF, 1AFF0-1AFFF, 1B000-1B16F, 1F200-1F2FF, 20000-2FA1F, 30000-3347F | +14 | +12 |

`estimateStringCharsWithMinimumRawWeight(text, {minimumRawWeight: 2})` (the tool-result guard's text measure)
doubles the raw length and lowers each extra as in the last column. A lone surrogate is one unweighted code unit.
The helpers that did not change (`json_len_or`, `unknown_chars`, `str_len`, `ceil_div4`...) are 2026.4.12's.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from inspector.rules.openclaw_2026_4_12.tokens.measure import (
    CHARS_PER_TOKEN_ESTIMATE,
    UNKNOWN_THROW_CHARS,
    ceil_div4,
    json_len_or,
    str_len,
    unknown_chars,
)

__all__ = [
    "CHARS_PER_TOKEN_ESTIMATE",
    "UNKNOWN_THROW_CHARS",
    "WEIGHTED_CJK_RANGES",
    "ceil_div4",
    "estimate_string_chars",
    "estimate_string_chars_raw_weight",
    "json_len_or",
    "str_len",
    "unknown_chars",
    "weighted_lens",
]

WEIGHTED_CJK_RANGES: tuple[tuple[tuple[int, int], ...], ...] = (
    ((0xB7, 0xB7), (0x3000, 0x319F), (0x4E00, 0x9FA5), (0xAC00, 0xD7AF), (0xFF01, 0xFF60)),
    ((0x1100, 0x11FF), (0x2E80, 0x2FFF), (0x31A0, 0x4DFF), (0x9FA6, 0x9FFF), (0xA000, 0xA4FF), (0xA700, 0xA707),
     (0xA960, 0xA97F), (0xD7B0, 0xD7FF), (0xF900, 0xFAFF)),
    ((0x2C7, 0x2C7), (0x2C9, 0x2CB), (0x2D9, 0x2D9), (0x2EA, 0x2EB), (0x305, 0x305), (0x323, 0x323),
     (0xFE10, 0xFE4F), (0xFF61, 0xFFDC), (0xFFE0, 0xFFE6)),
    ((0x1D360, 0x1D371),),
    ((0x16FE0, 0x16FFF), (0x1AFF0, 0x1AFFF), (0x1B000, 0x1B16F), (0x1F200, 0x1F2FF), (0x20000, 0x2FA1F),
     (0x30000, 0x3347F)),
)
"""cjk-chars.ts `WEIGHTED_CJK_RANGES`, by bucket (common, rare BMP, two-token, three-token supplementary,
supplementary); inclusive code point ranges."""


def _extras(raw_weight: int) -> tuple[int, int, int, int, int]:
    """The extra chars of one code point of each bucket on top of `raw_weight` per UTF-16 unit."""
    return (4 - raw_weight, 12 - raw_weight, 8 - raw_weight, 12 - 2 * raw_weight, 16 - 2 * raw_weight)


_EXTRAS = {1: _extras(1), 2: _extras(2)}


_BMP_BUCKETS = 3
"""The first three buckets lie in the BMP, the last two are astral."""


@functools.cache
def _block_lows() -> tuple[bytes, ...]:
    """For each high byte of a UTF-16 unit (a block of 256 BMP code points), a table from the unit's low byte to 1 +
    the BMP bucket of that code point, 0 when it is not weighted (filled range by range: built on first use in
    about a millisecond). A block is never weighted (all 0), wholly one bucket's (all the same), or partly weighted
    (an "edge"); the surrogate blocks 0xD8-0xDF hold no BMP character (astral ones are read apart)."""
    tables = [bytearray(256) for _ in range(256)]
    for bucket, ranges in enumerate(WEIGHTED_CJK_RANGES[:_BMP_BUCKETS]):
        for a, b in ranges:
            for hi in range(a >> 8, (b >> 8) + 1):
                lo, top = max(a, hi << 8) & 0xFF, min(b, (hi << 8) | 0xFF) & 0xFF
                tables[hi][lo : top + 1] = bytes([bucket + 1]) * (top + 1 - lo)
    return tuple(bytes(t) for t in tables)


_HIGH_SURROGATES = bytes(range(0xD8, 0xE0))
_EDGE_CODE, _SURROGATE_CODE, _NEVER_CODE = _BMP_BUCKETS, _BMP_BUCKETS + 1, _BMP_BUCKETS + 2


@functools.cache
def _high_byte_codes() -> bytes:
    """A `bytes.translate` table from the high byte of a UTF-16 unit to what its block is (`_block_lows`): the BMP
    bucket (0-2) of a wholly weighted block, `_EDGE_CODE` for a partly weighted one, `_SURROGATE_CODE`, or
    `_NEVER_CODE` (never weighted): one translate, then a count per code."""
    codes = bytearray([_NEVER_CODE]) * 256
    for hi, lows in enumerate(_block_lows()):
        kinds = set(lows)
        if kinds == {0}:
            continue
        codes[hi] = next(iter(kinds)) - 1 if len(kinds) == 1 else _EDGE_CODE
    for hi in _HIGH_SURROGATES:
        assert codes[hi] == _NEVER_CODE, "no BMP character in the surrogate blocks"
        codes[hi] = _SURROGATE_CODE
    return bytes(codes)


@functools.cache
def _astral_pattern() -> re.Pattern[str]:
    return re.compile("[\\U00010000-\\U0010ffff]")


def _astral_bucket(cp: int) -> int:
    """The bucket (3 or 4) of an astral code point; -1 when it is not weighted."""
    for bucket in range(_BMP_BUCKETS, len(WEIGHTED_CJK_RANGES)):
        for a, b in WEIGHTED_CJK_RANGES[bucket]:
            if a <= cp <= b:
                return bucket
    return -1


@functools.cache
def _edge_tables() -> tuple[bytes, bytes, bytes, dict[int, tuple[bytes, bytes]]]:
    """For `weighted_lens`: the high bytes to delete before counting (never weighted, and 0x00, whose one weighted
    character, U+00B7, is counted with `str.count`); `_high_byte_codes`; the high bytes to delete to keep only the
    other partly weighted blocks'; and for each of those blocks, by high byte, a `bytes.translate` table from a
    unit's high byte to 0xFF for that block (else 0), and its `_block_lows` table (a unit's low byte to 1 + its
    bucket)."""
    codes = _high_byte_codes()
    lows = _block_lows()
    assert [lo for lo in range(256) if lows[0][lo]] == [0xB7] and codes[0] == _EDGE_CODE, "U+00B7: Latin-1's one"
    never = bytes(hi for hi in range(256) if codes[hi] == _NEVER_CODE)
    blocks = {
        hi: (bytes(0xFF if b == hi else 0 for b in range(256)), lows[hi])
        for hi in range(1, 256)
        if codes[hi] == _EDGE_CODE
    }
    not_edges = bytes(b for b in range(256) if b not in blocks)
    return never + b"\x00", codes, not_edges, blocks


_FEW_UNITS = 48
"""A partly weighted block with at most one unit in this many of a string is read unit by unit (`bytes.find`), else
by the integers' bitwise and (about nine passes over the string's length)."""
_ONE_COMMON, _ONE_RARE, _ONE_TWO_TOKEN = _EXTRAS[1][:_BMP_BUCKETS]
_TWO_COMMON, _TWO_RARE, _TWO_TWO_TOKEN = _EXTRAS[2][:_BMP_BUCKETS]


def weighted_lens(s: str) -> tuple[int, int, int]:
    """`(UTF-16 length, estimateStringChars, estimateStringCharsWithMinimumRawWeight(s, {minimumRawWeight: 2}))` of a
    string, its code points bucketed once (the fused estimates need the three of a tool result's text).

    The bucket extras are the module docstring's. Split surrogate pairs count as the character they make, as in
    JavaScript; a lone surrogate is one unweighted unit. Counted on the UTF-16 units' high bytes (`bytes.translate`
    runs at memory speed): the units of blocks never weighted are dropped first, then the wholly weighted blocks
    counted by kind; U+00B7 by `str.count`; a partly weighted block's characters by their low bytes, kept where the
    high byte is the block's (a bitwise and of the two as integers: no character looked at one by one); astral
    characters one by one.
    """
    n = len(s)
    if s.isascii():
        return n, n, 2 * n
    units = s.encode("utf-16-le", "surrogatepass")
    n = len(units) >> 1
    high = units[1::2]
    deleted, high_codes, not_edges, blocks = _edge_tables()
    kept = high.translate(None, deleted)  # the units of blocks that may be weighted, other than Latin-1's
    dots = s.count("\u00b7") if 0 in high else 0
    if not kept:
        return n, n + dots * _ONE_COMMON, 2 * n + dots * _TWO_COMMON
    codes = kept.translate(high_codes)  # the kind of each kept unit's block; then counted per kind
    common, rare, two_token = codes.count(0) + dots, codes.count(1), codes.count(2)
    if _EDGE_CODE in codes:
        lows = units[0::2]
        for hi in set(kept.translate(None, not_edges)):
            is_block, low_buckets = blocks[hi]
            if kept.count(hi) * _FEW_UNITS <= n:  # a few (fullwidth commas in CJK text): found one by one
                at = high.find(hi)
                while at >= 0:
                    bucket = low_buckets[lows[at]]
                    if bucket == 1:
                        common += 1
                    elif bucket == 2:
                        rare += 1
                    elif bucket == 3:
                        two_token += 1
                    at = high.find(hi, at + 1)
                continue
            marked = int.from_bytes(lows.translate(low_buckets), "little") & int.from_bytes(high.translate(is_block), "little")
            found = marked.to_bytes(n, "little")
            common += found.count(1)
            rare += found.count(2)
            two_token += found.count(3)
    one = common * _ONE_COMMON + rare * _ONE_RARE + two_token * _ONE_TWO_TOKEN  # the extras at raw weight 1 and 2
    two = common * _TWO_COMMON + rare * _TWO_RARE + two_token * _TWO_TWO_TOKEN
    if _SURROGATE_CODE in codes:
        joined = units.decode("utf-16-le", "surrogatepass")  # pairs joined, lone surrogates kept
        for ch in _astral_pattern().findall(joined):
            bucket = _astral_bucket(ord(ch))
            if bucket >= 0:
                one += _EXTRAS[1][bucket]
                two += _EXTRAS[2][bucket]
    return n, n + one, 2 * n + two


def estimate_string_chars_raw_weight(s: Any, raw_weight: int = 1) -> int:
    """cjk-chars.ts `estimateStringCharsWithMinimumRawWeight(text, {minimumRawWeight})` for weight 1 or 2.

    `raw_weight` chars per UTF-16 code unit, plus each weighted code point's bucket extra (module docstring). A
    non-string counts 0 (JavaScript would throw). See `weighted_lens`.
    """
    if raw_weight not in _EXTRAS:
        raise ValueError(f"raw weight {raw_weight}: only 1 and 2 are used")
    if type(s) is not str:
        return 0
    return weighted_lens(s)[raw_weight]


def estimate_string_chars(s: Any) -> int:
    """cjk-chars.ts `estimateStringChars` (2026.9.6): UTF-16 length + 3 / 11 / 7 / 10 / 14 per weighted code point
    of each bucket (module docstring). A non-string counts 0."""
    if type(s) is not str:
        return 0
    if s.isascii():
        return len(s)
    return weighted_lens(s)[1]
