"""The summarizer circuit breaker: thresholds, cooldown, trial, persistence, two processes at once, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import ROOT
from inprocess import run_cli

from inspector.write.breaker import CircuitBreaker

T0 = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)


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
from inspector.write.breaker import CircuitBreaker
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
    """`session-inspector ARGS` in this process (`inprocess.run_cli`)."""
    return run_cli(args, env=env, cwd=ROOT)


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


# --------------------------------------------------------------------------------------------------------------
# The breaker in front of real calls (fake provider on 127.0.0.1): retries, then no request at all while open
# --------------------------------------------------------------------------------------------------------------


def test_retries_then_open_breaker_makes_zero_requests_until_the_trial(state_dir: Path, session: Path) -> None:
    import random

    from llm_servers import OpenAIServer

    from inspector.rules.openclaw_2026_4_12.compaction.prompts import history_prompt
    from inspector.write.calls import BreakerOpen, RetryPolicy, call_summarizer
    from inspector.write.events import BreakerChanged, RetryScheduled, TextStreamed
    from inspector.write.summarizers import SummaryRequest, make_summarizer
    from inspector.write.summarizers.base import ProviderError

    msgs = [{"role": "user", "content": "hello", "timestamp": 1}]
    req = SummaryRequest("history", tuple(msgs), history_prompt(msgs, 1000))
    clock = MovableClock(T0)
    breaker = CircuitBreaker(clock=clock)
    fast = RetryPolicy(min_delay_ms=5, max_delay_ms=20)
    with OpenAIServer(reply="## Decisions\nok", default="http500") as srv:
        s = make_summarizer("openai", base_url=srv.base_url, api_key="k-123456789", model="m", env={})
        events: list = []
        with pytest.raises(ProviderError) as info:
            call_summarizer(s, req, stage="chunks", session=session, breaker=breaker, emit=events.append, clock=clock, policy=fast)
        assert info.value.status == 500 and len(srv.requests) == 3
        assert [type(e).__name__ for e in events] == ["RetryScheduled", "RetryScheduled", "BreakerChanged"]
        assert isinstance(events[0], RetryScheduled) and events[0].attempt == 1 and 5 <= events[0].delay_ms <= 20
        assert isinstance(events[2], BreakerChanged) and (events[2].old, events[2].new, events[2].failures) == ("closed", "open", 3)
        for _ in range(3):  # open: refused before any request
            with pytest.raises(BreakerOpen, match="open for openai"):
                call_summarizer(s, req, stage="chunks", session=session, breaker=breaker, clock=clock, policy=fast)
        assert len(srv.requests) == 3
        clock.advance(minutes=5)
        srv.default = "ok"
        events = []
        result = call_summarizer(s, req, stage="merge", session=session, breaker=breaker, emit=events.append, clock=clock, policy=fast)
        assert result.text == "## Decisions\nok" and len(srv.requests) == 4
        changes = [(e.old, e.new) for e in events if isinstance(e, BreakerChanged)]
        assert changes == [("open", "half_open"), ("half_open", "closed")]
        assert "".join(e.text for e in events if isinstance(e, TextStreamed)) == "## Decisions\nok"
        # a timeout and a context overflow are not retried (one request each)
        for behaviour in ("overflow",):
            srv.script([behaviour])
            n = len(srv.requests)
            with pytest.raises(ProviderError):
                call_summarizer(s, req, stage="chunks", session=session, breaker=breaker, clock=clock, policy=fast)
            assert len(srv.requests) == n + 1
        quick = make_summarizer("openai", base_url=srv.base_url, api_key="k-123456789", model="m", env={}, timeout_s=0.5)
        srv.script(["hang"])
        n = len(srv.requests)
        with pytest.raises(ProviderError) as info:
            call_summarizer(quick, req, stage="chunks", session=session, breaker=breaker, clock=clock, policy=fast)
        assert info.value.timeout and len(srv.requests) == n + 1
    # OpenClaw's retry delays: 500 * 2^(n-1) ms, ±20% jitter, within 500..5000
    policy = RetryPolicy()
    rng = random.Random(1)
    for attempt, (lo, hi) in ((1, (500, 600)), (2, (800, 1200)), (3, (1600, 2400)), (5, (4000, 5000))):
        for _ in range(50):
            assert lo <= policy.delay_ms(attempt, rng) <= hi


def test_cancel_during_the_retry_wait(state_dir: Path, session: Path) -> None:
    import threading
    import time

    from llm_servers import AnthropicServer

    from inspector.rules.openclaw_2026_4_12.compaction.prompts import history_prompt
    from inspector.write.calls import RetryPolicy, call_summarizer
    from inspector.write.summarizers import CancelToken, SummaryCancelled, SummaryRequest, make_summarizer

    msgs = [{"role": "user", "content": "hello", "timestamp": 1}]
    req = SummaryRequest("history", tuple(msgs), history_prompt(msgs, 1000))
    with AnthropicServer(default="http429") as srv:
        s = make_summarizer("anthropic", base_url=srv.base_url, api_key="k-123456789", model="m", env={})
        cancel = CancelToken()
        threading.Timer(0.3, cancel.cancel).start()
        t0 = time.monotonic()
        with pytest.raises(SummaryCancelled):
            call_summarizer(s, req, stage="chunks", session=session, cancel=cancel, policy=RetryPolicy(min_delay_ms=5000, max_delay_ms=5000))
        assert time.monotonic() - t0 < 2 and len(srv.requests) == 1
