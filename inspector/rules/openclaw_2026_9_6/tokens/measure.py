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
def _bmp_tables() -> tuple[bytes, tuple[bytes, ...], bytes, dict[str, int], re.Pattern[str]]:
    """The BMP's weighted characters by the high byte of their UTF-16 unit (built on first use).

    Returns the high bytes no weighted character has (never weighted; the surrogates 0xD8-0xDF are kept out of it:
    they may be astral weighted characters); for each BMP bucket, the bytes that are NOT high bytes whose whole
    block of 256 belongs to it (`translate` deletes them: what is left is the count); the high bytes of the
    partly weighted blocks ("edges"); the bucket of each weighted character of an edge block; and a pattern
    matching those characters (BMP only: compiled to a bitmap)."""
    bucket_of: dict[int, int] = {}
    for bucket, ranges in enumerate(WEIGHTED_CJK_RANGES[:_BMP_BUCKETS]):
        for a, b in ranges:
            bucket_of.update(dict.fromkeys(range(a, b + 1), bucket))
    full: list[set[int]] = [set() for _ in range(_BMP_BUCKETS)]
    edges: set[int] = set()
    for hi in {cp >> 8 for cp in bucket_of}:
        block = {bucket_of.get(cp, -1) for cp in range(hi << 8, (hi + 1) << 8)}
        if len(block) == 1 and -1 not in block:
            full[block.pop()].add(hi)
        else:
            edges.add(hi)
    weighted = set().union(*full, edges, range(0xD8, 0xE0))
    never = bytes(b for b in range(256) if b not in weighted)
    not_full = tuple(bytes(b for b in range(256) if b not in f) for f in full)
    edge_bucket = {chr(cp): bucket for cp, bucket in bucket_of.items() if cp >> 8 in edges}
    pattern = re.compile("[" + "".join(sorted(edge_bucket)) + "]")
    return never, not_full, bytes(sorted(edges)), edge_bucket, pattern


_HIGH_SURROGATES = bytes(range(0xD8, 0xE0))
_EDGE_CODE, _SURROGATE_CODE, _NEVER_CODE = _BMP_BUCKETS, _BMP_BUCKETS + 1, _BMP_BUCKETS + 2


@functools.cache
def _high_byte_codes() -> bytes:
    """A `bytes.translate` table from the high byte of a UTF-16 unit to what its block is: the BMP bucket (0-2) of a
    wholly weighted block, `_EDGE_CODE` for a partly weighted one, `_SURROGATE_CODE`, or `_NEVER_CODE` (never
    weighted). Each high byte is exactly one of them (`_bmp_tables`): one translate, then a count per code."""
    never, not_full, edges, _, _ = _bmp_tables()
    codes = bytearray([_NEVER_CODE]) * 256
    for bucket, bucket_not_full in enumerate(not_full):
        for hi in set(range(256)) - set(bucket_not_full):
            codes[hi] = bucket
    for hi in edges:
        codes[hi] = _EDGE_CODE
    for hi in _HIGH_SURROGATES:
        codes[hi] = _SURROGATE_CODE
    assert {hi for hi in range(256) if codes[hi] == _NEVER_CODE} == set(never), "the blocks' kinds overlap"
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
    unit's high byte to 0xFF for that block (else 0), and one from a unit's low byte to 1 + the bucket of the
    block's character (0: not weighted)."""
    never, _, edges, edge_bucket, _ = _bmp_tables()
    blocks = {}
    for hi in edges:
        if hi == 0:
            continue
        lows = bytearray(256)
        for lo in range(256):
            bucket = edge_bucket.get(chr((hi << 8) | lo))
            if bucket is not None:
                lows[lo] = bucket + 1
        blocks[hi] = (bytes(0xFF if b == hi else 0 for b in range(256)), bytes(lows))
    assert {ch for ch in edge_bucket if ord(ch) < 0x100} == {"\u00b7"}, "U+00B7 is Latin-1's one weighted character"
    not_edges = bytes(b for b in range(256) if b not in blocks)
    return never + b"\x00", _high_byte_codes(), not_edges, blocks


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
