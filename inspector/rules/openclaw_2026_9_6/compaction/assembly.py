"""The assembly of OpenClaw 2026.9.6's compaction summary: the sections after the body, and the 16,000-character cap.

Two writers, both reproduced char for char (every length and cut in UTF-16 code units, as JavaScript counts):

* the safeguard (`src/agents/agent-hooks/compaction-safeguard.ts`), what a run of `compact` reproduces
  (`finalize_summary`): the split turn's prefix summary (its headings nested, capped at 8,000) joins the history
  body; the suffix is the recent turns preserved verbatim (now each assistant with its paired tool results, a
  "segment", the section bounded at 8,000 by dropping the oldest segments), the tool failures (an accepted
  `sessions_spawn` is no failure), the file lists (each at most 900, the whole at most 2,000, now cut plainly);
  `budget_compaction_summary` keeps at least half of the 16,000 for the body and cuts the suffix from its head at a
  segment boundary behind `CONTEXT_TRUNCATED_MARKER`; surrogate pairs are never cut in half;
* the agent core's own `compact` (default mode, `packages/agent-core/src/harness/compaction/compaction.ts`,
  `assemble_core_summary`): history, the split-turn context and the file lists capped together, with an optional
  leading "## Latest unresolved user request" section (`latest_unresolved_request_section`) when the compaction
  answers an unresolved request (overflow recovery; `extract_latest_user_request`, at most 800 characters); the
  request is also stored as `details.latestUnresolvedUserRequest` (the safeguard puts it in its prompt instead).

Every stored summary is then cut by `cap_compaction_summary` (16,000). With the quality guard on
(`qualityGuard.enabled`, on by default) the safeguard budgets the history alone as the body, the split-turn
section moves into the suffix, and the body is cut by the guard's retention plan (`compaction/retention.py`,
`finalize_summary(..., quality=QualityRetention(...))`): its required sections re-rendered so the audit facts
survive; a body whose protected facts alone exceed the budget is `quality_retention_infeasible` (the safeguard
cancels). The guard's audit and its retry count are `compaction/quality.py` (`audit_summary_quality`,
`resolve_quality_guard_max_retries`).

New names (beside 2026.4.12's): `partial_summary_note`, `stage_summary_label`, `ContextSection`, `Suffix`, `Budgeted`, `truncate_utf16_safe`,
`format_context_segments`, `format_bounded_context_section`, `format_generated_split_turn_section`,
`cap_compaction_suffix`, `budget_compaction_summary`, `fit_compaction_summary`, `finalize_summary`, `finalize_budgeted`,
`unbudgeted_summary`,
`extract_latest_user_request`, `latest_unresolved_request_section`, `assemble_core_summary`, `SummaryLimits`,
`summary_limits` (what the forecast shows).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from inspector.js.jsjson import js_len, js_stringify, js_truthy
from inspector.js.utf16 import js_collapse_whitespace, js_slice, js_starts_with_whitespace, js_trim, js_trim_start
from inspector.rules.openclaw_2026_4_12.compaction.assembly import (
    MAX_FILE_OPS_LIST_CHARS,
    MAX_FILE_OPS_SECTION_CHARS,
    MAX_RECENT_TURN_TEXT_CHARS,
    MAX_TOOL_FAILURE_CHARS,
    MAX_TOOL_FAILURES,
    SPLIT_TURN_HEADING,
    SUMMARY_TRUNCATED_MARKER,
    append_summary_section,
    context_role_label,
    extract_message_text,
    file_operation_lists,
    format_non_text_placeholder,
    tool_failures_section,
)
from inspector.rules.openclaw_2026_4_12.compaction.stages import MAX_COMPACTION_SUMMARY_CHARS
from inspector.rules.openclaw_2026_9_6.compaction.retention import QualityRetention, create_summary_quality_retention_plan
from inspector.rules.openclaw_2026_9_6.pruning.pruner import slice_utf16_safe
from inspector.rules.openclaw_2026_9_6.tokens.measure import estimate_string_chars
from inspector.rules.openclaw_2026_9_6.tool_pairing import frame_results

__all__ = [
    "MAX_COMPACTION_SUMMARY_CHARS",
    "MAX_FILE_OPS_LIST_CHARS",
    "MAX_FILE_OPS_SECTION_CHARS",
    "MAX_RECENT_TURN_TEXT_CHARS",
    "MAX_TOOL_FAILURES",
    "MAX_TOOL_FAILURE_CHARS",
    "SPLIT_TURN_HEADING",
    "SUMMARY_TRUNCATED_MARKER",
    "append_summary_section",
    "extract_message_text",
    "format_non_text_placeholder",
]

MARKER_CHARS = js_len(SUMMARY_TRUNCATED_MARKER)
CONTEXT_TRUNCATED_MARKER = "\n\n[Earlier compaction context truncated to fit budget]\n\n"
MAX_SPLIT_TURN_CONTEXT_CHARS = MAX_COMPACTION_SUMMARY_CHARS // 2
SPLIT_TURN_TRUNCATED_MARKER = "[Earlier split-turn messages truncated]\n"
PRESERVED_TURNS_TRUNCATED_MARKER = "[Earlier preserved messages truncated]\n"
PRESERVED_TURNS_HEADING = "\n\n## Recent turns preserved verbatim"
TURN_CONTEXT_PREFIX = "\n\n---\n\n" + SPLIT_TURN_HEADING
"""The agent core's split-turn context (default mode)."""
SUMMARY_FALLBACK_WRITTEN = False
"""2026.9.6 writes no "Summary unavailable" text: a summary that fails is a `CompactionError` (or a partial summary,
marked as such), and the compaction is cancelled."""


