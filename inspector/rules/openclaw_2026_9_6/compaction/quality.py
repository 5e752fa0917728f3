"""OpenClaw 2026.9.6's summary quality guard (`compaction-safeguard-quality.ts`, `compaction-safeguard.ts`).

On by default in 2026.9 (`compaction.qualityGuard.enabled ?? true`), and final: the safeguard audits the
*finalized* summary (`audit_summary_quality`); a failing summary is regenerated with the reasons as feedback, up to
`resolve_quality_guard_max_retries(qualityGuard.maxRetries)` more times (default 1, at most 3: each retry is a
model call), and when the last attempt fails too the compaction is cancelled (nothing is written). Changed from
2026.4.12:

* `extract_opaque_identifiers`: paths and host:port only where they start a word, scientific-looking numbers no
  longer count, and a hex run or 6+ digit number counts as the whole `[A-Za-z0-9_-]` word around it;
* `has_ask_overlap`: the summary side counts its keywords and its plain letter/number runs;
* `audit_summary_quality` gives every reason the real `auditSummaryQuality` gives: `missing_section:## ...` (on
  the structural summary, the body as budgeted), `duplicate_section:## ...` (a source summary repeating a
  heading), `missing_identifiers:a,b,c` (strict policy), `latest_user_ask_not_foregrounded` (a latest unresolved
  request, overflow recovery, must lead `## Pending user asks`) or else `latest_user_ask_not_reflected`, and
  `retained_turn_ask_marked_pending` (the split turn's own summary leaves the ask pending);
* `audit_safeguard_summary`: the latest ask is the split turn's when a turn is split, else the last of the
  messages to summarize before the recent turns are taken out; identifiers from those and the split prefix.

New names: `SafeguardFacts` + `safeguard_facts` (what the safeguard derives from the messages: identifiers, the
latest ask, its required context), `QualityRetention` (the facts as the retention plan, `retention.py`, takes
them), `format_required_ask_context`, `summarizes_recent_turns` (the guard keeps the recent turns in what is
summarized when the latest ask is theirs), `guard_room` (the room a summary keeps whole under the guard), `extract_pending_ask_section`, `leading_pending_ask`,
`is_empty_pending_ask`, `format_latest_user_request_context`, `resolve_quality_guard_max_retries`, `configured_max_retries`,
`guard_note` (what the forecast says of the guard). Everything else is 2026.4.12's module (imported).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import js_len, js_stringify
from inspector.js.utf16 import JS_WHITESPACE, js_trim
from inspector.rules.openclaw_2026_4_12.compaction.assembly import SUMMARY_TRUNCATED_MARKER, extract_message_text
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_4_12.compaction.quality import (
    AUDITED_MESSAGES,
    MAX_ASK_OVERLAP_TOKENS,
    MAX_EXTRACTED_IDENTIFIERS,
    QualityAudit,
    _unique_identifiers,
    ask_overlap_requirement,
    extract_keywords,
    extract_latest_user_ask,
    has_required_summary_sections,
    is_pure_hex_identifier,
    normalized_summary_lines,
    sanitize_extracted_identifier,
    summary_includes_identifier,
    tokenize_ask_overlap_text,
)
from inspector.rules.openclaw_2026_4_12.compaction.quality import has_ask_overlap as _has_ask_overlap_2026_4
from inspector.rules.openclaw_2026_4_12.compaction.settings import _get
from inspector.rules.openclaw_2026_9_6.compaction.overflow import js_regex
from inspector.rules.openclaw_2026_9_6.pruning.pruner import slice_utf16_safe

__all__ = [
    "AUDITED_MESSAGES",
    "MAX_ASK_OVERLAP_TOKENS",
    "MAX_EXTRACTED_IDENTIFIERS",
    "REQUIRED_SUMMARY_SECTIONS",
    "QualityAudit",
    "ask_overlap_requirement",
    "extract_keywords",
    "extract_latest_user_ask",
    "has_required_summary_sections",
    "is_pure_hex_identifier",
    "normalized_summary_lines",
    "sanitize_extracted_identifier",
    "summary_includes_identifier",
    "tokenize_ask_overlap_text",
]

LATEST_USER_REQUEST_CONTEXT_LABEL = "Latest user request context:"
DEFAULT_QUALITY_GUARD_MAX_RETRIES = 1
MAX_QUALITY_GUARD_MAX_RETRIES = 3
MAX_REQUIRED_ASK_CONTEXT_CHARS = 2000
REQUIRED_ASK_CONTEXT_TRUNCATED_MARKER = "\n[... split-turn ask context truncated ...]\n"
QUALITY_GUARD_DEFAULT = True
"""Whether `compaction.qualityGuard.enabled` is on when unset."""
QUALITY_FAILURE_OUTCOME = "OpenClaw 2026.9.6 would cancel this compaction: its quality guard is on by default and audits the stored summary"
"""What OpenClaw does with a summary that fails the audit (what a warning says)."""

_NOT_SPACE = f"[^{re.escape(JS_WHITESPACE)}]"
_OPAQUE = re.compile(
    rf"(https?://{_NOT_SPACE}+|(?<![A-Za-z0-9._-])/[\w.-]{{2,}}(?:/[\w.-]+)+|[A-Za-z]:\\[\w\\.-]+"
    r"|(?<![A-Za-z0-9._-])[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5})"
    r"|(?:(?:(?:\d+\.\d+|\.\d+)(?:[eE][+-]?\d+)?|\d+\.[eE][+-]?\d+|\d+\.?[eE][+-]\d+|(?![A-Fa-f0-9]{8,}(?![A-Fa-f0-9]))\d+\.?[eE]\d+)"
    r"(?:(?=[A-Za-z]+(?![A-Za-z0-9]))(?=[A-Za-z]*[G-Zg-z])[A-Za-z]+)?(?![A-Za-z0-9])"
    r"|(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*(?:[A-Fa-f0-9]{8,}|\d{6,}))([A-Za-z0-9_-]+))",
    re.ASCII,
)
_TERMINATORS = "\n\r\u2028\u2029"
_PENDING_HEADING = re.compile(f"(?:^|(?<=[{_TERMINATORS}]))## Pending user asks[ \\t]*(?=[{_TERMINATORS}]|\\Z)")
_ANY_HEADING = js_regex(r"(?:^|(?<=[\n\r\u2028\u2029]))##[ \t]+\S[^\n\r\u2028\u2029]*(?=[\n\r\u2028\u2029]|$)", ignore_case=False)
_EMPTY_ASK = re.compile(r"\A(?:none|none captured|no pending asks)[.!]?\Z", re.IGNORECASE)


def extract_opaque_identifiers(text: str) -> list[str]:
    """2026.9's `extractOpaqueIdentifiers` (see the module docstring); the first 12 distinct of 4+ characters."""
    return _unique_identifiers([m.group(1) or m.group(2) or "" for m in _OPAQUE.finditer(text)])


