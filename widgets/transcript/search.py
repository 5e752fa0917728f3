"""Searching the transcript's rows for a text, reading each row from disk (run it in a thread worker).

A row matches when the query (case-insensitive) occurs in what the model sees of the message
(the session's rules' `tokens.model_visible_texts`), in its tool name, or in the preview of a non-message entry. The raw
line is checked first, so rows that cannot match are skipped without parsing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from inspector.figures.rules_of import rules_of

from .model import TranscriptModel
from .previews import entry_preview_text

_JSON_ESCAPED = set('"\\') | {chr(c) for c in range(32)}


def _needs_parse_check(query: str) -> bool:
    """Whether a raw-bytes pre-check is exact enough to skip rows (no characters JSON escapes, ASCII only)."""
    return query.isascii() and not any(c in _JSON_ESCAPED for c in query)


def row_matches(model: TranscriptModel, row: int, needle: str, raw_check: bool) -> bool:
    """Whether unfiltered row `row` contains `needle` (already lower-cased)."""
    entry = model.entry(row)
    if entry.tool_name and needle in entry.tool_name.lower():
        return True
    if model.message(row) is None and entry.role is None:
        return needle in entry_preview_text(entry).lower()
    try:
        if raw_check and entry.data is None:
            raw = model.session.raw_line(entry)
            if needle.encode() not in raw.lower():
                return False
        msg = model.session.load_message(entry)
    except (OSError, ValueError):
        return False
    if msg is None:
        return False
    return any(needle in t.lower() for t in rules_of(model.session).tokens.model_visible_texts(msg))


def find_match(
    model: TranscriptModel,
    start: int,
    query: str,
    *,
    backwards: bool = False,
    cancelled: Callable[[], bool] | threading.Event | None = None,
) -> int | None:
    """The first view position after (before) `start` whose row contains `query`, wrapping around once."""
    needle = query.lower()
    if not needle or not len(model.view):
        return None
    n = len(model.view)
    raw_check = _needs_parse_check(needle)
    is_cancelled = cancelled.is_set if isinstance(cancelled, threading.Event) else (cancelled or (lambda: False))
    step = -1 if backwards else 1
    for k in range(1, n + 1):
        if k % 256 == 0 and is_cancelled():
            return None
        vi = (start + step * k) % n
        if row_matches(model, model.view[vi], needle, raw_check):
            return vi
    return None

