"""SIGTERM during a parallel index ends the worker processes too; the worker count is capped at the cores."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, assistant, header, jline, msg, user

from inspector.read.parallel import PARALLEL_MIN_BYTES, worker_count


def test_worker_count_is_capped_at_the_cores(monkeypatch):
    cores = os.cpu_count() or 1
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "99999")
    assert worker_count() == cores
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "9" * 40)
    assert worker_count() == min(cores, 8)
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "1")
    assert worker_count() == 1


def children_of(pid: int) -> set[int]:
    found = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found |= {int(x) for x in (task / "children").read_text().split()}
        except OSError:
            pass
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def assert_sigterm_ends_workers(proc: subprocess.Popen[bytes], within_s: float, skip_reason: str) -> None:
    """Wait (up to `within_s`) until `proc` has worker processes, SIGTERM it, and assert none of them survives
    (survivors are killed first); skips with `skip_reason` when the work ended before a worker was seen."""
    workers: set[int] = set()
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
        workers |= children_of(proc.pid)
        time.sleep(0.02)
    if proc.poll() is not None or not workers:
        proc.kill()
        pytest.skip(skip_reason)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    time.sleep(0.5)
    survivors = {pid for pid in workers if alive(pid)}
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"workers left running after SIGTERM: {survivors}"


@pytest.mark.skipif(not Path("/proc/self/task").exists() or (os.cpu_count() or 1) < 2, reason="needs /proc and 2 cores")
def test_sigterm_mid_index_leaves_no_worker(tmp_path):
    path = tmp_path / "big.jsonl"
    # 68 MB of entries: each line is its kind's `jline` with the ids put in (the same bytes, without encoding
    # 300,000 entries one by one)
    templates = [jline(msg("@ID@", "@PARENT@", user("q" * 120))), jline(msg("@ID@", "@PARENT@", assistant("a" * 120)))]

    def line(i: int) -> str:
        return templates[i % 2].replace("@ID@", f"e{i}").replace("@PARENT@", f"e{i - 1}")

    assert [line(i) for i in (1, 2)] == [jline(msg("e1", "e0", assistant("a" * 120))), jline(msg("e2", "e1", user("q" * 120)))]
    i = 1
    with path.open("w", encoding="utf-8") as f:
        f.write(jline(header()) + "\n" + jline(msg("e0", None, user("q" * 120))) + "\n")
        while f.tell() < PARALLEL_MIN_BYTES + (4 << 20):
            f.write("".join(line(n) + "\n" for n in range(i, i + 2000)))
            i += 2000
    env = dict(os.environ, SESSION_INSPECTOR_WORKERS="2", HOME=str(tmp_path), OPENCLAW_STATE_DIR=str(tmp_path / "st"))
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "stats", str(path), "--json", "--no-tiktoken"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=ROOT)
    assert_sigterm_ends_workers(proc, 60, "the index finished before any worker was seen")
    assert b"Traceback" not in proc.stderr.read()