def partial_summary_note(done: int, total: int) -> str:
    """`summarizeChunks`' mark on the rolling summary kept when chunk `done + 1` of `total` fails."""
    return f"\n\n[Partial summary: chunks 1-{done} of {total} were summarized. Chunks {done + 1}-{total} could not be processed.]"


_LAST_ISO_MS = 253_402_300_800_000
"""Year 10000: past it `toISOString` writes an expanded year, which this port does not (such stamps are skipped)."""


def _time_range(timestamps: Sequence[Any]) -> str:
    stamps = [t for t in timestamps if isinstance(t, (int, float)) and not isinstance(t, bool) and 0 < t < _LAST_ISO_MS]
    if not stamps:
        return ""

    def fmt(ms: float) -> str:
        return datetime.fromtimestamp(math.floor(ms) / 1000, UTC).strftime("%Y-%m-%d %H:%M")

    earliest, latest = min(stamps), max(stamps)
    return f" [{fmt(earliest) if earliest == latest else f'{fmt(earliest)} — {fmt(latest)}'} UTC]"


def stage_summary_label(index: int, total: int, timestamps: Sequence[Any]) -> str:
    """`summarizeInStages`' label before part summary `index` (of `total`) in the merge call, with the part's
    time range (`extractChunkTimeRange`): `[Chunk 1 — oldest messages [2026-01-02 10:00 — 2026-01-02 11:30 UTC]]`."""
    span = _time_range(timestamps)
    if index == 0:
        return f"[Chunk 1 — oldest messages{span}]\n"
    if index == total - 1:
        return f"[Chunk {total} — most recent messages{span}]\n"
    return f"[Chunk {index + 1}/{total}{span}]\n"


def truncate_utf16_safe(text: str, max_len: float) -> str:
    """`truncateUtf16Safe`: the first `max_len` units, one fewer when that would cut a surrogate pair."""
    limit = max(0, math.floor(max_len))
    return text if js_len(text) <= limit else slice_utf16_safe(text, 0, limit)


# ------------------------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class ContextSection:
    """`formatBoundedContextSection`'s result: the text and where each of its segments starts (a cut of the
    suffix lands on one of them); `truncated` when the oldest segments were left out."""

    text: str
    segment_starts: tuple[int, ...] = ()
    truncated: bool = False


