"""The summary against OpenClaw's assembly and quality guard: how much room the cap leaves it, and what was cut.

* `body_budget(rules, preserved, tool_failures, file_ops)`: the longest history summary the release's assembly
  (`rules.assembly.finalize_summary`, unchanged) stores whole beside these appended sections: what the `rules`
  summarizer fits itself into (`SummaryRequest.max_chars`). 0 when OpenClaw's assembly keeps none of it (2026.4.12
  keeps only the last 16,000 characters of appended sections that fill the cap).
* `cap_check(...)`: whether the stored entry holds the summary whole, cut (by how much), or not at all;
* `quality_check(...)`: OpenClaw's quality guard (`rules.quality.audit_safeguard_summary`) on the summary as the
  release's safeguard audits it, and what OpenClaw would do when it fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from inspector.js.jsjson import js_len
from inspector.rules.ruleset import RuleSet
from inspector.write.preflight import Check

MAX_CHARS = 16_000


def body_budget(rules: RuleSet, preserved: Sequence[dict[str, Any]], tool_failures: str, file_ops: str) -> int:
    """The longest history summary (in UTF-16 units) stored whole with these appended sections (see the module
    docstring); found by trying the release's own assembly on stand-in summaries."""
    marker = rules.assembly.SUMMARY_TRUNCATED_MARKER

    def whole(n: int) -> bool:
        body = "x" * n
        out = rules.assembly.finalize_summary(body, None, preserved, tool_failures, file_ops)
        return out.startswith(body) and not out[n:].startswith(marker)

    if whole(MAX_CHARS):
        return MAX_CHARS
    low, high = 0, MAX_CHARS - 1
    while low < high:
        mid = (low + high + 1) // 2
        if whole(mid):
            low = mid
        else:
            high = mid - 1
    return low


def release_name(rules: RuleSet) -> str:
    """The release a rule set reproduces, as a warning names it (`OpenClaw 2026.4.12`)."""
    r = rules.release
    return f"OpenClaw {r.openclaw_version}" if r.openclaw_version else f"pi {r.pi_version}"


def cap_check(rules: RuleSet, history: str, stored: str, suffix_chars: int | None = None, structural: str | None = None) -> Check:
    """`cap`: the history summary in the release's stored entry (`stored`, its own assembly) whole, cut (how much),
    or lost (see the module docstring); `suffix_chars`: the appended sections' length before the cap; `structural`:
    the body as 2026.9.6's quality guard re-rendered it (its sections, the latest request's context first)."""
    n = js_len(history)
    head = history[:80]
    name = release_name(rules)
    context_marker = getattr(rules.assembly, "CONTEXT_TRUNCATED_MARKER", None)
    turns_cut = bool(context_marker and context_marker in stored and context_marker not in history)
    turns_note = "; the recent turns preserved verbatim were cut from their start to fit" if turns_cut else ""
    if structural is not None and not structural.startswith(head):
        marker = rules.assembly.SUMMARY_TRUNCATED_MARKER.strip()
        if marker in structural and marker not in history:
            return Check("cap", False, f"{name} would cut the sections of the summary ({n:,} characters) to fit the {MAX_CHARS:,}-character "
                                       f"cap, its quality guard keeping the headings, the latest request and the identifiers (its entry "
                                       f"says so: \"{marker}\"){turns_note}")
        return Check("cap", not turns_cut, f"{name} stores the summary whole ({n:,} characters), its sections re-rendered by its quality "
                                           f"guard (the latest request's context, the identifiers; the entry {js_len(stored):,}){turns_note}")
    if history and not stored.startswith(head):
        appended = f" (the last of the {suffix_chars:,} characters of recent turns preserved verbatim, tool failures and file lists it appends)" if suffix_chars else ""
        return Check("cap", False, f"{name} would store {min(js_len(stored), MAX_CHARS):,} characters of appended turns{appended} and lose the "
                                   f"summary ({n:,} characters): its entry would start mid-text, its {MAX_CHARS:,}-character cap keeping "
                                   "only the end of what it appends")
    marker = rules.assembly.SUMMARY_TRUNCATED_MARKER
    if marker in stored and marker not in history:
        kept = stored.index(marker)
        return Check("cap", False, f"{name} would cut the summary by {n - js_len(stored[:kept]):,} of its {n:,} characters to fit the "
                                   f"{MAX_CHARS:,}-character cap (its entry says so: \"{marker.strip()}\"){turns_note}")
    return Check("cap", not turns_cut, f"{name} stores the summary whole ({n:,} characters; the entry {js_len(stored):,}){turns_note}")


def quality_check(
    rules: RuleSet,
    history: str,
    prefix_summary: str | None,
    assembled: Any,
    summarizable: Sequence[dict[str, Any]],
    before_preserve: Sequence[dict[str, Any]],
    turn_prefix: Sequence[dict[str, Any]],
    is_split_turn: bool,
) -> Check:
    """`quality`: the release's quality guard on the summary (see the module docstring); `assembled`: the stored
    summary (`summary_budget.Assembled`)."""
    audited = history
    if prefix_summary is not None:
        split = rules.assembly.SPLIT_TURN_HEADING + prefix_summary
        audited = f"{history}\n\n---\n\n{split}" if history.strip() else split
    if assembled.retention_infeasible:
        return Check("quality", False, "the facts OpenClaw's quality guard keeps whole (headings, the latest request, the identifiers) alone "
                                       f"exceed the {MAX_CHARS:,}-character cap: {rules.quality.QUALITY_FAILURE_OUTCOME}")
    facts = {"structural_summary": assembled.structural, "source_summaries": (history, prefix_summary or ""),
             "turn_prefix_summary": prefix_summary} if assembled.structural is not None else {}
    audit = rules.quality.audit_safeguard_summary(audited, assembled.written, summarizable, before_preserve, turn_prefix, is_split_turn, **facts)
    if audit.ok:
        return Check("quality", True, "passes OpenClaw's quality guard (required sections, identifiers, the latest user ask)")
    return Check("quality", False, f"fails OpenClaw's quality guard ({', '.join(audit.reasons)}): {rules.quality.QUALITY_FAILURE_OUTCOME}")
