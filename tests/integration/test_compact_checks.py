"""The rules summary on every real session, and the checks before any call (issue 24, parts 1 and 2).

On every pi/OpenClaw session of the shared corpus, under both releases: the rules summary passes OpenClaw's quality
guard (required sections, identifiers, the latest user ask) and starts the entry `compact` writes (after the latest
request's context 2026.9.6's guard puts first), whole, even where
OpenClaw 2026.4.12's own assembly drops it (the appended sections fill the cap): the `cap` check says what OpenClaw would
do, `budget` what our write cut instead, and `plan` shows the same checks. A version 1
file is refused before any stage (never "Write it?"), an unreachable server before any request, a live lock is
reported; `fit_sections` keeps the sections within a budget and says what it left out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from inspector.js.jsjson import js_len
from inspector.rules.ruleset import rule_set
from inspector.write.runner import RunOptions, run_compaction
from inspector.write.summarizers.rule_based import fit_sections, render_sections

CORPUS = Path(os.environ.get("SESSION_INSPECTOR_CORPUS") or ROOT.parent / "shared" / "corpus")
SESSIONS = sorted([*CORPUS.glob("pi/*.jsonl"), *CORPUS.glob("openclaw/*.jsonl")])
RELEASES = ("openclaw-2026.4.12", "openclaw-2026.9.6")
DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"


def _env(state: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SESSION_INSPECTOR_STATE_DIR": str(state)}
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        env.pop(k, None)
    return env


@pytest.mark.skipif(not SESSIONS, reason=f"no pi/OpenClaw sessions in {CORPUS}")
@pytest.mark.parametrize("rules_id", RELEASES)
@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_the_rules_summary_of_every_corpus_session_starts_the_entry_whole(path: Path, rules_id: str, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "s"))
    copy = tmp_path / path.name  # written for real (a version 1/2 file migrated first, as pi would on open)
    shutil.copy(path, copy)
    os.chmod(copy, 0o644)
    res = run_compaction(copy, RunOptions(rules_id=rules_id, migrate=True))
    if res.status == "nothing_written":
        assert res.reason.startswith("nothing to compact")
        return
    assert res.status == "committed", res.reason
    written = json.loads(copy.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    assert written["type"] == "compaction" and written["id"] == res.entry["id"]
    checks = {c.name: c for c in res.checks}
    summary = written["summary"]
    rules = rule_set(rules_id)
    assert rules.quality.has_required_summary_sections(summary)
    if "quality" not in checks:  # nothing real to summarize: OpenClaw's boundary summary, written with no call
        return
    assert checks["quality"].ok, checks["quality"].detail
    if rules_id == "openclaw-2026.9.6":  # its quality guard (on by default) puts the latest request's context first
        assert summary.startswith("## Latest user request context\n\"") and checks["cap"].ok
        summary = summary[summary.index("\n\n## Decisions\n") + 2:]
    assert summary.startswith("## Decisions\n- ") and "\n- Latest user ask: " in summary
    assert "[Compaction summary truncated to fit budget]" not in summary  # the summary is whole
    if "budget" in checks:  # our write budgeted the appended sections: said, and marked in the entry
        assert rules_id == "openclaw-2026.4.12" and "budgeted by Session Inspector" in checks["budget"].detail
        assert any(line.startswith("[") and "cut to fit the 16,000-character cap by Session Inspector]" in line for line in summary.split("\n"))
    if path.name == "before-compaction.v1.jsonl" and rules_id == "openclaw-2026.4.12":  # OpenClaw itself would lose it
        assert not checks["cap"].ok and "would store 16,000 characters of appended turns" in checks["cap"].detail
        assert "lose the summary" in checks["cap"].detail and not checks["budget"].ok


@pytest.mark.skipif(not (CORPUS / "pi" / "before-compaction.v1.jsonl").exists(), reason=f"no before-compaction.v1.jsonl in {CORPUS}")
def test_plan_json_warns_that_openclaw_2026_4_12_loses_the_summary(tmp_path: Path) -> None:
    path = CORPUS / "pi" / "before-compaction.v1.jsonl"
    out = subprocess.run([sys.executable, "-m", "inspector", "plan", str(path), "--rules", "openclaw-2026.4.12", "--json"], capture_output=True,
                         text=True, env=_env(tmp_path / "s"), cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    cap = checks["cap"]
    assert not cap["ok"] and cap["detail"].startswith("OpenClaw 2026.4.12 would store 16,000 characters of appended turns")
    assert "lose the summary" in cap["detail"] and not checks["budget"]["ok"] and checks["quality"]["ok"]
    # one source: the run computes the same checks of the same summary
    run = run_compaction(path, RunOptions(dry_run=True, rules_id="openclaw-2026.4.12"))
    assert [c.to_json() for c in run.checks if c.name in checks] == list(checks.values())
    text = subprocess.run([sys.executable, "-m", "inspector", "plan", str(path), "--rules", "openclaw-2026.4.12"], capture_output=True,
                          text=True, env=_env(tmp_path / "s"), cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL)
    assert "WARN   cap: OpenClaw 2026.4.12 would store 16,000 characters of appended turns" in text.stdout
    assert "WARN   budget: budgeted by Session Inspector" in text.stdout


def test_a_version_1_file_is_refused_before_any_stage(tmp_path: Path) -> None:
    v1 = CORPUS / "pi" / "large-session.v1.jsonl"
    if not v1.exists():
        pytest.skip(f"{v1} is absent")
    copy = tmp_path / v1.name
    shutil.copy(v1, copy)
    events: list[str] = []
    res = run_compaction(copy, RunOptions(), lambda e: events.append(e.kind))
    assert res.status == "failed" and "session version 1" in res.reason and "nothing summarized" in res.reason
    assert events == ["failed"]  # no stage ran, nothing was summarized
    dry = run_compaction(copy, RunOptions(dry_run=True))
    assert dry.status == "dry_run" and any(c.name == "version" and not c.ok for c in dry.checks)
    out = subprocess.run([sys.executable, "-m", "inspector", "compact", str(copy), "--yes"], capture_output=True, text=True,
                         env=_env(tmp_path / "s"), cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 2 and "session version 1" in out.stdout and "[1/" not in out.stderr
    assert copy.read_bytes() == v1.read_bytes()


def test_the_interactive_preview_of_a_version_1_file_never_asks(tmp_path: Path) -> None:
    import pty

    from test_compact_cli_defects import _read_until

    v1 = CORPUS / "pi" / "large-session.v1.jsonl"
    if not v1.exists():
        pytest.skip(f"{v1} is absent")
    copy = tmp_path / v1.name
    shutil.copy(v1, copy)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "compact", str(copy)], stdin=slave, stderr=slave, stdout=subprocess.PIPE,
                            env=_env(tmp_path / "s"), cwd=ROOT, close_fds=True)
    os.close(slave)
    try:
        shown = _read_until(master, b"Write it?", 120)
        stdout, _ = proc.communicate(timeout=120)
    finally:
        os.close(master)
    assert b"Write it?" not in shown and proc.returncode == 2
    assert b"session version 1" in stdout


def test_an_unreachable_server_is_refused_with_no_request(tmp_path: Path) -> None:
    demo = tmp_path / DEMO.name
    shutil.copy(DEMO, demo)
    out = subprocess.run([sys.executable, "-m", "inspector", "compact", str(demo), "--summarizer", "openai", "--base-url",
                          "http://127.0.0.1:9/v1", "--model", "m1", "--yes", "--json"], capture_output=True, text=True,
                         env=_env(tmp_path / "s"), cwd=ROOT, timeout=120, stdin=subprocess.DEVNULL)
    res = json.loads(out.stdout)
    assert out.returncode == 2 and res["status"] == "failed" and "cannot be reached" in res["reason"]
    assert res["stages"] == [] and [c["name"] for c in res["checks"] if not c["ok"]] == ["summarizer"]


def test_a_dry_run_reports_a_live_lock(tmp_path: Path) -> None:
    demo = tmp_path / DEMO.name
    shutil.copy(DEMO, demo)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom inspector.write.lock import acquire_session_write_lock\n"
                               f"lock = acquire_session_write_lock({str(demo)!r})\nprint('held', flush=True)\ntime.sleep(120)\n"],
                              stdout=subprocess.PIPE, text=True, env=_env(tmp_path / "s"), cwd=ROOT)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        res = run_compaction(demo, RunOptions(dry_run=True))
    finally:
        holder.kill()
        holder.wait()
    lock = next(c for c in res.checks if c.name == "lock")
    assert res.status == "dry_run" and not lock.ok and str(holder.pid) in lock.detail
    assert {c.name for c in res.checks} == {"version", "lock", "summarizer", "cap", "quality"}  # nothing to budget


def test_fit_sections_keeps_the_sections_and_says_what_it_left_out() -> None:
    sections = [
        ("## Decisions", ["- Rule-based summary (session-inspector `rules`, no model was called) of 9 messages.",
                          *(f"- decision {i} " + "d" * 80 for i in range(30))]),
        ("## Open TODOs", [f"- Tool failed: read: {i} " + "t" * 80 for i in range(10)]),
        ("## Constraints/Rules", ["- never push to main"]),
        ("## Pending user asks", ["- Earlier ask: something", "- Latest user ask: fix the limiter in /srv/app/limiter.py"]),
        ("## Exact identifiers", [*(f"- /srv/file_{i}.py" for i in range(40)), "- 0123abcd99"]),
    ]
    full = js_len(render_sections(sections))
    fitted = fit_sections(sections, 2000, ["0123abcd99", "/srv/file_3.py"])
    text = render_sections(fitted)
    assert full > 4000 and js_len(text) <= 2000
    assert [h for h, _ in fitted] == [h for h, _ in sections] and text.startswith("## Decisions\n- Rule-based summary")
    assert "- Latest user ask: fix the limiter in /srv/app/limiter.py" in text and "0123abcd99" in text and "/srv/file_3.py" in text
    assert "- decision 29" in text and "- decision 0 " not in text  # the oldest go first
    note = next(line for line in fitted[0][1] if line.startswith("- Cut to fit the 2,000 characters"))
    assert "Open TODOs 10" in note and "Exact identifiers" in note
    assert fit_sections(sections, full, []) == sections  # what fits is left alone
