"""Make untrusted text (tool output, model text, server replies, file names) inert before it reaches a terminal.

Rich markup is never interpreted by our renderers (they use `Text` objects / `markup=False`); this module
handles the other half: control characters. ESC, BEL, OSC/CSI introducers and every other C0/C1 control
except newline and tab, and every bidi control (the embeddings, overrides and isolates that can reorder text,
and the LRM/RLM/ALM marks), are shown as visible escapes (`\\x1b`, `\\u202e`), so a transcript or a server can
never move the cursor, clear the screen, change colours, set the window title, write the clipboard (OSC 52),
emit hyperlinks or reorder text. `cut` bounds how much of a text is shown, and says what it left out.
"""

from __future__ import annotations

import re

# C0/C1 controls (not \n, \t), line/paragraph separators, interlinear annotations, and Unicode's Bidi_Control
# characters: ALM, LRM, RLM and the embedding/override/isolate controls (which can visually reorder text: "Trojan
# Source").
CONTROL_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\ufff9-\ufffb\u202a-\u202e\u2066-\u2069"
"""The characters `make_inert` escapes, as the body of a regular-expression character class."""
_CONTROL = re.compile(f"[{CONTROL_CHARS}]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def make_inert(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every terminal-control character replaced by a visible escape."""
    out = _CONTROL.sub(_visible, text)
    if not keep_newlines:
        out = out.replace("\n", "\u23ce").replace("\t", " ")
    return out


def one_line(text: str, width: int) -> str:
    """An inert single-line preview of at most `width` characters."""
    flat = make_inert(" ".join(text.split()) if len(text) < 4 * width + 1000 else " ".join(text[: 4 * width].split()))
    return flat if len(flat) <= width else flat[: max(0, width - 1)] + "\u2026"


def cut(text: str, limit: int) -> str:
    """`text` when it has at most `limit` characters, else its first `limit` and a note of how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\u2026 [{len(text) - limit:,} more characters cut]"
