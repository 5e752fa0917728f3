"""What `compact` stores: the release's assembly, or, where that would lose or cut the summary, the appended sections
budgeted by Session Inspector so the entry starts with the summary and keeps it whole.

OpenClaw 2026.4.12's safeguard keeps the sections it appends after the summary (the recent turns preserved verbatim,
the tool failures, the file lists) whole and cuts the summary to make room: when those sections fill the
16,000-character cap, it stores their last 16,000 characters and no summary at all. The forecast reproduces that
(`assemble(...).openclaw`, the release's own `assembly.finalize_summary`, unchanged). Our write does not: modelled on
2026.9.6's `budgetCompactionSummary` (the body keeps at least half of the cap, the appended sections the rest), it cuts
the appended sections instead (the oldest verbatim turns first, then the oldest tool failures, then the file lists),
each cut said by a marker line where it was made (`[3 earlier messages, 8,412 characters, cut to fit the
16,000-character cap by Session Inspector]`); the summary's split-turn section counts as the summary (as in
2026.9.6's body), cut after it with OpenClaw's marker where the two do not fit their half. A release that budgets its summary itself (2026.9.6:
`assembly.budget_compaction_summary`) is written as it assembles.

`assemble(rules, history, prefix_summary, preserved, tool_failures, file_ops)` gives both texts and the `Cut`s;
`body_room(...)` is the longest summary our write keeps whole beside these sections (what the `rules` summarizer fits
itself into); `summary_checks(...)` the checks of both, computed once for `compact` and the forecast alike: `cap`
(the release's assembly: the summary whole, cut or lost), `budget` (only when our write differs: what was cut, and
what the release would have done) and `quality` (OpenClaw's quality guard on what is written). Every length counts
UTF-16 units, as JavaScript does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import js_len
from inspector.rules.ruleset import RuleSet
from inspector.write.preflight import Check
from inspector.write.summary_checks import MAX_CHARS, body_budget, cap_check, quality_check, release_name

CUT_ORDER = ("earlier messages", "tool failures", "listed files")
"""What is cut, in order: the oldest lines of the recent turns preserved verbatim, the oldest tool failures, the
file lists (whole)."""


@dataclass(frozen=True)
class Cut:
    """One cut of an appended section: `what` (one of `CUT_ORDER`), how many lines (`count`; the file lists: the
    files listed) and how many characters of them (`chars`)."""

    what: str
    count: int
    chars: int

    @property
    def marker(self) -> str:
        """The line the entry carries where the cut was made."""
        return f"[{self.count:,} {self.what}, {self.chars:,} characters, cut to fit the {MAX_CHARS:,}-character cap by Session Inspector]"

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"what": self.what, "count": self.count, "chars": self.chars, "marker": self.marker}


@dataclass(frozen=True)
class Assembled:
    """The release's stored summary (`openclaw`), what `compact` writes (`written`: the same unless `cuts`), and the
    appended sections' length before any cut (`suffix_chars`); with 2026.9.6's quality guard on, the body as
    budgeted (`structural`, what the audit reads for headings) and whether the guard's facts alone exceed the
    budget (`retention_infeasible`: OpenClaw cancels)."""

    openclaw: str
    written: str
    cuts: tuple[Cut, ...] = ()
    suffix_chars: int = 0
    structural: str | None = None
    retention_infeasible: bool = False

    @property
    def budgeted(self) -> bool:
        """Whether our write differs from the release's assembly."""
        return self.written != self.openclaw


def release_budgets(rules: RuleSet) -> bool:
    """Whether the release keeps room for the summary itself (2026.9.6's `budget_compaction_summary`)."""
    return getattr(rules.assembly, "budget_compaction_summary", None) is not None


def body_room(rules: RuleSet, preserved: Sequence[dict[str, Any]], tool_failures: str, file_ops: str) -> int:
    """The longest history summary `compact` stores whole beside these appended sections: the release's own room
    (`summary_checks.body_budget`), and under a release that does not budget, at least half of the cap."""
    room = body_budget(rules, preserved, tool_failures, file_ops)
    return room if release_budgets(rules) else max(room, math.ceil(MAX_CHARS / 2))


def _split_section(section: str, items: Sequence[str] | None = None) -> tuple[str, list[str]]:
    """A `\\n\\n## Heading\\n- a\\n- b` section as its head (up to the heading's newline) and its items: `items`
    when given (a preserved message's line may hold newlines), else its lines."""
    if items is not None:
        return section[: len(section) - len("\n".join(items))], list(items)
    lead = len(section) - len(section.lstrip("\n"))
    end = section.find("\n", lead)
    if end < 0:
        return section, []
    return section[: end + 1], section[end + 1 :].split("\n")


def _cut_oldest(head: str, items: list[str], room: int, what: str) -> tuple[str, Cut | None]:
    """The section with its oldest items cut (a marker line in their place) until it is at most `room` long."""
    section = head + "\n".join(items)
    if js_len(section) <= room or not items:
        return section, None
    for k in range(1, len(items) + 1):
        cut = Cut(what, k, sum(js_len(item) for item in items[:k]))
        text = head + "\n".join([cut.marker, *items[k:]])
        if js_len(text) <= room:
            break
    return text, cut


