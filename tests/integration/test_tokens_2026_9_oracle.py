"""The 2026.9.6 estimators against the real OpenClaw 2026.9.6 functions (tests/oracle/oc_2026_9_tokens.mjs).

Generated messages, strings, usages and contexts (tests/oracle/token_cases_2026_9.py), then every message of the
pi corpus (/work/shared/corpus/pi/) and of the demo session: each of our four estimators, `estimate_string_chars`
(raw weight 1 and 2), `calculate_context_tokens` and `estimate_context_tokens` must give OpenClaw's number.
Skips when the oracle (or the corpus) is not installed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from oracle.openclaw_2026_9 import HERE as ORACLE_DIR
from oracle.openclaw_2026_9 import OpenClaw2026_9, openclaw_2026_9_or_skip
from oracle.token_cases_2026_9 import random_context, random_message, random_string, random_usage

from inspector.rules.ruleset import rule_set

SCRIPT = ORACLE_DIR / "oc_2026_9_tokens.mjs"
CORPUS = Path("/work/shared/corpus/pi")
DEMO = Path(__file__).resolve().parents[2] / "inspector" / "data" / "demo-session.jsonl"
tokens = rule_set("openclaw-2026.9.6").tokens


@pytest.fixture(scope="module")
def oracle() -> OpenClaw2026_9:
    """The OpenClaw 2026.9.6 oracle, or a skip naming what is missing."""
    return openclaw_2026_9_or_skip()


def _ours(msg: Any) -> dict[str, int]:
    return {
        "pi": tokens.pi_estimate_tokens(msg),
        "compaction": tokens.openclaw_compaction_tokens(msg),
        "guard": tokens.tool_guard_chars(msg),
        "prune": tokens.openclaw_prune_chars(msg),
        "prune_dropped": tokens.openclaw_prune_chars(msg, drop_thinking_blocks=True),
    }


def _context_json(got: dict[str, Any]) -> dict[str, Any]:
    return {"tokens": got["tokens"], "usageTokens": got["usage_tokens"], "trailingTokens": got["trailing_tokens"],
            "lastUsageIndex": got["last_usage_index"]}


def _check_messages(messages: list[Any], theirs: list[dict[str, Any]]) -> int:
    """Compare each message; returns how many were compared. Any difference fails with the first few shown."""
    diffs = []
    for msg, their in zip(messages, theirs, strict=True):
        errors = {k: v for k, v in their.items() if isinstance(v, dict)}
        assert not errors, (msg, errors)
        ours = _ours(msg)
        if ours != their:
            diffs.append((msg, ours, their))
    assert not diffs, f"{len(diffs)} of {len(messages)} differ, e.g. {diffs[:3]}"
    return len(messages)


def test_generated_messages_match_openclaw(oracle: OpenClaw2026_9) -> None:
    rng = random.Random(2026_9_6)
    messages = [random_message(rng) for _ in range(3000)]
    out = oracle.run_script(SCRIPT, {"messages": messages})
    assert _check_messages(messages, out["messages"]) == 3000
    roles = {m["role"] for m in messages}
    assert {"user", "assistant", "toolResult", "custom", "bashExecution", "compactionSummary"} <= roles


def test_generated_strings_match_estimate_string_chars(oracle: OpenClaw2026_9) -> None:
    rng = random.Random(7)
    strings = [random_string(rng, 20) for _ in range(4000)] + ["", "a", "\ud800", "\udc00\ud800", "\U0002fa1f"]
    out = oracle.run_script(SCRIPT, {"strings": strings})
    ours = [[tokens.estimate_string_chars(s), tokens.estimate_string_chars_raw_weight(s, 2)] for s in strings]
    diffs = [(s, o, t) for s, o, t in zip(strings, ours, out["strings"], strict=True) if o != t]
    assert not diffs, f"{len(diffs)} differ, e.g. {diffs[:5]}"
    assert sum(1 for s in strings if tokens.estimate_string_chars(s) > len(s)) > 1000  # weighted ones were tested


def test_generated_usages_and_contexts_match(oracle: OpenClaw2026_9) -> None:
    rng = random.Random(5)
    usages = [random_usage(rng) for _ in range(500)]
    contexts = [random_context(rng, rng.randint(0, 12)) for _ in range(600)]
    out = oracle.run_script(SCRIPT, {"usages": usages, "contexts": contexts})
    for usage, their in zip(usages, out["usages"], strict=True):
        if isinstance(their, int):  # JavaScript's undefined (contextUsage without totalTokens) is our 0
            assert tokens.calculate_context_tokens(usage) == their, usage
    ours = [_context_json(tokens.estimate_context_tokens(c)) for c in contexts]
    diffs = [(c, o, t) for c, o, t in zip(contexts, ours, out["contexts"], strict=True) if o != t]
    assert not diffs, f"{len(diffs)} differ, e.g. {diffs[:2]}"
    with_usage = sum(1 for t in out["contexts"] if t["lastUsageIndex"] is not None)
    assert 50 < with_usage < len(contexts) - 50  # both outcomes, barriers included, were exercised


def _session_messages(path: Path) -> list[dict[str, Any]]:
    messages = []
    for line in path.read_text(encoding="utf-8", errors="surrogatepass").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "message" and isinstance(entry.get("message"), dict):
            messages.append(entry["message"])
    return messages


@pytest.mark.parametrize("path", [*sorted(CORPUS.glob("*.jsonl")), DEMO], ids=lambda p: p.name)
def test_session_messages_match_openclaw(oracle: OpenClaw2026_9, path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path} is absent")
    messages = _session_messages(path)
    assert messages
    out = oracle.run_script(SCRIPT, {"messages": messages, "contexts": [messages]})
    _check_messages(messages, out["messages"])
    assert _context_json(tokens.estimate_context_tokens(messages)) == out["contexts"][0]
