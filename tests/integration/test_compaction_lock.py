"""OpenClaw's session write lock with real processes: refuse while held, reclaim when stale."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import ROOT

from inspector.base.clock import FixedClock
from inspector.write.lock import LockHeld, acquire_session_write_lock, inspect_lock, lock_path_for
from inspector.write.lock_owner import inspect_lock_payload, process_start_time, read_lock_payload

HOLDER = """
import sys, time
from inspector.write.lock import acquire_session_write_lock
lock = acquire_session_write_lock(sys.argv[1])
print("locked", flush=True)
mode = sys.argv[2]
if mode == "exit":
    sys.exit(0)          # no release: atexit must remove the lock
time.sleep(60)
"""


def _spawn_holder(session: Path, mode: str = "hold") -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(session), mode], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def session(tmp_path: Path) -> Path:
    p = tmp_path / "abc.jsonl"
    p.write_text('{"type":"session","version":3,"id":"abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n')
    return p


def _sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])


def test_payload_is_openclaws_pretty_json(session: Path) -> None:
    clock = FixedClock(datetime(2026, 3, 4, 5, 6, 7, 890000, tzinfo=UTC))
    with acquire_session_write_lock(session, clock=clock) as lock:
        assert lock.lock_path == session.parent.resolve() / "abc.jsonl.lock"
        raw = lock.lock_path.read_text()
        start = process_start_time(os.getpid())
        assert start is not None
        assert raw == f'{{\n  "pid": {os.getpid()},\n  "createdAt": "2026-03-04T05:06:07.890Z",\n  "starttime": {start}\n}}'
    assert not lock.lock_path.exists()


def test_lock_path_resolves_the_directory_not_the_file(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert lock_path_for(tmp_path / "link" / "x.jsonl") == real.resolve() / "x.jsonl.lock"


def test_reentrant_within_the_process(session: Path) -> None:
    outer = acquire_session_write_lock(session)
    inner = acquire_session_write_lock(session, timeout_ms=0)
    inner.release()
    assert outer.lock_path.exists()
    outer.release()
    assert not outer.lock_path.exists()


def test_live_holder_refused_with_its_pid_then_kill_9_reclaims(session: Path) -> None:
    proc = _spawn_holder(session)
    try:
        t0 = time.monotonic()
        with pytest.raises(LockHeld) as info:
            acquire_session_write_lock(session, timeout_ms=400)
        waited = time.monotonic() - t0
        assert 0.35 < waited < 3
        assert info.value.pid == proc.pid
        assert f"pid={proc.pid}" in str(info.value)
        assert "nothing was written" in info.value.hint
        assert inspect_lock(session).blocking
        proc.kill()
        proc.wait()
        assert lock_path_for(session).exists()  # kill -9 leaves the file behind
        assert inspect_lock_payload(read_lock_payload(lock_path_for(session)), 1800_000, int(time.time() * 1000)).stale_reasons == (
            "dead-pid",
        )
        with acquire_session_write_lock(session, timeout_ms=0) as lock:
            assert read_lock_payload(lock.lock_path)["pid"] == os.getpid()
    finally:
        proc.kill()
        proc.wait()


def test_released_at_exit_and_on_sigterm(session: Path) -> None:
    proc = _spawn_holder(session, "exit")
    proc.wait(timeout=10)
    assert not lock_path_for(session).exists()
    proc = _spawn_holder(session)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == -signal.SIGTERM
    assert not lock_path_for(session).exists()


def _write_lock(session: Path, payload: dict) -> Path:
    lock = lock_path_for(session)
    lock.write_text(json.dumps(payload, indent=2))
    return lock


def _iso(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def test_recycled_pid_is_stale(session: Path) -> None:
    proc = _sleeper()
    try:
        start = process_start_time(proc.pid)
        assert start is not None
        now = datetime.now(UTC)
        _write_lock(session, {"pid": proc.pid, "createdAt": _iso(now), "starttime": start})
        with pytest.raises(LockHeld):
            acquire_session_write_lock(session, timeout_ms=150)
        _write_lock(session, {"pid": proc.pid, "createdAt": _iso(now), "starttime": start + 12345})
        with acquire_session_write_lock(session, timeout_ms=0):
            pass
    finally:
        proc.kill()
        proc.wait()


def test_old_created_at_is_stale_even_with_a_live_pid(session: Path) -> None:
    proc = _sleeper()
    try:
        old = datetime.now(UTC) - timedelta(minutes=31)
        _write_lock(session, {"pid": proc.pid, "createdAt": _iso(old), "starttime": process_start_time(proc.pid)})
        with acquire_session_write_lock(session, timeout_ms=0):
            pass
        recent = datetime.now(UTC) - timedelta(minutes=29)
        _write_lock(session, {"pid": proc.pid, "createdAt": _iso(recent), "starttime": process_start_time(proc.pid)})
        with pytest.raises(LockHeld):
            acquire_session_write_lock(session, timeout_ms=0)
        # the stale threshold is configurable
        with acquire_session_write_lock(session, timeout_ms=0, stale_ms=60_000):
            pass
    finally:
        proc.kill()
        proc.wait()


def test_payload_without_pid_uses_the_mtime(session: Path) -> None:
    lock = _write_lock(session, {"note": "written by something else"})
    with pytest.raises(LockHeld) as info:
        acquire_session_write_lock(session, timeout_ms=120)
    assert info.value.pid is None and "unknown" in str(info.value)
    old = time.time() - 31 * 60
    os.utime(lock, (old, old))
    with acquire_session_write_lock(session, timeout_ms=0):
        pass
    # garbage that is not JSON at all: same rule
    lock.write_text("not json")
    with pytest.raises(LockHeld):
        acquire_session_write_lock(session, timeout_ms=0)
    os.utime(lock, (old, old))
    with acquire_session_write_lock(session, timeout_ms=0):
        pass


def test_orphan_lock_of_our_own_pid_without_starttime_is_reclaimed(session: Path) -> None:
    _write_lock(session, {"pid": os.getpid(), "createdAt": _iso(datetime.now(UTC))})
    with acquire_session_write_lock(session, timeout_ms=0):
        pass


def test_backoff_schedule(session: Path) -> None:
    proc = _spawn_holder(session)
    sleeps: list[float] = []
    try:
        with pytest.raises(LockHeld):
            acquire_session_write_lock(session, timeout_ms=600, sleep=lambda s: (sleeps.append(s), time.sleep(s)))
    finally:
        proc.kill()
        proc.wait()
    assert sleeps[:4] == [0.05, 0.1, 0.15, 0.2]
