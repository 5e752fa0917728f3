"""A session of OpenClaw 2026.9 read under its own rules, end to end through the commands.

The rule set decides, per session: the reader's estimates (2026.9.6's `estimate_all`, no fused path), the context
rebuild (a `reset` boundary, `leaf` navigation rows), which entry types are known, and the figures of every
command. A format-v4 session is given 2026.9.6 without `--rules`; `--rules openclaw-2026.4.12` reads the same file
with pi 0.66.1's rules (the reset and leaf rows are then unknown entries outside the context).
"""

from __future__ import annotations

import json
from pathlib import Path

from inprocess import run_cli

from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

SEPT = "openclaw-2026.9.6"
APRIL = "openclaw-2026.4.12"


def _session(tmp_path: Path, version: int = 4) -> tuple[Path, dict[str, str]]:
    b = SessionBuilder(seed=3)
    b.header(version=version)
    ids: dict[str, str] = {}
    ids["u1"] = b.user("first question, 中文内容 𠀀𠀁𠀂 ㄅㄆ ﾊﾝｶｸ")
    ids["a1"] = b.assistant("first answer")
    ids["u2"] = b.user("second question")
    ids["a2"] = b.assistant("second answer")
    ids["reset"] = b.reset("new task", first_kept_entry_id=ids["u2"])
    ids["u3"] = b.user("after the reset")
    ids["a3"] = b.assistant("third answer")
    ids["leaf"] = b.leaf(ids["a2"])  # navigate back: the active leaf is before the reset
    return b.write(tmp_path / "s.jsonl"), ids


def _context(path: Path, *extra: str) -> dict:
    proc = run_cli(["context", "--json", "--no-tiktoken", *extra, path])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_v4_session_gets_2026_9_rules_and_their_context(tmp_path: Path) -> None:
    path, ids = _session(tmp_path)
    got = _context(path)
    assert got["rules"]["id"] == SEPT and "format v4" in got["rules"]["reason"]
    # the leaf row makes a2 the active leaf: the context is u1..a2, nothing after the reset
    session = open_session(path, SEPT)
    expected = rule_set(SEPT).context_rebuild.build_context(session.tree, None)
    assert expected.leaf_id == ids["a2"]
    assert session.context().leaf_id == ids["a2"]
    assert [r.entry_id for r in session.context().messages] == [r.entry_id for r in expected.messages]
    assert [r.entry_id for r in session.context().messages] == [ids["u1"], ids["a1"], ids["u2"], ids["a2"]]
    kinds = {d["kind"] for d in got.get("diagnostics", [])}
    assert "unknown_type" not in kinds  # reset and leaf are 2026.9 entry types


def test_the_same_file_under_2026_4_12_keeps_pi_0_66_1_rules(tmp_path: Path) -> None:
    path, ids = _session(tmp_path)
    got = _context(path, "--rules", APRIL)
    assert got["rules"] == {"id": APRIL, "reason": "--rules"}
    session = open_session(path, APRIL)
    ctx = session.context()
    assert ctx.leaf_id == ids["leaf"]  # pi: the last entry is the leaf, the reset is an unknown entry
    assert ids["u3"] in [r.entry_id for r in ctx.messages]
    assert any(d.kind == "unknown_type" for d in session.diagnostics)


def test_estimates_follow_the_session_s_rules(tmp_path: Path) -> None:
    path, ids = _session(tmp_path)
    sept, april = open_session(path, SEPT), open_session(path, APRIL)
    cjk = sept.entry_by_id(ids["u1"]), april.entry_by_id(ids["u1"])
    assert cjk[0] is not None and cjk[1] is not None
    msg = sept.load_message(cjk[0])
    assert msg is not None
    assert tuple(cjk[0].estimates.values()) == rule_set(SEPT).tokens.estimate_all(msg)
    assert tuple(cjk[1].estimates.values()) == rule_set(APRIL).tokens.estimate_all(msg)
    assert cjk[0].estimate("openclaw_prune") != cjk[1].estimate("openclaw_prune")  # CJK weighted differently


def test_stats_names_the_estimators_of_the_session_s_rules(tmp_path: Path) -> None:
    path, _ = _session(tmp_path)
    sept = run_cli(["stats", "--no-tiktoken", "--width", "160", path])
    april = run_cli(["stats", "--no-tiktoken", "--width", "160", "--rules", APRIL, path])
    assert sept.returncode == april.returncode == 0, (sept.stderr, april.stderr)
    for est in rule_set(SEPT).estimators:
        assert est.heading in sept.stdout
    assert "agent-core tokens" in sept.stdout and "pi estimateTokens (chars/4)" not in sept.stdout
    assert "pi estimateTokens (chars/4)" in april.stdout and "agent-core tokens" not in april.stdout
