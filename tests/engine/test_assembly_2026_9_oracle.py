"""The 2026.9.6 summary assembly against the real OpenClaw 2026.9.6 (`openclaw_2026_9` fixture; skips when absent).

Generated inputs (long summaries and split-turn prefixes around the 16,000 and 8,000 caps, long file lists, CJK
and astral characters at every cut, tool calls with their results, failures with status / exit codes, accepted
`sessions_spawn` results) go through the safeguard's real helpers (`oc_2026_9_assembly.mjs`), the agent core's
real `capCompactionSummary`, `formatFileOperations` and `compact` (with and without a latest unresolved request),
and `prepareCompaction`'s request extraction; the port must give the same text.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_9_6.compaction import assembly as A
from inspector.rules.openclaw_2026_9_6.compaction import latest_request as L

SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_assembly.mjs"
ALPHABET = "abc de\nfg## 中文字😀𝒳 \t"


def _text(rng: random.Random, most: int, least: int = 0) -> str:
    n = rng.randint(least, most)
    if rng.random() < 0.3:
        return "".join(rng.choice("abcdefgh ") for _ in range(n))
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def _summary(rng: random.Random, most: int, least: int = 0) -> str:
    body = _text(rng, most, least)
    return ("## Decisions\n" if rng.random() < 0.5 else "") + body


def _files(rng: random.Random) -> list[str]:
    n = rng.choice([0, 1, 3, 20, 60, 200])
    return [f"src/{_text(rng, 40, 1).strip() or 'x'}/{k}.ts" for k in range(n)]


def _conversation(rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in range(rng.randint(0, 8)):
        out.append({"role": "user", "content": _text(rng, 900) if rng.random() < 0.5 else [{"type": "text", "text": _text(rng, 700)}],
                    "timestamp": t})
        ids = [f"c{t}_{k}" for k in range(rng.randint(0, 3))]
        content: list[dict[str, Any]] = [{"type": "text", "text": _text(rng, 800)}]
        content += [{"type": "toolCall", "id": i, "name": "read", "arguments": {"path": "a"}} for i in ids]
        if rng.random() < 0.2:
            content.append({"type": "image", "data": "x", "mimeType": "image/png"})
        out.append({"role": "assistant", "content": content, "timestamp": t})
        rng.shuffle(ids)
        for i in ids:
            if rng.random() < 0.85:
                out.append(_result(rng, i))
    return out


def _result(rng: random.Random, call_id: str) -> dict[str, Any]:
    details: dict[str, Any] = {}
    if rng.random() < 0.4:
        details["status"] = rng.choice(["error", "", "accepted", "timeout"])
    if rng.random() < 0.4:
        details["exitCode"] = rng.choice([1, 127, -2, 1.5, 0])
    if rng.random() < 0.2:
        details.update(runId="r1", childSessionKey=rng.choice(["agent:x", " ", ""]))
    name = rng.choice(["exec", "read", "sessions_spawn", " ", ""])
    return {"role": "toolResult", "toolCallId": rng.choice([call_id, call_id, ""]), "toolName": name,
            "content": [{"type": "text", "text": _text(rng, 400)}] if rng.random() < 0.9 else [],
            "isError": rng.random() < 0.6, "details": details, "timestamp": 0}


def test_safeguard_assembly_matches_the_real_one(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(9)
    cases = []
    for k in range(140):
        big = k % 4 == 0
        conv = _conversation(rng)
        cases.append({
            "kind": "safeguard",
            "history": _summary(rng, 20_000, 14_000) if big else _summary(rng, 3000),
            "prefix": None if rng.random() < 0.4 else _summary(rng, 9000 if rng.random() < 0.4 else 500),
            "preserved": conv if rng.random() < 0.7 else conv * 6,
            "failures": _conversation(rng),
            "read": _files(rng),
            "modified": _files(rng),
        })
    expected = openclaw_2026_9.run_script(SCRIPT, cases)
    for case, want in zip(cases, expected, strict=True):
        assert A.format_preserved_turns_section(case["preserved"]).text == want["preserved"]
        got = A.finalize_summary(case["history"], case["prefix"], case["preserved"], A.format_tool_failures_section(case["failures"]),
                                 A.format_file_operations(case["read"], case["modified"]))
        assert got == want["summary"]
    assert sum(A.SUMMARY_TRUNCATED_MARKER in w["summary"] for w in expected) > 20  # the cap is exercised
    assert any(A.CONTEXT_TRUNCATED_MARKER in w["summary"] for w in expected)


def test_cap_and_file_lists_match_the_agent_core(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(96)
    cases: list[dict[str, Any]] = []
    for _ in range(200):
        summary = _text(rng, 300, 1)
        suffix = summary[rng.randint(0, len(summary)):] if rng.random() < 0.5 else _text(rng, 20)
        cases.append({"kind": "cap", "summary": summary, "max": rng.randint(-1, 320), "suffix": suffix})
    for _ in range(80):
        cases.append({"kind": "files", "read": _files(rng), "modified": _files(rng)})
    expected = openclaw_2026_9.run_script(SCRIPT, cases)
    for case, want in zip(cases, expected, strict=True):
        if case["kind"] == "cap":
            assert A.cap_compaction_summary(case["summary"], case["max"], case["suffix"]) == want, case
        else:
            assert A.format_file_operations(case["read"], case["modified"]) == want


def test_core_compact_with_the_latest_unresolved_request(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(2026)
    cases = []
    for k in range(60):
        cases.append({
            "kind": "core", "history": (_summary(rng, 20_000, 15_000) if k % 3 == 0 else _summary(rng, 2000)) or "x",
            "prefix": None if rng.random() < 0.5 else _summary(rng, 9000) or "y",
            "read": _files(rng), "modified": _files(rng),
            "request": None if k % 2 else _text(rng, 800, 1).strip() or "do it",
            "thinkingLevel": rng.choice(["low", "high", "off", None]), "reasoning": rng.random() < 0.5,
        })
    expected = openclaw_2026_9.run_script(SCRIPT, cases)
    for case, want in zip(cases, expected, strict=True):
        got = L.assemble_core_summary(case["history"], case["prefix"], sorted(case["read"]), sorted(case["modified"]), case["request"])
        assert got == want["summary"]
        assert ("latestUnresolvedUserRequest" in want["details"]) == bool(case["request"])
        assert got.startswith(L.LATEST_UNRESOLVED_REQUEST_HEADING) == bool(case["request"])
    assert sum(A.SUMMARY_TRUNCATED_MARKER in w["summary"] for w in expected) > 10


def test_latest_user_request_matches_prepare_compaction(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(5)
    cases, convs = [], []
    for _ in range(60):
        conv = [m for m in _conversation(rng) if m["role"] != "toolResult"]
        for m in conv:
            if m["role"] == "user" and rng.random() < 0.3:
                m["content"] = _text(rng, 2000, 700)
        entries, parent = [], None
        for k, m in enumerate(conv):
            entries.append({"type": "message", "id": f"e{k}", "parentId": parent, "timestamp": "2026-01-01T00:00:00Z", "message": m})
            parent = f"e{k}"
        convs.append(conv)
        cases.append({"kind": "request", "entries": entries})
    expected = openclaw_2026_9.run_script(SCRIPT, cases)
    compared = 0
    for conv, want in zip(convs, expected, strict=True):
        if isinstance(want, dict):  # nothing to compact
            continue
        compared += 1
        assert L.extract_latest_user_request(conv) == want
    assert compared > 20
