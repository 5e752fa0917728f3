"""OpenClaw 2026.9.6's pruning rules against the real functions (`oc_2026_9_pruning.mjs`) on generated contexts.

Each case runs `resolveCacheTtlPruningSettings`, restores the projections of a branch's `openclaw.cache-ttl`
marker and runs `pruneExpiredCacheTtlToolResults` in node; the same inputs go through
`rule_set("openclaw-2026.9.6")`'s `pruning_settings`, `pruner` and `ttl`. Texts put surrogate pairs at the
soft-trim cuts; tool names meet allow/deny globs; tool-call ids repeat (ambiguous projection keys); a second
round replays the first round's snapshot with the gate closed, open, after a result changed, and on the
server-side clearing path (no new round).
"""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest
from oracle.openclaw_2026_9 import HERE, OpenClaw2026_9, openclaw_2026_9  # noqa: F401

from inspector.rules.ruleset import rule_set

RULES = rule_set("openclaw-2026.9.6")
SCRIPT = HERE / "oc_2026_9_pruning.mjs"
TOOLS = ["read", "exec", "web_search", "Read", " grep ", "browser.open"]
ALPHABET = "abcdefghij klmnop\n" + "é" + "😀" * 3


def _text(rng: random.Random, n: int) -> str:
    """`n` characters, with a surrogate pair straddling the soft-trim cuts now and then."""
    chars = [rng.choice(ALPHABET) for _ in range(n)]
    text = "".join(chars)
    if n > 3100 and rng.random() < 0.6:
        cut = 1499 + rng.choice([-1, 0, 1])
        text = text[:cut] + "😀" + text[cut:]
    return text


def _tool_result(rng: random.Random, i: int, call_ids: list[str], heavy: bool = False) -> dict[str, Any]:
    sizes = [3500, 3999, 3999, 60000] if heavy else [10, 500, 3999, 4000, 4001, 6000, 12000, 30000, 60000]
    size = rng.choice(sizes)
    content: list[Any] = [{"type": "text", "text": _text(rng, size)}]
    if rng.random() < 0.15:
        content.append({"type": "image", "data": "AAAA", "mimeType": "image/png"})
    if rng.random() < 0.1:
        content.append({"type": "text", "text": 42})
    if rng.random() < 0.15:
        content.insert(0, {"type": "text", "text": _text(rng, rng.choice([5, 2000]))})
    call_id = rng.choice(call_ids) if call_ids and rng.random() < 0.15 else f"call_{i}"
    call_ids.append(call_id)
    msg: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": rng.choice(TOOLS), "content": content}
    if rng.random() < 0.9:
        msg["timestamp"] = 1_700_000_000_000 + i * (0 if rng.random() < 0.05 else 1000)
    return msg


def _assistant(rng: random.Random, i: int) -> dict[str, Any]:
    content: list[Any] = [{"type": "text", "text": _text(rng, rng.choice([0, 20, 300]))}]
    if rng.random() < 0.3:
        content.insert(0, {"type": "thinking", "thinking": _text(rng, 200), "thinkingSignature": "sig" * 10})
    if rng.random() < 0.5:
        content.append({"type": "toolCall", "id": f"call_{i}", "name": "read", "arguments": {"path": f"/f/{i}", "n": i * 1.5}})
    return {"role": "assistant", "content": content, "timestamp": 1_700_000_000_000 + i * 1000}


def _context(rng: random.Random) -> list[dict[str, Any]]:
    """A context; a heavy one has enough untrimmable results (<= 4,000 chars) to reach the hard clear."""
    messages: list[dict[str, Any]] = []
    call_ids: list[str] = []
    heavy = rng.random() < 0.3
    if rng.random() < 0.3:
        messages.append(_tool_result(rng, 0, call_ids))  # before the first user message: never pruned
    for i in range(1, rng.randint(3, 60 if heavy else 24)):
        kind = rng.random()
        if kind < 0.2:
            messages.append({"role": "user", "content": _text(rng, rng.choice([5, 200])), "timestamp": 1_700_000_000_000 + i})
        elif kind < 0.45:
            messages.append(_assistant(rng, i))
        elif kind < 0.5:
            messages.append({"role": "custom", "customType": "note", "content": "x", "display": False})
        else:
            messages.append(_tool_result(rng, i, call_ids, heavy))
    for i in range(rng.choice([0, 2, 3, 3, 3, 3, 4])):
        messages.append(_assistant(rng, 100 + i))
    return messages