def _format_context_message(message: dict[str, Any]) -> str | None:
    label = context_role_label(message)
    if label is None:
        return None
    rendered = "\n".join(p for p in (extract_message_text(message), format_non_text_placeholder(message.get("content"))) if p)
    if not rendered:
        return None
    if js_len(rendered) > MAX_RECENT_TURN_TEXT_CHARS:
        rendered = truncate_utf16_safe(rendered, MAX_RECENT_TURN_TEXT_CHARS) + "..."
    return f"- {label}: {rendered}"


def format_context_segments(messages: Sequence[dict[str, Any]]) -> list[str]:
    """`formatContextSegments`: one segment per message, an assistant with tool calls followed by the results
    paired with them (other tool results are left out), `- Role: text` lines each."""
    frames = frame_results(messages)
    segments = []
    for i, message in enumerate(messages):
        if message.get("role") == "toolResult":
            continue
        group = [message, *(messages[k] for k in frames[i])] if i in frames else [message]
        lines = [line for line in map(_format_context_message, group) if line]
        if lines:
            segments.append("\n".join(lines))
    return segments


def _starts(prefix_len: int, segments: Sequence[str]) -> tuple[int, ...]:
    out, offset = [], prefix_len
    for segment in segments:
        out.append(offset)
        offset += js_len(segment) + 1
    return tuple(out)


def format_bounded_context_section(messages: Sequence[dict[str, Any]], heading: str, max_chars: int, truncated_marker: str) -> ContextSection:
    """`formatBoundedContextSection`: the heading and the segments; over `max_chars`, the marker and the most
    recent segments that fit."""
    segments = format_context_segments(messages)
    if not segments:
        return ContextSection("")
    complete_prefix = f"{heading}\n"
    complete = complete_prefix + "\n".join(segments)
    if js_len(complete) <= max_chars:
        return ContextSection(complete, _starts(js_len(complete_prefix), segments))
    prefix = complete_prefix + truncated_marker
    retained: list[str] = []
    used = js_len(prefix)
    for segment in reversed(segments):
        need = js_len(segment) + (1 if retained else 0)
        if used + need > max_chars:
            break
        retained.insert(0, segment)
        used += need
    return ContextSection(prefix + "\n".join(retained), _starts(js_len(prefix), retained), True)


def format_preserved_turns_section(messages: Sequence[dict[str, Any]]) -> ContextSection:
    """`buildPreservedTurnsSection` (8,000 characters at most)."""
    return format_bounded_context_section(messages, PRESERVED_TURNS_HEADING, MAX_SPLIT_TURN_CONTEXT_CHARS, PRESERVED_TURNS_TRUNCATED_MARKER)


def format_split_turn_context_section(messages: Sequence[dict[str, Any]]) -> ContextSection:
    """`buildSplitTurnContextSection`: the split turn's prefix messages verbatim (a compaction provider's run)."""
    return format_bounded_context_section(messages, SPLIT_TURN_HEADING[:-1], MAX_SPLIT_TURN_CONTEXT_CHARS, SPLIT_TURN_TRUNCATED_MARKER)


def format_generated_split_turn_section(summary: str) -> str:
    """`formatGeneratedSplitTurnSection`: the heading and the prefix summary, its `##` headings nested to `###`,
    capped at 8,000 characters with the heading."""
    nested = re.sub(r"^##(?=[ \t]+\S)", "###", summary, flags=re.MULTILINE)
    return SPLIT_TURN_HEADING + cap_compaction_summary(nested, MAX_SPLIT_TURN_CONTEXT_CHARS - js_len(SPLIT_TURN_HEADING))


def _failure_meta(details: Any) -> str | None:
    if type(details) is not dict:
        return None
    status, code = details.get("status"), details.get("exitCode")
    parts = [f"status={status}" if isinstance(status, str) and status else ""]
    finite = isinstance(code, (int, float)) and not isinstance(code, bool) and math.isfinite(code)
    parts.append(f"exitCode={js_stringify(code)}" if finite else "")
    return " ".join(p for p in parts if p) or None


def _optional_string(value: Any) -> str | None:
    return (js_trim(value) or None) if isinstance(value, str) else None


