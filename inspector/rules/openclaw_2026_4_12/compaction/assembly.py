"""The assembly of OpenClaw's safeguard summary (2026.4 `compaction-safeguard`): the sections after the body.

After the history summary, OpenClaw appends a suffix that survives truncation: the split-turn section, the
recent turns preserved verbatim, the tool failures, the `<read-files>`/`<modified-files>` lists (and the
workspace rules from AGENTS.md, which a session inspector does not read: it is not OpenClaw's cwd). The whole
is capped at `MAX_COMPACTION_SUMMARY_CHARS` (16000 UTF-16 units) by cutting the body and appending
`SUMMARY_TRUNCATED_MARKER`. Every length and slice here counts UTF-16 code units, as JavaScript does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.js.jsjson import js_len
from inspector.js.utf16 import js_collapse_whitespace, js_slice, js_starts_with_whitespace, js_trim, js_trim_end, js_trim_start
from inspector.rules.openclaw_2026_4_12.compaction.stages import MAX_COMPACTION_SUMMARY_CHARS

MAX_TOOL_FAILURES = 8
MAX_TOOL_FAILURE_CHARS = 240
MAX_FILE_OPS_SECTION_CHARS = 2000
MAX_FILE_OPS_LIST_CHARS = 900
MAX_RECENT_TURN_TEXT_CHARS = 600
SUMMARY_TRUNCATED_MARKER = "\n\n[Compaction summary truncated to fit budget]"
SPLIT_TURN_HEADING = "**Turn Context (split turn):**\n\n"
SUMMARY_FALLBACK_WRITTEN = True
"""A fallback chain that fails to the end gives the "Summary unavailable" text (`staged.Stager`), not an error."""


def partial_summary_note(done: int, total: int) -> str | None:
    """What marks a rolling summary kept when chunk `done + 1` of `total` fails: None, 2026.4 keeps none."""
    return None


def stage_summary_label(index: int, total: int, timestamps: Sequence[Any]) -> str:
    """The label before part summary `index` (of `total`) in the merge call: none in 2026.4."""
    return ""


def append_summary_section(summary: str, section: str) -> str:
    """OpenClaw `appendSummarySection`."""
    if not section:
        return summary
    if not js_trim(summary):
        return js_trim_start(section)
    return f"{summary}{section}"


def extract_message_text(message: dict[str, Any]) -> str:
    """OpenClaw `extractMessageText`: the trimmed text blocks, one per line."""
    content = message.get("content")
    if isinstance(content, str):
        return js_trim(content)
    if not isinstance(content, list):
        return ""
    parts = [js_trim(b["text"]) for b in content if isinstance(b, dict) and isinstance(b.get("text"), str) and js_trim(b["text"])]
    return js_trim("\n".join(parts))


def format_non_text_placeholder(content: Any) -> str | None:
    """OpenClaw `formatNonTextPlaceholder`: `[non-text content: image x2, toolCall]`."""
    if content is None or isinstance(content, str):
        return None
    if not isinstance(content, list):
        return "[non-text content]"
    counts: dict[str, int] = {}
    for block in content:
        if not isinstance(block, dict):
            continue
        raw = block.get("type")
        kind = raw if isinstance(raw, str) and js_trim(raw) else "unknown"
        if kind == "text":
            continue
        counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return None
    return "[non-text content: " + ", ".join(f"{k} x{n}" if n > 1 else k for k, n in counts.items()) + "]"


def context_role_label(message: dict[str, Any]) -> str | None:
    """The label of a context line (`- User: ...`): `Assistant`, `User`, `Tool result (name)`; None for any other role."""
    role = message.get("role")
    if role == "assistant":
        return "Assistant"
    if role == "user":
        return "User"
    if role == "toolResult":
        name = message.get("toolName")
        return f"Tool result ({name if isinstance(name, str) and js_trim(name) else 'tool'})"
    return None


def format_context_messages(messages: Sequence[dict[str, Any]]) -> list[str]:
    """OpenClaw `formatContextMessages`: `- User: text` lines (600 units at most per message)."""
    lines = []
    for message in messages:
        label = context_role_label(message)
        if label is None:
            continue
        text = extract_message_text(message)
        placeholder = format_non_text_placeholder(message.get("content"))
        rendered = f"{text}\n{placeholder}" if text and placeholder else (text or placeholder)
        if not rendered:
            continue
        if js_len(rendered) > MAX_RECENT_TURN_TEXT_CHARS:
            rendered = js_slice(rendered, 0, MAX_RECENT_TURN_TEXT_CHARS) + "..."
        lines.append(f"- {label}: {rendered}")
    return lines


def format_preserved_turns_section(messages: Sequence[dict[str, Any]]) -> str:
    """OpenClaw `formatPreservedTurnsSection`."""
    lines = format_context_messages(messages)
    return "\n\n## Recent turns preserved verbatim\n" + "\n".join(lines) if lines else ""


def _failure_meta(details: Any) -> str | None:
    if not isinstance(details, dict):
        return None
    parts = []
    status = details.get("status")
    if isinstance(status, str):
        parts.append(f"status={status}")
    code = details.get("exitCode")
    if isinstance(code, (int, float)) and not isinstance(code, bool) and code == code and abs(code) != float("inf"):
        parts.append(f"exitCode={int(code) if float(code).is_integer() else code}")
    return " ".join(parts) or None


def _truncate_failure(text: str, limit: int) -> str:
    return text if js_len(text) <= limit else js_slice(text, 0, max(0, limit - 3)) + "..."


def format_tool_failures_section(messages: Sequence[dict[str, Any]]) -> str:
    """OpenClaw `collectToolFailures` + `formatToolFailuresSection` (8 failures at most, 240 units each)."""
    failures: list[tuple[str, str | None, str]] = []
    seen: set[str] = set()
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("role") != "toolResult" or msg.get("isError") is not True:
            continue
        call_id = msg.get("toolCallId") if isinstance(msg.get("toolCallId"), str) else ""
        if not call_id or call_id in seen:
            continue
        seen.add(call_id)
        name = msg.get("toolName")
        tool = name if isinstance(name, str) and js_trim(name) else "tool"
        content = msg.get("content")
        raw = "\n".join(b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)) if isinstance(content, list) else ""
        meta = _failure_meta(msg.get("details"))
        failures.append((tool, meta, _truncate_failure(js_trim(js_collapse_whitespace(raw)) or ("failed" if meta else "failed (no output)"), MAX_TOOL_FAILURE_CHARS)))
    return tool_failures_section(failures)


def tool_failures_section(failures: Sequence[tuple[str, str | None, str]]) -> str:
    """`formatToolFailuresSection` of the collected `(tool, meta, text)` failures: `- tool (meta): text` for the
    first 8, then `- ...and N more`, under `## Tool Failures` ("" without failures). Unchanged in 2026.9."""
    if not failures:
        return ""
    lines = [f"- {tool}{f' ({meta})' if meta else ''}: {text}" for tool, meta, text in failures[:MAX_TOOL_FAILURES]]
    if len(failures) > MAX_TOOL_FAILURES:
        lines.append(f"- ...and {len(failures) - MAX_TOOL_FAILURES} more")
    return "\n\n## Tool Failures\n" + "\n".join(lines)


def _bounded_file_list(tag: str, files: Sequence[Any], max_chars: int, trim_end: bool) -> str:
    if not files or max_chars <= 0:
        return ""
    open_tag, close_tag = f"<{tag}>\n", f"\n</{tag}>"
    lines: list[str] = []
    used = js_len(open_tag) + js_len(close_tag)
    for i, f in enumerate(files):
        line = f"{f}\n"
        remaining = len(files) - i - 1
        overflow_line = f"...and {remaining} more\n" if remaining > 0 else ""
        if used + js_len(line) + js_len(overflow_line) > max_chars:
            overflow = f"...and {len(files) - i} more\n"
            if used + js_len(overflow) <= max_chars:
                lines.append(overflow)
            break
        lines.append(line)
        used += js_len(line)
    body = "".join(lines)
    return f"{open_tag}{js_trim_end(body) if trim_end else body}{close_tag}" if lines else ""


def file_operation_lists(read_files: Sequence[Any], modified_files: Sequence[Any], *, trim_end: bool = False) -> str:
    """The bounded `<read-files>` / `<modified-files>` blocks (900 units each), each after a blank line, uncapped
    ("" when both are empty). `trim_end` (2026.9) drops the list's last newline (no blank line before the
    closing tag)."""
    sections = [s for s in (_bounded_file_list("read-files", read_files, MAX_FILE_OPS_LIST_CHARS, trim_end),
                            _bounded_file_list("modified-files", modified_files, MAX_FILE_OPS_LIST_CHARS, trim_end)) if s]
    return "\n\n" + "\n\n".join(sections) if sections else ""


def format_file_operations(read_files: Sequence[Any], modified_files: Sequence[Any]) -> str:
    """OpenClaw `formatFileOperations`: bounded `<read-files>` / `<modified-files>` blocks (2000 units at most)."""
    return cap_compaction_summary(file_operation_lists(read_files, modified_files), MAX_FILE_OPS_SECTION_CHARS)


def cap_compaction_summary(summary: str, max_chars: int = MAX_COMPACTION_SUMMARY_CHARS) -> str:
    """OpenClaw `capCompactionSummary`: cut to `max_chars - 46` units and append the truncation marker."""
    if max_chars <= 0 or js_len(summary) <= max_chars:
        return summary
    budget = max(0, max_chars - 46)
    if budget <= 0:
        return js_slice(summary, 0, max_chars)
    return js_slice(summary, 0, budget) + SUMMARY_TRUNCATED_MARKER


def cap_preserving_suffix(body: str, suffix: str, max_chars: int = MAX_COMPACTION_SUMMARY_CHARS) -> str:
    """OpenClaw `capCompactionSummaryPreservingSuffix`: the suffix survives, the body is cut."""
    if not suffix:
        return cap_compaction_summary(body, max_chars)
    if max_chars <= 0:
        return cap_compaction_summary(body + suffix, max_chars)
    n = js_len(suffix)
    if n >= max_chars:
        return js_slice(suffix, n - max_chars)
    return cap_compaction_summary(body, max(0, max_chars - n)) + suffix


def assemble_suffix(split_turn: str = "", preserved_turns: str = "", tool_failures: str = "", file_ops: str = "", workspace: str = "") -> str:
    """OpenClaw `assembleSuffix`: the sections after the body, starting with a blank line."""
    suffix = ""
    for section in (split_turn, preserved_turns, tool_failures, file_ops, workspace):
        suffix = append_summary_section(suffix, section)
    if suffix and not js_starts_with_whitespace(suffix):
        suffix = "\n\n" + suffix
    return suffix


def finalize_summary(
    history: str,
    turn_prefix_summary: str | None,
    preserved_messages: Sequence[dict[str, Any]],
    tool_failures: str,
    file_ops: str,
    workspace: str = "",
) -> str:
    """The summary the safeguard stores: the body, then the split-turn section (`turn_prefix_summary` is None when
    no turn is split), preserved turns, tool failures, file lists and workspace rules, capped at 16000 with the
    suffix kept."""
    split = SPLIT_TURN_HEADING + turn_prefix_summary if turn_prefix_summary is not None else ""
    preserved = format_preserved_turns_section(preserved_messages)
    suffix = assemble_suffix(split, preserved, tool_failures, file_ops, workspace)
    body = history if history else append_summary_section(history, preserved)
    return cap_preserving_suffix(body, suffix)