def _config(rng: random.Random) -> dict[str, Any]:
    cfg: dict[str, Any] = {"mode": "cache-ttl"}
    if rng.random() < 0.5:
        cfg["ttl"] = rng.choice(["5m", "1h", "90s", "0", "bad", "1h30m"])
    if rng.random() < 0.5:
        cfg["tools"] = {k: v for k, v in (("allow", rng.choice([["read*", "exec"], ["*"], []])), ("deny", rng.choice([["web_*"], [" READ "], []]))) if rng.random() < 0.7}
    if rng.random() < 0.5:
        cfg["hardClear"] = {"enabled": rng.random() < 0.7, "placeholder": rng.choice(["", "  [gone]  ", "x"])}
    if rng.random() < 0.2:
        cfg["keepLastAssistants"] = 0  # retired: ignored
        cfg["softTrim"] = {"maxChars": 10}
    return cfg


def _case(rng: random.Random) -> dict[str, Any]:
    last = 1_700_000_000_000
    return {
        "config": _config(rng),
        "messages": _context(rng),
        "contextWindowTokens": rng.choice([1000, 8000, 30000, 60000, 200000]),
        "lastCacheTouchAt": rng.choice([None, last, last, last, last]),
        "now": last + rng.choice([0, 60_000, 10_000_000, 10_000_000, 10_000_000]),
        "dropThinkingBlocksForEstimate": rng.random() < 0.3,
        "toolNames": TOOLS + ["", "other"],
    }


def _branch(entries: list[dict[str, Any]]) -> list[SimpleNamespace]:
    return [SimpleNamespace(type=e["type"], data=e, id=e.get("id"), line=n + 1) for n, e in enumerate(entries)]


def _ours(case: dict[str, Any]) -> dict[str, Any]:
    settings = RULES.pruning_settings.compute_effective_settings(case["config"])
    prunable = RULES.tool_globs.make_tool_prunable_predicate(settings.tools)
    snapshot = RULES.pruner.read_projection_snapshot(_branch(case.get("branch") or []))
    result = RULES.pruner.prune_context_messages(
        case["messages"],
        settings,
        context_window_tokens=case["contextWindowTokens"],
        is_tool_prunable=prunable,
        drop_thinking_blocks_for_estimate=case["dropThinkingBlocksForEstimate"],
        projections=snapshot,
        new_rounds=case.get("pruneNewRounds", True),
    )
    gate = RULES.ttl.ttl_expired(case["lastCacheTouchAt"], case["now"], settings.ttl_ms) and result.new_rounds
    new_round = gate and any(a != "keep" for a in result.actions)
    return {
        "settings": {"ttlMs": settings.ttl_ms, "hardClear": settings.hard_clear.enabled, "placeholder": settings.hard_clear.placeholder},
        "prunable": [prunable(name) for name in case["toolNames"]],
        "messages": result.messages if gate else result.replay_messages,
        "pruned": new_round,
    }