def _file_count(file_ops: str) -> int:
    return sum(1 for line in file_ops.split("\n") if line and not line.startswith(("<", "...and ", "[")))


def assemble(
    rules: RuleSet,
    history: str,
    prefix_summary: str | None,
    preserved: Sequence[dict[str, Any]],
    tool_failures: str,
    file_ops: str,
    quality: Any = None,
) -> Assembled:
    """The release's stored summary and what `compact` writes (see the module docstring). `quality`: 2026.9.6's
    quality retention parameters (`rules.quality.SafeguardFacts.retention`) when its guard is on."""
    A = rules.assembly
    if quality is not None:
        budgeted = A.finalize_budgeted(history, prefix_summary, preserved, tool_failures, file_ops, quality=quality)
        stored = A.cap_compaction_summary(budgeted.summary)
        return Assembled(stored, stored, structural=budgeted.structural_summary, retention_infeasible=budgeted.quality_retention_infeasible)
    openclaw = A.finalize_summary(history, prefix_summary, preserved, tool_failures, file_ops)
    if release_budgets(rules):
        return Assembled(openclaw, openclaw)
    split = A.SPLIT_TURN_HEADING + prefix_summary if prefix_summary is not None else ""
    turns = A.format_preserved_turns_section(preserved)
    suffix_chars = js_len(A.assemble_suffix(split, turns, tool_failures, file_ops))
    if not history or js_len(history) + suffix_chars <= MAX_CHARS:
        return Assembled(openclaw, openclaw, suffix_chars=suffix_chars)
    # The body is the summary with its split-turn section (as 2026.9.6 has it); the rest is what may be cut.
    body = f"{history}\n\n{split}" if split else history
    parts = {"turns": turns, "failures": tool_failures, "files": file_ops}

    def rest() -> str:
        return A.assemble_suffix("", parts["turns"], parts["failures"], parts["files"])

    floor = min(js_len(body), MAX_CHARS, math.ceil(MAX_CHARS / 2))
    room = MAX_CHARS - min(js_len(body), max(floor, MAX_CHARS - js_len(rest())))
    cuts: list[Cut] = []
    sections = {"turns": _split_section(turns, A.format_context_messages(preserved)), "failures": _split_section(tool_failures)}
    for key, what in zip(sections, CUT_ORDER):
        over = js_len(rest()) - room
        if over <= 0:
            break
        head, items = sections[key]
        parts[key], cut = _cut_oldest(head, items, max(0, js_len(parts[key]) - over), what)
        cuts += [cut] if cut else []
    if js_len(rest()) > room and file_ops:
        cut = Cut(CUT_ORDER[2], _file_count(file_ops), js_len(file_ops.strip("\n")))
        parts["files"] = "\n\n" + cut.marker
        cuts.append(cut)
    kept = rest()
    written = A.cap_compaction_summary(body, MAX_CHARS - js_len(kept)) + kept
    return Assembled(openclaw, written, tuple(cuts), suffix_chars)


def budget_check(rules: RuleSet, history: str, assembled: Assembled) -> Check | None:
    """`budget`: what our write cut instead of the summary (None: it writes the release's assembly)."""
    if not assembled.budgeted:
        return None
    n = js_len(history)
    written = assembled.written
    marker = rules.assembly.SUMMARY_TRUNCATED_MARKER
    whole = written.startswith(history) and not written[len(history) :].startswith(marker)
    kept = f"the entry starts with the summary, whole ({n:,} characters)" if whole else f"the entry starts with the summary, cut to fit (of its {n:,} characters)"
    if whole and marker in written and marker not in history:
        kept += f"; the split turn's summary after it cut to fit (the entry says so: \"{marker.strip()}\")"
    cut = "; ".join(f"{c.count:,} {c.what} ({c.chars:,} characters)" for c in assembled.cuts)
    said = (f"cut from the appended sections to fit the {MAX_CHARS:,}-character cap, oldest first, each said by a line in the entry where "
            f"it was cut: {cut}") if cut else "the appended sections whole"
    lost = not assembled.openclaw.startswith(history[:80])
    would = "would have stored only appended turns and lost the summary" if lost else "would have cut the summary"
    return Check("budget", False, f"budgeted by Session Inspector: {kept}; {said}; {release_name(rules)} {would}")


def summary_checks(
    rules: RuleSet,
    history: str,
    prefix_summary: str | None,
    assembled: Assembled,
    summarizable: Sequence[dict[str, Any]],
    before_preserve: Sequence[dict[str, Any]],
    turn_prefix: Sequence[dict[str, Any]],
    is_split_turn: bool,
    guard: Check | None = None,
    audited: bool = True,
) -> list[Check]:
    """`cap`, `budget` (when our write differs), `guard` (when given: the release's guard, on or off, and what it
    does) and `quality` (when the rules have a quality guard, unless not `audited`: 2026.9.6 with its guard off
    stores the summary unaudited) of a summary (see the module docstring)."""
    checks = [cap_check(rules, history, assembled.openclaw, assembled.suffix_chars or None, assembled.structural)]
    budget = budget_check(rules, history, assembled)
    checks += [budget] if budget is not None else []
    checks += [guard] if guard is not None else []
    if rules.has("quality") and audited:
        checks.append(quality_check(rules, history, prefix_summary, assembled, summarizable, before_preserve, turn_prefix, is_split_turn))
    return checks