def _accepted_spawn(message: dict[str, Any]) -> bool:
    """`normalizeAcceptedSessionSpawnResult(...) !== null`: an accepted child run, not a failure."""
    details = message.get("details")
    if type(details) is not dict or details.get("status") != "accepted":
        return False
    return bool(_optional_string(details.get("runId")) and _optional_string(details.get("childSessionKey")))


def format_tool_failures_section(messages: Sequence[dict[str, Any]]) -> str:
    """`collectToolFailures` + `formatToolFailuresSection` (8 failures at most, 240 characters each)."""
    failures: list[tuple[str, str | None, str]] = []
    seen: set[str] = set()
    for msg in messages:
        if not isinstance(msg, dict) or msg.get("role") != "toolResult" or not js_truthy(msg.get("isError")):
            continue
        name = msg.get("toolName")
        if isinstance(name, str) and js_trim(name) == "sessions_spawn" and _accepted_spawn(msg):
            continue
        call_id = msg.get("toolCallId") if isinstance(msg.get("toolCallId"), str) else ""
        if not call_id or call_id in seen:
            continue
        seen.add(call_id)
        tool = name if isinstance(name, str) and js_trim(name) else "tool"
        content = msg.get("content")
        texts = [b["text"] for b in content if type(b) is dict and b.get("type") == "text" and isinstance(b.get("text"), str)] if isinstance(content, list) else []
        meta = _failure_meta(msg.get("details"))
        text = js_trim(js_collapse_whitespace("\n".join(texts))) or ("failed" if meta else "failed (no output)")
        if js_len(text) > MAX_TOOL_FAILURE_CHARS:
            text = truncate_utf16_safe(text, MAX_TOOL_FAILURE_CHARS - 3) + "..."
        failures.append((tool, meta, text))
    return tool_failures_section(failures)


def format_file_operations(read_files: Sequence[Any], modified_files: Sequence[Any]) -> str:
    """The agent core's `formatFileOperations`: `<read-files>` / `<modified-files>` (900 characters each, no blank
    line before the closing tag), the whole cut at 2,000 (no marker)."""
    joined = file_operation_lists(read_files, modified_files, trim_end=True)
    return js_slice(joined, 0, MAX_FILE_OPS_SECTION_CHARS) if js_len(joined) > MAX_FILE_OPS_SECTION_CHARS else joined


# ------------------------------------------------------------------------------------------- the cap


def cap_compaction_summary(summary: str, max_chars: int = MAX_COMPACTION_SUMMARY_CHARS, preserved_suffix: str = "") -> str:
    """The agent core's `capCompactionSummary`: cut (surrogate-safe) to `max_chars - 46` and append the marker,
    keeping `preserved_suffix` after it when the summary ends with it."""
    n = js_len(summary)
    if max_chars <= 0 or n <= max_chars:
        return summary
    suffix = preserved_suffix if preserved_suffix and summary.endswith(preserved_suffix) else ""
    if max_chars < MARKER_CHARS + js_len(suffix):
        return truncate_utf16_safe(summary, max_chars)
    budget = max_chars - MARKER_CHARS - js_len(suffix)
    prefix = js_slice(summary, 0, n - js_len(suffix)) if suffix else summary
    return truncate_utf16_safe(prefix, budget) + SUMMARY_TRUNCATED_MARKER + suffix


@dataclass(frozen=True)
class Suffix:
    """`assembleSuffix`'s result: the text after the body and, per context section in it, `(start, end,
    segment starts)` so that a cut of its head lands on a segment."""

    text: str
    context_ranges: tuple[tuple[int, int, tuple[int, ...]], ...] = field(default=())


def assemble_suffix(
    split_turn: str | ContextSection = "",
    preserved_turns: str | ContextSection = "",
    tool_failures: str = "",
    file_ops: str = "",
    workspace: str = "",
    *,
    generated_split_turn: str = "",
) -> Suffix:
    """`assembleSuffix`, parts in the safeguard's order: split-turn context (a provider's run), the generated
    split-turn section (quality guard on), preserved turns, tool failures, file lists, workspace rules."""
    text = ""
    ranges: list[tuple[int, int, tuple[int, ...]]] = []
    for part in (split_turn, generated_split_turn, preserved_turns, tool_failures, file_ops, workspace):
        section = part.text if isinstance(part, ContextSection) else part
        if not section:
            continue
        lead = 0 if text else js_len(section) - js_len(js_trim_start(section))
        start = js_len(text)
        text = append_summary_section(text, section)
        if isinstance(part, ContextSection):
            appended = js_len(section) - lead
            ranges.append((start, start + appended, tuple(start + s - lead for s in part.segment_starts if s >= lead)))
    if text and not js_starts_with_whitespace(text):
        text = "\n\n" + text
        ranges = [(a + 2, b + 2, tuple(s + 2 for s in starts)) for a, b, starts in ranges]
    return Suffix(text, tuple(ranges))