def _compare(oracle: OpenClaw2026_9, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    theirs = oracle.run_script(SCRIPT, cases)
    for n, (case, real) in enumerate(zip(cases, theirs, strict=True)):
        ours = _ours(case)
        for key in ("settings", "prunable", "pruned", "messages"):
            assert ours[key] == real[key], f"case {n}: {key} differs"
    return theirs


def test_one_round_matches_openclaw(openclaw_2026_9: OpenClaw2026_9) -> None:  # noqa: F811
    rng = random.Random(2026_9_6)
    cases = [_case(rng) for _ in range(300)]
    theirs = _compare(openclaw_2026_9, cases)
    assert sum(r["pruned"] for r in theirs) > 50  # the cases reach soft trim and hard clear
    texts = [b.get("text", "") for r in theirs for m in r["messages"] for b in m.get("content") or [] if isinstance(b, dict)]
    assert any("[Tool result trimmed" in t for t in texts if isinstance(t, str))
    assert any(t in ("[gone]", "x", "[Old tool result content cleared]") for t in texts)


@pytest.mark.parametrize("second", ["closed", "open", "changed", "server"])
def test_sticky_projections_replay_like_openclaw(openclaw_2026_9: OpenClaw2026_9, second: str) -> None:  # noqa: F811
    rng = random.Random(f"sticky-{second}")
    first = [_case(rng) | {"lastCacheTouchAt": 1_700_000_000_000, "now": 1_800_000_000_000, "contextWindowTokens": 8000} for _ in range(80)]
    rounds = openclaw_2026_9.run_script(SCRIPT, first)
    follow = []
    for case, real in zip(first, rounds, strict=True):
        if real.get("settings") is None:
            continue
        marker = {"type": "custom", "customType": "openclaw.cache-ttl", "id": "m1",
                  "data": {"timestamp": 1_800_000_000_000, "provider": "anthropic", "modelId": "m", **real["snapshot"]}}
        messages = [dict(m) for m in case["messages"]] + [_tool_result(rng, 500, []), _assistant(rng, 501)]
        if second == "changed":
            for m in messages:
                if m["role"] == "toolResult" and rng.random() < 0.3:
                    m["content"] = [{"type": "text", "text": _text(rng, 5000)}]
        follow.append(case | {
            "messages": messages,
            "branch": [{"type": "message", "id": "a"}, marker],
            "lastCacheTouchAt": 1_800_000_000_000,
            "now": 1_800_000_000_000 + (10 if second in ("closed", "server") else 10**9),
            "pruneNewRounds": second != "server",
        })
    theirs = _compare(openclaw_2026_9, follow)
    assert any(r["snapshot"]["prunedToolResults"] for r in rounds)
    if second in ("closed", "server"):
        assert not any(r["pruned"] for r in theirs)
    assert any(r["messages"] != c["messages"] for c, r in zip(follow, theirs, strict=True))  # something replayed


def test_soft_trim_cut_is_surrogate_safe_like_openclaw(openclaw_2026_9: OpenClaw2026_9) -> None:  # noqa: F811
    """CJK, emoji and astral ideographs at every offset around both cuts (the hard clear off, the window tiny, so
    the outcome does not hang on the size estimate)."""
    cases = []
    for pad in range(1494, 1504):
        for piece in ("😀", "𠀋", "漢", "é"):
            text = "a" * pad + piece * 3 + "b" * 2000 + piece * 3 + "c" * (1500 - (pad - 1494))
            messages = [
                {"role": "user", "content": "go", "timestamp": 1},
                {"role": "toolResult", "toolCallId": f"c{pad}", "toolName": "read", "content": [{"type": "text", "text": text}], "timestamp": 2},
                *[{"role": "assistant", "content": [{"type": "text", "text": "ok"}], "timestamp": 3 + k} for k in range(3)],
            ]
            cases.append({"config": {"mode": "cache-ttl", "hardClear": {"enabled": False}}, "messages": messages,
                          "contextWindowTokens": 1000, "lastCacheTouchAt": 1, "now": 10**9,
                          "dropThinkingBlocksForEstimate": False, "toolNames": []})
    theirs = _compare(openclaw_2026_9, cases)
    trimmed = [r["messages"][1]["content"][0]["text"] for r in theirs]
    assert all("[Tool result trimmed" in t for t in trimmed)
    assert all(not (0xD800 <= ord(ch) <= 0xDFFF) for t in trimmed for ch in t)  # no lone surrogate left
