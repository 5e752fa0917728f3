"""OpenClaw 2026.9.6's quality-guard audit (`compaction/quality.py`) against the real functions of the safeguard's
test API (`openclaw_2026_9` fixture; skips when absent).

Generated texts full of identifiers (URLs, paths, Windows paths, host:port, hex ids, long digit runs, numbers with
units, quoted and bracketed, CJK and astral characters around them) go through `extractOpaqueIdentifiers`;
generated summaries (headings missing, repeated, indented, with CRLF, long sections, `## Pending user asks` with
and without the latest request context first, retained-turn summaries) through `auditSummaryQuality` under both
identifier policies. The latest-ask overlap is not ported, so the audits run without a `latestAsk`.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_9_6.compaction import quality_retry as Q

SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_quality_audit.mjs"
PIECES = [
    "https://example.com/a/b?x=1", "http://h.io/x).", "/usr/local/bin", "/a", "C:\\Users\\me\\f.txt", "api.host.com:8443",
    "deadbeefcafe", "DEADBEEF", "abc1234567", "12345678", "3.5GB", "1e5", "0.5x", ".5e3ms", "`/tmp/x.log`", "(ab12cd34ef)",
    "中文", "😀", "𝒳", " ", "\n", "\r\n", "word", "the", "id_9f8e7d6c5b", "v1.2.3:80", "\u2028", "[0xdeadbeef99]",
]
REQUEST = "fix the build 中文 \"quoted\""


def _text(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(PIECES) + rng.choice(["", " ", ", ", "\n"]) for _ in range(rng.randint(0, n)))


def _summary(rng: random.Random) -> str:
    parts = []
    for heading in Q.REQUIRED_SUMMARY_SECTIONS:
        r = rng.random()
        if r < 0.1:
            continue
        line = heading if r < 0.8 else rng.choice(["  " + heading + " ", heading + "s", "#" + heading])
        parts.append(line)
        if heading == "## Pending user asks" and rng.random() < 0.5:
            parts.append(rng.choice([Q.format_latest_user_request_context(REQUEST), "None.", "- do x", ""]))
        parts.append(_text(rng, rng.choice([3, 30, 300])))
        if rng.random() < 0.1:
            parts.append(heading)
    return rng.choice(["\n", "\r\n"]).join(parts)


def test_quality_audit_matches_openclaw(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(96)
    cases: list[dict[str, Any]] = []
    ours: list[Any] = []
    for _ in range(400):
        text = _text(rng, 40)
        cases.append({"kind": "ids", "text": text})
        ours.append(Q.extract_opaque_identifiers(text))
    for _ in range(600):
        summary = _summary(rng)
        structural = _summary(rng) if rng.random() < 0.3 else None
        sources = [_summary(rng) for _ in range(rng.randint(0, 2))]
        ids = Q.extract_opaque_identifiers(_text(rng, 20))
        request = REQUEST if rng.random() < 0.4 else None
        retained = _summary(rng) if rng.random() < 0.3 else None
        policy = rng.choice(["strict", "off", "custom"])
        cases.append({"kind": "audit", "params": {
            "summary": summary, "structuralSummary": summary if structural is None else structural, "sourceSummaries": sources,
            "identifiers": ids, "latestAsk": None, "latestUnresolvedUserRequest": request, "retainedTurnSummary": retained,
            "identifierPolicy": policy,
        }})
        got = Q.audit_summary_quality(summary, structural, sources, ids, None, request, retained, policy)
        ours.append({"ok": got.ok, "reasons": got.reasons})
    for value in (None, -1, 0, 1, 2.7, 3, 9, float("nan"), "2", True):
        cases.append({"kind": "retries", "value": value if value == value else None})
        ours.append(Q.resolve_quality_guard_max_retries(value if value == value else None))
    real = openclaw_2026_9.run_script(SCRIPT, cases)
    mismatches = [(c, m, r) for c, m, r in zip(cases, ours, real, strict=True) if m != r]
    assert not mismatches, mismatches[:3]
    audits = real[400:1000]
    assert sum(r["ok"] for r in audits) > 20 and sum(not r["ok"] for r in audits) > 100
    assert sum(bool(r) for r in real[:400]) > 300


def test_an_unchecked_latest_ask_is_said() -> None:
    audit = Q.audit_summary_quality("\n".join(Q.REQUIRED_SUMMARY_SECTIONS), latest_ask="please deploy")
    assert audit.ok and not audit.ask_checked
