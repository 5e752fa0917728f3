"""`compact` under OpenClaw 2026.9.6 with its quality guard on (the default): the entry written is the one 2026.9.6 stores.

A real run of the `rules` summarizer on a copy of a session (the demo session, and the corpus sessions where present:
one with a split turn) under `openclaw-2026.9.6`; what the run summarized and assembled is caught on its way to the
assembly, and the real safeguard (`oc_2026_9_retention.mjs`, `openclaw_2026_9` fixture; skips when absent) derives
the guard's parameters from the same messages (the latest ask, the split turn's, the audited identifiers, the
required ask context), decides which messages it summarizes, and budgets the same summaries with its
`budgetCompactionSummary` + `fitCompactionSummary`: the entry written must be its summary, to the character.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.ruleset import rule_set
from inspector.write import runner
from inspector.write.runner import RunOptions, run_compaction

SCRIPT = Path(__file__).parents[1] / "oracle" / "oc_2026_9_retention.mjs"
CORPUS = Path(os.environ.get("SESSION_INSPECTOR_CORPUS") or ROOT.parent / "shared" / "corpus")
SESSIONS = [ROOT / "inspector" / "data" / "demo-session.jsonl",
            *(p for p in (CORPUS / "pi" / "before-compaction.v1.jsonl", CORPUS / "pi" / "large-session.v1.jsonl") if p.exists())]
R9 = rule_set("openclaw-2026.9.6")


def _caught_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, dict[str, Any]]:
    """A real run on a copy of `path`, with the assembly's and the checks' inputs caught."""
    caught: dict[str, Any] = {}
    assemble, checks = runner.assemble, runner.summary_checks

    def catch_assemble(rules: Any, history: str, prefix: str | None, preserved: Any, failures: str, file_ops: str, quality: Any = None) -> Any:
        caught.update(history=history, prefix=prefix, preserved=list(preserved), failures=failures, quality=quality)
        return assemble(rules, history, prefix, preserved, failures, file_ops, quality)

    def catch_checks(rules: Any, history: str, prefix: Any, assembled: Any, summarizable: Any, before: Any, turn_prefix: Any, split: bool,
                     guard: Any = None, audited: bool = True) -> Any:
        caught.update(summarizable=list(summarizable), before=list(before), turn_prefix=list(turn_prefix), split=split, assembled=assembled)
        return checks(rules, history, prefix, assembled, summarizable, before, turn_prefix, split, guard, audited)

    monkeypatch.setattr(runner, "assemble", catch_assemble)
    monkeypatch.setattr(runner, "summary_checks", catch_checks)
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "state"))
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    os.chmod(copy, 0o644)
    result = run_compaction(copy, RunOptions(rules_id="openclaw-2026.9.6", migrate=True))
    assert result.status == "committed", result.reason
    written = json.loads(copy.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    assert written["type"] == "compaction" and written["id"] == result.entry["id"]
    caught["written"] = written
    return result, caught


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_the_entry_written_under_2026_9_6_is_what_its_guard_on_safeguard_stores(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                                 openclaw_2026_9: Any) -> None:  # noqa: F811
    result, c = _caught_run(path, tmp_path, monkeypatch)
    assert c["quality"] is not None  # the guard is on by default: the retention plan budgets the body
    split = R9.assembly.format_generated_split_turn_section(c["prefix"]) if c["prefix"] is not None else ""
    details = c["written"]["details"]
    case = {"kind": "finalize", "history": c["history"], "prefix": c["prefix"], "split": split, "preserved": c["preserved"],
            "failuresText": c["failures"], "read": details["readFiles"], "modified": details["modifiedFiles"], "tokenBudget": None,
            "facts": {"messages": c["before"], "turnPrefix": c["turn_prefix"], "isSplitTurn": c["split"]}}
    [real] = openclaw_2026_9.run_script(SCRIPT, [case])
    assert real is not None
    assert c["written"]["summary"] == real["summary"]
    assert c["assembled"].structural == real["structuralSummary"] and not real["qualityRetentionInfeasible"]
    assert len(c["summarizable"]) == real["messagesToSummarize"]
    # the guard changed what is stored: the latest request's context leads the entry, unlike the guard-off assembly
    guard_off = R9.assembly.finalize_summary(c["history"], c["prefix"], c["preserved"], c["failures"],
                                             R9.assembly.format_file_operations(details["readFiles"], details["modifiedFiles"]))
    assert real["summary"] != guard_off and real["summary"].startswith("## Latest user request context\n")
    checks = {ch.name: ch for ch in result.checks}
    assert checks["quality"].ok, checks["quality"].detail
    assert checks["cap"].ok and "re-rendered by its quality guard" in checks["cap"].detail
    if path.name == "large-session.v1.jsonl":  # a split turn: its ask is the retained turn's, not left pending there
        assert c["split"] and c["prefix"] is not None and "\n## Pending user asks\nNone.\n" in c["prefix"]


def test_the_guard_off_writes_the_plain_assembly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = {"agents": {"defaults": {"compaction": {"qualityGuard": {"enabled": False}}}}}
    caught: dict[str, Any] = {}
    assemble = runner.assemble

    def catch(rules: Any, history: str, prefix: Any, preserved: Any, failures: str, file_ops: str, quality: Any = None) -> Any:
        caught.update(history=history, quality=quality)
        return assemble(rules, history, prefix, preserved, failures, file_ops, quality)

    monkeypatch.setattr(runner, "assemble", catch)
    result = run_compaction(SESSIONS[0], RunOptions(rules_id="openclaw-2026.9.6", dry_run=True, plan=runner.PlanOptions(config=config)))
    assert result.status == "dry_run" and caught["quality"] is None
    assert result.entry["summary"].startswith(caught["history"][:200])
    checks = {ch.name: ch for ch in result.checks}
    assert "quality guard is off" in checks["guard"].detail and "quality" not in checks  # stored unaudited


@pytest.mark.parametrize(("rules_id", "config", "said"), [
    ("openclaw-2026.4.12", None, None),
    ("openclaw-2026.9.6", None, "is on (compaction.qualityGuard.enabled, on by default): a summary that fails it is regenerated with the "
                                "reasons, 1 more time"),
    ("openclaw-2026.9.6", {"maxRetries": 7.5}, "regenerated with the reasons, 3 more times"),
    ("openclaw-2026.9.6", {"maxRetries": 0}, "regenerated with the reasons, no more times"),
])
def test_the_forecast_checks_say_what_the_guard_does(rules_id: str, config: dict[str, Any] | None, said: str | None) -> None:
    """`plan`'s checks (`forecast_checks`): 2026.9.6's guard, its retries (`maxRetries` resolved as OpenClaw does) and
    the cancel; nothing under 2026.4.12, whose checks stay as they were."""
    from inspector.figures.forecast.plan import PlanOptions, plan_compaction
    from inspector.session.session import open_session

    session = open_session(SESSIONS[0], rules_id)
    ctx = session.context()
    options = PlanOptions(config={"agents": {"defaults": {"compaction": {"qualityGuard": config}}}} if config else None)
    plan = plan_compaction(session, ctx, options, rules=rule_set(rules_id))
    checks = {c.name: c for c in runner.forecast_checks(session, ctx, plan, options, rule_set(rules_id))}
    assert checks["quality"].ok
    if said is None:
        assert list(checks) == ["cap", "quality"]
    else:
        assert list(checks) == ["cap", "guard", "quality"] and said in checks["guard"].detail
        assert checks["guard"].detail.endswith("one that still fails cancels the compaction: nothing is written")
