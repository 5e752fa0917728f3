"""The crash-test hook (`inspector.write.faults`): nothing installed when unset; a real SIGKILL when armed.

Each case runs in its own process (the hook replaces `os` functions process-wide).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from inspector.write.faults import KILL_ENV

PROBE = r"""
import os, sys
real = (os.open, os.write, os.fsync, os.replace, os.link, os.unlink)
from inspector.write import faults
armed = faults.install_from_env()
print(armed, all(a is b for a, b in zip(real, (os.open, os.write, os.fsync, os.replace, os.link, os.unlink))), flush=True)
d = sys.argv[1]
for i in range(3):
    fd = os.open(f"{d}/f{i}", os.O_WRONLY | os.O_CREAT, 0o600)   # operations 1, 3, 5
    os.write(fd, b"x")                                          # 2, 4, 6
    os.close(fd)                                                # not counted
os.replace(f"{d}/f0", f"{d}/g0")                                # 7
print("done", flush=True)
"""


def _probe(tmp_path: Path, value: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop(KILL_ENV, None)
    if value is not None:
        env[KILL_ENV] = value
    return subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, env=env, timeout=60)


def test_unset_installs_nothing(tmp_path: Path) -> None:
    r = _probe(tmp_path, None)
    assert r.returncode == 0 and r.stdout.split("\n")[:2] == ["False True", "done"] and r.stderr == ""


def test_kill_after_the_nth_operation(tmp_path: Path) -> None:
    r = _probe(tmp_path, "4")
    assert r.returncode == -signal.SIGKILL
    assert r.stdout == "True False\n"  # killed before "done"
    assert r.stderr.startswith("session-inspector: killed after file operation 4 (write ") and r.stderr.rstrip().endswith("/f1)")
    assert (tmp_path / "f1").read_bytes() == b"x" and not (tmp_path / "f2").exists()  # right after the 4th, not before


def test_kill_after_the_nth_operation_of_a_kind(tmp_path: Path) -> None:
    r = _probe(tmp_path, "replace:1")
    assert r.returncode == -signal.SIGKILL and (tmp_path / "g0").exists()
    assert f"killed after file operation 7 (replace {tmp_path}/f0 -> {tmp_path}/g0)" in r.stderr


def test_zero_logs_every_operation_and_kills_nothing(tmp_path: Path) -> None:
    r = _probe(tmp_path, "0")
    assert r.returncode == 0 and r.stdout.endswith("done\n")
    ops = [line.split(": ", 2)[2].split()[0] for line in r.stderr.splitlines()]
    assert ops == ["open", "write"] * 3 + ["replace"]


def test_a_bad_value_is_refused(tmp_path: Path) -> None:
    for bad in ("x", "-1", "chmod:1", "write:0"):
        r = _probe(tmp_path, bad)
        assert r.returncode == 1 and f"{KILL_ENV}={bad!r}" in r.stderr and not (tmp_path / "f0").exists(), bad
