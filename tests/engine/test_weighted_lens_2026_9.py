"""OpenClaw 2026.9.6's `weighted_lens` (the bucketed `estimateStringChars`, counted on UTF-16 high bytes, U+00B7 by
`str.count`, partly weighted blocks by their low bytes) equals the measure read code point by code point from
`WEIGHTED_CJK_RANGES`: every BMP code point alone and among ASCII and CJK, astral ones, lone surrogates, and random
mixes of the ranges' edges."""

from __future__ import annotations

import random

from inspector.rules.openclaw_2026_9_6.tokens.measure import WEIGHTED_CJK_RANGES, weighted_lens

EXTRA_ONE = (3, 11, 7, 10, 14)
EXTRA_TWO = (2, 10, 6, 8, 12)


def _reference(s: str) -> tuple[int, int, int]:
    units = s.encode("utf-16-le", "surrogatepass")
    n = len(units) // 2
    one = two = 0
    for ch in units.decode("utf-16-le", "surrogatepass"):  # pairs joined as JavaScript reads them
        cp = ord(ch)
        for bucket, ranges in enumerate(WEIGHTED_CJK_RANGES):
            if any(a <= cp <= b for a, b in ranges):
                one += EXTRA_ONE[bucket]
                two += EXTRA_TWO[bucket]
                break
    return n, n + one, 2 * n + two


def test_every_bmp_code_point_alone_and_in_company() -> None:
    for cp in range(0x80, 0x10000):
        ch = chr(cp)
        for text in (ch, f"a{ch}b", f"\u4e00{ch}\uff0c\u00b7"):
            assert weighted_lens(text) == _reference(text), hex(cp)


def test_astral_code_points_and_lone_surrogates() -> None:
    for cp in [*range(0x10000, 0x110000, 97), 0x1D360, 0x1D371, 0x1D372, 0x20000, 0x2FA1F, 0x2FA20, 0x3347F, 0x33480]:
        text = f"x{chr(cp)}\uff01"
        assert weighted_lens(text) == _reference(text), hex(cp)
    for text in ("\ud800", "a\udc00b", "\ud840\u4e00", "\udfff\ud800", "\ud83d\ude00\ud800"):
        assert weighted_lens(text) == _reference(text), repr(text)


def test_random_mixes_of_the_ranges_edges() -> None:
    edges = {cp + d for ranges in WEIGHTED_CJK_RANGES for a, b in ranges for cp in (a, b) for d in (-1, 0, 1)}
    pool = [chr(cp) for cp in sorted(edges) if not 0xD800 <= cp <= 0xDFFF and cp < 0x110000]
    pool += ["a", " ", "\u00b7", "\u00e9", "\ud800", "\udc00", "\uff0c", "\u3002"]
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(pool) for _ in range(rng.randint(1, 24)))
        assert weighted_lens(text) == _reference(text), repr(text)


def test_long_strings_with_a_few_characters_of_a_partly_weighted_block() -> None:
    """Few units of a block in a long string are read one by one (`bytes.find`), many by the integers' and."""
    edges = {cp + d for ranges in WEIGHTED_CJK_RANGES[:3] for a, b in ranges for cp in (a, b) for d in (-1, 0, 1)}
    pool = [chr(cp) for cp in sorted(edges) if not 0xD800 <= cp <= 0xDFFF]
    rng = random.Random(11)
    for _ in range(3000):
        few = [rng.choice(pool) for _ in range(rng.randint(1, 6))]
        body = list("\u4e00a" * rng.randint(50, 200)) + few
        rng.shuffle(body)
        text = "".join(body)
        assert weighted_lens(text) == _reference(text), repr(few)