def has_ask_overlap(summary: str, latest_ask: str | None) -> bool:
    """2026.9's `hasAskOverlap` (the summary side with its fallback tokens)."""
    return _has_ask_overlap_2026_4(summary, latest_ask, summary_fallback_tokens=True)


def resolve_quality_guard_max_retries(value: Any) -> int:
    """`resolveQualityGuardMaxRetries`: a finite number floored into 0..3, else 1."""
    finite = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return int(min(MAX_QUALITY_GUARD_MAX_RETRIES, max(0, math.floor(value if finite else DEFAULT_QUALITY_GUARD_MAX_RETRIES))))


def configured_max_retries(config: dict[str, Any] | None) -> int:
    """The retries the guard gives a failing summary under `config`: `resolve_quality_guard_max_retries` of
    `agents.defaults.compaction.qualityGuard.maxRetries`."""
    return resolve_quality_guard_max_retries(_get(config, "agents", "defaults", "compaction", "qualityGuard", "maxRetries"))


def extract_pending_ask_section(summary: str) -> str:
    """`extractPendingAskSection`: the text under the first `## Pending user asks` line, to the next heading."""
    parts = _PENDING_HEADING.split(summary, maxsplit=2)
    if len(parts) < 2:
        return ""
    return js_trim(_ANY_HEADING.split(parts[1], maxsplit=1)[0])


def leading_pending_ask(summary: str) -> str:
    """`extractLeadingPendingAsk`: the first line of `## Pending user asks` ("" without one)."""
    lines = normalized_summary_lines(extract_pending_ask_section(summary))
    return lines[0] if lines else ""


def is_empty_pending_ask(value: str) -> bool:
    """`isEmptyPendingAsk`: "None", "None captured", "No pending asks" (any case, one final `.` or `!`)."""
    return _EMPTY_ASK.search(value) is not None


def format_latest_user_request_context(request: str) -> str:
    """`formatLatestUserRequestContext`."""
    return f"{LATEST_USER_REQUEST_CONTEXT_LABEL} {js_stringify(request)}"


