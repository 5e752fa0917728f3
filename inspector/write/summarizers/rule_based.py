"""The `rules` summarizer: offline, deterministic, no key. OpenClaw's five required headings filled by rules.

In the spirit of claw-code's rule-based `compact.rs` (spec `other-formats.md` §3), with its known weaknesses
fixed (§3.9): keywords match whole words, paths are kept whatever their extension and in order of appearance,
everything is bounded, and "pending" items come from what the user asked as well as from what was said.

* `## Decisions`: the scope (messages by role, tools used), then assistant sentences that state a decision
  ("decided", "going with", "instead of", "we'll use", ...), newest few;
* `## Open TODOs`: sentences with pending-work words (todo, next, pending, follow up, remaining, not yet, still
  need, ...), and tool calls that failed (OpenClaw's `collectToolFailures` rule: `isError` results);
* `## Constraints/Rules`: user sentences with must / never / always / don't / only / avoid / make sure ...;
* `## Pending user asks`: the latest user ask verbatim (up to 600 characters, OpenClaw's recent-turn limit) and
  the asks before it; rules cannot know whether they were answered, and the section says so. A split turn's prefix
  under 2026.9.6 says "None." there and its request under Decisions (its guard fails a retained turn's summary that
  leaves the turn's ask pending);
* `## Exact identifiers`: files read and modified (pi's file-operation rule: `read`/`write`/`edit` tool calls),
  then opaque identifiers verbatim: those OpenClaw's quality guard looks for (`extractOpaqueIdentifiers` over
  the last 10 messages), UUIDs, URLs, paths, hashes, host:port, in order of first appearance.

A previous summary is carried forward: with the five headings, section by section (its lines first, as
claw-code merges flat); otherwise its lines are kept under Decisions as "Earlier summary" lines. Merging
partial summaries (`purpose="merge"`) unions their sections the same way. Where a section finds nothing it says
so honestly ("None found by rules.") instead of guessing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from inspector.js.jsjson import js_len
from inspector.js.utf16 import js_trim
from inspector.rules.ruleset import RuleSet, rule_set
from inspector.write.summarizers.base import CancelToken, SummaryRequest, SummaryResult, SummaryStream

MAX_ITEM_CHARS = 200
MAX_ASK_CHARS = 600
MAX_ITEMS = 6
MAX_IDENTIFIERS = 40
MAX_AUDITED_IDENTIFIERS = 12
MAX_FILES = 30
MAX_EARLIER_LINES = 60
MAX_SCAN_CHARS = 20_000
NONE_FOUND = "None found by rules."

_DECISION = re.compile(
    r"\b(decided|decision|going with|go with|chose|chosen|instead of|we(?:'ll| will) use|i(?:'ll| will) use|switch(?:ed)? to|"
    r"settled on|opted for|the plan is|approach:)\b",
    re.I,
)
_PENDING = re.compile(
    r"\b(todo|to-do|next step|next|pending|follow[- ]up|remaining|not yet|still need|still needs|unfinished|left to do|later)\b", re.I
)
_CONSTRAINT = re.compile(
    r"\b(must|must not|mustn't|never|always|don't|do not|should not|shouldn't|only use|avoid|make sure|required|requirement|"
    r"without|no more than|at most|at least)\b",
    re.I,
)
# OpenClaw's `extractOpaqueIdentifiers` (compaction-safeguard-quality.ts)
_OPENCLAW_ID_PARTS = (
    ("", "", r"[A-Fa-f0-9]{8,}"),
    (":", "/", r"https?://\S+"),
    ("", "/", r"/[\w.-]{2,}(?:/[\w.-]+)+"),
    (":", "", r"[A-Za-z]:\\[\w\\.-]+"),
    (":", "", r"[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5}"),
    ("", "", r"\b\d{6,}\b"),
)
_OPENCLAW_IDS = re.compile("(" + "|".join(p for _, _, p in _OPENCLAW_ID_PARTS) + ")")
_OPENCLAW_IDS_BY_CHARS = {
    (colon, slash): re.compile("(" + "|".join(p for c, sl, p in _OPENCLAW_ID_PARTS if (colon or not c) and (slash or not sl)) + ")")
    for colon in (False, True) for slash in (False, True)
}


def _openclaw_ids(text: str) -> Iterator[str]:
    """`_OPENCLAW_IDS.finditer(text)`'s matches, word by word (no match spans whitespace), each word with only the
    alternatives its characters allow: the same matches without quadratic backtracking on a long word."""
    for word in text.split():
        yield from (m.group(0) for m in _OPENCLAW_IDS_BY_CHARS[(":" in word, "/" in word)].finditer(word))


_MORE_IDS = re.compile(
    r"(\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    r"|https?://[^\s<>\"'`)\]]+"
    r"|(?<![\w.@+~/-])(?:~|\.{1,2})?/[\w.@+-]+(?:/[\w.@+-]+)+"
    r"|[A-Za-z]:\\[\w\\.-]+"
    r"|\b[\w.-]+/[\w./-]*\.[A-Za-z0-9]{1,8}\b"
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b"
    r"|\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):\d{2,5}\b)"
)
_NOISE = re.compile(r"[A-Za-z]:(?:\\[A-Za-z0-9]?)+|[A-Za-z]/.*")
"""What `_MORE_IDS` finds that is no identifier: `d:\\n\\n` (a drive letter before escaped newlines), `s/old/new/g`
(a sed expression). OpenClaw's own audit identifiers are kept whatever they look like."""
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")


