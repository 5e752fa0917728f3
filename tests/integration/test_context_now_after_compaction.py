"""Honest figures after a compaction (issue 24, part 3): no command shows a usage recorded before the latest
compaction as the context now.

The fixture is built by our real compaction (`compact --summarizer rules --yes`, under each release's rules) on a
copy of the demo session, whose last reply recorded 122,237 tokens: after it, `stats`, `plan`, `context`, `timeline`
and `ls` (text and `--json`) give the estimate of every context message (what the next request carries) with the
basis `estimate`, and pi 0.66.1's own `AgentSession.getContextUsage` agrees that the recorded usage no longer counts
(it says "unknown"; the estimate beside it is its own `estimateTokens` summed). Before the compaction, the same
commands give the recorded usage, labelled as such.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT
from inprocess import run_cli
from oracle.pi_oracle import pi_oracle  # noqa: F401  (a fixture)

from inspector.figures.sizes import estimate_sizes
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
RELEASES = ("openclaw-2026.4.12", "openclaw-2026.9.6")
PRE_USAGE = 122_237
"""The demo's last recorded usage: the context before the compaction."""


_HOME = Path(tempfile.mkdtemp(prefix="si-context-now-"))
"""A scratch HOME: `compact` keeps its journal and breaker state under it, never in the repository."""
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)


def _env() -> dict[str, str]:
    env = dict(os.environ, HOME=str(_HOME), OPENCLAW_STATE_DIR=str(_HOME / "no-state"), COLUMNS="250")
    for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env.pop(name, None)
    return env


def cli(*args: object) -> str:
    res = run_cli([str(a) for a in args], env=_env())
    assert res.returncode == 0, res.stderr
    return res.stdout


def _expected(path: Path, rules_id: str) -> tuple[int, int]:
    """(the estimate of every context message, pi's `estimateContextTokens` with its recorded usage) by `rules_id`."""
    session = open_session(path, rules_id)
    ctx = session.context()
    estimate = sum(estimate_sizes(ctx.messages, "pi"))
    raw = rule_set(rules_id).context_usage.last_context_usage(session, ctx)
    return estimate, int(raw["tokens"])


@pytest.fixture(scope="module", params=RELEASES)
def compacted(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A copy of the demo session compacted by our own run under the release's rules, and the release."""
    rules_id = request.param
    path = tmp_path_factory.mktemp("compacted") / "demo.jsonl"
    shutil.copyfile(DEMO, path)
    assert _expected(path, rules_id)[1] == PRE_USAGE
    out = run_cli(["compact", path, "--summarizer", "rules", "--yes", "--json", "--rules", rules_id], env=_env())
    assert out.returncode == 0, out.stderr
    assert open_session(path, rules_id).entries[-1].type == "compaction"
    return path, rules_id


def _context_now_line(text: str) -> str:
    return next(line.rstrip() for line in text.splitlines() if line.startswith("context now"))


def test_every_command_gives_the_estimate_after_a_compaction(compacted: tuple[Path, str]) -> None:
    path, rules_id = compacted
    estimate, raw = _expected(path, rules_id)
    assert raw == PRE_USAGE  # pi's estimateContextTokens still counts the kept reply's usage...
    assert 0 < estimate < PRE_USAGE // 4  # ...the context is a fraction of it
    rules = ("--rules", rules_id)

    stats = json.loads(cli("stats", path, "--json", *rules))
    now = stats["context"]["estimate_context_tokens"]
    assert (now["tokens"], now["usage_tokens"], now["trailing_tokens"], now["last_usage_index"]) == (estimate, 0, estimate, None)
    assert (now["basis"], now["stale_usage_tokens"]) == ("estimate", PRE_USAGE)
    assert stats["context_fill"] == round(estimate / stats["context_window"]["tokens"], 4)

    plan = json.loads(cli("plan", path, "--json", *rules))
    assert (plan["context_tokens"], plan["context_basis"], plan["context_stale_usage_tokens"]) == (estimate, "estimate", PRE_USAGE)
    assert not any(w["crossed"] for w in plan["triggers"]["early_warnings"])  # 61% before; ~10% now

    context = json.loads(cli("context", path, "--json", *rules))
    assert context["totals"]["estimate_context_tokens"] == now

    timeline = json.loads(cli("timeline", path, "--json", *rules))
    assert (timeline["fill"]["tokens"], timeline["fill"]["basis"], timeline["fill"]["level"]) == (estimate, "estimate", "ok")

    listing = json.loads(cli("ls", path.parent, "--json", *rules))  # `ls` glances by the file's own rules
    assert [s["glance"]["context_tokens"] for s in listing["sessions"]] == [_expected(path, open_session(path).rules_id)[0]]

    shown = f"{estimate:,} tokens"
    assert _context_now_line(cli("stats", path, *rules)).split(None, 2)[2].startswith(shown)
    assert "predates it" in _context_now_line(cli("stats", path, *rules))
    assert _context_now_line(cli("plan", path, *rules)).split(None, 2)[2].startswith(shown + "  (estimate;")
    assert _context_now_line(cli("timeline", path, *rules)).startswith(f"context now (estimate): {shown}")
    for command in ("stats", "plan", "timeline"):
        assert f"{PRE_USAGE:,} tokens" not in cli(command, path, *rules), command


@pytest.mark.parametrize("rules_id", RELEASES)
def test_before_the_compaction_the_recorded_usage_is_labelled(rules_id: str, tmp_path: Path) -> None:
    path = tmp_path / "demo.jsonl"
    shutil.copyfile(DEMO, path)
    rules = ("--rules", rules_id)
    now = json.loads(cli("stats", path, "--json", *rules))["context"]["estimate_context_tokens"]
    assert (now["tokens"], now["trailing_tokens"], now["basis"], now["stale_usage_tokens"]) == (PRE_USAGE, 0, "recorded_usage", None)
    plan = json.loads(cli("plan", path, "--json", *rules))
    assert (plan["context_tokens"], plan["context_basis"]) == (PRE_USAGE, "recorded_usage")
    assert _context_now_line(cli("plan", path, *rules)).endswith(f"{PRE_USAGE:,} tokens  (recorded)")
    assert _context_now_line(cli("timeline", path, *rules)).startswith("context now (recorded): ")


def test_pi_getcontextusage_agrees_after_our_compaction(pi_oracle, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "demo.jsonl"
    shutil.copyfile(DEMO, path)
    cli("compact", path, "--summarizer", "rules", "--yes", "--rules", "openclaw-2026.4.12")
    estimate, raw = _expected(path, "openclaw-2026.4.12")
    (res,) = pi_oracle.run([{"file": str(path), "keepRecentTokens": 20_000, "reserveTokens": 20_000, "contextWindow": 200_000}])
    assert res["estimateContextTokens"]["tokens"] == raw == PRE_USAGE  # pi's estimateContextTokens: the stale usage
    assert res["contextUsage"] == {"tokens": None, "estimate": estimate}  # its getContextUsage: unknown; our figure
    plan = json.loads(cli("plan", path, "--json", "--rules", "openclaw-2026.4.12"))
    assert plan["context_tokens"] == estimate
