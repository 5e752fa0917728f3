"""Turn one message (read from disk) into Rich renderables for the detail pane (no widget here).

All content is untrusted: it goes through `make_inert` and into `rich.text.Text` objects, never markup. Long
blocks are cut at `limit` characters with a note saying how much is hidden (the pane's "show all" lifts it).
"""

from __future__ import annotations

import base64
import json
import struct
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.highlighter import JSONHighlighter
from rich.style import Style
from rich.table import Table
from rich.text import Text

from inspector.base.durations import format_duration_ms
from inspector.figures.pruning.expiry import ExpiryInfo
from inspector.js.timeutil import iso_or_none
from inspector.model import entries as m

from ..inert import make_inert
from ..transcript.previews import compact_number, human_bytes, role_icon

DEFAULT_LIMIT = 4000
RAW_LIMIT = 20_000
_json_highlighter = JSONHighlighter()


@dataclass
class DetailStyles:
    """Styles of the detail pane's parts (taken from the widget's component classes)."""

    heading: Style = field(default_factory=Style)
    muted: Style = field(default_factory=Style)
    thinking: Style = field(default_factory=Style)
    error: Style = field(default_factory=Style)
    label: Style = field(default_factory=Style)


@dataclass
class DetailData:
    """Everything the pane shows for one row; `message` and `raw` are read from disk by the caller."""

    entry: m.Entry
    context_message: m.ContextMessage | None
    message: dict[str, Any] | None
    raw: bytes | None
    tiktoken: int | None = None
    tiktoken_note: str | None = None
    error: str | None = None
    expiry: ExpiryInfo | None = None
    """The tool result's prompt-cache expiry (the engine's `ExpiryInfo`, the transcript's `~` mark), if expired."""
    recorded_context: int | None = None
    """The context its recorded usage says (the session's rules' `calculate_context_tokens`), for an assistant call."""
    misestimate: str | None = None
    """The transcript's `⚑` in words: the estimator far from the tokenizer here (`figures.diagnosis.misestimates`)."""


def image_summary(block: dict[str, Any]) -> str:
    """`image/png · 12.3 KB · 640×480` from a base64 image block (size from the base64 length)."""
    data = block.get("data")
    mime = block.get("mimeType") or "?"
    parts = [str(mime)]
    if isinstance(data, str):
        size = len(data) * 3 // 4 - (data.endswith("==") + data.endswith("="))
        parts.append(human_bytes(max(0, size)))
        dims = _image_dimensions(data[:64])
        if dims:
            parts.append(f"{dims[0]}×{dims[1]}")
    else:
        parts.append("no data")
    return " · ".join(parts)