def _clip(text: str, n: int = MAX_ITEM_CHARS) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _sanitize_identifier(value: str) -> str:
    """OpenClaw `sanitizeExtractedIdentifier` (without its upper-casing of hex: kept verbatim here)."""
    value = js_trim(value)
    value = re.sub(r"^[(\"'`\[{<]+", "", value)
    return re.sub(r"[)\]\"'`,;:.!?<>]+$", "", value)


def _text_of(msg: dict[str, Any], *, thinking: bool = False) -> str:
    content = msg.get("content")
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif thinking and block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            parts.append(block["thinking"])
    return "\n".join(parts)


def _tool_calls(msg: dict[str, Any]) -> list[dict[str, Any]]:
    content = msg.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == "toolCall"] if isinstance(content, list) else []


def _strings_in(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings_in(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings_in(v, out)


_LIST_MARKER = re.compile(r"^(?:[-*+]|\d+[.)])\s+")


def _sentences(text: str) -> list[str]:
    return [s for s in (_LIST_MARKER.sub("", x.strip()) for x in _SENTENCE_SPLIT.split(text)) if s]


def _newest(items: list[str], n: int = MAX_ITEMS) -> list[str]:
    """The newest `n` distinct items, listed oldest first."""
    seen: set[str] = set()
    picked: list[str] = []
    for item in reversed(items):
        if item not in seen:
            seen.add(item)
            picked.append(item)
        if len(picked) >= n:
            break
    return list(reversed(picked))


def _sections(summary: str, headings: tuple[str, ...]) -> dict[str, list[str]] | None:
    """The five sections' (`headings`) non-empty lines of a summary that has them (None otherwise)."""
    lines = summary.splitlines()
    if not all(any(js_trim(line) == h for line in lines) for h in headings):
        return None
    out: dict[str, list[str]] = {h: [] for h in headings}
    current: str | None = None
    for line in lines:
        t = js_trim(line)
        if t in out:
            current = t
            continue
        if t.startswith("## ") and t not in out:
            current = None  # an appended section (tool failures, file lists...): not carried
            continue
        if current and t and t not in (NONE_FOUND, "None.", "None captured.") and not t.startswith(("- Rule-based summary", "- Cut to fit", "- (")):
            out[current].append(t if t.startswith(("-", "*", ">")) else f"- {t}")
    return out


class _Facts:
    """Everything the rules extract from a list of messages."""

    def __init__(self, messages: list[dict[str, Any]], rules: RuleSet) -> None:
        self.counts: Counter[str] = Counter()
        self.tools: Counter[str] = Counter()
        self.decisions: list[str] = []
        self.pending: list[str] = []
        self.constraints: list[str] = []
        self.asks: list[str] = []
        self.failures: list[str] = []
        self.read: list[str] = []
        self.modified: list[str] = []
        self.identifiers: list[str] = []
        # identifier sources by priority: what people wrote, then tool arguments, then tool output
        tiers: dict[int, list[str]] = {0: [], 1: [], 2: []}
        llm = rules.prompts.convert_to_llm(messages)
        for original, msg in zip(_originals(messages), llm):
            role = str(msg.get("role"))
            label = "tool results" if role == "toolResult" else role
            if original.get("role") in ("bashExecution", "custom", "branchSummary", "compactionSummary"):
                label = "other"
            self.counts[label] += 1
            text = _text_of(msg)
            if role == "user" and label == "user":
                if js_trim(text):
                    self.asks.append(js_trim(text))
                for s in _sentences(text):
                    if _CONSTRAINT.search(s):
                        self.constraints.append(_clip(s))
                    if _PENDING.search(s):
                        self.pending.append(_clip(s))
            elif role == "assistant":
                for s in _sentences(text):
                    if _DECISION.search(s):
                        self.decisions.append(_clip(s))
                    if _PENDING.search(s):
                        self.pending.append(_clip(s))
                for call in _tool_calls(msg):
                    raw_name = call.get("name")
                    name: str = raw_name if isinstance(raw_name, str) else "tool"
                    self.tools[name] += 1
                    raw_args = call.get("arguments")
                    args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
                    path = args.get("path")
                    if isinstance(path, str) and path:
                        if name == "read":
                            self.read.append(path)
                        elif name in ("write", "edit"):
                            self.modified.append(path)
                    strings: list[str] = []
                    _strings_in(args, strings)
                    tiers[1].extend(s[:MAX_SCAN_CHARS] for s in strings)
            elif role == "toolResult":
                if original.get("isError") is True:
                    tool = original.get("toolName") if isinstance(original.get("toolName"), str) and original["toolName"].strip() else "tool"
                    self.failures.append(f"{tool}: {_clip(text or 'failed (no output)', 240)}")
            tiers[2 if role == "toolResult" else 0].append(_text_of(msg, thinking=True)[:MAX_SCAN_CHARS])
        # OpenClaw's quality guard checks the first 12 distinct identifiers of the last 10 messages: those first
        recent = "\n".join(_text_of(m) for m in llm[-10:])
        audited: list[str] = []
        for found_id in _openclaw_ids(recent):
            ident = _sanitize_identifier(found_id)
            if len(ident) >= 4 and ident not in audited:
                audited.append(ident)
        audited = audited[:MAX_AUDITED_IDENTIFIERS]
        if rules.has("quality"):
            # The release's own extraction, each in the case it was written in. OpenClaw audits the first 12 of its
            # last 10 messages, a window that may start inside these: each message's own first 12 cover any such window.
            release_ids: list[str] = []
            for message in messages[-rules.quality.AUDITED_MESSAGES :]:
                release_ids += rules.quality.audited_identifiers([message]) if isinstance(message, dict) else []
            for ident in release_ids:
                found = re.search(re.escape(ident), recent, re.I) if rules.quality.is_pure_hex_identifier(ident) else None
                audited.append(found.group(0) if found else ident)
            audited = list(dict.fromkeys(audited))
        self.audited: list[str] = audited
        ids: list[str] = list(self.audited)
        for text in tiers[0] + tiers[1] + tiers[2]:
            for m in _MORE_IDS.finditer(text):
                ident = _sanitize_identifier(m.group(0))
                if not _NOISE.fullmatch(ident):
                    ids.append(ident)
        seen: set[str] = set()
        for ident in ids:
            if len(ident) >= 4 and ident not in seen:
                seen.add(ident)
                self.identifiers.append(ident)


def _originals(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The input messages aligned with `convert_to_llm`'s output (which drops some)."""
    out = []
    for m in messages:
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role == "bashExecution" and m.get("excludeFromContext"):
            continue
        if role in ("bashExecution", "custom", "branchSummary", "compactionSummary", "user", "assistant", "toolResult"):
            out.append(m)
    return out


def _bullets(items: list[str], empty: str = NONE_FOUND) -> list[str]:
    return [f"- {i}" for i in items] if items else [empty]


def build_rules_sections(
    messages: list[dict[str, Any]], previous_summary: str | None, purpose: str, rules: RuleSet, max_chars: int | None = None,
    section_max_chars: int | None = None,
) -> list[tuple[str, list[str]]]:
    """The five sections (heading, lines: the `rules`' required summary sections) for these messages and the previous
    summary, fitted into `max_chars` when given (`fit_sections`)."""
    headings: tuple[str, ...] = tuple(rules.prompts.REQUIRED_SUMMARY_SECTIONS)
    carried: dict[str, list[str]] = {h: [] for h in headings}
    earlier: list[str] = []
    sources = [previous_summary] if previous_summary and js_trim(previous_summary) else []
    if purpose == "merge":
        sources += [_text_of(m) for m in messages if isinstance(m, dict)]
        messages = []
    for src in sources:
        secs = _sections(src, headings)
        if secs is None:
            earlier += [f"- Earlier summary: {_clip(line, 300)}" for line in src.splitlines() if js_trim(line)]
        else:
            for h, lines in secs.items():
                carried[h] += [x for x in lines if x not in carried[h]]
    f = _Facts(messages, rules)

    decisions: list[str] = []
    if messages:
        c = f.counts
        scope = ", ".join(f"{k} {c[k]}" for k in ("user", "assistant", "tool results", "other") if c[k])
        decisions.append(f"- Rule-based summary (session-inspector `rules`, no model was called) of {sum(c.values())} messages: {scope}.")
        if f.tools:
            decisions.append("- Tools used: " + ", ".join(f"{name} ×{n}" for name, n in sorted(f.tools.items())) + ".")
    decisions += earlier[:MAX_EARLIER_LINES]
    decisions += carried["## Decisions"]
    decisions += _bullets(_newest(f.decisions), "") if f.decisions else []

    todos = carried["## Open TODOs"] + [f"- {x}" for x in _newest(f.pending)]
    todos += [f"- Tool failed: {x}" for x in _newest(f.failures, 8)]

    constraints = carried["## Constraints/Rules"] + [f"- {x}" for x in _newest(f.constraints)]

    note = "- (Rules cannot tell whether these were answered: check the messages kept after this summary.)"
    asks = [a for a in carried["## Pending user asks"] if a != note]
    if f.asks:
        latest = "- Latest user ask: "
        asks = [f"- Earlier ask: {a[len(latest):]}" if a.startswith(latest) else a for a in asks]
        asks += [f"- Earlier ask: {_clip(x, 160)}" for x in _newest(f.asks[:-1], 3)]
        asks.append(f"{latest}{_clip(f.asks[-1], MAX_ASK_CHARS)}")
    latest_lines = [i for i, a in enumerate(asks) if a.startswith("- Latest user ask: ")]
    for i in latest_lines[:-1]:  # merged parts: only the newest ask stays "latest"
        asks[i] = "- Earlier ask: " + asks[i][len("- Latest user ask: "):]
    if asks:
        asks.append(note)
    if purpose == "turn_prefix" and f.asks and hasattr(rules.quality, "safeguard_facts"):
        # 2026.9.6's guard fails a split turn's summary that leaves the turn's own ask pending
        # (`retained_turn_ask_marked_pending`): the work kept after it answers the ask; it is said under Decisions.
        decisions.append(f"{_TURN_REQUEST}{_clip(f.asks[-1], MAX_ASK_CHARS)}")
        asks = ["None."]

    idents = list(carried["## Exact identifiers"])
    files_read = sorted(set(f.read) - set(f.modified))
    if files_read:
        idents.append("- Files read: " + ", ".join(files_read[:MAX_FILES]) + (f" (+{len(files_read) - MAX_FILES} more)" if len(files_read) > MAX_FILES else ""))
    modified = sorted(set(f.modified))
    if modified:
        idents.append("- Files modified: " + ", ".join(modified[:MAX_FILES]) + (f" (+{len(modified) - MAX_FILES} more)" if len(modified) > MAX_FILES else ""))
    # Greedy, in priority order (OpenClaw's audit identifiers first): an identifier already contained in a kept
    # one (or in a file list) is covered by it, as OpenClaw's `summary.includes(identifier)` check sees it.
    shown_files = [*files_read[:MAX_FILES], *modified[:MAX_FILES]]
    kept: list[str] = list(shown_files)
    for x in f.identifiers:
        if len(kept) - len(shown_files) >= MAX_IDENTIFIERS:
            break
        if not any(x in y for y in kept):
            kept.append(x)
    idents += [f"- {x}" for x in kept[len(shown_files) :] if f"- {x}" not in idents]

    sections = [
        ("## Decisions", decisions or [NONE_FOUND]),
        ("## Open TODOs", todos or [NONE_FOUND]),
        ("## Constraints/Rules", constraints or [NONE_FOUND]),
        ("## Pending user asks", asks or ["None (no user message here)."]),
        ("## Exact identifiers", idents or ["None captured."]),
    ]
    return fit_sections(sections, max_chars, f.audited, section_max_chars) if max_chars else sections


def render_sections(sections: list[tuple[str, list[str]]]) -> str:
    """The sections as one text (headings, lines, a blank line between sections)."""
    return "\n\n".join(h + "\n" + "\n".join(lines) for h, lines in sections)


_LATEST = "- Latest user ask: "
GUARD_PROTECTED = ("## Pending user asks", "## Exact identifiers")
"""The sections 2026.9.6's quality guard protects (its retention plan gives each at most a quarter of the room)."""
_TURN_REQUEST = "- This turn's request (the work kept after this summary answers it): "


def _cut_priority(heading: str, line: str, index: int) -> tuple[int, int] | None:
    """The order lines are left out in when the summary must shrink (None: kept whatever happens): earlier summaries'
    lines, tool failures (OpenClaw appends them anyway), identifiers beyond the audited ones (the last first), earlier
    asks, the tools used, then the oldest decisions, TODOs and constraints."""
    if line.startswith(("- Rule-based summary", _LATEST, _TURN_REQUEST, "- (Rules cannot tell", "- Cut to fit")) or not line.startswith("- "):
        return None
    if line.startswith("- Earlier summary:"):
        return (0, index)
    if line.startswith("- Tool failed:"):
        return (1, index)
    if heading == "## Exact identifiers":
        return (2, -index)
    if line.startswith("- Earlier ask:"):
        return (3, index)
    if line.startswith("- Tools used:"):
        return (4, index)
    return (5, index)


def fit_sections(sections: list[tuple[str, list[str]]], max_chars: int, audited: list[str],
                 section_max_chars: int | None = None) -> list[tuple[str, list[str]]]:
    """The sections within `max_chars` UTF-16 units where they can be: lines left out in `_cut_priority` order, the
    audited identifiers (OpenClaw's quality guard's) kept, and a line under Decisions that says how many were left out
    of which section. What cannot shrink (headings, the scope line, the latest ask) stays whole. `section_max_chars`:
    the room of each section 2026.9.6's guard protects (`GUARD_PROTECTED`), its lines left out first."""
    total = js_len(render_sections(sections))
    guarded = [si for si, (h, _) in enumerate(sections) if h in GUARD_PROTECTED] if section_max_chars is not None else []
    removed: set[tuple[int, int]] = set()

    def section_over(si: int) -> bool:
        kept_lines = [line for li, line in enumerate(sections[si][1]) if (si, li) not in removed]
        return section_max_chars is not None and js_len("\n".join(kept_lines)) > section_max_chars

    if total <= max_chars and not any(section_over(si) for si in guarded):
        return sections
    keep = {f"- {x}" for x in audited}
    order = sorted((prio, si, li) for si, (h, lines) in enumerate(sections) for li, line in enumerate(lines)
                   if line not in keep and (prio := _cut_priority(h, line, li)) is not None)
    for si in guarded:
        for _, osi, li in order:
            if not section_over(si):
                break
            if osi == si:
                removed.add((si, li))
                total -= js_len(sections[si][1][li]) + 1
    note_room = 160
    queue = iter(o for o in order if (o[1], o[2]) not in removed)

    def rendered() -> list[tuple[str, list[str]]]:
        counts = Counter(sections[si][0] for si, _ in removed)
        out = [(h, [line for li, line in enumerate(lines) if (si, li) not in removed] or [f"- ({counts[h]} items left out to fit.)"])
               for si, (h, lines) in enumerate(sections)]
        if removed:
            what = ", ".join(f"{h[3:]} {n}" for h, n in counts.items())
            scope = 1 if out[0][1] and out[0][1][0].startswith("- Rule-based summary") else 0
            out[0][1].insert(scope, f"- Cut to fit the {max_chars:,} characters the cap leaves this summary: {len(removed)} lines left out ({what}).")
        return out

    for _, si, li in queue:  # quickly, by the lines' lengths...
        if total + note_room <= max_chars:
            break
        removed.add((si, li))
        total -= js_len(sections[si][1][li]) + 1
    out = rendered()
    for _, si, li in queue:  # ...then exactly, where the notes took more room
        if js_len(render_sections(out)) <= max_chars:
            break
        removed.add((si, li))
        out = rendered()
    text = render_sections(out)
    missing = [x for x in audited if x not in text]
    if missing:
        out[-1] = (out[-1][0], [*out[-1][1], *(f"- {x}" for x in missing)])
    return out


def rules_summary(
    messages: list[dict[str, Any]], previous_summary: str | None = None, purpose: str = "history", rules: RuleSet | None = None
) -> str:
    """The whole rules summary as one text (`rules` None: the default rule set)."""
    return render_sections(build_rules_sections(messages, previous_summary, purpose, rules or rule_set()))


class RulesSummarizer:
    """The offline summarizer (see the module docstring)."""

    name = "rules"
    provider = "rules"
    model: str | None = None
    uses_network = False

    def stream(self, request: SummaryRequest, cancel: CancelToken | None = None) -> SummaryStream:
        """Yield the summary section by section (deterministic; cancellable between sections)."""
        sections = build_rules_sections(list(request.messages), request.previous_summary, request.purpose, request.rules or rule_set(),
                                        request.max_chars, request.section_max_chars)

        def deltas() -> Iterator[str]:
            for i, (heading, lines) in enumerate(sections):
                if cancel is not None:
                    cancel.raise_if_cancelled()
                yield ("" if i == 0 else "\n\n") + heading + "\n" + "\n".join(lines)

        return SummaryStream(deltas(), lambda text: SummaryResult(text, None, None, "stop", "rules"))
