"""One-line previews, role icons and number formats for transcript rows (pure functions, no widgets).

Previews are made from message content read from disk for the visible rows only, and are always made inert
(`widgets.inert.one_line`, over `inspector.base.textsafe`): control characters become visible escapes and the result is drawn as plain
text, never parsed as markup.
"""

from __future__ import annotations

from typing import Any

import orjson

from inspector.figures.diagnosis.recorded_prompt import prompt_of_row
from inspector.model import entries as m

from ..inert import one_line

ROLE_ICONS: dict[str, str] = {
    "user": "▸",
    "assistant": "◂",
    "toolResult": "↳",
    "compactionSummary": "≡",
    "branchSummary": "↩",
    "custom": "✎",
    "bashExecution": "$",
}

ROLE_LABELS: dict[str, str] = {
    "user": "user",
    "assistant": "assistant",
    "toolResult": "result",
    "compactionSummary": "compaction",
    "branchSummary": "branch sum.",
    "custom": "custom",
    "bashExecution": "bash",
    "model_change": "model",
    "thinking_level_change": "thinking",
    "session_info": "name",
    "label": "label",
    "compaction": "compaction",
    "branch_summary": "branch sum.",
}

PREVIEW_SCAN_CHARS = 4000
INT64_MAX = 2**63 - 1
"""The largest count the per-row arrays hold; a recorded number past it (a damaged or hostile `usage`) is held there."""


def role_icon(role: str) -> str:
    """A one-cell icon for a role (entry types without a role, and unknown roles, get a dot)."""
    return ROLE_ICONS.get(role, "·")


LABEL_SCAN_CHARS = 40


def row_label(entry: m.Entry, role: str) -> str:
    """The short, inert label of a row: the tool for tool rows, else the role (or entry type).

    Tool names and unknown roles come from the file: they are made inert (`widgets.inert.one_line`), never
    printed raw.
    """
    if role == "toolResult" and entry.tool_name:
        return one_line(entry.tool_name, LABEL_SCAN_CHARS)
    if role == "assistant" and entry.tool_name:
        names = entry.tool_name.split(", ")
        return one_line(names[0], LABEL_SCAN_CHARS) + (f" +{len(names) - 1}" if len(names) > 1 else "")
    if role == "custom" and entry.data and isinstance(entry.data.get("customType"), str):
        return "custom"
    return one_line(ROLE_LABELS.get(role, role), LABEL_SCAN_CHARS)


def compact_number(value: int | None) -> str:
    """12,345 / 123.4k / 1.23M / 12.35G / 1.2e+15: at most 8 cells for any count; an en dash for unknown.

    A count held at the top of the 64-bit per-row arrays (`widgets.transcript.model.INT64_MAX`) may be larger
    still: it shows as `≥9.2e+18`.
    """
    if value is None:
        return "–"
    if value >= INT64_MAX:
        return "≥9.2e+18"
    if value < 100_000:
        return f"{value:,}"
    if value < 10_000_000:
        return f"{value / 1000:.1f}k"
    if value < 1_000_000_000:
        return f"{value / 1_000_000:.2f}M"
    if value < 1_000_000_000_000:
        return f"{value / 1_000_000_000:.2f}G"
    return f"{float(value):.1e}"


def human_bytes(n: int) -> str:
    """Sizes for people: 812 B, 3.1 KB, 4.0 MB, 1.02 GB."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KB", "MB", "GB", "TB"):
        n /= 1024
        if n < 1024 or unit == "TB":
            return f"{n:.1f} {unit}" if n < 100 else f"{n:.0f} {unit}"
    return f"{n:.0f} TB"


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                out.append(block["text"])
            elif kind == "image":
                out.append(f"[image {block.get('mimeType') or '?'}]")
    return out


def _call_preview(block: dict[str, Any]) -> str:
    args = block.get("arguments")
    try:
        text = orjson.dumps(args).decode() if args is not None else ""
    except TypeError:
        text = str(args)
    return f"{block.get('name')}({text[:PREVIEW_SCAN_CHARS]})"


def message_preview_text(msg: dict[str, Any] | None) -> str:
    """The raw (not yet inert) text a preview starts from, for any AgentMessage."""
    if not isinstance(msg, dict):
        return ""
    role = msg.get("role")
    if role in ("user", "toolResult", "custom"):
        text = " ".join(_texts(msg.get("content")))
        if role == "toolResult" and msg.get("isError") is True:
            text = "error: " + text
        if role == "custom" and isinstance(msg.get("customType"), str):
            text = f"{msg['customType']}: {text}"
        return text
    if role == "assistant":
        parts: list[str] = []
        thinking: list[str] = []
        content = msg.get("content")
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
                    parts.append(block["text"])
                elif kind == "toolCall":
                    parts.append("→ " + _call_preview(block))
                elif kind in ("thinking", "redacted_thinking"):
                    t = block.get("thinking")
                    thinking.append(t if isinstance(t, str) and t.strip() else "[redacted]")
        if not parts and thinking:
            return "(thinking) " + " ".join(thinking)
        if not parts and msg.get("errorMessage"):
            return f"error: {msg['errorMessage']}"
        return " ".join(parts)
    if role == "compactionSummary":
        before = msg.get("tokensBefore")
        lead = f"replaces {before:,} tok of history · " if isinstance(before, int) and not isinstance(before, bool) else ""
        return lead + str(msg.get("summary") or "")
    if role == "branchSummary":
        return str(msg.get("summary") or "")
    if role == "bashExecution":
        return f"$ {msg.get('command')}  {str(msg.get('output') or '')[:PREVIEW_SCAN_CHARS]}"
    return ""


def entry_preview_text(entry: m.Entry) -> str:
    """Preview of an entry that is not a context message, from the metadata kept in memory."""
    d = entry.data or {}
    t = entry.type
    if t == m.MODEL_CHANGE:
        return f"model → {d.get('provider')}/{d.get('modelId')}"
    if t == m.THINKING_LEVEL_CHANGE:
        return f"thinking level → {d.get('thinkingLevel')}"
    if t == m.CUSTOM:
        prompt = prompt_of_row(d)
        if prompt is not None:
            return f"{d.get('customType')}: system prompt (base_instructions) {prompt[0]:,} chars ≈ {prompt[1]:,} tok, sent before the transcript, not in it"
        data = d.get("data")
        try:
            shown = orjson.dumps(data).decode()[:PREVIEW_SCAN_CHARS] if data is not None else ""
        except TypeError:
            shown = ""
        return f"{d.get('customType')} {shown}"
    if t == m.LABEL:
        return f"label {d.get('targetId')} = {d.get('label')!r}"
    if t == m.SESSION_INFO:
        return f"session name = {d.get('name')!r}"
    if t == m.COMPACTION:
        return f"compaction (first kept {d.get('firstKeptEntryId')}, tokens before {d.get('tokensBefore')})"
    if t == m.BRANCH_SUMMARY:
        return f"branch summary from {d.get('fromId')}: {d.get('summary') or ''}"
    return f"{t}"


def preview(text: str, width: int = 300) -> str:
    """The inert one-line form of `text`, at most `width` characters (cropped to cells when drawn)."""
    return one_line(text[: PREVIEW_SCAN_CHARS * 2], max(1, width))
