"""OpenClaw's heartbeat token: `stripHeartbeatToken` and its `stripTokenAtEdges` (2026.4.12 `src/auto-reply/heartbeat.ts`).

A heartbeat run asks the model to reply `HEARTBEAT_OK` when nothing needs attention. OpenClaw strips the token
from the start and end of a reply (`stripTokenAtEdges`), on the text as written and with markup removed, and
decides from what is left: in `"message"` mode whether the text still says something (`hasMeaningfulText`, the
boundary compaction's rule), in `"heartbeat"` mode whether the reply is only an ack to skip (`isHeartbeatOkResponse`,
the session truncation's rule). Every trim, whitespace class and length is JavaScript's (`inspector.js`): `trim`
keeps U+001C-U+001F, `\\s` takes U+FEFF, and `[^\\w]{0,4}` counts UTF-16 code units.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from inspector.js.jsjson import js_len
from inspector.js.utf16 import js_collapse_whitespace, js_trim, js_trim_end, js_trim_start

HEARTBEAT_TOKEN = "HEARTBEAT_OK"
"""OpenClaw `HEARTBEAT_TOKEN` (`src/auto-reply/tokens.ts`)."""
HEARTBEAT_PROMPT = (
    "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old tasks "
    "from prior chats. If nothing needs attention, reply HEARTBEAT_OK."
)
"""OpenClaw `HEARTBEAT_PROMPT`: the default heartbeat prompt."""
DEFAULT_HEARTBEAT_ACK_MAX_CHARS = 300
"""OpenClaw `DEFAULT_HEARTBEAT_ACK_MAX_CHARS`: the text an ack may carry besides the token."""
MAX_TRAILING_PUNCTUATION = 4
"""`[^\\w]{0,4}`: the UTF-16 units of non-word characters allowed after a token at the end."""

_TAIL = re.compile(r"[^A-Za-z0-9_]*")
_TAGS = re.compile(r"<[^>]*>")
_NBSP = re.compile("&nbsp;", re.IGNORECASE | re.ASCII)
_LEAD_MARKS = re.compile(r"\A[*`~_]+")
_TRAIL_MARKS = re.compile(r"[*`~_]+\Z")


class HeartbeatStrip(NamedTuple):
    """`stripHeartbeatToken`'s result: skip the reply, the text left, whether a token was stripped."""

    should_skip: bool
    text: str
    did_strip: bool


def _token_at_end(text: str) -> bool:
    """`/HEARTBEAT_OK[^\\w]{0,4}$/.test(text)`: the last token is followed by at most 4 non-word UTF-16 units."""
    idx = text.rfind(HEARTBEAT_TOKEN)
    if idx < 0:
        return False
    tail = text[idx + len(HEARTBEAT_TOKEN) :]
    return len(tail) <= MAX_TRAILING_PUNCTUATION and _TAIL.fullmatch(tail) is not None and js_len(tail) <= MAX_TRAILING_PUNCTUATION


def strip_token_at_edges(raw: str) -> tuple[str, bool]:
    """OpenClaw `stripTokenAtEdges`: `(text, didStrip)`, the token removed from the start and end, repeatedly."""
    text = js_trim(raw)
    if not text:
        return "", False
    if HEARTBEAT_TOKEN not in text:
        return text, False
    did_strip = False
    changed = True
    while changed:
        changed = False
        nxt = js_trim(text)
        if nxt.startswith(HEARTBEAT_TOKEN):
            text = js_trim_start(nxt[len(HEARTBEAT_TOKEN) :])
            did_strip = True
            changed = True
            continue
        if _token_at_end(nxt):
            idx = nxt.rfind(HEARTBEAT_TOKEN)
            before = js_trim_end(nxt[:idx])
            text = "" if not before else js_trim_end(before + js_trim_start(nxt[idx + len(HEARTBEAT_TOKEN) :]))
            did_strip = True
            changed = True
    return js_trim(js_collapse_whitespace(text)), did_strip


def _strip_markup(text: str) -> str:
    return _TRAIL_MARKS.sub("", _LEAD_MARKS.sub("", _NBSP.sub(" ", _TAGS.sub(" ", text))))


def _max_ack_chars(value: float | None) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return max(0, value if ok and value is not None else DEFAULT_HEARTBEAT_ACK_MAX_CHARS)


def strip_heartbeat_token(raw: str, mode: str = "message", max_ack_chars: float | None = None) -> HeartbeatStrip:
    """OpenClaw `stripHeartbeatToken(raw, {mode, maxAckChars})` (`mode` `"message"` or `"heartbeat"`)."""
    if not raw:
        return HeartbeatStrip(True, "", False)
    trimmed = js_trim(raw)
    if not trimmed:
        return HeartbeatStrip(True, "", False)
    normalized = _strip_markup(trimmed)
    if HEARTBEAT_TOKEN not in trimmed and HEARTBEAT_TOKEN not in normalized:
        return HeartbeatStrip(False, trimmed, False)
    original = strip_token_at_edges(trimmed)
    picked = original if original[1] and original[0] else strip_token_at_edges(normalized)
    if not picked[1]:
        return HeartbeatStrip(False, trimmed, False)
    if not picked[0]:
        return HeartbeatStrip(True, "", True)
    rest = js_trim(picked[0])
    if mode == "heartbeat" and js_len(rest) <= _max_ack_chars(max_ack_chars):
        return HeartbeatStrip(True, "", True)
    return HeartbeatStrip(False, rest, True)
