"""The 2026.9.6 compaction rules against the real OpenClaw 2026.9.6 (`openclaw_2026_9` fixture; skips when absent).

Generated message lists (tool calls with their results, several calls per assistant, missing, late and duplicate
results, results without an id, aborted and error assistants) go through the real `buildStageSplitPlan`,
`buildSummaryChunks`, `buildHistoryPrunePlan` and `buildOversizedFallbackPlan`; generated sessions (split turns,
custom messages, growing usage) and the corpus files through the real `prepareCompaction`. Message sizes are the
real `estimateTokens` (the sizes the ports receive are compared too); the ports must give the same indexes.
The history prune is compared on the lists the pairing repair leaves as they are: the port still uses
2026.4.12's `repairToolUseResultPairing`, which 2026.9 rewrote (duplicate ids, late results, failed calls).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from oracle.cases import builder, usage
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_4_12.compaction.items import item_for_message
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

SEPT = rule_set("openclaw-2026.9.6")
SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_compaction.mjs"
CORPUS = Path("/work/shared/corpus/pi")


def _text(rng: random.Random, most: int) -> str:
    return "".join(rng.choice("abcdefgh ") for _ in range(rng.randint(1, most)))


def _messages(rng: random.Random, tidy: bool = False) -> list[dict]:
    """A message list; `tidy`: unique ids, every result right after its assistant in call order (the pairing
    repair changes nothing)."""
    out: list[dict] = []
    odd = 0.0 if tidy else 1.0
    n = 0

    def add(msg: dict) -> None:
        msg["timestamp"] = len(out) + 1
        out.append(msg)

    for _ in range(rng.randint(1, 14)):
        add({"role": "user", "content": [{"type": "text", "text": _text(rng, 3000)}]})
        for _ in range(rng.randint(0, 3)):
            calls = []
            for _ in range(rng.randint(0, 3)):
                n += 1
                calls.append({"type": "toolCall", "id": f"c{n}" if rng.random() > 0.1 * odd else "c1", "name": "read", "arguments": {"path": _text(rng, 40)}})
            stop = rng.choice(["toolUse"] * 6 + ["error", "aborted", "stop"]) if not tidy else "toolUse"
            add({"role": "assistant", "content": [{"type": "text", "text": _text(rng, 800)}, *calls], "stopReason": stop})
            if rng.random() < 0.15 * odd:
                add({"role": "user", "content": [{"type": "text", "text": _text(rng, 100)}]})
            results = list(calls)
            if not tidy:
                rng.shuffle(results)
            for call in results:
                if rng.random() < 0.1 * odd:
                    continue
                result = {"role": "toolResult", "toolName": "read", "content": [{"type": "text", "text": _text(rng, 6000)}], "isError": False}
                if rng.random() >= 0.05 * odd:
                    result["toolCallId"] = call["id"]
                add(result)
                if rng.random() < 0.05 * odd:
                    add({**result, "content": [{"type": "text", "text": "dup"}]})
    return out


def test_planning_helpers_match_openclaw(openclaw_2026_9):  # noqa: F811
    rng = random.Random(2026_09_06)
    cases = []
    for k in range(240):
        msgs = _messages(rng, tidy=k % 3 == 0)
        total = sum(len(b.get("text", "")) for m in msgs for b in m["content"]) // 4 + 1
        cases.append({
            "kind": "planning",
            "messages": msgs,
            "maxChunkTokens": rng.randint(1, total),
            "contextWindow": rng.randint(100, 2 * total + 200),
            "budget": rng.randint(2, 2 * total + 2),
            "tidy": k % 3 == 0,
        })
    got = openclaw_2026_9.run_script(SCRIPT, cases)
    sg = SEPT.safeguard
    staged = pruned = omitted = 0
    for case, real in zip(cases, got, strict=True):
        items = [item_for_message(msg, k, k) for k, msg in enumerate(case["messages"])]
        assert [it.tokens for it in items] == real["tokens"]

        def ts(chunk):
            return [it.position + 1 for it in chunk]

        split = sg.build_stage_split_plan(items, case["maxChunkTokens"])
        assert (None if split.mode == "single" else [ts(c) for c in split.chunks]) == real["split"]
        assert [ts(c) for c in sg.chunk_messages_by_max_tokens(items, case["maxChunkTokens"])] == real["chunks"]
        prune = sg.prune_history_for_context_share(items, case["budget"], 0.5, 2)
        if case["tidy"]:  # the port keeps 2026.4.12's pairing repair: it differs on duplicate ids, late results, failed calls
            assert (ts(prune.messages), ts(prune.dropped), prune.dropped_chunks) == (
                real["prune"]["kept"], real["prune"]["dropped"], real["prune"]["droppedChunks"]
            )
            pruned += real["prune"]["droppedChunks"] > 0
        fb = sg.build_oversized_fallback_plan(items, case["contextWindow"])
        assert (ts(fb.small), fb.notes) == (real["fallback"]["small"], real["fallback"]["notes"])
        staged += real["split"] is not None
        omitted += bool(real["fallback"]["notes"])
    assert staged > 30 and pruned > 10 and omitted > 10  # the cases reach every branch


def _session(rng: random.Random):
    b = builder()
    total = 0
    for _ in range(rng.randint(1, 10)):
        b.user(_text(rng, 4000))
        if rng.random() < 0.2:
            b.custom_message("note", _text(rng, 3000))
        for _ in range(rng.randint(0, 3)):
            call = b.tool_call("read", {"path": _text(rng, 30)})
            total += rng.randint(100, 5000)
            b.assistant([call], usage=usage(total))
            b.tool_result(call["id"], "read", _text(rng, 8000))
        total += rng.randint(100, 5000)
        b.assistant(_text(rng, 1000), usage=usage(total))
    return b


def _prepare_case(path: Path, keep: int) -> dict:
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {"kind": "prepare", "entries": [e for e in entries if e.get("type") != "session"], "keepRecentTokens": keep}


def _ours(path: Path, keep: int) -> dict:
    s = open_session(path)
    prep = SEPT.prepare.prepare_compaction(s, s.context(), SEPT.prepare.CompactionSettings(keep, 16384))
    if isinstance(prep, SEPT.prepare.NothingToPlan):
        return {"ok": True, "none": True}
    return {
        "ok": True, "firstKeptEntryId": prep.first_kept_entry_id, "isSplitTurn": prep.is_split_turn, "tokensBefore": prep.tokens_before,
        "summarize": len(prep.summarize_pos), "prefix": len(prep.turn_prefix_pos),
    }


def test_prepare_compaction_matches_openclaw(openclaw_2026_9, tmp_path):  # noqa: F811
    rng = random.Random(906)
    cases, ours = [], []
    for k in range(80):
        path = _session(rng).write(tmp_path / f"s{k}.jsonl")
        for keep in (rng.randint(1, 3000), rng.randint(1000, 20000), 20000):
            cases.append(_prepare_case(path, keep))
            ours.append(_ours(path, keep))
    real = openclaw_2026_9.run_script(SCRIPT, cases)
    assert ours == real
    assert sum(1 for r in real if r.get("isSplitTurn")) > 10 and sum(1 for r in real if r.get("none")) > 5


def test_prepare_compaction_on_the_corpus(openclaw_2026_9):  # noqa: F811
    files = sorted(CORPUS.glob("*.jsonl")) if CORPUS.is_dir() else []
    if not files:
        pytest.skip(f"no corpus at {CORPUS}")
    cases, ours = [], []
    for path in files:
        s = open_session(path)
        if s.version != 3 or any(e.type not in ("message", "model_change", "thinking_level_change", "custom", "session_info") for e in s.entries):
            continue  # v1 files are migrated in memory (ids differ); compactions and branches: not linear
        for keep in (500, 5000, 20000):
            cases.append(_prepare_case(path, keep))
            ours.append(_ours(path, keep))
    if not cases:
        pytest.skip("no linear v3 corpus file")
    assert ours == openclaw_2026_9.run_script(SCRIPT, cases)


def test_reserve_cap_matches_openclaw(openclaw_2026_9):  # noqa: F811
    rng = random.Random(4)
    pairs = [(rng.choice([0, 1, 16384, 20000, 50000, rng.randint(0, 10**6)]) + rng.random() * rng.randint(0, 1), rng.randint(1, 400_000))
             for _ in range(300)] + [(20000, 1), (20000, 79_999), (20000, 80_000), (-3, 1000), (20000, 0.5)]
    jobs = [{"module": "agent-compaction-constants", "fn": "resolveEffectiveCompactionReserveTokens",
             "args": [{"reserveTokens": r, "contextTokenBudget": w}]} for r, w in pairs]
    real = openclaw_2026_9.call(jobs)
    assert [SEPT.compaction_settings.cap_reserve_tokens(r, w).effective for r, w in pairs] == real
