"""OpenClaw's summary quality guard (2026.4 `compaction-safeguard-quality.ts`): the audit of a compaction summary.

OpenClaw audits the history summary (before the preserved turns are appended) when `compaction.qualityGuard` is on:
the five required headings, the opaque identifiers of the last 10 summarized messages (`extractOpaqueIdentifiers`,
12 at most, pure hex compared case-insensitively), and the latest user ask, reflected when enough of its keywords
(`extractKeywords`: seven languages' stop words dropped, Korean particles stripped) are in the summary. A failed
audit makes OpenClaw regenerate; this port is what the inspector checks a summary with (the `rules` summarizer's on
every corpus session in the tests, and the forecast/compact warnings). Lengths count UTF-16 units, as JavaScript does.

`audit_compaction_summary(summary, messages)` is the whole check, its facts taken from the summarized messages as
the safeguard takes them; `audit_summary_quality` is OpenClaw's function on given facts.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.jsjson import js_len
from inspector.js.utf16 import JS_WHITESPACE, js_trim
from inspector.rules.openclaw_2026_4_12.compaction.assembly import extract_message_text
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_4_12.compaction.stop_words import (
    KO_TRAILING_PARTICLES,
    STOP_WORDS_AR,
    STOP_WORDS_EN,
    STOP_WORDS_ES,
    STOP_WORDS_JA,
    STOP_WORDS_KO,
    STOP_WORDS_PT,
    STOP_WORDS_ZH,
)

MAX_EXTRACTED_IDENTIFIERS = 12
MAX_ASK_OVERLAP_TOKENS = 12
MIN_ASK_OVERLAP_TOKENS_FOR_DOUBLE_MATCH = 3
AUDITED_MESSAGES = 10
"""The identifiers are taken from the last this many summarized messages."""

_STOP = frozenset((*STOP_WORDS_EN, *STOP_WORDS_ES, *STOP_WORDS_PT, *STOP_WORDS_AR, *STOP_WORDS_ZH, *STOP_WORDS_KO, *STOP_WORDS_JA))
_KO_STOP = frozenset(STOP_WORDS_KO)
_NOT_SPACE = f"[^{re.escape(JS_WHITESPACE)}]"
_OPAQUE_PARTS = (
    ("", "", r"[A-Fa-f0-9]{8,}"),
    (":", "/", rf"https?://{_NOT_SPACE}+"),
    ("", "/", r"/[\w.-]{2,}(?:/[\w.-]+)+"),
    (":", "", r"[A-Za-z]:\\[\w\\.-]+"),
    (":", "", r"[A-Za-z0-9._-]+\.[A-Za-z0-9._/-]+:\d{1,5}"),
    ("", "", r"\b\d{6,}\b"),
)
"""`extractOpaqueIdentifiers`' alternatives in order, each with the characters a match of it must hold."""
_OPAQUE = re.compile("(" + "|".join(p for _, _, p in _OPAQUE_PARTS) + ")", re.ASCII)
_OPAQUE_BY_CHARS = {
    (colon, slash): re.compile("(" + "|".join(p for c, sl, p in _OPAQUE_PARTS if (colon or not c) and (slash or not sl)) + ")", re.ASCII)
    for colon in (False, True) for slash in (False, True)
}
_SPACE_RUN = re.compile(f"[{re.escape(JS_WHITESPACE)}]+")
_PURE_HEX = re.compile(r"[A-Fa-f0-9]{8,}", re.ASCII)
_LINE_BREAK = re.compile(r"\r?\n")

QUALITY_GUARD_DEFAULT = False
"""Whether `compaction.qualityGuard.enabled` is on when unset."""
QUALITY_FAILURE_OUTCOME = "OpenClaw's quality guard (off by default in 2026.4.12; `compaction.qualityGuard.enabled`) would ask the model again"
"""What OpenClaw does with a summary that fails the audit (what a warning says)."""


@dataclass(frozen=True)
class QualityAudit:
    """`auditSummaryQuality`'s result: `ok`, and the `reasons` (`missing_section:## Decisions`,
    `missing_identifiers:a,b,c`, `latest_user_ask_not_reflected`) in OpenClaw's words."""

    ok: bool
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"ok": self.ok, "reasons": list(self.reasons)}


def normalized_summary_lines(summary: str) -> list[str]:
    """`normalizedSummaryLines`: the trimmed non-empty lines."""
    return [t for t in (js_trim(line) for line in _LINE_BREAK.split(summary)) if t]


def has_required_summary_sections(summary: str) -> bool:
    """`hasRequiredSummarySections`: the five headings, each on its own line, in order."""
    lines = normalized_summary_lines(summary)
    cursor = 0
    for heading in REQUIRED_SUMMARY_SECTIONS:
        index = next((i for i in range(cursor, len(lines)) if lines[i] == heading), -1)
        if index < 0:
            return False
        cursor = index + 1
    return True


