"""Our ports of OpenClaw's compaction helpers against OpenClaw's own code, lifted out of its compiled bundle.

Runs only where `OPENCLAW_DIST_DIR` names an OpenClaw 2026.4 `dist/` directory (the npm tarball's) and the pi
oracle is installed (for pi's `estimateTokens`); otherwise it skips. The helpers have no public entry point,
so `tests/oracle/openclaw_helpers.mjs` copies them out of the bundle by name and runs them on the same
messages. The hand-worked fixtures in `test_compaction_safeguard.py` do not need any of this.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle.pi_oracle import oracle_dist

from inspector.rules.openclaw_2026_4_12.compaction import safeguard as sg
from inspector.rules.openclaw_2026_4_12.compaction.items import item_for_message
from inspector.rules.openclaw_2026_4_12.compaction.toolresults import estimate_reduction_potential, tool_result_text

SCRIPT = ROOT / "tests" / "oracle" / "openclaw_helpers.mjs"


def _dirs() -> tuple[Path, Path]:
    oc = os.environ.get("OPENCLAW_DIST_DIR", str(Path.home() / ".cache" / "session-inspector" / "openclaw-dist"))
    if not oc or not Path(oc).is_dir():
        pytest.skip("OpenClaw's compiled dist is not available (set OPENCLAW_DIST_DIR to run these)")
    pi, why = oracle_dist()
    if pi is None:
        pytest.skip(f"pi oracle unavailable: {why}")
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return Path(oc), pi


def _run(cases: list[dict]) -> list:
    oc, pi = _dirs()
    proc = subprocess.run(["node", str(SCRIPT), str(oc), str(pi)], input=json.dumps(cases), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    for r in out:
        assert not (isinstance(r, dict) and "error" in r), r
    return out


_TEXT = "abc xyz\n{}ERROR done 中文😀 "


@st.composite
def conversation(draw) -> list[dict]:
    msgs: list[dict] = []
    n = 0
    for _ in range(draw(st.integers(0, 24))):
        kind = draw(st.sampled_from(["user", "assistant", "assistant", "custom"]))
        size = draw(st.sampled_from([0, 3, 40, 400, 4000, 40000]))
        text = draw(st.text(alphabet=_TEXT, max_size=30)) + "x" * size
        if kind == "user":
            msgs.append({"role": "user", "content": text})
        elif kind == "custom":
            msgs.append({"role": "custom", "customType": "note", "content": text, "display": True})
        else:
            calls = [f"call{n + k}" for k in range(draw(st.integers(0, 3)))]
            n += len(calls)
            content = [{"type": "text", "text": text}] + [{"type": "toolCall", "id": c, "name": "exec", "arguments": {"c": c}} for c in calls]
            stop = draw(st.sampled_from(["toolUse", "stop", "aborted", "error"]))
            msgs.append({"role": "assistant", "content": content, "stopReason": stop})
            for c in calls:
                if draw(st.integers(0, 7)):
                    body = draw(st.text(alphabet=_TEXT, max_size=50)) + "y" * draw(st.sampled_from([0, 100, 3000, 20000, 90000]))
                    body += draw(st.sampled_from(["", "\n}", "\nexit code 1", " total"]))
                    msgs.append({"role": "toolResult", "toolCallId": c, "toolName": "exec", "content": [{"type": "text", "text": body}],
                                 "details": {"x": 1}, "isError": False})
    for pos, m in enumerate(msgs):
        m["_pos"] = pos
    return msgs


def _items(msgs):
    return [item_for_message(m, m["_pos"], m["_pos"]) for m in msgs]


def _tag(items):
    return [it.position for it in items]


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_helpers_agree_with_openclaw(data):
    cases, ours = [], []
    for _ in range(15):
        msgs = data.draw(conversation())
        items = _items(msgs)
        ctx = data.draw(st.sampled_from([2000, 16000, 100_000, 200_000]))
        parts = data.draw(st.integers(1, 3))
        turns = data.draw(st.integers(0, 4))
        share = data.draw(st.sampled_from([0.1, 0.5, 0.9]))
        max_tokens = data.draw(st.integers(1, 30_000))
        cases += [
            {"fn": "split", "messages": msgs, "parts": parts},
            {"fn": "chunk", "messages": msgs, "maxTokens": max_tokens},
            {"fn": "ratio", "messages": msgs, "contextWindow": ctx},
            {"fn": "oversized", "messages": msgs, "contextWindow": ctx},
            {"fn": "prune", "messages": msgs, "contextWindow": ctx, "share": share},
            {"fn": "preserve", "messages": msgs, "turns": turns},
            {"fn": "repair", "messages": msgs},
            {"fn": "potential", "messages": msgs, "contextWindow": ctx},
        ]
        pruned = sg.prune_history_for_context_share(items, ctx, share, 2)
        preserved = sg.split_preserved_recent_turns(items, turns)
        rep = sg.repair_tool_use_result_pairing(items)
        texts = [t for t in (tool_result_text(m["_pos"], m) for m in msgs) if t is not None]
        ours += [
            [_tag(p) for p in sg.split_messages_by_token_share(items, parts)],
            [_tag(c) for c in sg.chunk_messages_by_max_tokens(items, max_tokens)],
            sg.compute_adaptive_chunk_ratio(items, ctx),
            [sg.is_oversized_for_summary(it, ctx) for it in items],
            {"kept": _tag(pruned.messages), "dropped": _tag(pruned.dropped), "droppedChunks": pruned.dropped_chunks,
             "droppedMessages": pruned.dropped_messages, "droppedTokens": pruned.dropped_tokens, "keptTokens": pruned.kept_tokens,
             "budgetTokens": pruned.budget_tokens},
            {"summarizable": _tag(preserved.summarizable), "preserved": _tag(preserved.preserved)},
            {"messages": _tag(rep.messages), "dropped": [rep.dropped_duplicate_count, rep.dropped_orphan_count], "added": len(rep.added),
             "moved": rep.moved},
            dict(estimate_reduction_potential(texts, ctx).to_json().items()),
        ]
    theirs = _run(cases)
    for case, mine, expected in zip(cases, ours, theirs):
        if case["fn"] == "potential":
            expected = {k[0].lower() + "".join("_" + c.lower() if c.isupper() else c for c in k[1:]): v for k, v in expected.items()}
        assert mine == expected, (case["fn"], mine, expected)
