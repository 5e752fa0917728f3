"""The `reasoning` a compaction asks a reasoning model for follows the rule set: pi 0.66.1 (openclaw-2026.4.12) sends
a fixed "high"; pi 0.73.1 (pi-0.73.1) sends the session's thinking level, none when it is "off". Checked on the
request bodies a real HTTP server receives from a whole compaction run, and against the bodies pi's own
`generateSummary` / `compact` send (pi 0.66.1's oracle, and pi 0.73.1 from `PI_073_DIR`, default /tmp/pi073)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from llm_servers import OpenAIServer

from inspector.figures.forecast.plan import PlanOptions
from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.write.runner import RunOptions, run_compaction
from inspector.write.summarizers import make_summarizer
from inspector.write.summarizers.base import SummaryRequest
from inspector.write.summarizers.keys import resolve_provider
from inspector.write.summarizers.openai_chat import OpenAIChatSummarizer

LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"]


def _config(base_url: str, reasoning: bool) -> dict:
    return {"models": {"providers": {"openai": {"baseUrl": base_url, "apiKey": "sk-test-123456", "models": [{"id": "m1", "reasoning": reasoning}]}}}}


@pytest.mark.parametrize("rules_id", ["openclaw-2026.4.12", "pi-0.73.1"])
@pytest.mark.parametrize("level", [*LEVELS, "weird"])
def test_the_rule(rules_id: str, level: str) -> None:
    reasoning = rule_set(rules_id).prompts.summary_reasoning
    assert reasoning(False, level) is None
    if rules_id == "openclaw-2026.4.12":
        assert reasoning(True, level) == "high"
    else:
        assert reasoning(True, level) == (None if level == "off" else level)
    assert rule_set("pi-0.73.1").prompts.summary_reasoning(True, None) is None


def _session(tmp_path: Path, level: str | None) -> Path:
    b = SessionBuilder(seed=5)
    b.header()
    if level is not None:
        b.thinking_level_change(level)
    for i in range(6):
        b.user(f"question {i} " + "words " * 300)
        b.assistant(f"answer {i} " + "more " * 300)
    return b.write(tmp_path / f"s-{level}.jsonl")


@pytest.mark.parametrize(("rules_id", "level", "model_reasoning", "effort"), [
    ("openclaw-2026.4.12", "low", True, "high"),
    ("openclaw-2026.4.12", None, True, "high"),
    ("openclaw-2026.4.12", "low", False, None),
    ("pi-0.73.1", "low", True, "low"),
    ("pi-0.73.1", "xhigh", True, "high"),  # pi-ai clamps xhigh for a model without an xhigh mapping
    ("pi-0.73.1", None, True, None),  # no thinking_level_change: "off"
    ("pi-0.73.1", "medium", False, None),
])
def test_every_call_of_a_run_sends_the_rule_set_s_reasoning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules_id: str,
                                                            level: str | None, model_reasoning: bool, effort: str | None) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "state"))
    path = _session(tmp_path, level)
    with OpenAIServer(reply="## Decisions\nok") as srv:
        summarizer = make_summarizer("openai", provider="openai", config=_config(srv.base_url, model_reasoning), env={})
        res = run_compaction(path, RunOptions(summarizer=summarizer, rules_id=rules_id, plan=PlanOptions(keep_recent_tokens=200)))
        bodies = [r["body"] for r in srv.requests]
    assert res.status == "committed", res.reason
    assert bodies
    for body in bodies:
        assert body.get("reasoning_effort") == effort
        assert body["messages"][0]["role"] == ("developer" if model_reasoning else "system")


# ---------------------------------------------------------------------------------------------- against pi itself

PI_JS = r"""
const [dir, url, levelsJson, messagesJson] = process.argv.slice(1);
const pi = await import(dir + "/node_modules/@mariozechner/pi-coding-agent/dist/index.js");
const messages = JSON.parse(messagesJson);
const model = { id: "m1", name: "m1", api: "openai-completions", provider: "openai", baseUrl: url, input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 128000, maxTokens: 8192, reasoning: true };
for (const level of JSON.parse(levelsJson)) {
  await pi.generateSummary(messages, model, 20000, "sk-test-123456", undefined, undefined, undefined, undefined, level ?? undefined);
  const prep = { firstKeptEntryId: "x", messagesToSummarize: messages.slice(0, 1), turnPrefixMessages: messages.slice(1), isSplitTurn: true,
    tokensBefore: 1, previousSummary: undefined, fileOps: { read: new Set(), written: new Set(), edited: new Set() },
    settings: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 } };
  await pi.compact(prep, model, "sk-test-123456", undefined, undefined, undefined, level ?? undefined);
}
"""
MESSAGES = [
    {"role": "user", "content": [{"type": "text", "text": "Fix the login bug"}], "timestamp": 1},
    {"role": "assistant", "content": [{"type": "text", "text": "Looking."}], "stopReason": "stop", "timestamp": 2},
]


def _pi_dir(version: str) -> Path:
    default = Path("/tmp/pi073") if version == "0.73.1" else Path.home() / ".cache" / "session-inspector" / "pi-oracle"
    base = Path(os.environ.get("PI_073_DIR" if version == "0.73.1" else "PI_ORACLE_DIR", default))
    pkg = base / "node_modules" / "@mariozechner" / "pi-coding-agent" / "package.json"
    if shutil.which("node") is None or not pkg.exists() or json.loads(pkg.read_text())["version"] != version:
        pytest.skip(f"pi {version} unavailable at {base} (or no node)")
    return base


@pytest.mark.parametrize(("version", "rules_id"), [("0.66.1", "openclaw-2026.4.12"), ("0.73.1", "pi-0.73.1")])
def test_the_bodies_are_pi_s(version: str, rules_id: str) -> None:
    base = _pi_dir(version)
    levels: list[str | None] = [*LEVELS, None]
    with OpenAIServer(reply="pi summary") as srv:
        run = subprocess.run([shutil.which("node") or "node", "--input-type=module", "-e", PI_JS, str(base), srv.base_url, json.dumps(levels),
                              json.dumps(MESSAGES)], capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, run.stderr
        bodies = [r["body"] for r in srv.requests]
    assert len(bodies) == 3 * len(levels)  # per level: generateSummary, then compact's history and turn-prefix calls
    rules = rule_set(rules_id)
    cfg = replace(resolve_provider("openai", base_url="http://127.0.0.1:1/v1", api_key="sk-test-123456", model="m1", env={}), reasoning=True)
    ours = OpenAIChatSummarizer(cfg)
    P = rules.prompts
    for k, level in enumerate(levels):
        history = SummaryRequest("history", tuple(MESSAGES), P.history_prompt(MESSAGES, 20000), rules=rules, thinking_level=level)
        assert bodies[3 * k] == ours.build_body(history), (version, level)
        in_compact = bodies[3 * k + 1: 3 * k + 3]
        prefix = next(b for b in in_compact if "PREFIX of a turn" in json.dumps(b))
        hist = next(b for b in in_compact if b is not prefix)
        assert hist == ours.build_body(SummaryRequest("history", tuple(MESSAGES[:1]), P.history_prompt(MESSAGES[:1], 16384), rules=rules,
                                                      thinking_level=level)), (version, level)
        prefix_ours = ours.build_body(SummaryRequest("turn_prefix", tuple(MESSAGES[1:]), P.turn_prefix_prompt(MESSAGES[1:], 16384), rules=rules,
                                                     thinking_level=level))
        if version == "0.66.1":  # pi 0.66.1's own turn-prefix call passes no reasoning (the safeguard never makes it)
            prefix_ours.pop("reasoning_effort")
        assert prefix == prefix_ours, (version, level)
