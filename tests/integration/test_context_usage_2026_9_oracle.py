"""2026.9.6's `estimateContextTokens` read from the index (`last_context_usage`, `stats --json`) against the real
OpenClaw 2026.9.6 function (tests/oracle/oc_2026_9_tokens.mjs), on generated sessions whose assistants carry
`contextUsage` (available, unavailable, other), zero usages, `api: "cli"` barriers, aborted and erroring turns.

The index keeps `contextUsage` (its state in the flags, its figure in the packed usage) and `api: "cli"` (a flag):
no message is re-read. Skips when the oracle is not installed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import header, msg, write_lines
from inprocess import run_cli
from oracle.openclaw_2026_9 import HERE as ORACLE_DIR
from oracle.openclaw_2026_9 import OpenClaw2026_9, openclaw_2026_9_or_skip
from oracle.token_cases_2026_9 import random_context

from inspector.rules.context_basis import basis_of
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

SCRIPT = ORACLE_DIR / "oc_2026_9_tokens.mjs"
RULES = "openclaw-2026.9.6"
context_usage = rule_set(RULES).context_usage


@pytest.fixture(scope="module")
def oracle() -> OpenClaw2026_9:
    """The OpenClaw 2026.9.6 oracle, or a skip naming what is missing."""
    return openclaw_2026_9_or_skip()


def _theirs(got: dict[str, Any]) -> dict[str, Any]:
    return {"tokens": got["tokens"], "usage_tokens": got["usageTokens"], "trailing_tokens": got["trailingTokens"],
            "last_usage_index": got["lastUsageIndex"]}


def _session(folder: Path, rng: random.Random, k: int) -> Path:
    """A linear session of a generated context whose last assistants are the interesting ones."""
    messages = random_context(rng, rng.randint(1, 14))
    lines: list[Any] = [header(sid=f"s-{k}")]
    parent = None
    for i, message in enumerate(messages):
        lines.append(msg(f"e{i}", parent, message))
        parent = f"e{i}"
    return write_lines(folder / f"s{k}.jsonl", lines)


def _sessions(tmp_path: Path, count: int, seed: int) -> list[Path]:
    rng = random.Random(seed)
    return [_session(tmp_path, rng, k) for k in range(count)]


def test_context_now_from_the_index_matches_openclaw(oracle: OpenClaw2026_9, tmp_path: Path) -> None:
    paths = _sessions(tmp_path, 400, 2026_9)
    contexts, ours = [], []
    for path in paths:
        session = open_session(path, RULES)
        ctx = session.context()
        contexts.append(session.context_messages(ctx))
        ours.append(context_usage.last_context_usage(session, ctx))
    out = oracle.run_script(SCRIPT, {"contexts": contexts})
    theirs = [_theirs(t) for t in out["contexts"]]
    diffs = [(p.name, o, t) for p, o, t in zip(paths, ours, theirs, strict=True) if o != t]
    assert not diffs, f"{len(diffs)} of {len(paths)} differ, e.g. {diffs[:3]}"
    # every rule was exercised: measured figures counted, barriers and unavailable usages passed over
    usages = [u for c, t in zip(contexts, theirs) if (i := t["last_usage_index"]) is not None for u in [c[i]["usage"]]]
    barred = [c for c, t in zip(contexts, theirs) if t["last_usage_index"] is None]
    counts = (
        sum(1 for u in usages if u.get("contextUsage", {}).get("state") == "available"),
        sum(1 for c in barred if any(m.get("api") == "cli" and "contextUsage" not in m.get("usage", {}) for m in c)),
        sum(1 for c in barred if any(m.get("usage", {}).get("contextUsage", {}).get("state") == "unavailable" for m in c)),
    )
    assert min(counts) > 10, counts


def test_stats_json_matches_openclaw(oracle: OpenClaw2026_9, tmp_path: Path) -> None:
    paths = _sessions(tmp_path, 24, 96)
    contexts = []
    for path in paths:
        session = open_session(path, RULES)
        contexts.append(session.context_messages(session.context()))
    theirs = [_theirs(t) for t in oracle.run_script(SCRIPT, {"contexts": contexts})["contexts"]]
    env = {"HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(tmp_path / "no-state"), "PATH": ""}
    for path, their in zip(paths, theirs, strict=True):
        done = run_cli(["stats", "--json", "--rules", RULES, str(path)], env=env)
        assert done.returncode == 0, done.stderr
        now = json.loads(done.stdout)["context"]["estimate_context_tokens"]
        assert (now.pop("basis"), now.pop("stale_usage_tokens")) == (basis_of(their), None)  # no compaction here
        assert now == their, path.read_text()
    assert len({t["last_usage_index"] is None for t in theirs}) == 2
