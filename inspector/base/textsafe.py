"""Make untrusted text (tool output, model text, file names) inert before it reaches a terminal.

Rich markup is never interpreted by our renderers (they use `Text` objects / `markup=False`); this module
handles the other half: control characters. ESC, BEL, OSC/CSI introducers and every other C0/C1 control
except newline and tab, and the bidi override controls, are shown as visible escapes (`\\x1b`), so a
transcript can never move the cursor, change colours, set the window title, emit hyperlinks or reorder text.
"""

from __future__ import annotations

import re

# C0/C1 controls (not \n, \t), line/paragraph separators, interlinear annotations, and the bidi
# embedding/override/isolate controls (which can visually reorder text: "Trojan Source").
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufff9-\ufffb\u202a-\u202e\u2066-\u2069]")


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
