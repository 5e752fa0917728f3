"""OpenClaw 2026.9.6's summary quality guard (`compaction-safeguard-quality.ts`), where it changed.

On by default in 2026.9 (`compaction.qualityGuard.enabled`), and final: the safeguard audits the *finalized*
summary (preserved turns and all) and, when the audit still fails after its retries, cancels the compaction
(nothing is written). Changed from 2026.4.12:

* `extract_opaque_identifiers`: paths and host:port only where they start a word, scientific-looking numbers no
  longer count, and a hex run or 6+ digit number counts as the whole `[A-Za-z0-9_-]` word around it;
* `has_ask_overlap`: the summary side counts its keywords and its plain letter/number runs;
* `audit_summary_quality`: headings checked on the structural summary, the latest unresolved request
  (overflow recovery) must lead `## Pending user asks` (`latest_user_ask_not_foregrounded`);
* `audit_safeguard_summary`: the latest ask is the split turn's when a turn is split, else the last of the
  messages to summarize before the recent turns are taken out; identifiers from those and the split prefix.

Not reproduced: `duplicate_section` (source summaries repeating a heading) and `retained_turn_ask_marked_pending`.
Everything else is 2026.4.12's module (imported).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from inspector.js.jsjson import js_stringify
from inspector.js.utf16 import JS_WHITESPACE, js_trim
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_4_12.compaction.quality import (
    AUDITED_MESSAGES,
    MAX_ASK_OVERLAP_TOKENS,
    MAX_EXTRACTED_IDENTIFIERS,
    QualityAudit,
    _unique_identifiers,
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
from inspector.rules.openclaw_2026_9_6.compaction.assembly import extract_message_text

__all__ = [
    "AUDITED_MESSAGES",
    "MAX_ASK_OVERLAP_TOKENS",
    "MAX_EXTRACTED_IDENTIFIERS",
    "QualityAudit",
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


def extract_opaque_identifiers(text: str) -> list[str]:
    """2026.9's `extractOpaqueIdentifiers` (see the module docstring); the first 12 distinct of 4+ characters."""
    return _unique_identifiers([m.group(1) or m.group(2) or "" for m in _OPAQUE.finditer(text)])


def has_ask_overlap(summary: str, latest_ask: str | None) -> bool:
    """2026.9's `hasAskOverlap` (the summary side with its fallback tokens)."""
    return _has_ask_overlap_2026_4(summary, latest_ask, summary_fallback_tokens=True)


def _pending_ask_section(summary: str) -> str:
    parts = re.split(r"^## Pending user asks[ \t]*$", summary, maxsplit=1, flags=re.M)
    if len(parts) < 2:
        return ""
    return js_trim(re.split(r"^##[ \t]+\S.*$", parts[1], maxsplit=1, flags=re.M)[0])


def audit_summary_quality(
    summary: str,
    identifiers: Sequence[str],
    latest_ask: str | None,
    identifier_policy: str = "strict",
    *,
    structural_summary: str | None = None,
    latest_unresolved_request: str | None = None,
) -> QualityAudit:
    """2026.9's `auditSummaryQuality` (without the duplicate-section and retained-turn checks)."""
    structural = summary if structural_summary is None else structural_summary
    reasons: list[str] = []
    lines = set(normalized_summary_lines(structural))
    reasons += [f"missing_section:{h}" for h in REQUIRED_SUMMARY_SECTIONS if h not in lines]
    if identifier_policy == "strict":
        missing = [i for i in identifiers if not summary_includes_identifier(summary, i)]
        if missing:
            reasons.append("missing_identifiers:" + ",".join(missing[:3]))
    if latest_unresolved_request:
        leading = next(iter(normalized_summary_lines(_pending_ask_section(structural))), "")
        if leading != f"{LATEST_USER_REQUEST_CONTEXT_LABEL} {js_stringify(latest_unresolved_request)}":
            reasons.append("latest_user_ask_not_foregrounded")
    elif not has_ask_overlap(summary, latest_ask):
        reasons.append("latest_user_ask_not_reflected")
    return QualityAudit(not reasons, tuple(reasons))


def audited_identifiers(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The identifiers the safeguard audits: those of the last 10 messages' text."""
    texts = [extract_message_text(m) for m in messages[-AUDITED_MESSAGES:] if isinstance(m, dict)]
    return extract_opaque_identifiers("\n".join(t for t in texts if t))


def audit_compaction_summary(summary: str, messages: Sequence[dict[str, Any]], identifier_policy: str = "strict") -> QualityAudit:
    """The audit of `summary` with its facts from `messages` (the latest ask, the last 10 messages' identifiers)."""
    return audit_summary_quality(summary, audited_identifiers(messages), extract_latest_user_ask(messages), identifier_policy)


def audit_safeguard_summary(
    history: str,
    stored: str,
    summarizable: Sequence[dict[str, Any]],
    before_preserve: Sequence[dict[str, Any]],
    turn_prefix: Sequence[dict[str, Any]],
    is_split_turn: bool,
    identifier_policy: str = "strict",
) -> QualityAudit:
    """The audit as the 2026.9 safeguard runs it: on the `stored` (finalized) summary; the latest ask of the split
    turn's prefix when a turn is split, else of `before_preserve` (the messages to summarize, recent turns
    included); identifiers from the last 10 of those and the prefix."""
    split_ask = extract_latest_user_ask(turn_prefix) if is_split_turn else None
    ask = split_ask if split_ask is not None else extract_latest_user_ask(before_preserve)
    return audit_summary_quality(stored, audited_identifiers([*before_preserve, *turn_prefix]), ask, identifier_policy)
