"""OpenClaw 2026.9.6's latest unresolved user request (`extractLatestUserRequest`), the agent core's own compaction
summary that leads with it (default mode: `assemble_core_summary`), and what bounds a stored summary, for the
forecast (`SummaryLimits`). The summary's caps and sections are `assembly`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import js_len, js_stringify, js_truthy
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_9_6.compaction.assembly import (
    MARKER_CHARS,
    MAX_COMPACTION_SUMMARY_CHARS,
    MAX_FILE_OPS_LIST_CHARS,
    MAX_FILE_OPS_SECTION_CHARS,
    MAX_SPLIT_TURN_CONTEXT_CHARS,
    TURN_CONTEXT_PREFIX,
    cap_compaction_summary,
    fit_compaction_summary,
    format_file_operations,
    truncate_utf16_safe,
)
from inspector.rules.openclaw_2026_9_6.pruning.pruner import slice_utf16_safe

MAX_LATEST_USER_REQUEST_CHARS = 800
LATEST_USER_REQUEST_TRUNCATED_MARKER = "\n[... latest user request truncated ...]\n"
LATEST_UNRESOLVED_REQUEST_HEADING = "## Latest unresolved user request"


# ------------------------------------------------------------------------------------------- default mode


def _compaction_content_text(content: Any) -> str:
    """`getCompactionContent(content).text`."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        if type(block) is not dict:
            continue
        btype, text = block.get("type"), block.get("text")
        if btype in ("text", "toolResult", "tool_result") and js_truthy(text):
            texts.append(text if isinstance(text, str) else str(text))
        elif btype in ("toolResult", "tool_result") and isinstance(block.get("content"), str) and block["content"]:
            texts.append(block["content"])
    return "\n".join(texts)


def extract_latest_user_request(messages: Sequence[dict[str, Any]]) -> str | None:
    """`extractLatestUserRequest`: the last user message with text, trimmed; over 800 characters, its first 379
    and last 380 around `LATEST_USER_REQUEST_TRUNCATED_MARKER`."""
    source = ""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            source = js_trim(_compaction_content_text(message.get("content")))
            if source:
                break
    if not source or js_len(source) <= MAX_LATEST_USER_REQUEST_CHARS:
        return source or None
    return truncate_utf16_safe(source, 759 // 2) + LATEST_USER_REQUEST_TRUNCATED_MARKER + slice_utf16_safe(source, -380)


def latest_unresolved_request_section(request: str | None) -> str:
    """The agent core's leading section for an unresolved request: the heading and the request as JSON."""
    return f"{LATEST_UNRESOLVED_REQUEST_HEADING}\n{js_stringify(request)}\n\n" if request else ""


def assemble_core_summary(
    history: str,
    turn_prefix_summary: str | None,
    read_files: Sequence[Any],
    modified_files: Sequence[Any],
    latest_request: str | None = None,
    token_budget: float | None = None,
) -> str | None:
    """The agent core `compact`'s summary (default mode): the unresolved-request section, then history, the
    split-turn context and the file lists capped together (the file lists kept); None when nothing fits."""
    file_ops = format_file_operations(read_files, modified_files)
    request = latest_unresolved_request_section(latest_request)
    latest = TURN_CONTEXT_PREFIX + turn_prefix_summary if turn_prefix_summary is not None else ""
    hist_len = js_len(history)

    def render(max_chars: int) -> str | None:
        required = js_len(file_ops) + js_len(request)
        if max_chars <= required + MARKER_CHARS:
            return None
        kept_history = min(hist_len, (max_chars if token_budget is None else max_chars - required) // 2)
        latest_budget = max_chars - required - MARKER_CHARS - kept_history
        if token_budget is not None and latest and latest_budget < 86:
            return None
        suffix = (cap_compaction_summary(latest, latest_budget) if latest_budget > 0 else "") + file_ops
        return request + cap_compaction_summary(history + suffix, max_chars - js_len(request), suffix)

    return fit_compaction_summary(token_budget, render)


# ------------------------------------------------------------------------------------------- the forecast


@dataclass(frozen=True)
class SummaryLimits:
    """What bounds the stored summary under 2026.9.6 (`plan --json` `summary_limits`): the caps, the size of this
    compaction's file lists, and the latest unresolved user request an overflow recovery (or a run answering a
    pending request) would carry: a leading "## Latest unresolved user request" section of `request_section_chars`
    in default mode, the safeguard's prompt and ## Pending user asks otherwise; `details.latestUnresolvedUserRequest`
    in both. A manual compaction carries none."""

    file_ops_chars: int
    latest_unresolved_request: str | None
    request_in_summary: bool
    max_chars: int = MAX_COMPACTION_SUMMARY_CHARS
    file_list_chars: int = MAX_FILE_OPS_LIST_CHARS
    file_section_chars: int = MAX_FILE_OPS_SECTION_CHARS
    preserved_turns_chars: int = MAX_SPLIT_TURN_CONTEXT_CHARS

    @property
    def request_section_chars(self) -> int:
        """The leading section's length in the summary (0 when the request is not written there)."""
        return js_len(latest_unresolved_request_section(self.latest_unresolved_request)) if self.request_in_summary else 0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "max_chars": self.max_chars,
            "file_list_chars": self.file_list_chars,
            "file_section_chars": self.file_section_chars,
            "preserved_turns_chars": self.preserved_turns_chars,
            "file_ops_chars": self.file_ops_chars,
            "latest_unresolved_request": {
                "applies_to": "overflow recovery or a pending request; not a manual compaction",
                "text": self.latest_unresolved_request,
                "where": "summary section" if self.request_in_summary else "safeguard prompt and details",
                "section_chars": self.request_section_chars,
            },
        }


def summary_limits(read_files: Sequence[Any], modified_files: Sequence[Any], latest_request: str | None, mode: str) -> SummaryLimits:
    """The `SummaryLimits` of a compaction with these file lists, the context's latest user request
    (`extract_latest_user_request`) and the compaction mode (`default` writes the request into the summary)."""
    return SummaryLimits(js_len(format_file_operations(read_files, modified_files)), latest_request, mode == "default" and bool(latest_request))
