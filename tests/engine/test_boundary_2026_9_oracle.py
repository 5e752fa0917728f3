"""The 2026.9.6 boundary decision (`check_boundary`) against the real OpenClaw 2026.9.6 safeguard handler
(`openclaw_2026_9` fixture; skips when absent).

Generated sessions made mostly of what is not real conversation (heartbeats, `NO_REPLY`, blank text, tool-call-only
assistants, tool results far from a user message, hidden runtime-context and `display: false` custom messages,
`excludeFromContext`, empty bash runs, previous compactions with empty or real summaries) with now and then a real
message, cut at many `keepRecentTokens`. The preparation (ours, already compared with the real `prepareCompaction`)
goes to the real handler (`oc_2026_9_boundary.mjs`) with the session's branch; the port must take the same
decision, and when it summarizes, the same messages (the preparation's, or the boundary-scoped range's).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from oracle.cases import builder, usage
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

SEPT = rule_set("openclaw-2026.9.6")
APRIL = rule_set("openclaw-2026.4.12")
SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_boundary.mjs"
HOLLOW = ["HEARTBEAT_OK", "NO_REPLY", "  ", "**NO_REPLY**", "NO_REPLY NO_REPLY", "", "HEARTBEAT_OK ", "no_reply"]
RUNTIME = "openclaw.runtime-context"


def _say(rng: random.Random, real: float) -> str:
    return rng.choice(["real words 中文", "ok", "😀 done"]) if rng.random() < real else rng.choice(HOLLOW)


def _session(rng: random.Random) -> Any:
    b = builder()
    real = rng.choice([0.0, 0.0, 0.05, 0.2])
    total = 0
    ids: list[str] = []
    for _ in range(rng.randint(1, 9)):
        r = rng.random()
        if r < 0.12:
            b.custom_message(rng.choice([RUNTIME, "note"]), _say(rng, 0.6), display=rng.random() < 0.7)
        elif r < 0.2:
            b.message({"role": "bashExecution", "command": _say(rng, real), "output": "", "exitCode": 0, "timestamp": b.now_ms})
        elif r < 0.26:
            b.message({"role": "user", "content": _say(rng, 0.8), "excludeFromContext": True, "timestamp": b.now_ms})
        elif r < 0.32 and ids:
            b.compaction(_say(rng, 0.5), rng.choice(ids), 1000)
        else:
            ids.append(b.user(_say(rng, real)))
        for _ in range(rng.randint(0, 3)):
            call = b.tool_call("read", {"path": "a"})
            total += rng.randint(100, 900)
            b.assistant([call] if rng.random() < 0.7 else [call, b.text_block(_say(rng, real))], usage=usage(total))
            for _ in range(rng.randint(0, 25)):  # tool results far from their user message
                b.tool_result(call["id"], "read", "x" * rng.randint(0, 300))
        total += rng.randint(100, 900)
        b.assistant(_say(rng, real), usage=usage(total))
    return b


def _key(m: dict[str, Any]) -> list[Any]:
    if "content" in m:
        return [m["role"], m["content"]]
    if "summary" in m:
        return [m["role"], m["summary"]]
    return [m["role"], f"{m.get('command')}\n{m.get('output')}"]


def test_boundary_check_matches_the_real_safeguard(openclaw_2026_9: Any, tmp_path: Path) -> None:  # noqa: F811
    rng = random.Random(23)
    cases, ours, ranges = [], [], 0
    for k in range(150):
        b = _session(rng)
        path = b.write(tmp_path / f"s{k}.jsonl")
        s = open_session(path, "openclaw-2026.9.6")
        ctx = s.context()
        branch = [s.load_entry_object(s.entries[i]) for i in ctx.path]
        for keep in (rng.randint(1, 300), rng.randint(300, 3000)):
            prep = SEPT.prepare.prepare_compaction(s, ctx, SEPT.prepare.CompactionSettings(keep, 16384))
            if isinstance(prep, SEPT.prepare.NothingToPlan):
                continue
            load = [s.load_message(s.entries[ctx.path[p]]) or {} for p in prep.summarize_pos]
            prefix = [s.load_message(s.entries[ctx.path[p]]) or {} for p in prep.turn_prefix_pos]
            cases.append({"branch": branch, "summarize": load, "prefix": prefix, "firstKeptEntryId": prep.first_kept_entry_id,
                          "isSplitTurn": prep.is_split_turn})
            check = SEPT.boundary.check_boundary(s, ctx, prep)
            if check.boundary_only:
                ours.append({"boundary": True, "summary": SEPT.boundary.build_structured_fallback_summary(None)})
                continue
            if check.range_positions is not None:
                ranges += 1
                summarized = [_key(s.load_message(s.entries[ctx.path[p]]) or {}) for p in check.range_positions]
            else:
                hidden = SEPT.boundary.is_runtime_context_custom_message  # the safeguard strips these from both lists
                shown, shown_prefix = [m for m in load if not hidden(m)], [m for m in prefix if not hidden(m)]
                summarized = [_key(m) for m in (shown or (shown_prefix if prep.is_split_turn else []))]
            ours.append({"boundary": False, "summarized": summarized, "cancel": False})
    real = openclaw_2026_9.run_script(SCRIPT, cases)
    assert len(real) == len(ours)
    for n, (mine, theirs) in enumerate(zip(ours, real, strict=True)):
        assert mine == theirs, (n, cases[n]["firstKeptEntryId"])
    boundaries = sum(r["boundary"] for r in real)
    assert boundaries > 10 and len(real) - boundaries > 10 and ranges > 0, (boundaries, ranges, len(real))  # every branch


def test_a_real_previous_summary_keeps_2026_9_6_from_a_boundary(tmp_path: Path) -> None:
    """Only heartbeats since a compaction whose summary is real: 2026.4.12 writes a boundary, 2026.9.6 does not (the
    current context, summary included, holds real conversation), and neither range nor lists are real."""
    b = builder()
    b.user("real question")
    b.assistant("real answer", usage=usage(1000))
    hollow = b.user("HEARTBEAT_OK")
    b.compaction("## Decisions\nShip it.", hollow, 1000)
    for n in range(6):
        b.assistant("HEARTBEAT_OK" + " " * 400, usage=usage(2000 + n))
        b.user("NO_REPLY" + " " * 400)
    path = b.write(tmp_path / "s.jsonl")
    for rules, boundary in ((SEPT, False), (APRIL, True)):
        s = open_session(path, rules.id)
        ctx = s.context()
        prep = rules.prepare.prepare_compaction(s, ctx, rules.prepare.CompactionSettings(150, 16384))
        assert not isinstance(prep, rules.prepare.NothingToPlan) and prep.summarize_pos
        check = rules.boundary.check_boundary(s, ctx, prep)
        assert (check.boundary_only, check.range_positions) == (boundary, None)
