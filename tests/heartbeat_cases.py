"""Strings for the heartbeat-token tests: the oracle comparison and the one-home test share them."""

from __future__ import annotations

import random

from inspector.js.utf16 import JS_WHITESPACE, from_utf16_units, utf16_units

PINNED = ("HEARTBEAT_OK\x1c done", "x\x1f\x1fy HEARTBEAT_OK")
"""The two strings on which the engine's two copies of `stripTokenAtEdges` gave different results."""

MODES = (("message", None), ("heartbeat", 0), ("heartbeat", 3), ("heartbeat", 300))
"""`stripHeartbeatToken` options tried on every string: `(mode, maxAckChars)`."""

# Whitespace as JavaScript sees it, what only Python calls whitespace (U+001C-U+001F, U+0085), and look-alikes
# that are whitespace to neither (U+180E, U+200B).
_SPACES = tuple(JS_WHITESPACE) + ("\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u180e", "\u200b")
_WORDS = (
    "HEARTBEAT_OK", "HEARTBEAT_OK", "HEARTBEAT_OK", "HEARTBEAT_O", "heartbeat_ok", "_HEARTBEAT_OK", "x", "done",
    "all good", "é", "中", "9", "_",
)
_MARKS = ("*", "**", "`", "~", "_", ".", "!", "!!", "?", ",", "-", "<b>", "</b>", "<br/>", "&nbsp;", "&NBSP;",
          "&nbſp;", "\u212a", "😀", "\U0001f600\U0001f600", "\ud800", "\udc00", "\ud83d", "\ude00")
_ALPHABET = _SPACES + _WORDS + _MARKS


def js_string(s: str) -> str:
    """`s` as a JavaScript string holds it once parsed from JSON: surrogate pairs joined, lone halves kept."""
    return from_utf16_units(utf16_units(s))


def generated_texts(n: int = 4000, seed: int = 20260412) -> list[str]:
    """`n` strings of up to 9 pieces: tokens, whitespace of both languages, markup, astral chars, lone surrogates."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pieces = [rng.choice(_ALPHABET) for _ in range(rng.randint(0, 9))]
        if rng.random() < 0.5:
            pieces.insert(rng.randint(0, len(pieces)), "HEARTBEAT_OK")
        out.append(js_string("".join(pieces)))
    return out