def format_required_ask_context(ask: str) -> str:
    """`formatRequiredAskContext`: the trimmed ask; past 2,000 characters its first and last 978 around a marker."""
    source = js_trim(ask)
    if js_len(source) <= MAX_REQUIRED_ASK_CONTEXT_CHARS:
        return source
    return slice_utf16_safe(source, 0, 978) + REQUIRED_ASK_CONTEXT_TRUNCATED_MARKER + slice_utf16_safe(source, -978)


def audit_summary_quality(
    summary: str,
    identifiers: Sequence[str],
    latest_ask: str | None,
    identifier_policy: str = "strict",
    *,
    structural_summary: str | None = None,
    source_summaries: Sequence[str] = (),
    latest_unresolved_request: str | None = None,
    retained_turn_summary: str | None = None,
) -> QualityAudit:
    """2026.9's `auditSummaryQuality` (see the module docstring): the required headings in `structural_summary`
    (default: the summary), none twice in a source summary, the `identifiers` in the summary (strict policy), the
    latest unresolved request first in `## Pending user asks` (else the latest ask reflected), and the split turn's
    own summary (`retained_turn_summary`) not leaving the ask pending."""
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
            reasons.append("missing_identifiers:" + ",".join(missing[:3]))
    if latest_unresolved_request:
        if leading_pending_ask(structural) != format_latest_user_request_context(latest_unresolved_request):
            reasons.append("latest_user_ask_not_foregrounded")
    elif not has_ask_overlap(summary, latest_ask):
        reasons.append("latest_user_ask_not_reflected")
    retained = leading_pending_ask(retained_turn_summary or "")
    if latest_unresolved_request:
        retained_pending = bool(retained) and not is_empty_pending_ask(retained)
    else:
        retained_pending = (retained_turn_summary is not None and ask_overlap_requirement(latest_ask) is not None
                            and has_ask_overlap(extract_pending_ask_section(retained_turn_summary), latest_ask))
    if retained_pending:
        reasons.append("retained_turn_ask_marked_pending")
    return QualityAudit(not reasons, tuple(reasons))