def _image_dimensions(head_b64: str) -> tuple[int, int] | None:
    try:
        head = base64.b64decode(head_b64[: len(head_b64) // 4 * 4])
    except (ValueError, TypeError):
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return struct.unpack("<HH", head[6:10])
    return None


def _cut(text: str, limit: int | None) -> tuple[str, int]:
    if limit is None or len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def _body(text: str, limit: int | None, style: Style | None, styles: DetailStyles) -> list[RenderableType]:
    shown, hidden = _cut(text, limit)
    out: list[RenderableType] = [Text(make_inert(shown), style=style or Style())]
    if hidden:
        out.append(Text(f"… {hidden:,} more characters hidden (press a to show all)", style=styles.muted))
    return out


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def _json_body(value: Any, limit: int | None, styles: DetailStyles) -> list[RenderableType]:
    shown, hidden = _cut(_json_text(value), limit)
    out: list[RenderableType] = [_json_highlighter(Text(make_inert(shown)))]
    if hidden:
        out.append(Text(f"… {hidden:,} more characters hidden (press a to show all)", style=styles.muted))
    return out


def _heading(text: str, styles: DetailStyles) -> Text:
    """A block heading; the parts taken from the file (tool names, ids, block kinds, mime types) are made inert."""
    return Text(make_inert(text, keep_newlines=False), style=styles.heading)


def _ms_iso(value: Any) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value / 1000, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _kv_table(rows: list[tuple[str, str]], styles: DetailStyles) -> Table:
    table = Table.grid(padding=(0, 1))
    table.add_column(style=styles.label, no_wrap=True)
    table.add_column()
    for k, v in rows:
        table.add_row(Text(k), Text(make_inert(v)))
    return table


def estimator_rows(data: DetailData) -> list[tuple[str, str]]:
    """Every estimator for the message, as (name, value) pairs: those of the rule set its estimates were computed
    with, the ones in tokens first, each named by its label without the unit its value shows."""
    est = data.entry.estimates
    rows: list[tuple[str, str]] = []
    if est is not None:
        for estimator in sorted(data.entry.layout.estimators, key=lambda e: e.unit != "tok"):
            unit_word = " tokens" if estimator.unit == "tok" else f" {estimator.unit}"
            rows.append((estimator.label.removesuffix(unit_word), f"{est[estimator.name]:,} {estimator.unit}"))
    if data.tiktoken is not None:
        rows.append(("tiktoken", f"{data.tiktoken:,} tok"))
    elif data.tiktoken_note:
        rows.append(("tiktoken", data.tiktoken_note))
    if data.misestimate:
        rows.append(("mis-estimated", data.misestimate))
    usage = data.entry.usage
    if isinstance(usage, dict):
        parts = [f"{k} {usage.get(k):,}" for k in ("input", "output", "cacheRead", "cacheWrite") if isinstance(usage.get(k), int)]
        context = "" if data.recorded_context is None else f" = context {data.recorded_context:,} tok"
        rows.append(("recorded usage", ", ".join(parts) + context))
        cost = usage.get("cost")
        if isinstance(cost, dict) and isinstance(cost.get("total"), (int, float)):
            rows.append(("recorded cost", f"${cost['total']:.6f}"))
    return rows


def expiry_rows(info: ExpiryInfo) -> list[tuple[str, str]]:
    """The `~` mark in words: when the result's prompt-cache entry expired, its age, and what it was counted from."""
    at = iso_or_none(info.expired_at_ms) or "a time outside JavaScript's Date range"
    rows = [
        ("cache TTL", f"~ expired {format_duration_ms(info.expired_for_ms)} ago ({at})"),
        ("result age", format_duration_ms(info.age_ms)),
    ]
    if info.counted_from_touch:
        rows.append(("counted from", "the last openclaw.cache-ttl touch for the model"))
    else:
        rows.append(("counted from", "the last assistant message: pruning never touched this session's cache (projection)"))
    return rows


def _meta_rows(data: DetailData) -> list[tuple[str, str]]:
    e = data.entry
    msg = data.message or {}
    rows = [("entry", f"{e.type} {e.id or ''}  line {e.line}  parent {e.parent_id or '—'}")]
    if e.timestamp:
        rows.append(("written", str(e.timestamp)))
    ts = _ms_iso(msg.get("timestamp"))
    if ts and ts != e.timestamp:
        rows.append(("message time", ts))
    role = msg.get("role")
    if role == "assistant":
        rows.append(("model", f"{msg.get('provider')}/{msg.get('model')}  api {msg.get('api')}"))
        rows.append(("stop reason", str(msg.get("stopReason"))))
        if msg.get("errorMessage"):
            rows.append(("error", str(msg.get("errorMessage"))))
    elif role == "toolResult":
        rows.append(("tool", f"{msg.get('toolName')}  call {msg.get('toolCallId')}  isError {json.dumps(msg.get('isError'))}"))
    if e.type == m.COMPACTION and e.data:
        d = e.data
        rows.append(("compaction", f"first kept {d.get('firstKeptEntryId')}  tokens before {d.get('tokensBefore')}  fromHook {d.get('fromHook')}"))
    if data.expiry is not None:
        rows += expiry_rows(data.expiry)
    if data.context_message is None:
        rows.append(("context", "not in the context the model sees"))
    elif data.context_message.excluded_from_llm:
        rows.append(("context", "excluded from the LLM (excludeFromContext)"))
    return rows


def _content_blocks(content: Any, limit: int | None, styles: DetailStyles) -> list[RenderableType]:
    out: list[RenderableType] = []
    if isinstance(content, str):
        out.append(_heading(f"text · {len(content):,} chars", styles))
        out += _body(content, limit, None, styles)
        return out
    if not isinstance(content, list):
        if content is not None:
            out.append(_heading("content (not a list)", styles))
            out += _json_body(content, limit, styles)
        return out
    for block in content:
        if not isinstance(block, dict):
            out.append(_heading("block (not an object)", styles))
            out += _json_body(block, limit, styles)
            continue
        kind = block.get("type")
        if kind == "text":
            text = block.get("text")
            text = text if isinstance(text, str) else _json_text(text)
            out.append(_heading(f"text · {len(text):,} chars", styles))
            out += _body(text, limit, None, styles)
        elif kind in ("thinking", "redacted_thinking"):
            thinking = block.get("thinking")
            if block.get("redacted") or kind == "redacted_thinking" or not isinstance(thinking, str):
                sig = block.get("thinkingSignature") or block.get("data") or ""
                out.append(_heading("thinking · redacted", styles))
                out.append(Text(f"[opaque payload, {len(str(sig)):,} chars]", style=styles.muted))
            else:
                out.append(_heading(f"thinking · {len(thinking):,} chars", styles))
                out += _body(thinking, limit, styles.thinking, styles)
        elif kind == "toolCall":
            out.append(_heading(f"tool call · {block.get('name')} · {block.get('id')}", styles))
            out += _json_body(block.get("arguments"), limit, styles)
        elif kind == "image":
            out.append(_heading("image", styles))
            out.append(Text(make_inert(f"[image {image_summary(block)}]"), style=styles.muted))
        else:
            out.append(_heading(f"block · {kind}", styles))
            out += _json_body(block, limit, styles)
    return out


def message_blocks(msg: dict[str, Any] | None, entry: m.Entry, limit: int | None, styles: DetailStyles) -> list[RenderableType]:
    """The message's content as renderables: text, thinking, tool calls (pretty JSON), results, images."""
    if msg is None:
        if entry.data is not None:
            return [_heading(f"{entry.type} entry", styles), *_json_body(entry.data, limit, styles)]
        return [Text("(no message content)", style=styles.muted)]
    role = msg.get("role")
    out: list[RenderableType] = []
    if role in ("compactionSummary", "branchSummary"):
        summary = msg.get("summary")
        summary = summary if isinstance(summary, str) else ""
        out.append(_heading(f"summary · {len(summary):,} chars", styles))
        out += _body(summary, limit, None, styles)
        return out
    if role == "bashExecution":
        out.append(_heading(f"$ {msg.get('command')}", styles))
        out += _body(str(msg.get("output") or ""), limit, None, styles)
        out.append(Text(make_inert(f"exit code {msg.get('exitCode')}  cancelled {msg.get('cancelled')}  truncated {msg.get('truncated')}"), style=styles.muted))
        return out
    if role == "custom" and msg.get("customType") is not None:
        out.append(Text(f"customType {make_inert(str(msg.get('customType')))}  display {msg.get('display')}", style=styles.muted))
    out += _content_blocks(msg.get("content"), limit, styles)
    if role == "toolResult" and "details" in msg:
        out.append(_heading("details · never sent to the model", styles))
        out += _json_body(msg.get("details"), limit, styles)
    return out


def render_detail(data: DetailData, styles: DetailStyles, *, show_all: bool = False, raw: bool = False) -> RenderableType:
    """The whole pane for one row."""
    e = data.entry
    role = data.context_message.role if data.context_message else (e.role or e.type)
    limit = None if show_all else DEFAULT_LIMIT
    parts: list[RenderableType] = [_heading(f"{role_icon(role)} {role}", styles)]
    parts.append(_kv_table(_meta_rows(data), styles))
    est_rows = estimator_rows(data)
    if est_rows:
        parts.append(_heading("size", styles))
        parts.append(_kv_table(est_rows, styles))
    if data.error:
        parts.append(Text(make_inert(data.error), style=styles.error))
    if raw:
        text = (data.raw or b"").decode("utf-8", "replace")
        parts.append(_heading(f"raw JSON line {e.line} · {human_bytes(e.length)}", styles))
        parts += _body(text, None if show_all else RAW_LIMIT, None, styles)
    else:
        parts += message_blocks(data.message, e, limit, styles)
    return Group(*parts)


def summary_line(data: DetailData) -> str:
    """A one-line title for the pane's border."""
    e = data.entry
    size = e.estimate("pi")
    return f"line {e.line} · {e.id or e.type} · {compact_number(size)} tok"
