"""The pruning engine against OpenClaw's own code, run live (`tests/test_pruning_oracle_harness.mjs`).

The oracle loads the pruning regions of the pinned OpenClaw build (2026.4.12, commit 8f8492d1) from its npm
`dist/`: `pruneContextMessages`, `estimateMessageChars`, `dropThinkingBlocks`, the extension's TTL gate,
`computeEffectiveSettings`, `parseDurationMs`, `makeToolPrunablePredicate`, `readLastCacheTtlTimestamp`, the
transcript-policy builders and the tool-result context guard. Every case below is generated from a seed, run
through both, and compared field by field.

Set `OPENCLAW_DIST_DIR` to that `dist/` directory (`npm pack openclaw@2026.4.12`, unpacked: `package/dist`;
default `~/.cache/session-inspector/openclaw-dist`); the tests skip with the reason when it or `node` is
missing. Only read: nothing there is written.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import ROOT

from inspector.rules.openclaw_2026_4_12.pruning.pruner import STAGE_ESTIMATE_THREW, prune_context_messages
from inspector.rules.openclaw_2026_4_12.pruning.settings import DurationError, compute_effective_settings, parse_duration_ms
from inspector.rules.openclaw_2026_4_12.pruning.thinking import (
    drop_thinking_blocks,
    resolve_drop_thinking_blocks,
    should_preserve_thinking_blocks,
)
from inspector.rules.openclaw_2026_4_12.pruning.tool_guard import evaluate_tool_result_context_guard
from inspector.rules.openclaw_2026_4_12.pruning.tools import make_tool_prunable_predicate
from inspector.rules.openclaw_2026_4_12.pruning.ttl import evaluate_ttl_gate, is_cache_ttl_eligible, read_last_cache_touch

HARNESS = ROOT / "tests" / "oracle" / "openclaw_pruning.mjs"
DIST = Path(os.environ.get("OPENCLAW_DIST_DIR", Path.home() / ".cache" / "session-inspector" / "openclaw-dist"))


def _skip_reason() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (DIST.is_dir() and any(DIST.glob("model-context-tokens-*.js"))):
        return f"OpenClaw 2026.4.12 dist not found at {DIST} (set OPENCLAW_DIST_DIR)"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=_skip_reason() or "")


def oracle(cases: list[dict[str, Any]]) -> list[Any]:
    """Run `cases` through OpenClaw's code; one result per case."""
    proc = subprocess.run(
        ["node", str(HARNESS), str(DIST)],
        input=json.dumps({"cases": cases}).encode(),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)["results"]


def plain(value: Any) -> Any:
    """A value as it looks after a JSON round trip (what the oracle's answers are compared in)."""
    return json.loads(json.dumps(value))


# ------------------------------------------------------------------------------------------- generators

WORDS = ["alpha", "beta", "日本語のテキスト", "한국어", "emoji 😀🎉", "𠀀𠀁 ext-B", "\u2f9f\u2fa0", "tab\tnew\nline", "{json}", "x" * 40]
TOOLS = ["read", "exec", "Read", "web_search", "browser.snapshot", "mcp__fs__read", " grep ", "bash", "漢字ツール"]
GLOBS = ["read", "re*", "*search*", "web_*", "*", "", "MCP__*", "browser.*", "a+b", "g?rep", "漢*", " bash "]