def audited_identifiers(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The identifiers the safeguard audits: those of the last 10 messages' text."""
    texts = [extract_message_text(m) for m in messages[-AUDITED_MESSAGES:] if isinstance(m, dict)]
    return extract_opaque_identifiers("\n".join(t for t in texts if t))


def audit_compaction_summary(summary: str, messages: Sequence[dict[str, Any]], identifier_policy: str = "strict") -> QualityAudit:
    """The audit of `summary` with its facts from `messages` (the latest ask, the last 10 messages' identifiers)."""
    return audit_summary_quality(summary, audited_identifiers(messages), extract_latest_user_ask(messages), identifier_policy)


@dataclass(frozen=True)
class QualityRetention:
    """What the safeguard passes to the retention plan (its `qualityRetention`, `retention.py`): the summary the
    audit reads (`audit_summary`, the history with the split-turn section), the audited `identifiers`, the latest
    user ask and whether it is the split turn's (`latest_ask_in_retained_turn`), the latest unresolved request
    (overflow recovery), the required ask context (`format_required_ask_context` of the latest ask), the identifier
    policy, and `ask_overlap(text, ask)`, the guard's `has_ask_overlap`."""

    ask_overlap: Callable[[str, str], bool]
    audit_summary: str | None = None
    identifiers: Sequence[str] = ()
    latest_ask: str | None = None
    latest_ask_in_retained_turn: bool = False
    latest_unresolved_user_request: str | None = None
    required_ask_context: str | None = None
    identifier_policy: str = "strict"

    def overlaps(self, text: str) -> bool:
        """`hasAskOverlap(text, latestAsk)`: true without a latest ask."""
        return True if not self.latest_ask else self.ask_overlap(text, self.latest_ask)


@dataclass(frozen=True)
class SafeguardFacts:
    """What the 2026.9 safeguard audits a summary against, from the messages to summarize (after the history-share
    prune, recent turns included) and the split turn's prefix: the `identifiers` of their last 10, the latest ask
    (the split turn's, `split_ask`, when it has one), and its `required_ask_context`."""

    identifiers: tuple[str, ...]
    latest_ask: str | None
    split_ask: str | None
    prepared_ask: str | None
    required_ask_context: str

    def retention(self, audit_summary: str, identifier_policy: str = "strict", latest_unresolved_request: str | None = None) -> QualityRetention:
        """The guard's retention parameters for a summary whose audited text (history + split-turn section) is
        `audit_summary`."""
        return QualityRetention(has_ask_overlap, audit_summary, self.identifiers, self.latest_ask, self.split_ask is not None,
                                latest_unresolved_request, self.required_ask_context, identifier_policy)


def safeguard_facts(before_preserve: Sequence[dict[str, Any]], turn_prefix: Sequence[dict[str, Any]], is_split_turn: bool) -> SafeguardFacts:
    """The safeguard's `identifiers`, `splitUserAsk`, `latestUserAsk`, `latestPreparedAsk`, `requiredAskContext`."""
    split_ask = extract_latest_user_ask(turn_prefix) if is_split_turn else None
    prepared = extract_latest_user_ask(before_preserve)
    ask = split_ask if split_ask is not None else prepared
    ids = tuple(audited_identifiers([*before_preserve, *turn_prefix]))
    return SafeguardFacts(ids, ask, split_ask, prepared, format_required_ask_context(ask or ""))


def guard_room(facts: SafeguardFacts, max_chars: int) -> tuple[int, int]:
    """The room a history summary keeps whole in a body slot of `max_chars` under the guard's retention plan: the
    summary's own length (the slot less what the plan adds: the latest request's context first, the marker and the
    audited identifiers it reserves) and the most each protected section (`## Pending user asks`, `## Exact
    identifiers`) may hold (a quarter of what the plan leaves for contents)."""
    from inspector.rules.openclaw_2026_9_6.compaction.retention import create_summary_quality_retention_plan

    skeleton = "\n\n".join(REQUIRED_SUMMARY_SECTIONS)
    plan = create_summary_quality_retention_plan(skeleton, SUMMARY_TRUNCATED_MARKER, facts.retention(facts.latest_ask or skeleton))
    assert plan is not None  # the five headings in order
    return max_chars - (plan.minimum_chars - js_len(skeleton)) - len(REQUIRED_SUMMARY_SECTIONS), plan.protected_cap(max_chars)


def summarizes_recent_turns(facts: SafeguardFacts, summarizable_count: int, preserved_section: str, latest_unresolved_request: str | None = None) -> bool:
    """With the guard on, whether the safeguard summarizes the recent turns too (not only the messages before them):
    when the latest ask is the prepared messages' own (not only the split turn's) and either something precedes the
    recent turns or their preserved section lacks the ask's context."""
    return (not latest_unresolved_request and bool(facts.prepared_ask) and facts.prepared_ask == facts.latest_ask
            and (summarizable_count > 0 or facts.required_ask_context not in preserved_section))


def audit_safeguard_summary(
    history: str,
    stored: str,
    summarizable: Sequence[dict[str, Any]],
    before_preserve: Sequence[dict[str, Any]],
    turn_prefix: Sequence[dict[str, Any]],
    is_split_turn: bool,
    identifier_policy: str = "strict",
    *,
    structural_summary: str | None = None,
    source_summaries: Sequence[str] = (),
    turn_prefix_summary: str | None = None,
    latest_unresolved_request: str | None = None,
) -> QualityAudit:
    """The audit as the 2026.9 safeguard runs it: on the `stored` (finalized) summary, its headings on
    `structural_summary` (the body as budgeted; default `stored`), `source_summaries` (the history summary and the
    split turn's) checked for repeated headings; the latest ask and identifiers from `safeguard_facts`; the split
    turn's summary (`turn_prefix_summary`) audited as the retained turn's when the ask is the split turn's."""
    facts = safeguard_facts(before_preserve, turn_prefix, is_split_turn)
    retained = (turn_prefix_summary or "") if facts.split_ask is not None else None
    return audit_summary_quality(
        stored, facts.identifiers, facts.latest_ask, identifier_policy, structural_summary=structural_summary,
        source_summaries=[s for s in source_summaries if s], latest_unresolved_request=latest_unresolved_request, retained_turn_summary=retained,
    )


def guard_note(enabled: bool, max_retries: int) -> str:
    """What the forecast says of the guard: on or off, the retries a failing summary gets, and the outcome."""
    if not enabled:
        return "OpenClaw 2026.9.6's quality guard is off (compaction.qualityGuard.enabled: false): the summary is stored unaudited"
    retries = f"{max_retries} more time{'s' if max_retries != 1 else ''}" if max_retries else "no more times"
    return (f"OpenClaw 2026.9.6's quality guard is on (compaction.qualityGuard.enabled, on by default): a summary that fails it is "
            f"regenerated with the reasons, {retries} (compaction.qualityGuard.maxRetries, default {DEFAULT_QUALITY_GUARD_MAX_RETRIES}, "
            f"at most {MAX_QUALITY_GUARD_MAX_RETRIES}), and one that still fails cancels the compaction: nothing is written")