def sanitize_extracted_identifier(value: str) -> str:
    """`sanitizeExtractedIdentifier`: trimmed, leading brackets/quotes and trailing punctuation removed."""
    value = re.sub(r"^[(\"'`\[{<]+", "", js_trim(value))
    return re.sub(r"[)\]\"'`,;:.!?<>]+$", "", value)


def is_pure_hex_identifier(value: str) -> bool:
    """`isPureHexIdentifier`: 8 or more hex digits and nothing else."""
    return _PURE_HEX.fullmatch(value) is not None


def summary_includes_identifier(summary: str, identifier: str) -> bool:
    """`summaryIncludesIdentifier`: pure hex case-insensitively, anything else verbatim."""
    if is_pure_hex_identifier(identifier):
        return identifier.upper() in summary.upper()
    return identifier in summary


def _unique_identifiers(values: Sequence[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        ident = sanitize_extracted_identifier(value)
        ident = ident.upper() if is_pure_hex_identifier(ident) else ident
        if ident not in out and js_len(ident) >= 4:
            out.append(ident)
    return out[:MAX_EXTRACTED_IDENTIFIERS]


def opaque_matches(text: str) -> list[str]:
    """`_OPAQUE.finditer(text)`'s matches, found word by word: no match spans whitespace, so each run between
    whitespace is scanned alone, with only the alternatives its characters allow (a `:`, a `/`). The same matches,
    without the full pattern's quadratic backtracking on a long run of word characters (a 170,000-character tool
    result took minutes)."""
    out: list[str] = []
    for word in _SPACE_RUN.split(text):
        if word:
            out += [m.group(0) for m in _OPAQUE_BY_CHARS[(":" in word, "/" in word)].finditer(word)]
    return out


def extract_opaque_identifiers(text: str) -> list[str]:
    """`extractOpaqueIdentifiers`: hex runs (upper-cased), URLs, paths, drive paths, host:port, 6+ digit numbers;
    the first 12 distinct of 4 characters or more."""
    return _unique_identifiers(opaque_matches(text))


# ------------------------------------------------------------------------------------------- the ask's keywords


def _punct(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def _segments(text: str) -> list[str]:
    """`text.split(/[\\s\\p{P}]+/u)` without the empty pieces."""
    out: list[str] = []
    cur: list[str] = []
    for ch in text:
        if ch in JS_WHITESPACE or _punct(ch):
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u4e00-\u9fff]")
_HANGUL = re.compile("[\uac00-\ud7af\u3131-\u3163]")
_JP_PARTS = re.compile("[a-z0-9_]+|[\u30a0-\u30ffー]+|[\u4e00-\u9fff]+|[\u3040-\u309f]{2,}")


def _strip_korean_particle(token: str) -> str | None:
    for particle in KO_TRAILING_PARTICLES:
        if js_len(token) > js_len(particle) and token.endswith(particle):
            return token[: -len(particle)]
    return None


def _useful_korean_stem(stem: str) -> bool:
    if re.search("[\uac00-\ud7af]", stem):
        return js_len(stem) >= 2
    return re.fullmatch(r"[a-z0-9_]+", stem, re.I | re.ASCII) is not None


def _tokenize(text: str) -> list[str]:
    """query-expansion's `tokenize` (no trigram mode)."""
    tokens: list[str] = []
    for segment in _segments(js_trim(text).lower()):
        if _KANA.search(segment):
            for part in _JP_PARTS.findall(segment):
                tokens.append(part)
                if re.fullmatch("[\u4e00-\u9fff]+", part):
                    tokens.extend(part[i : i + 2] for i in range(len(part) - 1))
        elif _HAN.search(segment):
            chars = [c for c in segment if _HAN.match(c)]
            tokens.extend(chars)
            tokens.extend(chars[i] + chars[i + 1] for i in range(len(chars) - 1))
        elif _HANGUL.search(segment):
            stem = _strip_korean_particle(segment)
            if segment not in _KO_STOP and not (stem is not None and stem in _KO_STOP):
                tokens.append(segment)
            if stem and stem not in _KO_STOP and _useful_korean_stem(stem):
                tokens.append(stem)
        else:
            tokens.append(segment)
    return tokens


def _valid_keyword(token: str) -> bool:
    if not token:
        return False
    if re.fullmatch(r"[a-zA-Z]+", token) and js_len(token) < 3:
        return False
    if re.fullmatch(r"[0-9]+", token):
        return False
    return not all(unicodedata.category(c)[0] in "PS" for c in token)


def is_query_stop_word(token: str) -> bool:
    """`isQueryStopWordToken`."""
    return token in _STOP


def extract_keywords(query: str) -> list[str]:
    """query-expansion's `extractKeywords`: the distinct tokens that are no stop word and look meaningful."""
    out: list[str] = []
    for token in _tokenize(query):
        if token in _STOP or not _valid_keyword(token) or token in out:
            continue
        out.append(token)
    return out


def _fallback_tokens(normalized: str) -> list[str]:
    """`normalized.split(/[^\\p{L}\\p{N}]+/u)`, trimmed, without the empty pieces."""
    out: list[str] = []
    cur: list[str] = []
    for ch in normalized:
        if unicodedata.category(ch)[0] in "LN":
            cur.append(ch)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return [t for t in (js_trim(x) for x in out) if t]


def tokenize_ask_overlap_text(text: str, include_fallback_tokens: bool = False) -> list[str]:
    """`tokenizeAskOverlapText`: NFKC, lower case, the keywords (or, without any, the letter/number runs);
    `include_fallback_tokens` (2026.9's summary side): both."""
    normalized = js_trim(unicodedata.normalize("NFKC", text).lower())
    if not normalized:
        return []
    keywords = extract_keywords(normalized)
    if keywords and not include_fallback_tokens:
        return keywords
    merged: list[str] = []
    for token in (*keywords, *_fallback_tokens(normalized)):
        if token not in merged:
            merged.append(token)
    return merged


def ask_overlap_requirement(latest_ask: str | None) -> tuple[list[str], int] | None:
    """The ask's tokens to look for and how many must be found (2026.9's `resolveAskOverlapRequirement`): its
    meaningful keywords (all its first 12 tokens when none is), two of them when there are three or more; None
    when there is nothing to check (no ask, no token)."""
    if not latest_ask:
        return None
    ask_tokens = list(dict.fromkeys(tokenize_ask_overlap_text(latest_ask)))[:MAX_ASK_OVERLAP_TOKENS]
    if not ask_tokens:
        return None
    check = [t for t in ask_tokens if js_len(t) > 1 and not is_query_stop_word(t)] or ask_tokens
    return check, 2 if len(check) >= MIN_ASK_OVERLAP_TOKENS_FOR_DOUBLE_MATCH else 1


def has_ask_overlap(summary: str, latest_ask: str | None, *, summary_fallback_tokens: bool = False) -> bool:
    """`hasAskOverlap`: the summary holds one of the ask's meaningful keywords (two when it has three or more)."""
    requirement = ask_overlap_requirement(latest_ask)
    if requirement is None:
        return True
    check, required = requirement
    summary_tokens = set(tokenize_ask_overlap_text(summary, summary_fallback_tokens))
    return sum(1 for t in check if t in summary_tokens) >= required


# ------------------------------------------------------------------------------------------- the audit


def audit_summary_quality(summary: str, identifiers: Sequence[str], latest_ask: str | None, identifier_policy: str = "strict") -> QualityAudit:
    """`auditSummaryQuality`: the required headings, the identifiers (strict policy), the latest ask."""
    reasons: list[str] = []
    lines = set(normalized_summary_lines(summary))
    reasons += [f"missing_section:{h}" for h in REQUIRED_SUMMARY_SECTIONS if h not in lines]
    if identifier_policy == "strict":
        missing = [i for i in identifiers if not summary_includes_identifier(summary, i)]
        if missing:
            reasons.append("missing_identifiers:" + ",".join(missing[:3]))
    if not has_ask_overlap(summary, latest_ask):
        reasons.append("latest_user_ask_not_reflected")
    return QualityAudit(not reasons, tuple(reasons))


def extract_latest_user_ask(messages: Sequence[dict[str, Any]]) -> str | None:
    """`extractLatestUserAsk`: the text of the last user message that has text."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            text = extract_message_text(message)
            if text:
                return text
    return None


def audited_identifiers(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The identifiers the safeguard audits: those of the last 10 summarized messages' text."""
    texts = [extract_message_text(m) for m in messages[-AUDITED_MESSAGES:] if isinstance(m, dict)]
    return extract_opaque_identifiers("\n".join(t for t in texts if t))


def audit_compaction_summary(summary: str, messages: Sequence[dict[str, Any]], identifier_policy: str = "strict") -> QualityAudit:
    """The safeguard's audit of `summary` (the history summary, before the preserved turns) for the summarized
    `messages` (and the split turn's prefix, after them), as OpenClaw computes its facts."""
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
    """The audit as the 2026.4 safeguard runs it: on the history summary with its split-turn section (`history`;
    not the `stored` one), facts from the messages it summarized (`summarizable`, after the recent turns were taken
    out; `before_preserve` unused here) and the split turn's prefix."""
    return audit_compaction_summary(history, [*summarizable, *turn_prefix], identifier_policy)