def _as_suffix(suffix: str | Suffix) -> Suffix:
    return suffix if isinstance(suffix, Suffix) else Suffix(suffix)


def _tail_start(suffix: Suffix, tail_budget: int) -> int:
    desired = max(0, js_len(suffix.text) - tail_budget)
    for start, end, starts in suffix.context_ranges:
        if start < desired < end:
            return next((s for s in starts if s >= desired), end)
    return desired


def cap_compaction_suffix(suffix: str | Suffix, max_chars: int) -> str:
    """`capCompactionSuffix`: the suffix's tail (from a segment start inside a context section) behind
    `CONTEXT_TRUNCATED_MARKER`."""
    s = _as_suffix(suffix)
    if js_len(s.text) <= max_chars:
        return s.text
    if max_chars <= 0:
        return ""
    marker = js_len(CONTEXT_TRUNCATED_MARKER)
    if max_chars < marker:
        return slice_utf16_safe(s.text, _tail_start(s, max_chars))
    tail_budget = max_chars - marker
    start = _tail_start(s, tail_budget)
    return CONTEXT_TRUNCATED_MARKER + slice_utf16_safe(s.text, start) if tail_budget > 0 else CONTEXT_TRUNCATED_MARKER


@dataclass(frozen=True)
class Budgeted:
    """`budgetCompactionSummary`'s result: the summary, what was cut, the body as budgeted (`structural_summary`,
    what the quality audit reads for headings) and whether the guard's protected facts alone exceed the budget."""

    summary: str
    body_budget: int
    body_trimmed: bool
    suffix_trimmed: bool
    structural_summary: str = ""
    quality_retention_infeasible: bool = False


def budget_compaction_summary(
    body: str, suffix: str | Suffix, max_chars: int = MAX_COMPACTION_SUMMARY_CHARS, quality: QualityRetention | None = None,
) -> Budgeted:
    """`budgetCompactionSummary`: the body keeps at least half of `max_chars` (or what the suffix leaves), the suffix
    the rest, cut from its head. With `quality` (the guard on) the body is cut by the retention plan, which may take
    all of `max_chars` and re-renders a body that fits but lacks its facts."""
    s = _as_suffix(suffix)
    joined = body + s.text
    plan = create_summary_quality_retention_plan(body, SUMMARY_TRUNCATED_MARKER, quality) if quality is not None else None
    if max_chars <= 0 or (js_len(joined) <= max_chars and not (plan is not None and plan.needs_rebuild(max_chars))):
        return Budgeted(joined, max_chars, False, False, body)
    body_len = js_len(body)
    capacity = max_chars if plan is not None else body_len
    floor_ = min(capacity, max_chars, max(1, math.ceil(max_chars / 2), plan.minimum_chars if plan is not None else 0))
    slot = min(capacity, max(floor_, max_chars - min(js_len(s.text), max_chars)))
    rendered = plan.render(slot) if plan is not None else None
    capped_body = rendered.text if rendered is not None else cap_compaction_summary(body, slot)
    capped_suffix = cap_compaction_suffix(s, max(0, max_chars - js_len(capped_body)))
    return Budgeted(
        capped_body + capped_suffix, slot, rendered.trimmed if rendered is not None else js_len(capped_body) < body_len,
        js_len(capped_suffix) < js_len(s.text), capped_body, plan is not None and plan.minimum_chars > max_chars,
    )


