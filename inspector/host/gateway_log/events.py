"""One line of OpenClaw 2026.9.6's Gateway log as a typed event, when it is one of the session diagnostics we read.

The line format (dist `logger-*.mjs`, `//#region src/logging/logger.ts`, `buildLogger`'s file transport): one JSON
object per line, tslog's log object: numbered arguments (`"0"`: the child logger's bindings as JSON text,
`{"subsystem":"agent/embedded"}`; `"1"`: the message), `_meta` (`date` in UTC, `logLevelName`, `name`), `time`
(`formatTimestamp(date, {style: "long"})`: local time with its offset, `2026-09-06T10:11:12.345+02:00`),
`hostname`, optional `agent_id` / `session_id` / `channel` (`prepareFileLogRecord`: only from structured
arguments), and `message` (the flattened text, cut at 4096 characters). The events are plain-text messages whose
figures are `key=value` pairs:

- `overflow_precheck`: `[context-overflow-precheck] pre-prompt check sessionKey=K provider=P/M route=R
  estimatedPromptTokens=N pressureSource=S promptBudgetBeforeReserve=N overflowTokens=N toolResultReducibleChars=N
  reserveTokens=N effectiveReserveTokens=N contextTokenBudget=N messages=N unwindowedMessages=N sessionFile=F`
  (`formatPrePromptPrecheckLog`, dist `settled-turn-finalization-result-*.mjs`; logged at debug by the attempt's
  prompt preparation, `builtin-openclaw-*.mjs`), and the mid-turn form `[context-overflow-midturn-precheck]
  sessionKey=K provider=P/M route=R estimatedPromptTokens=N promptBudgetBeforeReserve=N overflowTokens=N
  toolResultReducibleChars=N effectiveReserveTokens=N prePromptMessageCount=N [extra] sessionFile=F` (warn,
  `builtin-openclaw-*.mjs`); `phase` tells them apart.
- `overflow`: `[context-overflow-diag] sessionKey=K provider=P/M source=S trigger=T messages=N sessionFile=F diagId=D
  compactionAttempts=N observedTokens=N|unknown preflightEstimatedTokens=N|unknown compactionTokens=N|unknown
  providerPayloadBytes=N|unknown error=E` (warn, `embedded-agent-*.mjs`, the overflow recovery).
- `compaction_attempt`: `[compaction-diag] start runId=R sessionKey=K diagId=D trigger=T provider=P/M attempt=N
  maxAttempts=N pre.messages=N pre.historyTextChars=N pre.toolResultChars=N pre.estTokens=N|unknown` (debug,
  `compact-*.mjs`).
- `compaction_result`: `[compaction-diag] end runId=R sessionKey=K diagId=D trigger=T provider=P/M attempt=N
  maxAttempts=N outcome=compacted|failed reason=W [detail=X] durationMs=N ...` with, when compacted, `post.*` and
  `delta.*` figures (debug when compacted, warn when failed; `compact-*.mjs`).
- `compaction_skipped`: `[compaction] skipping — no real conversation messages (sessionKey=K)` (info).
- `loop_abort` / `loop_warning`: `tool loop: sessionId=I sessionKey=K tool=T level=critical|warning
  action=block|warn detector=D count=N [pairedTool=T] message="M"` (`logToolLoopAction`, dist `diagnostic-*.mjs`;
  error for a block, warn for a warning).

Every value read from a log is untrusted: strings are made inert (`inspector.base.textsafe`) and cut.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from inspector.base.textsafe import make_inert

EVENT_KINDS = (
    "overflow_precheck",
    "overflow",
    "compaction_attempt",
    "compaction_result",
    "compaction_skipped",
    "loop_abort",
    "loop_warning",
)
MAX_VALUE_CHARS = 300
MAX_MESSAGE_CHARS = 500

Figure = int | float | str | bool | None


@dataclass(frozen=True, slots=True)
class GatewayEvent:
    """One session diagnostic OpenClaw's Gateway logged: its kind, when, for which session, and its figures.

    `time_ms` is the epoch milliseconds of the line's `time` (or `_meta.date`), None when neither parses;
    `session_key` / `session_id` are what the line names; `figures` holds the kind's numbers and words under
    snake_case names (`estimated_prompt_tokens`, `route`, `tokens_before`, ...; "unknown" in the log is None);
    `file` and `line` say where it was read."""

    kind: str
    time_ms: float | None
    time: str | None
    level: str | None
    session_key: str | None
    session_id: str | None
    figures: dict[str, Figure] = field(default_factory=dict)
    message: str = ""
    file: str = ""
    line: int = 0

    def to_json(self) -> dict[str, Any]:
        """The JSON form (stable field names)."""
        return {
            "kind": self.kind,
            "time": self.time,
            "time_ms": self.time_ms,
            "level": self.level,
            "session_key": self.session_key,
            "session_id": self.session_id,
            "figures": dict(self.figures),
            "message": self.message,
            "file": self.file,
            "line": self.line,
        }


def _inert(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    flat = make_inert(text, keep_newlines=False)
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def _number(raw: str) -> int | float | None:
    if re.fullmatch(r"-?\d{1,18}", raw):
        return int(raw)
    try:
        value = float(raw)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _pairs(text: str, keys: tuple[str, ...], rest: tuple[str, ...] = ()) -> dict[str, str]:
    """The values of `keys` in `text` (`key=value`, in that order, each optional); a value runs to the next key
    found, so file paths and error texts with spaces stay whole; a key of `rest` runs to the end of the text."""
    found: list[tuple[str, int, int]] = []
    pos = 0
    for key in keys:
        match = re.compile(rf"(?:^| ){re.escape(key)}=").search(text, pos)
        if match is None:
            continue
        found.append((key, match.start(), match.end()))
        pos = match.end()
        if key in rest:
            break
    out: dict[str, str] = {}
    for i, (key, _, value_start) in enumerate(found):
        value = text[value_start : found[i + 1][1] if i + 1 < len(found) else len(text)]
        out[key] = value if key in _SPACED else value.split(" ", 1)[0]
    return out


_SPACED = frozenset({"sessionFile", "error", "message"})
"""Values that may hold spaces (they run to the next key)."""

_SNAKE = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _snake(key: str) -> str:
    return _SNAKE.sub(r"_\1", key).replace(".", "_").lower()


def _figures(values: dict[str, str], numbers: frozenset[str], renames: dict[str, str] | None = None) -> dict[str, Figure]:
    out: dict[str, Figure] = {}
    for key, raw in values.items():
        if key in ("sessionKey", "sessionId"):
            continue
        name = (renames or {}).get(key) or _snake(key)
        if key in numbers:
            out[name] = None if raw == "unknown" else _number(raw)
        else:
            out[name] = _inert(raw.strip())
    return out


_PRE_PROMPT_KEYS = (
    "sessionKey", "provider", "route", "estimatedPromptTokens", "pressureSource", "promptBudgetBeforeReserve",
    "overflowTokens", "toolResultReducibleChars", "reserveTokens", "effectiveReserveTokens", "contextTokenBudget",
    "messages", "unwindowedMessages", "sessionFile",
)
_MID_TURN_KEYS = (
    "sessionKey", "provider", "route", "estimatedPromptTokens", "promptBudgetBeforeReserve", "overflowTokens",
    "toolResultReducibleChars", "effectiveReserveTokens", "prePromptMessageCount", "sessionFile",
)
_OVERFLOW_KEYS = (
    "sessionKey", "provider", "source", "trigger", "messages", "sessionFile", "diagId", "compactionAttempts",
    "observedTokens", "preflightEstimatedTokens", "compactionTokens", "providerPayloadBytes", "error",
)
_START_KEYS = (
    "runId", "sessionKey", "diagId", "trigger", "provider", "attempt", "maxAttempts", "pre.messages",
    "pre.historyTextChars", "pre.toolResultChars", "pre.estTokens",
)
_END_KEYS = (
    "runId", "sessionKey", "diagId", "trigger", "provider", "attempt", "maxAttempts", "outcome", "reason", "detail",
    "durationMs", "retrying", "post.messages", "post.historyTextChars", "post.toolResultChars", "post.estTokens",
    "delta.messages", "delta.historyTextChars", "delta.toolResultChars", "delta.estTokens",
)
_LOOP_KEYS = ("sessionId", "sessionKey", "tool", "level", "action", "detector", "count", "pairedTool", "message")
_NUMBERS = frozenset(
    {
        "estimatedPromptTokens", "promptBudgetBeforeReserve", "overflowTokens", "toolResultReducibleChars", "reserveTokens",
        "effectiveReserveTokens", "contextTokenBudget", "messages", "unwindowedMessages", "prePromptMessageCount",
        "compactionAttempts", "observedTokens", "preflightEstimatedTokens", "compactionTokens", "providerPayloadBytes",
        "attempt", "maxAttempts", "pre.messages", "pre.historyTextChars", "pre.toolResultChars", "pre.estTokens",
        "durationMs", "post.messages", "post.historyTextChars", "post.toolResultChars", "post.estTokens", "delta.messages",
        "delta.historyTextChars", "delta.toolResultChars", "delta.estTokens", "count",
    }
)
_TOKENS_RENAMES = {"pre.estTokens": "tokens_before", "post.estTokens": "tokens_after", "delta.estTokens": "delta_tokens"}
_SKIPPED_RE = re.compile(r"^\[compaction\] skipping \u2014 (?P<reason>.*) \(sessionKey=(?P<key>.*)\)$")


def classify(text: str) -> tuple[str, dict[str, Figure], str | None, str | None] | None:
    """`(kind, figures, session key, session id)` of a log message, or None when it is none of the events read."""
    if text.startswith("[context-overflow-precheck] pre-prompt check "):
        values = _pairs(text, _PRE_PROMPT_KEYS, rest=("sessionFile",))
        figures = {"phase": "pre_prompt", **_figures(values, _NUMBERS)}
        return "overflow_precheck", figures, values.get("sessionKey"), None
    if text.startswith("[context-overflow-midturn-precheck] sessionKey="):
        values = _pairs(text, _MID_TURN_KEYS, rest=("sessionFile",))
        figures = {"phase": "mid_turn", **_figures(values, _NUMBERS)}
        return "overflow_precheck", figures, values.get("sessionKey"), None
    if text.startswith("[context-overflow-diag] sessionKey="):
        values = _pairs(text, _OVERFLOW_KEYS, rest=("error",))
        return "overflow", _figures(values, _NUMBERS), values.get("sessionKey"), None
    if text.startswith("[compaction-diag] start "):
        values = _pairs(text, _START_KEYS)
        return "compaction_attempt", _figures(values, _NUMBERS, _TOKENS_RENAMES), values.get("sessionKey"), None
    if text.startswith("[compaction-diag] end "):
        values = _pairs(text, _END_KEYS)
        figures = _figures(values, _NUMBERS, _TOKENS_RENAMES)
        if figures.get("retrying") is not None:
            figures["retrying"] = figures["retrying"] == "true"
        return "compaction_result", figures, values.get("sessionKey"), None
    skipped = _SKIPPED_RE.match(text)
    if skipped:
        return "compaction_skipped", {"reason": _inert(skipped["reason"])}, skipped["key"], None
    if text.startswith("tool loop: sessionId="):
        values = _pairs(text, _LOOP_KEYS, rest=("message",))
        if "message" in values:
            values["message"] = values["message"].removeprefix('"').removesuffix('"')
        kind = "loop_abort" if values.get("action") == "block" else "loop_warning"
        sid = values.get("sessionId")
        return kind, _figures(values, _NUMBERS), values.get("sessionKey"), None if sid == "unknown" else sid
    return None


def message_of(record: dict[str, Any]) -> str | None:
    """The text a record logged: its first numbered string argument after the bindings (full length), else its
    flattened `message`."""
    numbered = sorted((int(k), v) for k, v in record.items() if k.isdigit() and len(k) < 4)
    for i, (_, value) in enumerate(numbered):
        if isinstance(value, str) and not (i == 0 and value.lstrip().startswith("{")):
            return value
    message = record.get("message")
    return message if isinstance(message, str) else None


def _time_ms(record: dict[str, Any]) -> tuple[float | None, str | None]:
    for raw in (record.get("time"), (record.get("_meta") or {}).get("date") if isinstance(record.get("_meta"), dict) else None):
        if isinstance(raw, str) and len(raw) < 64:
            try:
                when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
            except ValueError:
                continue
            if when.tzinfo is None:
                when = when.astimezone()
            return when.timestamp() * 1000, _inert(raw)
    return None, None


def parse_record(record: dict[str, Any], file: str = "", line: int = 0) -> GatewayEvent | None:
    """The event a decoded log line holds, or None when it is not one of `EVENT_KINDS`."""
    text = message_of(record)
    if text is None:
        return None
    got = classify(text)
    if got is None:
        return None
    kind, figures, key, sid = got
    if sid is None and isinstance(record.get("session_id"), str) and record["session_id"] != key:
        sid = record["session_id"]
    time_ms, time = _time_ms(record)
    meta = record.get("_meta")
    level = meta.get("logLevelName") if isinstance(meta, dict) else None
    return GatewayEvent(
        kind=kind,
        time_ms=time_ms,
        time=time,
        level=_inert(level, 16) if isinstance(level, str) else None,
        session_key=None if key in (None, "unknown") else _inert(key.strip()),
        session_id=None if sid is None else _inert(sid.strip()),
        figures=figures,
        message=_inert(text, MAX_MESSAGE_CHARS),
        file=file,
        line=line,
    )
