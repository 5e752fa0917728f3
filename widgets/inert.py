"""The UI's inert-text path: `inspector.base.textsafe` plus what a terminal cannot be handed at all.

Every string that comes from a session file or the file system (roles, tool names, ids, models, file and session
names, labels, previews, error texts) goes through `make_inert` or `one_line` here before it is drawn. They are
`inspector.base.textsafe`'s functions (control characters, bidi overrides and separators become visible escapes), and
in addition lone surrogates become `\\udcxx` escapes: a file name that is not UTF-8 reaches Python with
surrogate escapes (PEP 383), and a lone surrogate cannot be encoded for the terminal at all.
"""

from __future__ import annotations

import re

from inspector.base import textsafe

_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogates_visible(text: str) -> str:
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def make_inert(text: str, *, keep_newlines: bool = True) -> str:
    """`text` with every terminal-control character and every lone surrogate shown as a visible escape."""
    return _surrogates_visible(textsafe.make_inert(text, keep_newlines=keep_newlines))


def one_line(text: str, width: int) -> str:
    """An inert single-line preview of at most `width` characters (lone surrogates escaped first, then cut)."""
    return textsafe.one_line(_surrogates_visible(text), width)

