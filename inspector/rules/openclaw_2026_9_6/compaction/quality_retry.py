"""OpenClaw 2026.9.6's summary quality guard, the deterministic part: the audit a finalized summary must pass.

2026.9's safeguard turns `qualityGuard` on by default (`qualityGuard.enabled ?? true`): after finalizing a summary it
runs `auditSummaryQuality`; a failing summary is regenerated with the reasons as feedback, up to
`resolve_quality_guard_max_retries(qualityGuard.maxRetries)` more times (default 1, at most 3: each retry is a model
call), and when the last attempt fails too the compaction is cancelled. Ported from 2026.9.6
`src/agents/agent-hooks/compaction-safeguard-quality.ts` (`auditSummaryQuality`, `extractOpaqueIdentifiers`,
`extractPendingAskSection`, `isEmptyPendingAsk`) and `compaction-safeguard.ts` (`resolveQualityGuardMaxRetries`).

`audit_summary_quality` gives the reasons the guard would give (`missing_section:## ...`, `duplicate_section:...`,
`missing_identifiers:a,b,c`, `latest_user_ask_not_foregrounded`, `retained_turn_ask_marked_pending`). Not
reproduced: the latest-ask overlap (`hasAskOverlap`: the memory search's multilingual keyword extraction), so
without a latest unresolved request a `latest_ask` is not checked (`QualityAudit.ask_checked` is False), nor is the
retained-turn ask. The retention plan that re-renders sections to fit the budget (`createSummaryQualityRetentionPlan`)
is `compaction/retention.py`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspector.js.jsjson import js_stringify
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_9_6.compaction.overflow import js_regex

MAX_EXTRACTED_IDENTIFIERS = 12
DEFAULT_QUALITY_GUARD_MAX_RETRIES = 1
MAX_QUALITY_GUARD_MAX_RETRIES = 3
LATEST_USER_REQUEST_CONTEXT_LABEL = "Latest user request context:"

_IDENTIFIER = js_regex(
    r"(https?:\/\/\S+|(?<![A-Za-z0-9._-])\/[\w.-]{2,}(?:\/[\w.-]+)+|[A-Za-z]:\\[\w\\.-]+|(?<![A-Za-z0-9._-])[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5})|"
    r"(?:(?:(?:\d+\.\d+|\.\d+)(?:[eE][+-]?\d+)?|\d+\.[eE][+-]?\d+|\d+\.?[eE][+-]\d+|(?![A-Fa-f0-9]{8,}(?![A-Fa-f0-9]))\d+\.?[eE]\d+)"
    r"(?:(?=[A-Za-z]+(?![A-Za-z0-9]))(?=[A-Za-z]*[G-Zg-z])[A-Za-z]+)?(?![A-Za-z0-9])|"
    r"(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*(?:[A-Fa-f0-9]{8,}|\d{6,}))([A-Za-z0-9_-]+))",
    ignore_case=False,
)
_LEAD = re.compile(r"\A[(\"'`\[{<]+")
_TRAIL = re.compile(r"[)\]\"'`,;:.!?<>]+\Z")
_HEX = re.compile(r"\A[A-Fa-f0-9]{8,}\Z", re.ASCII)
_LINE_BREAK = re.compile(r"\r?\n")
_TERMINATORS = "\n\r\u2028\u2029"
_PENDING_HEADING = re.compile(f"(?:^|(?<=[{_TERMINATORS}]))## Pending user asks[ \\t]*(?=[{_TERMINATORS}]|\\Z)")
_ANY_HEADING = js_regex(r"(?:^|(?<=[\n\r\u2028\u2029]))##[ \t]+\S[^\n\r\u2028\u2029]*(?=[\n\r\u2028\u2029]|$)", ignore_case=False)
_EMPTY_ASK = re.compile(r"\A(?:none|none captured|no pending asks)[.!]?\Z", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class QualityAudit:
    """`auditSummaryQuality`'s answer: `ok` when no reason; `ask_checked` False when the latest-ask overlap, which
    the port does not reproduce, would have been checked."""

    ok: bool
    reasons: list[str] = field(default_factory=list)
    ask_checked: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "reasons": self.reasons, "ask_checked": self.ask_checked}


def resolve_quality_guard_max_retries(value: Any) -> int:
    """`resolveQualityGuardMaxRetries`: a finite number floored into 0..3, else 1."""
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else DEFAULT_QUALITY_GUARD_MAX_RETRIES
    return int(min(MAX_QUALITY_GUARD_MAX_RETRIES, max(0, math.floor(number))))


def _sanitize(value: str) -> str:
    return _TRAIL.sub("", _LEAD.sub("", js_trim(value)))


def _is_hex(value: str) -> bool:
    return _HEX.search(value) is not None


def extract_opaque_identifiers(text: str) -> list[str]:
    """`extractOpaqueIdentifiers`: URLs, paths, host:port, numbers with units, long hex / digit runs (pure hex upper
    cased), sanitized, at least 4 characters, unique, the first 12."""
    out: list[str] = []
    for match in _IDENTIFIER.finditer(text):
        raw = match.group(1) if match.group(1) is not None else (match.group(2) or "")
        value = _sanitize(raw)
        value = value.upper() if _is_hex(value) else value
        if len(value) >= 4 and value not in out:
            out.append(value)
    return out[:MAX_EXTRACTED_IDENTIFIERS]


def summary_includes_identifier(summary: str, identifier: str) -> bool:
    """`summaryIncludesIdentifier`: literally, a pure hex one in any case."""
    return identifier.upper() in summary.upper() if _is_hex(identifier) else identifier in summary


def normalized_summary_lines(summary: str) -> list[str]:
    """`normalizedSummaryLines`: the trimmed non-empty lines."""
    return [line for line in (js_trim(part) for part in _LINE_BREAK.split(summary)) if line]


def extract_pending_ask_section(summary: str) -> str:
    """`extractPendingAskSection`: the text under the first `## Pending user asks` line, to the next heading."""
    parts = _PENDING_HEADING.split(summary, maxsplit=2)
    if len(parts) < 2:
        return ""
    return js_trim(_ANY_HEADING.split(parts[1], maxsplit=1)[0])


def format_latest_user_request_context(request: str) -> str:
    """`formatLatestUserRequestContext`."""
    return f"{LATEST_USER_REQUEST_CONTEXT_LABEL} {js_stringify(request)}"


def _leading_pending_ask(summary: str) -> str:
    lines = normalized_summary_lines(extract_pending_ask_section(summary))
    return lines[0] if lines else ""


def audit_summary_quality(
    summary: str,
    structural_summary: str | None = None,
    source_summaries: Sequence[str] = (),
    identifiers: Sequence[str] = (),
    latest_ask: str | None = None,
    latest_unresolved_user_request: str | None = None,
    retained_turn_summary: str | None = None,
    identifier_policy: str = "strict",
) -> QualityAudit:
    """`auditSummaryQuality` (see the module docstring): the required headings in `structural_summary` (default the
    summary), none twice in a source summary, the `identifiers` (`extract_opaque_identifiers` of the last ten
    messages) all in the summary under the strict policy, the latest unresolved request foregrounded first in
    `## Pending user asks` and no retained-turn ask left pending."""
    structural = summary if structural_summary is None else structural_summary
    reasons: list[str] = []
    lines = set(normalized_summary_lines(structural))
    for section in REQUIRED_SUMMARY_SECTIONS:
        if section not in lines:
            reasons.append(f"missing_section:{section}")
        if any(normalized_summary_lines(source).count(section) > 1 for source in source_summaries):
            reasons.append(f"duplicate_section:{section}")
    if identifier_policy == "strict":
        missing = [i for i in identifiers if not summary_includes_identifier(summary, i)]
        if missing:
            reasons.append(f"missing_identifiers:{','.join(missing[:3])}")
    ask_checked = True
    if latest_unresolved_user_request:
        if _leading_pending_ask(structural) != format_latest_user_request_context(latest_unresolved_user_request):
            reasons.append("latest_user_ask_not_foregrounded")
        retained = _leading_pending_ask(retained_turn_summary or "")
        if retained and not _EMPTY_ASK.search(retained):
            reasons.append("retained_turn_ask_marked_pending")
    elif latest_ask:
        ask_checked = False  # hasAskOverlap: not reproduced
    return QualityAudit(not reasons, reasons, ask_checked)
