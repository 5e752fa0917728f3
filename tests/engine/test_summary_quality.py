"""OpenClaw's summary quality guard (`rules.quality`), against the real functions lifted from the compiled bundles.

Generated texts mix what the audit looks for (hex runs, UUIDs, URLs, paths, host:port, long numbers, scientific
notation) with prose in several languages (CJK, Korean particles, stop words), surrogate pairs and punctuation, and
compare `extract_opaque_identifiers`, `extract_keywords`, `has_ask_overlap` and `audit_summary_quality` of both
releases with OpenClaw 2026.9.6 (and 2026.4.12 where its dist is installed); 2026.9.6's whole audit (repeated
headings in the source summaries, the latest unresolved request, the retained turn's summary), its pending-ask
section, required ask context and retry count too.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.ruleset import rule_set

SCRIPT = Path(__file__).parents[1] / "oracle" / "oc_2026_9_quality.mjs"
DIST_2026_4 = Path(os.environ.get("OPENCLAW_DIST_DIR") or Path.home() / ".cache" / "session-inspector" / "openclaw-dist")
R4 = rule_set("openclaw-2026.4.12")
R9 = rule_set("openclaw-2026.9.6")

PIECES = [
    "deadbeef12", "DEADBEEF", "a1b2c3d4e5f6", "550e8400-e29b-41d4-a716-446655440000", "https://example.com/a?b=1).", "http://x.io",
    "/usr/local/bin/tool", "/a/b", "x/y/z", "C:\\Users\\me\\f.txt", "localhost:8080", "api.example.com:443", "v1.2.3:80",
    "1234567", "123456", "12345", "1.5e10", "3e5x", "2.0E-3", "0x1f", "id_abc12345678", "run-99999999", "build_1234567z",
    "fix", "the", "rate", "limiter", "redis", "deploy", "please", "then", "and", "to", "a", "is", "what", "why",
    "修复", "限流器", "的", "了", "レート", "制限", "を", "直して", "ください", "속도", "제한기를", "고쳐", "주세요", "el", "la", "corrige",
    "o", "limitador", "لا", "من", "إصلاح", "😀", "𝔘𝔫𝔦", "—", "...", ",", "(", ")", "\"", "`", "\n", "  ", "\t", "İstanbul", "ΣΟΦΟΣ",
    "## Decisions", "## Open TODOs", "## Constraints/Rules", "## Pending user asks", "## Exact identifiers", "- item", "None.",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(PIECES) for _ in range(n))


def _summary(rng: random.Random) -> str:
    body = _text(rng, rng.randint(0, 30))
    if rng.random() < 0.6:
        heads = list(R9.prompts.REQUIRED_SUMMARY_SECTIONS)
        if rng.random() < 0.3:
            heads.pop(rng.randrange(len(heads)))
        body += "\n" + "\n".join(f"{h}\n{_text(rng, rng.randint(0, 8))}" for h in heads)
    return body


def _cases(seed: int, n: int) -> list[tuple[str, str, str]]:
    rng = random.Random(seed)
    return [(_text(rng, rng.randint(0, 40)), _text(rng, rng.randint(0, 12)), _summary(rng)) for _ in range(n)]


def test_both_releases_match_openclaw(openclaw_2026_9) -> None:  # noqa: F811
    cases = _cases(24, 300)
    releases = [("2026.9", R9.quality)]
    if (DIST_2026_4).is_dir():
        releases.append(("2026.4", R4.quality))
    jobs, expected = [], []
    for release, q in releases:
        for text, ask, summary in cases:
            ids = q.extract_opaque_identifiers(text)
            audit = q.audit_summary_quality(summary, ids, ask or None)
            jobs += [
                {"release": release, "fn": "extractOpaqueIdentifiers", "args": [text]},
                {"release": release, "fn": "extractKeywords", "args": [ask]},
                {"release": release, "fn": "hasAskOverlap", "args": [summary, ask or None]},
                {"release": release, "fn": "hasRequiredSummarySections", "args": [summary]},
                {"release": release, "fn": "auditSummaryQuality", "args": [{"summary": summary, "structuralSummary": summary, "identifiers": ids,
                                                                              "latestAsk": ask or None}]},
            ]
            expected += [ids, q.extract_keywords(ask), q.has_ask_overlap(summary, ask or None), q.has_required_summary_sections(summary),
                         audit.to_json()]
    got = openclaw_2026_9.run_script(SCRIPT, {"dist_2026_4": str(DIST_2026_4) if len(releases) > 1 else None, "jobs": jobs})
    mismatches = [(job, want, have) for job, want, have in zip(jobs, expected, got, strict=True) if want != have]
    assert not mismatches, mismatches[:5]
    # the generated cases do exercise every outcome
    audits = [e for j, e in zip(jobs, expected, strict=True) if j["fn"] == "auditSummaryQuality"]
    assert any(a["ok"] for a in audits) and any(not a["ok"] for a in audits)
    assert {r.split(":")[0] for a in audits for r in a["reasons"]} >= {"missing_section", "missing_identifiers", "latest_user_ask_not_reflected"}


def test_stop_words_module_is_generated_from_the_dist(openclaw_2026_9) -> None:  # noqa: F811
    from oracle.gen_query_stop_words import TARGET, stop_words_module

    assert TARGET.read_text(encoding="utf-8") == stop_words_module(openclaw_2026_9.package)


def test_releases_differ_where_openclaw_changed() -> None:
    text = "see /usr/lib/x and ab/usr/lib/y and 1.5e10 and run-99999999 and deadbeef99"
    assert "/usr/lib/y" in R4.quality.extract_opaque_identifiers(text)
    assert "/usr/lib/y" not in R9.quality.extract_opaque_identifiers(text)
    assert "RUN-99999999" not in R4.quality.extract_opaque_identifiers(text) and "run-99999999" in R9.quality.extract_opaque_identifiers(text)
    assert R9.quality.extract_opaque_identifiers("deadbeef99") == ["DEADBEEF99"] == R4.quality.extract_opaque_identifiers("deadbeef99")


def test_audit_of_a_compaction_takes_its_facts_from_the_messages() -> None:
    msgs = [{"role": "user", "content": "Please fix the rate limiter in /srv/app/limiter.py"},
            {"role": "assistant", "content": [{"type": "text", "text": "Looking at commit 0123abcd9 now."}]}]
    good = "\n".join(["## Decisions", "- fixed", "## Open TODOs", "- none", "## Constraints/Rules", "- none", "## Pending user asks",
                      "- fix the rate limiter", "## Exact identifiers", "- /srv/app/limiter.py", "- 0123ABCD9"])
    for q in (R4.quality, R9.quality):
        assert q.audit_compaction_summary(good, msgs).ok
        bad = q.audit_compaction_summary("## Decisions\nsomething else", msgs)
        assert not bad.ok
        assert "missing_section:## Open TODOs" in bad.reasons and "latest_user_ask_not_reflected" in bad.reasons
        assert any(r.startswith("missing_identifiers:/srv/app/limiter.py") for r in bad.reasons)


@pytest.mark.parametrize("rules", [R4, R9], ids=lambda r: r.id)
def test_keywords_drop_stop_words_in_every_language(rules) -> None:
    q = rules.quality
    assert q.extract_keywords("please fix the rate limiter") == ["fix", "rate", "limiter"]
    assert "的" not in q.extract_keywords("修复的限流器") and "限流" in q.extract_keywords("修复的限流器")
    assert "제한기" in q.extract_keywords("속도 제한기를 고쳐")


def test_the_identifier_scan_is_the_full_pattern_s_word_by_word_and_linear() -> None:
    import random
    import time

    from inspector.rules.openclaw_2026_4_12.compaction import quality as april
    from inspector.write.summarizers import rule_based

    rnd = random.Random(7)
    alphabet = "aF09x:/\\._- \n\t\u00a0\u3000\u00e9h0123456789abcdef"
    for _ in range(5000):
        text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 60)))
        text = text.replace("h:", "https://") if rnd.random() < 0.3 else text
        assert april.opaque_matches(text) == [m.group(0) for m in april._OPAQUE.finditer(text)], text
        assert list(rule_based._openclaw_ids(text)) == [m.group(0) for m in rule_based._OPENCLAW_IDS.finditer(text)], text
    started = time.monotonic()  # the whole pattern backtracks for minutes on one 170,000-character word
    assert april.extract_opaque_identifiers("x" * 170_000) == [] and list(rule_based._openclaw_ids("x" * 170_000)) == []
    assert time.monotonic() - started < 5


# ------------------------------------------------------------------ 2026.9.6's whole audit (every reason it gives)

AUDIT_PIECES = [
    "https://example.com/a/b?x=1", "http://h.io/x).", "/usr/local/bin", "/a", "C:\\Users\\me\\f.txt", "api.host.com:8443",
    "deadbeefcafe", "DEADBEEF", "abc1234567", "12345678", "3.5GB", "1e5", "0.5x", ".5e3ms", "`/tmp/x.log`", "(ab12cd34ef)",
    "中文", "😀", "𝒳", " ", "\n", "\r\n", "word", "the", "id_9f8e7d6c5b", "v1.2.3:80", "\u2028", "[0xdeadbeef99]",
    "fix", "build", "deploy", "limiter", "修复", "None.",
]
REQUEST = "fix the build 中文 \"quoted\""
ASKS = [REQUEST, "please deploy the limiter", "修复 build", "the a", "😀", "fix build deploy limiter now"]


def _audit_text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(AUDIT_PIECES) + rng.choice(["", " ", ", ", "\n"]) for _ in range(rng.randint(0, n)))


def _audit_summary(rng: random.Random) -> str:
    parts = []
    for heading in R9.quality.REQUIRED_SUMMARY_SECTIONS:
        r = rng.random()
        if r < 0.1:
            continue
        parts.append(heading if r < 0.8 else rng.choice(["  " + heading + " ", heading + "s", "#" + heading]))
        if heading == "## Pending user asks" and rng.random() < 0.5:
            parts.append(rng.choice([R9.quality.format_latest_user_request_context(REQUEST), "None.", "- do x", "- " + rng.choice(ASKS), ""]))
        parts.append(_audit_text(rng, rng.choice([3, 30, 300])))
        if rng.random() < 0.1:
            parts.append(heading)
    return rng.choice(["\n", "\r\n", "\u2028"]).join(parts)


def test_the_2026_9_audit_gives_every_reason_openclaw_gives(openclaw_2026_9) -> None:  # noqa: F811
    """Sources repeating headings, a structural summary apart from the stored one, both identifier policies, a
    latest ask or a latest unresolved request, a retained turn's summary with or without the ask pending."""
    q, rng = R9.quality, random.Random(96)
    jobs: list[dict[str, Any]] = []
    ours: list[Any] = []
    for _ in range(700):
        summary = _audit_summary(rng)
        structural = _audit_summary(rng) if rng.random() < 0.3 else None
        sources = [_audit_summary(rng) for _ in range(rng.randint(0, 2))]
        ids = q.extract_opaque_identifiers(_audit_text(rng, 20))
        ask = rng.choice([None, *ASKS])
        request = REQUEST if rng.random() < 0.3 else None
        retained = _audit_summary(rng) if rng.random() < 0.4 else None
        policy = rng.choice(["strict", "off", "custom"])
        jobs.append({"release": "2026.9", "fn": "auditSummaryQuality", "args": [{
            "summary": summary, "structuralSummary": summary if structural is None else structural, "sourceSummaries": sources,
            "identifiers": ids, "latestAsk": ask, "latestUnresolvedUserRequest": request, "retainedTurnSummary": retained,
            "identifierPolicy": policy,
        }]})
        ours.append(q.audit_summary_quality(summary, ids, ask, policy, structural_summary=structural, source_summaries=sources,
                                            latest_unresolved_request=request, retained_turn_summary=retained).to_json())
    for _ in range(100):
        summary = _audit_summary(rng)
        jobs.append({"release": "2026.9", "fn": "extractPendingAskSection", "args": [summary]})
        ours.append(q.extract_pending_ask_section(summary))
    for ask in ["", "  x  ", "a" * 2000, "a" * 2001 + " ", "😀" * 1500, "x" + "😀" * 1200, *ASKS]:
        jobs.append({"release": "2026.9", "fn": "formatRequiredAskContext", "args": [ask]})
        ours.append(q.format_required_ask_context(ask))
    for value in (None, -1, 0, 1, 2.7, 3, 9, "2", True):
        jobs.append({"release": "2026.9", "fn": "resolveQualityGuardMaxRetries", "args": [value]})
        ours.append(q.resolve_quality_guard_max_retries(value))
    assert q.resolve_quality_guard_max_retries(float("nan")) == 1  # JSON has no NaN: the fallback, as for any non-finite
    real = openclaw_2026_9.run_script(SCRIPT, {"dist_2026_4": None, "jobs": jobs})
    mismatches = [(job, m, r) for job, m, r in zip(jobs, ours, real, strict=True) if m != r]
    assert not mismatches, mismatches[:3]
    audits = real[:700]
    reasons = {r.split(":")[0] for a in audits for r in a["reasons"]}
    assert reasons == {"missing_section", "duplicate_section", "missing_identifiers", "latest_user_ask_not_foregrounded",
                       "latest_user_ask_not_reflected", "retained_turn_ask_marked_pending"}, reasons
    assert sum(a["ok"] for a in audits) > 20


def test_the_retained_turn_s_pending_ask_fails_the_audit_with_or_without_a_request() -> None:
    q = R9.quality
    whole = "\n".join(f"{h}\n- fix the limiter" for h in q.REQUIRED_SUMMARY_SECTIONS)
    pending = "## Pending user asks\n- fix the rate limiter"
    assert q.audit_summary_quality(whole, [], "fix the rate limiter").ok
    assert q.audit_summary_quality(whole, [], "fix the rate limiter", retained_turn_summary=pending).reasons == ("retained_turn_ask_marked_pending",)
    assert q.audit_summary_quality(whole, [], "fix the rate limiter", retained_turn_summary="## Pending user asks\nNone.").ok
    lead = q.format_latest_user_request_context("go")
    led = whole.replace("## Pending user asks\n", f"## Pending user asks\n{lead}\n")
    assert q.audit_summary_quality(led, [], None, latest_unresolved_request="go", retained_turn_summary=pending).reasons == (
        "retained_turn_ask_marked_pending",)
    assert q.audit_summary_quality(whole, [], None, latest_unresolved_request="go").reasons == ("latest_user_ask_not_foregrounded",)
