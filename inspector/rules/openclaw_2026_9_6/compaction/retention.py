"""OpenClaw 2026.9.6's quality retention plan: how the safeguard cuts a summary body when its quality guard is on.

With `compaction.qualityGuard.enabled` (on by default in 2026.9) the safeguard budgets the history summary with a
retention plan (`createSummaryQualityRetentionPlan`, `src/agents/agent-hooks/compaction-safeguard-quality.ts`)
instead of a plain cut from its tail: the five required sections are parsed, and when the body does not fit, or
the audit facts are not in it (the latest ask's context, the audited identifiers), or a protected section (pending
asks, exact identifiers) holds more than a quarter of what is left, the sections are re-rendered: the headings, the
latest ask's context and the identifiers are kept whole; the protected sections get at most that quarter each; the
first three share the rest in proportion to their length, each cut surrogate-safe, with the truncation marker
before `## Pending user asks`. A body without the five sections in order has no plan (the plain cut applies).

Every length is in UTF-16 code units, as JavaScript counts. Whether the summary reflects the latest ask
(`hasAskOverlap`: the memory search's multilingual keywords) is asked of `QualityRetention.ask_overlap` (the
parameters are `quality.QualityRetention`; `quality.SafeguardFacts.retention` supplies the guard's `has_ask_overlap`);
it is only asked when there is a latest ask and no latest unresolved request.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from inspector.js.jsjson import js_len, js_stringify
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_9_6.compaction.quality import (
    LATEST_USER_REQUEST_CONTEXT_LABEL,
    QualityRetention,
    format_latest_user_request_context,
    is_empty_pending_ask,
    leading_pending_ask,
    normalized_summary_lines,
    summary_includes_identifier,
)
from inspector.rules.openclaw_2026_9_6.pruning.pruner import slice_utf16_safe

__all__ = ["QualityRetention"]

QUALITY_PROTECTED_SECTION_START = 3
PENDING_ASK_SECTION_INDEX = 3
EXACT_IDENTIFIERS_SECTION_INDEX = 4
MAX_PROTECTED_SECTION_CONTENT_SHARE = 0.25
LATEST_USER_REQUEST_CONTEXT_HEADING = "## Latest user request context"
_LINE_BREAK = re.compile(r"\r?\n")


@dataclass(frozen=True)
class RenderedBody:
    """A plan's rendering: the body's text and whether any section was cut."""

    text: str
    trimmed: bool


def _truncate(text: str, max_len: int) -> str:
    return text if js_len(text) <= max_len else slice_utf16_safe(text, 0, max(0, max_len))


def parse_required_section_contents(summary: str) -> list[str] | None:
    """`parseRequiredSummarySectionContents`: the trimmed text under each required heading (the text before the
    first heading joins the first section); None unless all five appear in order."""
    contents: list[list[str]] = [[] for _ in REQUIRED_SUMMARY_SECTIONS]
    preamble: list[str] = []
    index = -1
    for line in _LINE_BREAK.split(summary):
        if index + 1 < len(REQUIRED_SUMMARY_SECTIONS) and js_trim(line) == REQUIRED_SUMMARY_SECTIONS[index + 1]:
            index += 1
            continue
        (preamble if index < 0 else contents[index]).append(line)
    if index != len(REQUIRED_SUMMARY_SECTIONS) - 1:
        return None
    contents[0][:0] = preamble
    return [js_trim("\n".join(lines)) for lines in contents]


class QualityRetentionPlan:
    """`createSummaryQualityRetentionPlan`'s plan for one body: `minimum_chars` (headings, marker and protected
    facts), `needs_rebuild(max_chars)` and `render(max_chars)` (None below the minimum)."""

    def __init__(self, summary: str, truncated_marker: str, params: QualityRetention, contents: list[str], context_block: str,
                 parsed: str, body_has_latest_ask: bool) -> None:
        self.summary, self.params, self.contents, self.context_block = summary, params, contents, context_block
        unresolved = js_trim(params.latest_unresolved_user_request or "")
        required = js_trim(params.required_ask_context or "")
        self.unresolved, self.body_has_latest_ask = unresolved, body_has_latest_ask
        self.identifiers = list(params.identifiers) if params.identifier_policy == "strict" else []
        self.marker = js_trim(truncated_marker)
        pending = contents[PENDING_ASK_SECTION_INDEX]
        if unresolved:
            ask_context = format_latest_user_request_context(unresolved)
        elif not params.latest_ask_in_retained_turn and required and (
            not body_has_latest_ask or (params.overlaps(pending) and required not in pending)
        ):
            ask_context = f"{LATEST_USER_REQUEST_CONTEXT_LABEL}\n{js_stringify(required)}"
        else:
            ask_context = ""
        self.ask_context = ask_context
        self.tails = ["", "", "", ask_context, "\n".join(self.identifiers)]
        self.has_identifiers = all(summary_includes_identifier(summary, i) for i in self.identifiers)
        if unresolved:
            self.has_ask_context = leading_pending_ask(parsed) == ask_context
        elif not required:
            self.has_ask_context = True
        elif context_block:
            self.has_ask_context = summary.startswith(context_block)
        else:
            self.has_ask_context = ask_context in pending
        blocks = [f"{heading}\n\n{tail}" for heading, tail in zip(REQUIRED_SUMMARY_SECTIONS, self.tails, strict=True)]
        start = QUALITY_PROTECTED_SECTION_START
        minimum = "\n\n".join([*([context_block] if context_block else []), *blocks[:start], self.marker, *blocks[start:]])
        self.minimum_chars = js_len(minimum)

    def protected_cap(self, max_chars: int) -> int:
        """The most a protected section (pending asks, exact identifiers) keeps in a body of `max_chars`."""
        return math.floor(max(0, max_chars - self.minimum_chars) * MAX_PROTECTED_SECTION_CONTENT_SHARE)

    def _protected_within_cap(self, max_chars: int) -> bool:
        cap = self.protected_cap(max_chars)
        return all(js_len(c) <= cap for c in self.contents[QUALITY_PROTECTED_SECTION_START:])

    def needs_rebuild(self, max_chars: int) -> bool:
        """Whether the body must be re-rendered even when it fits (a fact missing, a protected section too long)."""
        return (
            (not self.unresolved and not self.body_has_latest_ask)
            or not self.has_ask_context
            or not self.has_identifiers
            or not self._protected_within_cap(max_chars)
        )

    def _join(self, index: int, optional: str) -> str:
        tail = self.tails[index]
        if not tail:
            return optional
        if index == PENDING_ASK_SECTION_INDEX:
            lines = normalized_summary_lines(optional)
            leading = lines[0] if lines else ""
            if leading == tail:
                return optional
            if self.unresolved:
                return "\n".join(p for p in (tail, "" if is_empty_pending_ask(leading) else optional) if p)
        if index == EXACT_IDENTIFIERS_SECTION_INDEX:
            return "\n".join(p for p in (optional, *(i for i in self.identifiers if not summary_includes_identifier(optional, i))) if p)
        empty_ask = index == PENDING_ASK_SECTION_INDEX and self.ask_context and is_empty_pending_ask(optional)
        return "\n".join(p for p in ("" if empty_ask else optional, tail) if p)

    def render(self, max_chars: int) -> RenderedBody | None:
        """The body within `max_chars` (see the module docstring); the summary itself when it fits with its facts."""
        summary, contents, start = self.summary, self.contents, QUALITY_PROTECTED_SECTION_START
        if js_len(summary) <= max_chars and self.has_ask_context and self.has_identifiers and self._protected_within_cap(max_chars):
            return RenderedBody(summary, False)
        if max_chars < self.minimum_chars:
            return None
        content_budget = max_chars - self.minimum_chars
        cap = self.protected_cap(max_chars)
        lengths = [js_len(c) for c in contents]
        allocations = [min(n, cap) if i >= start else 0 for i, n in enumerate(lengths)]
        optional_budget = max(0, content_budget - sum(allocations))
        optional_total = sum(lengths[:start])
        for i in range(start):
            allocations[i] = math.floor(optional_budget * lengths[i] / optional_total) if optional_total > 0 else 0
        remainder = optional_budget - sum(allocations[:start])
        for i in range(start):
            extra = min(remainder, max(0, lengths[i] - allocations[i]))
            allocations[i] += extra
            remainder -= extra
        trimmed = any(n > a for n, a in zip(lengths, allocations, strict=True))
        sections = [self._join(i, _truncate(c, allocations[i])) for i, c in enumerate(contents)]
        blocks = [f"{h}\n{c}" if c else h for h, c in zip(REQUIRED_SUMMARY_SECTIONS, sections, strict=True)]
        parts = [*([self.context_block] if self.context_block else []), *blocks[:start], *([self.marker] if trimmed else []), *blocks[start:]]
        return RenderedBody("\n\n".join(parts), trimmed)


def create_summary_quality_retention_plan(summary: str, truncated_marker: str, params: QualityRetention) -> QualityRetentionPlan | None:
    """`createSummaryQualityRetentionPlan` (see the module docstring); None when the body lacks the five sections."""
    required = js_trim(params.required_ask_context or "")
    unresolved = js_trim(params.latest_unresolved_user_request or "")
    body_has_latest_ask = params.overlaps(params.audit_summary if params.audit_summary is not None else summary)
    block = ""
    if not unresolved and (body_has_latest_ask or params.latest_ask_in_retained_turn) and required:
        block = f"{LATEST_USER_REQUEST_CONTEXT_HEADING}\n{js_stringify(required)}"
    parsed = summary[len(block) + 2:] if block and summary.startswith(f"{block}\n\n") else summary
    contents = parse_required_section_contents(parsed)
    if contents is None:
        return None
    return QualityRetentionPlan(summary, truncated_marker, params, contents, block, parsed, body_has_latest_ask)
