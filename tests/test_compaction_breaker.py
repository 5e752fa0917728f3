"""The summarizer circuit breaker: thresholds, cooldown, trial, persistence, two processes at once, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from inspector.compaction.breaker import CircuitBreaker

ROOT = Path(__file__).resolve().parents[1]
T0 = datetime(2026, 5, 1, 12, 0, 0, tzinfo=timezone.utc)


@dataclass
class MovableClock:
    at: datetime

    def now(self) -> datetime:
        return self.at

    def advance(self, **kw: float) -> None:
        self.at += timedelta(**kw)


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "state"
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(d))
    return d


@pytest.fixture
def session(tmp_path: Path) -> Path:
    p = tmp_path / "s.jsonl"
    p.write_text("")
    return p


def test_opens_after_three_failures_then_half_open_trial_then_closes(state_dir: Path, session: Path) -> None:
    clock = MovableClock(T0)
    b = CircuitBreaker(clock=clock)
    for i in range(2):
        assert b.before_call(session, "openai").allowed
        status, change = b.record_failure(session, "openai", f"HTTP 500 #{i}")
        assert status.state == "closed" and change is None
    assert b.before_call(session, "openai").allowed
    status, change = b.record_failure(session, "openai", "HTTP 500 #3")
    assert status.state == "open" and status.failures == 3
    assert change is not None and (change.old, change.new) == ("closed", "open")
    assert status.retry_at_ms == int((T0 + timedelta(minutes=5)).timestamp() * 1000)

    clock.advance(minutes=4, seconds=59)
    d = b.before_call(session, "openai")
    assert not d.allowed and "open for openai after 3 consecutive failures" in d.message and "1 s more" in d.message
    # another provider of the same session, and the same provider of another session, are separate circuits
    assert b.before_call(session, "anthropic").allowed
    assert b.before_call(session.parent / "other.jsonl", "openai").allowed

    clock.advance(seconds=1)
    assert b.status(session, "openai").effective_state == "half_open"
    trial = b.before_call(session, "openai")
    assert trial.allowed and trial.trial and trial.change is not None and trial.change.new == "half_open"
    second = b.before_call(session, "openai")  # one trial only
    assert not second.allowed and "trial call is already in flight" in second.message
    status, change = b.record_success(session, "openai")
    assert status.state == "closed" and status.failures == 0 and change is not None and change.new == "closed"
    assert b.before_call(session, "openai").allowed


def test_failed_trial_reopens_for_a_new_cooldown(state_dir: Path, session: Path) -> None:
    clock = MovableClock(T0)
    b = CircuitBreaker(clock=clock, cooldown_ms=60_000)
    for _ in range(3):
        b.record_failure(session, "p", "boom")
    clock.advance(seconds=60)
    assert b.before_call(session, "p").trial
    status, change = b.record_failure(session, "p", "still down")
    assert status.state == "open" and status.failures == 4 and change is not None and change.reason == "trial call failed"
    clock.advance(seconds=59)
    assert not b.before_call(session, "p").allowed
    clock.advance(seconds=1)
    assert b.before_call(session, "p").allowed


def test_a_trial_lost_with_its_process_is_given_up_after_a_cooldown(state_dir: Path, session: Path) -> None:
    clock = MovableClock(T0)
    b = CircuitBreaker(clock=clock, cooldown_ms=10_000)
    for _ in range(3):
        b.record_failure(session, "p", "x")
    clock.advance(seconds=10)
    assert b.before_call(session, "p").trial  # the caller dies without reporting
    clock.advance(seconds=9)
    assert not b.before_call(session, "p").allowed
    clock.advance(seconds=1)
    assert b.before_call(session, "p").trial


def test_state_survives_a_restart_and_reset_filters(state_dir: Path, session: Path, tmp_path: Path) -> None:
    clock = MovableClock(T0)
    other = tmp_path / "o.jsonl"
    b = CircuitBreaker(clock=clock)
    for _ in range(3):
        b.record_failure(session, "openai", "x")
        b.record_failure(other, "openai", "x")
    b.record_failure(session, "anthropic", "y")
    fresh = CircuitBreaker(clock=clock)  # a new instance reads the same file
    assert not fresh.before_call(session, "openai").allowed
    assert fresh.status(session, "anthropic").failures == 1
    report = fresh.reset(session=session, provider="openai")
    assert report.removed == 1
    assert fresh.before_call(session, "openai").allowed
    assert not fresh.before_call(other, "openai").allowed
    assert fresh.reset(provider="openai").removed == 1
    assert len(fresh.report().circuits) == 1
    assert fresh.reset().removed == 1
    assert fresh.report().circuits == ()


def test_secrets_never_stored(state_dir: Path, session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "opensesame-123456")
    b = CircuitBreaker(clock=MovableClock(T0))
    b.record_failure(
        session,
        "openai",
        "401: invalid key opensesame-123456; header Authorization: Bearer abc.def.ghi; also sk-proj-AAAABBBBCCCC",
    )
    raw = (state_dir / "breaker.json").read_text()
    for secret in ("opensesame-123456", "abc.def.ghi", "sk-proj-AAAABBBBCCCC"):
        assert secret not in raw
    assert "[redacted]" in raw


def test_corrupt_state_counts_as_closed_is_reported_and_kept(state_dir: Path, session: Path) -> None:
    state_dir.mkdir(parents=True)
    (state_dir / "breaker.json").write_text("{ not json")
    b = CircuitBreaker(clock=MovableClock(T0))
    report = b.report()
    assert report.circuits == () and report.problem and "corrupt" in report.problem
    d = b.before_call(session, "openai")
    assert d.allowed and d.problem
    b.record_failure(session, "openai", "x")
    assert json.loads((state_dir / "breaker.json").read_text())["circuits"][0]["failures"] == 1
    kept = list(state_dir.glob("breaker.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_text() == "{ not json"
    # a document of the wrong shape: same treatment
    (state_dir / "breaker.json").write_text("[1, 2]")
    assert CircuitBreaker().report().problem


WORKER = """
import sys
from inspector.compaction.breaker import CircuitBreaker
b = CircuitBreaker(threshold=10**9)
for i in range(int(sys.argv[2])):
    b.record_failure(sys.argv[1], "openai", f"failure {i}")
"""


def test_two_processes_recording_failures_at_once_lose_nothing(state_dir: Path, session: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), SESSION_INSPECTOR_STATE_DIR=str(state_dir))
    n = 60
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(session), str(n)], env=env) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    assert CircuitBreaker(threshold=10**9).status(session, "openai").failures == 2 * n


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)


def test_cli_breaker_show_and_reset(state_dir: Path, session: Path) -> None:
    b = CircuitBreaker()
    for _ in range(3):
        b.record_failure(session, "openai", "HTTP 429 \x1b[31mred[/red]")
    env = dict(os.environ, PYTHONPATH=str(ROOT), SESSION_INSPECTOR_STATE_DIR=str(state_dir))
    out = _cli("breaker", "--json", env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["state_file"] == str(state_dir / "breaker.json")
    (c,) = data["circuits"]
    assert c["state"] == "open" and c["failures"] == 3 and c["provider"] == "openai"
    assert c["session"] == os.path.realpath(session)
    text = _cli("breaker", env=env)
    assert text.returncode == 0
    assert "open" in text.stdout and "openai" in text.stdout
    assert "\x1b" not in text.stdout and "[/red]" in text.stdout  # untrusted error text printed inert
    reset = _cli("breaker", "--reset", "--session", str(session), "--json", env=env)
    assert json.loads(reset.stdout)["removed"] == 1
    assert "No circuits" in _cli("breaker", env=env).stdout