def cap_preserving_suffix(body: str, suffix: str | Suffix, max_chars: int = MAX_COMPACTION_SUMMARY_CHARS) -> str:
    """The safeguard's cap of body + suffix (`budget_compaction_summary(...).summary`)."""
    return budget_compaction_summary(body, suffix, max_chars).summary


def fit_compaction_summary(token_budget: float | None, render: Callable[[int], str | None]) -> str | None:
    """`fitCompactionSummary`: `render(16000)`, or with a token budget (chars / 4, CJK weighted) the largest cap
    whose rendering fits; None where the JavaScript reports `CompactionError` (nothing fits)."""

    def fits(text: str) -> bool:
        return token_budget is None or estimate_string_chars(text) / 4 <= token_budget

    full = render(MAX_COMPACTION_SUMMARY_CHARS)
    if full is not None and fits(full):
        return full
    low, high, fitted = 1, MAX_COMPACTION_SUMMARY_CHARS - 1, None
    while low <= high:
        mid = (low + high) // 2
        candidate = render(mid)
        if candidate is None:
            low = mid + 1
        elif fits(candidate):
            fitted, low = candidate, mid + 1
        else:
            high = mid - 1
    return fitted


def _split_turn_section(turn_prefix_summary: str | None) -> str:
    split = format_generated_split_turn_section(turn_prefix_summary) if turn_prefix_summary is not None else ""
    return f"\n\n{split}" if split else ""


def unbudgeted_summary(history: str, turn_prefix_summary: str | None) -> str:
    """The safeguard's `unbudgetedSummary`: the history with the split turn's generated section (what the quality
    guard's retention plan audits, `QualityRetention.audit_summary`)."""
    return append_summary_section(history, _split_turn_section(turn_prefix_summary))


def finalize_budgeted(
    history: str,
    turn_prefix_summary: str | None,
    preserved_messages: Sequence[dict[str, Any]],
    tool_failures: str,
    file_ops: str,
    workspace: str = "",
    *,
    token_budget: float | None = None,
    quality: QualityRetention | None = None,
) -> Budgeted | None:
    """The safeguard's `finalizeSummaryText`: the body (history, with the generated split-turn section when the
    guard is off) and the suffix (the split-turn section when the guard is on, preserved turns, tool failures, file
    lists, workspace rules) budgeted into 16,000 characters, fitted under `token_budget`; None where the JavaScript
    reports `CompactionError` (nothing fits). `quality`: the guard's retention parameters (the guard on)."""
    section = _split_turn_section(turn_prefix_summary)
    body = history if quality is not None else append_summary_section(history, section)
    preserved = format_preserved_turns_section(preserved_messages)
    suffix = assemble_suffix("", preserved, tool_failures, file_ops, workspace, generated_split_turn=section if quality is not None else "")
    rendered: dict[int, Budgeted] = {}  # by the id of its summary string, which `fit_compaction_summary` returns as given

    def render(max_chars: int) -> str:
        budgeted = budget_compaction_summary(body, suffix, max_chars, quality)
        rendered[id(budgeted.summary)] = budgeted
        return budgeted.summary

    fitted = fit_compaction_summary(token_budget, render)
    return rendered[id(fitted)] if fitted is not None else None


def finalize_summary(
    history: str,
    turn_prefix_summary: str | None,
    preserved_messages: Sequence[dict[str, Any]],
    tool_failures: str,
    file_ops: str,
    workspace: str = "",
    *,
    token_budget: float | None = None,
    quality: QualityRetention | None = None,
) -> str:
    """The summary the safeguard stores (`finalize_budgeted`, then capped at 16,000); `turn_prefix_summary` is None
    when no turn is split. None of it raises: a `token_budget` nothing fits under gives the summary unfitted."""
    budgeted = finalize_budgeted(
        history, turn_prefix_summary, preserved_messages, tool_failures, file_ops, workspace, token_budget=token_budget, quality=quality,
    )
    if budgeted is None:
        budgeted = finalize_budgeted(history, turn_prefix_summary, preserved_messages, tool_failures, file_ops, workspace, quality=quality)
    assert budgeted is not None  # without a token budget the full rendering is taken
    return cap_compaction_summary(budgeted.summary)