def text(rng: random.Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    out: list[str] = []
    size = 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def image() -> dict[str, Any]:
    return {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}


def user(rng: random.Random) -> dict[str, Any]:
    if rng.random() < 0.5:
        return {"role": "user", "content": text(rng, 5, 300), "timestamp": 1}
    blocks: list[Any] = [{"type": "text", "text": text(rng, 5, 200)}]
    if rng.random() < 0.3:
        blocks.append(image())
    return {"role": "user", "content": blocks, "timestamp": 1}


def assistant(rng: random.Random) -> dict[str, Any]:
    blocks: list[Any] = []
    if rng.random() < 0.6:
        blocks.append({"type": "thinking", "thinking": text(rng, 0, 400), "thinkingSignature": "sig" * rng.randint(0, 20)})
    if rng.random() < 0.15:
        blocks.append({"type": "redacted_thinking", "data": "opaque" * rng.randint(1, 10)})
    if rng.random() < 0.6:
        blocks.append({"type": "text", "text": text(rng, 0, 300)})
    if rng.random() < 0.6:
        blocks.append({"type": "toolCall", "id": "c1", "name": rng.choice(TOOLS),
                       "arguments": {"path": text(rng, 1, 30), "n": rng.randint(-5, 10**6), "f": 1.5, "ok": True, "nil": None}})
    return {"role": "assistant", "content": blocks, "api": "anthropic-messages", "provider": "anthropic",
            "model": "claude-3-7-sonnet", "stopReason": "stop", "timestamp": 2}


def tool_result(rng: random.Random) -> dict[str, Any]:
    parts: list[Any] = []
    for _ in range(rng.randint(0, 3)):
        parts.append({"type": "text", "text": text(rng, 0, rng.choice([50, 800, 6000]))})
    if rng.random() < 0.25:
        parts.insert(rng.randint(0, len(parts)), image())
    msg: dict[str, Any] = {"role": "toolResult", "toolCallId": "c1", "toolName": rng.choice(TOOLS), "content": parts,
                           "isError": False, "timestamp": 3}
    if rng.random() < 0.3:
        msg["details"] = {"diff": text(rng, 0, 200)}
    if rng.random() < 0.05:
        msg["content"] = text(rng, 0, 100)  # string content: iterated as characters by OpenClaw
    return msg


def damaged(rng: random.Random) -> dict[str, Any]:
    return rng.choice([
        {"role": "toolResult", "toolName": "read", "content": [None]},
        {"role": "toolResult", "toolName": "read", "content": [{"type": "text", "text": 5}]},
        {"role": "user", "content": None},
        {"role": "assistant", "content": None},
        {"role": "toolResult", "toolName": "read", "content": [{"type": "text", "text": []}]},
    ])


def other(rng: random.Random) -> dict[str, Any]:
    return rng.choice([
        {"role": "compactionSummary", "summary": text(rng, 10, 2000), "tokensBefore": 5, "timestamp": 0},
        {"role": "bashExecution", "command": "ls", "output": text(rng, 0, 500), "exitCode": 0, "timestamp": 0},
        {"role": "custom", "customType": "x", "content": "hi", "display": True, "timestamp": 0},
    ])


def conversation(rng: random.Random, *, damage: bool) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    if rng.random() < 0.4:
        msgs.append(tool_result(rng))  # a bootstrap read before the first user message
    for _ in range(rng.randint(1, 6)):
        if rng.random() < 0.85:
            msgs.append(user(rng))
        for _ in range(rng.randint(0, 4)):
            msgs.append(assistant(rng))
            for _ in range(rng.randint(0, 2)):
                msgs.append(tool_result(rng))
            if rng.random() < 0.1:
                msgs.append(other(rng))
        msgs.append(assistant(rng))
    if damage:
        msgs.insert(rng.randint(0, len(msgs)), damaged(rng))
    return msgs


def raw_settings(rng: random.Random) -> dict[str, Any]:
    raw: dict[str, Any] = {"mode": "cache-ttl"}
    if rng.random() < 0.5:
        raw["keepLastAssistants"] = rng.choice([0, 1, 2, 3, 5, 2.7, -1])
    raw["softTrimRatio"] = rng.choice([0, 0.05, 0.3, 1.5])
    raw["hardClearRatio"] = rng.choice([0, 0.1, 0.5, -3])
    raw["minPrunableToolChars"] = rng.choice([0, 100, 5000, 50_000])
    raw["softTrim"] = {"maxChars": rng.choice([0, 100, 1000, 4000]), "headChars": rng.choice([0, 7, 300, 1500]),
                       "tailChars": rng.choice([0, 5, 300, 1500])}
    if rng.random() < 0.4:
        raw["tools"] = {"allow": rng.sample(GLOBS, rng.randint(0, 2)), "deny": rng.sample(GLOBS, rng.randint(0, 2))}
    if rng.random() < 0.3:
        raw["hardClear"] = {"enabled": rng.random() < 0.7, "placeholder": rng.choice(["  [gone]  ", "", "x"])}
    return raw


def entries(rng: random.Random, now: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(rng.randint(0, 4)):
        ts = rng.choice([now - 10**7, now - 299_999, now - 300_000, now - 5, 0, "x", None, now + 10**6, -1])
        out.append({"type": "custom", "customType": rng.choice(["openclaw.cache-ttl", "model-snapshot"]), "id": f"t{i}",
                    "data": {"timestamp": ts, "provider": rng.choice(["anthropic", " Anthropic ", "openai"]),
                             "modelId": rng.choice(["claude-3-7-sonnet", "CLAUDE-3-7-SONNET", "gpt-5"])}})
    return out


def as_entries(raw: list[dict[str, Any]]) -> list[SimpleNamespace]:
    return [SimpleNamespace(type=e["type"], id=e["id"], line=i + 2, data=e) for i, e in enumerate(raw)]


# ------------------------------------------------------------------------------------------------ tests


def test_pruner_gate_and_estimates_agree_with_openclaw():
    """300 generated contexts: per-message estimates, the total, the forced pruner output and the gated output."""
    rng = random.Random(20260413)
    now = 1_767_225_600_000
    cases = []
    for n in range(300):
        raw = raw_settings(rng)
        cases.append({
            "op": "prune", "raw": raw, "messages": conversation(rng, damage=n % 10 == 9),
            "contextWindow": rng.choice([300, 1000, 3000, 20_000]), "dropThinking": rng.random() < 0.5,
            "entries": entries(rng, now), "provider": "anthropic", "modelId": "claude-3-7-sonnet", "now": now,
        })
    results = oracle(cases)
    stages: set[str] = set()
    for n, (case, want) in enumerate(zip(cases, results)):
        settings = compute_effective_settings(case["raw"])
        assert settings is not None and plain(settings.to_json()) == want["settings"], n
        ours = prune_context_messages(case["messages"], settings, context_window_tokens=case["contextWindow"],
                                      drop_thinking_blocks_for_estimate=case["dropThinking"])
        stages.add(ours.stage)
        for i, per in enumerate(want["perMessage"]):
            if per["ok"]:
                assert ours.chars_before[i] == per["value"], (n, i)
        if want["total"]["ok"]:
            assert ours.total_chars_before == want["total"]["value"], n
        forced = want["forced"]
        if not forced["ok"]:
            assert ours.stage == STAGE_ESTIMATE_THREW and not ours.changed, (n, forced)
        else:
            assert ours.stage != STAGE_ESTIMATE_THREW, n
            assert ours.changed == forced["changed"], n
            assert plain(ours.messages) == forced["messages"], n
        touch = read_last_cache_touch(as_entries(case["entries"]), case["provider"], case["modelId"])
        assert (touch.timestamp_ms if touch else None) == want["lastCacheTouchAt"], n
        gate = evaluate_ttl_gate(now_ms=now, ttl_ms=settings.ttl_ms, touch=touch)
        assert gate.open == want["gateCalledPruner"], n
        if want["viaGate"]["ok"]:
            expected = plain(ours.messages) if gate.open and ours.changed else None
            assert want["viaGate"]["messages"] == expected, n
    assert {"hard_cleared", "below_soft_trim_ratio", "too_few_assistants", STAGE_ESTIMATE_THREW} <= stages


def test_thinking_drop_settings_durations_tools_and_touches_agree():
    rng = random.Random(7)
    convs = [conversation(rng, damage=False) for _ in range(40)]
    raws: list[Any] = [
        {"mode": "cache-ttl", "ttl": t} for t in ("5m", "1h30m", "0.0000001ms", "99999999999999999999h", "2 h", "", "7")
    ] + [
        {"mode": "off"}, {"mode": "cache-ttl", "tools": 0, "softTrim": "x", "hardClear": {"placeholder": " \u3000 "}},
        {"mode": "cache-ttl", "keepLastAssistants": 1e300, "minPrunableToolChars": 2**60, "softTrimRatio": -0.0},
        {"mode": "cache-ttl", "softTrim": {"maxChars": "9", "headChars": True, "tailChars": 1.9}},
    ]
    durations = ["5m", "1h30m", "1.5h", "90s", "1d2h3m4s5ms", "10", "0", "0.5ms", "1h 30m", "h", "-5m", "1e3s",
                 " 2H ", "3mh", "1.m", "1ms1ms", "9" * 400, "1.0000000000000002s", "０"]
    tool_sets = [{"allow": rng.sample(GLOBS, 2), "deny": rng.sample(GLOBS, 1)} for _ in range(20)]
    names = TOOLS + ["", "WEB_SEARCH", "web_\nsearch", "a+b", "gxrep", None]
    touch_lists = [entries(rng, 1_767_225_600_000) for _ in range(30)]
    contexts = [{"provider": "anthropic", "modelId": "claude-3-7-sonnet"}, {"provider": "ANTHROPIC"}, {}, None]
    cases: list[dict[str, Any]] = [{"op": "drop", "messages": c} for c in convs]
    cases += [{"op": "settings", "raw": r} for r in raws]
    cases += [{"op": "duration", "text": d} for d in durations]
    cases += [{"op": "tools", "tools": t, "names": names} for t in tool_sets]
    cases += [{"op": "touch", "entries": e, "context": ctx} for e in touch_lists for ctx in contexts]
    results = iter(oracle(cases))
    for c in convs:
        assert plain(drop_thinking_blocks(c)) == next(results)
    for r in raws:
        want = next(results)
        got = compute_effective_settings(r)
        assert (plain(got.to_json()) if got else None) == want, r
    for d in durations:
        want = next(results)
        try:
            got: Any = {"ok": True, "value": parse_duration_ms(d, default_unit="m")}
        except DurationError:
            got = {"ok": False}
        assert got["ok"] == want["ok"] and (not got["ok"] or got["value"] == want["value"]), d
    for t in tool_sets:
        pred = make_tool_prunable_predicate(t)
        assert [pred(n) for n in names] == next(results), t
    for e in touch_lists:
        for ctx in contexts:
            ctx = ctx or {}
            touch = read_last_cache_touch(as_entries(e), ctx.get("provider"), ctx.get("modelId"))
            assert (touch.timestamp_ms if touch else None) == next(results), (e, ctx)


PROVIDERS = ["my-proxy", "Custom", "anthropic", "amazon-bedrock", "anthropic-vertex", "google", "kilocode"]
MODELS = ["claude-3-7-sonnet", "claude-sonnet-4-5", "Claude-Opus-4-1", "claude-5", "claude-10-x", "claude-3-opus",
          "us.anthropic.claude-3-5-sonnet", "gemini-2.5-pro", "gemini-3-flash", "gpt-5", "anthropic/claude-3",
          "arn:aws:bedrock:us-east-1:1:application-inference-profile/claude-x", ""]
APIS = ["anthropic-messages", "bedrock-converse-stream", "google-generative-ai", "google-gemini-cli", "openai-completions", None]


def test_eligibility_and_transcript_policy_agree_for_providers_without_a_plugin_hook():
    """Providers with no `isCacheTtlEligible` hook go through OpenClaw's generic rule; the replay-policy families
    decide `dropThinkingBlocks` (the plugin ownership table is checked in test_pruning_thinking)."""
    combos = [(p, m, a) for p in PROVIDERS for m in MODELS for a in APIS]
    cases = [{"op": "eligible", "provider": p, "modelId": m, "api": a} for p, m, a in combos]
    cases += [{"op": "policy", "provider": p, "modelId": m, "api": a} for p, m, a in combos]
    results = oracle(cases)
    n = len(combos)
    for (p, m, a), eligible, policy in zip(combos, results[:n], results[n:]):
        if p != "kilocode":  # the Kilocode plugin answers first in OpenClaw; the stub oracle has no plugins
            assert is_cache_ttl_eligible(p, m, a).eligible == eligible, (p, m, a)
        assert should_preserve_thinking_blocks(m) == policy["preserve"], m
        if p in ("my-proxy", "Custom"):
            assert resolve_drop_thinking_blocks(p, m, a).drop == policy["fallback"], (p, m, a)
        if p in ("anthropic", "amazon-bedrock", "anthropic-vertex"):
            assert resolve_drop_thinking_blocks(p, m, a).drop == policy["anthropicByModel"], (p, m, a)
        assert resolve_drop_thinking_blocks("minimax", m, a).drop == policy["hybrid"], (m, a)


def test_tool_result_context_guard_agrees():
    rng = random.Random(11)
    cases = []
    for _ in range(60):
        msgs = conversation(rng, damage=False)
        for msg in msgs:
            if msg["role"] == "toolResult" and rng.random() < 0.3:
                msg["content"] = [{"type": "text", "text": "line\n" * rng.randint(100, 4000)}]
        cases.append({"op": "guard", "messages": msgs, "contextWindow": rng.choice([1, 500, 2000, 8000, 50_000])})
    for case, want in zip(cases, oracle(cases)):
        report = evaluate_tool_result_context_guard(case["messages"], case["contextWindow"])
        assert report.overflow == (not want["ok"]), case["contextWindow"]
        if want["ok"]:
            assert plain(report.messages_after) == want["messages"]


def test_build_preview_on_session_files_agrees(tmp_path):
    """Whole previews of generated session files (read back by the reader): OpenClaw's extension, given the same
    context messages, every entry of the file, the settings, window, model and time, prunes exactly as the
    preview's `gate`/`applied`/`messages_after` say."""
    from inspector.figures.pruning.preview import PreviewOptions, build_preview
    from inspector.samples.fixtures import SessionBuilder
    from inspector.session.session import open_session

    rng = random.Random(4242)
    cases, previews = [], []
    for n in range(40):
        b = SessionBuilder(seed=n, start="2026-03-01T10:00:00.000Z", model=rng.choice(["claude-3-7-sonnet", "claude-sonnet-4-5"]))
        b.header()
        for _ in range(rng.randint(1, 4)):
            b.user(text(rng, 5, 200))
            for _ in range(rng.randint(1, 3)):
                blocks: list[Any] = []
                if rng.random() < 0.6:
                    blocks.append(b.thinking(text(rng, 0, 300)))
                blocks.append(b.tool_call(rng.choice(TOOLS), {"q": text(rng, 1, 20)}))
                b.assistant(blocks)
                content: list[Any] = [text(rng, 10, rng.choice([500, 5000]))]
                if rng.random() < 0.2:
                    content.append(b.image())
                b.tool_result(b.last_tool_call_ids[0], blocks[-1]["name"], content)
            b.assistant(text(rng, 1, 100))
            if rng.random() < 0.5:
                b.cache_ttl(provider=rng.choice(["anthropic", "openai"]))
        if rng.random() < 0.2:
            b.delivery_mirror("sent")
        path = b.write(tmp_path / f"s{n}.jsonl")
        raw = {"mode": "cache-ttl", "keepLastAssistants": rng.choice([1, 2, 3]), "minPrunableToolChars": rng.choice([0, 5000]),
               "softTrim": {"maxChars": rng.choice([300, 4000])}, "ttl": rng.choice(["5m", "1h"])}
        now = b.now_ms + rng.choice([1_000, 300_000, 3_700_000])
        session = open_session(path)
        p = build_preview(session, PreviewOptions(config={"agents": {"defaults": {"contextPruning": raw}}}, now_ms=now,
                                                  encoding=None, context_window=rng.choice([1_500, 6_000, None])))
        previews.append(p)
        cases.append({"op": "prune", "raw": raw, "messages": p.messages, "contextWindow": p.window.tokens,
                      "dropThinking": p.drop_thinking.drop, "entries": [session.load_entry_object(e) for e in session.entries],
                      "provider": p.references.provider, "modelId": p.references.model_id, "now": now})
    opened = pruned = 0
    for n, (p, want) in enumerate(zip(previews, oracle(cases))):
        data = p.to_json()
        assert p.gate.open == want["gateCalledPruner"], n
        assert data["gate"]["last_cache_touch_at_ms"] == want["lastCacheTouchAt"], n
        assert data["totals"]["chars_before"] == want["total"]["value"], n
        assert plain(p.result.messages) == want["forced"]["messages"], n
        sent = want["viaGate"]["messages"]
        assert (plain(p.messages_after) if p.applied and p.result.changed else None) == sent, n
        opened += p.gate.open
        pruned += sent is not None
    assert 0 < opened < len(previews) and pruned > 0
