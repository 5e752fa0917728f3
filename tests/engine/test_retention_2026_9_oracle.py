"""The 2026.9.6 quality retention plan against the real OpenClaw 2026.9.6 (`openclaw_2026_9` fixture; skips when absent).

Generated summary bodies (the five required sections, sometimes out of order or missing, a leading latest-request
context block, `\\r\\n` lines, indented headings, sections of up to 12,000 characters with CJK and astral characters at
every cut, identifier dumps, "None." pending asks) with generated guard parameters (audited identifiers present or
not, latest asks, a latest unresolved request, the retained-turn flag, both identifier policies) and budgets (16,000
and far smaller, down to below the plan's minimum) go through the safeguard's real `budgetCompactionSummary` with
its quality retention (`oc_2026_9_retention.mjs`), and whole guard-on finalizations through its `finalizeSummaryText`
steps with the real `fitCompactionSummary`; the port must give the same summary, body, budget and flags. The ask
overlap (`hasAskOverlap`) the port asks of its caller is answered by the real keywords (`overlap` cases).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.compaction.boundary import REQUIRED_SUMMARY_SECTIONS
from inspector.rules.openclaw_2026_9_6.compaction import assembly as A
from inspector.rules.openclaw_2026_9_6.compaction.quality import format_latest_user_request_context
from inspector.rules.openclaw_2026_9_6.compaction.retention import QualityRetention, create_summary_quality_retention_plan

SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_retention.mjs"
WORDS = ["deploy", "kubernetes", "cluster", "migration", "database", "the", "a", "please", "fix", "login", "bug",
         "部署", "数据库", "迁移", "😀", "𝒳", "none", "None.", "port", "8080", "décision", "straße"]
IDENTIFIERS = ["/usr/local/bin/tool", "https://example.com/a?b=1", "DEADBEEF12345678", "abc123def4567890", "1234567",
               "host.example:8443", "C:\\temp\\x.log", "run-9f8e7d6c5b4a"]


def _line(rng: random.Random) -> str:
    words = [rng.choice(WORDS + IDENTIFIERS[:2]) for _ in range(rng.randint(1, 14))]
    return ("- " if rng.random() < 0.5 else "") + " ".join(words)


def _section(rng: random.Random) -> str:
    size = rng.choice([0, 0, 40, 300, 1500, 5000, 12000])
    lines: list[str] = []
    while sum(len(x) + 1 for x in lines) < size:
        lines.append(_line(rng))
    if rng.random() < 0.1:
        lines = ["None."]
    return "\n".join(lines)


def _heading(rng: random.Random, heading: str) -> str:
    return rng.choice([heading, heading, heading, f"  {heading} ", f"{heading}\t"])


def _body(rng: random.Random, ask_context: str) -> str:
    order = list(REQUIRED_SUMMARY_SECTIONS)
    roll = rng.random()
    if roll < 0.08:
        rng.shuffle(order)
    elif roll < 0.14:
        order.pop(rng.randrange(len(order)))
    elif roll < 0.18:
        order.insert(rng.randrange(len(order)), order[rng.randrange(len(order))])
    parts = [_section(rng)] if rng.random() < 0.2 else []
    for heading in order:
        parts.append(_heading(rng, heading))
        content = _section(rng)
        if heading == "## Exact identifiers" and rng.random() < 0.3:
            content = "\n".join(rng.choice(IDENTIFIERS) + str(k) for k in range(rng.choice([50, 800])))
        if content:
            parts.append(content)
    text = "\n".join(parts)
    if ask_context and rng.random() < 0.3:
        text = f"## Latest user request context\n{json.dumps(ask_context, ensure_ascii=False)}\n\n{text}"
    if rng.random() < 0.1:
        text = text.replace("\n", "\r\n")
    return text


def _quality(rng: random.Random, body: str) -> dict[str, Any] | None:
    if rng.random() < 0.1:
        return None
    ask = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8))) if rng.random() < 0.7 else None
    unresolved = ask if ask and rng.random() < 0.25 else None
    identifiers = rng.sample(IDENTIFIERS, rng.randint(0, 4))
    if rng.random() < 0.3:
        identifiers = [i for i in identifiers if i in body]
    return {
        "auditSummary": body + (f"\n\n{ask}" if ask and rng.random() < 0.3 else "") if rng.random() < 0.7 else None,
        "identifiers": identifiers,
        "latestAsk": ask,
        "latestAskInRetainedTurn": rng.random() < 0.3,
        "latestUnresolvedUserRequest": unresolved,
        "requiredAskContext": js_trim(ask) if ask and rng.random() < 0.9 else "",
        "identifierPolicy": rng.choice(["strict", "strict", "off"]),
    }


def _with_pending_ask(rng: random.Random, body: str, q: dict[str, Any] | None) -> str:
    """Sometimes the body already leads its pending asks with the request context the guard wants."""
    if q is None or rng.random() < 0.6 or "## Pending user asks\n" not in body:
        return body
    lead = (format_latest_user_request_context(q["latestUnresolvedUserRequest"]) if q["latestUnresolvedUserRequest"]
            else f"Latest user request context:\n{json.dumps(q['requiredAskContext'], ensure_ascii=False)}")
    return body.replace("## Pending user asks\n", f"## Pending user asks\n{lead}\n", 1)


def _retention(q: dict[str, Any] | None, table: dict[tuple[str, str], bool], missing: set[tuple[str, str]]) -> QualityRetention | None:
    if q is None:
        return None

    def overlap(text: str, ask: str) -> bool:
        if (text, ask) not in table:
            missing.add((text, ask))
            return True
        return table[(text, ask)]

    return QualityRetention(
        overlap, q["auditSummary"], q["identifiers"], q["latestAsk"], q["latestAskInRetainedTurn"],
        q["latestUnresolvedUserRequest"], q["requiredAskContext"], q["identifierPolicy"],
    )


def _cases(rng: random.Random) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for _ in range(260):
        ask_context = " ".join(rng.choice(WORDS) for _ in range(3))
        body = _body(rng, ask_context)
        q = _quality(rng, body)
        body = _with_pending_ask(rng, body, q)
        suffix = "" if rng.random() < 0.3 else "\n\n## Recent turns\n" + "x😀中" * rng.randint(0, 3000)
        limit = rng.choice([16000, 16000, rng.randint(1, 16000), rng.randint(200, 3000), rng.randint(1, 250)])
        cases.append({"kind": "budget", "body": body, "suffix": suffix, "max": limit, "quality": q})
    for _ in range(30):
        history = _body(rng, "")
        q = _quality(rng, history)
        prefix = None if rng.random() < 0.5 else "## Decisions\n" + _section(rng)
        split = A.format_generated_split_turn_section(prefix) if prefix is not None else ""
        preserved = [{"role": "user", "content": _line(rng), "timestamp": k} for k in range(rng.randint(0, 6))]
        cases.append({"kind": "finalize", "history": history, "prefix": prefix, "split": split, "preserved": preserved,
                      "failures": [], "read": ["a.ts"], "modified": [], "quality": q,
                      "tokenBudget": rng.choice([None, None, rng.randint(300, 5000)])})
    return cases


def _port(case: dict[str, Any], quality: QualityRetention | None) -> dict[str, Any] | None:
    if case["kind"] == "budget":
        got: A.Budgeted | None = A.budget_compaction_summary(case["body"], case["suffix"], case["max"], quality)
    else:
        got = A.finalize_budgeted(case["history"], case["prefix"], case["preserved"], "", A.format_file_operations(case["read"], []),
                                  token_budget=case["tokenBudget"], quality=quality)
    if got is None:
        return None
    return {"summary": got.summary, "structuralSummary": got.structural_summary, "bodyBudget": got.body_budget,
            "bodyTrimmed": got.body_trimmed, "suffixTrimmed": got.suffix_trimmed, "qualityRetentionInfeasible": got.quality_retention_infeasible}


def test_budget_with_quality_retention_matches_the_real_safeguard(openclaw_2026_9):  # noqa: F811
    rng = random.Random(2026_09_06)
    cases = _cases(rng)
    table: dict[tuple[str, str], bool] = {}
    for _ in range(4):  # the overlaps the plans ask about (what is asked second depends on the first answer)
        missing: set[tuple[str, str]] = set()
        for case in cases:
            _port(case, _retention(case["quality"], table, missing))
        if not missing:
            break
        pairs = sorted(missing)
        answers = openclaw_2026_9.run_script(SCRIPT, [{"kind": "overlap", "text": t, "ask": a} for t, a in pairs])
        table.update(zip(pairs, answers, strict=True))
    assert not missing
    real = openclaw_2026_9.run_script(SCRIPT, cases)
    outcomes = {"plan": 0, "rendered": 0, "trimmed": 0, "infeasible": 0, "no_fit": 0}
    for n, (case, want) in enumerate(zip(cases, real, strict=True)):
        quality = _retention(case["quality"], table, set())
        got = _port(case, quality)
        assert got == want, (n, case["kind"], {k: (got or {}).get(k) for k in (want or {}) if (got or {}).get(k) != want[k]})
        body = case.get("body", case.get("history"))
        if quality is not None and create_summary_quality_retention_plan(body, A.SUMMARY_TRUNCATED_MARKER, quality) is not None:
            outcomes["plan"] += 1
        if want is None:
            outcomes["no_fit"] += 1
        else:
            outcomes["rendered"] += want["structuralSummary"] != body
            outcomes["trimmed"] += want["bodyTrimmed"]
            outcomes["infeasible"] += want["qualityRetentionInfeasible"]
    assert outcomes["plan"] > 100 and outcomes["rendered"] > 40 and outcomes["trimmed"] > 20 and outcomes["infeasible"] > 0, outcomes
