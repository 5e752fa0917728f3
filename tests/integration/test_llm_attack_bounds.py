"""The LLM path under attack (issue 28): what a server sends costs bounded memory and time. Real processes
(`python -m inspector compact`) against hostile servers on 127.0.0.1, through both official SDKs, with the child's
peak memory read from `os.wait4` in a small launcher process (`_measure`) and its wall time measured:

* an endless stream and an endless SSE line (each server stops on its own after `ENDLESS_S`, the bound of the
  test itself) are refused at the summary cap / line cap: the client stops reading within seconds, with a bounded
  peak memory, and nothing is written;
* a huge error body (retried, then the fallback) is read only in part and shown cut: `--timeout` holds, stderr
  stays small.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from test_llm_attacks import DEMO, IDS, SERVERS, _env

ENDLESS_S = 4.0
PEAK_RSS_MB = 250  # the CLI with an SDK loaded peaks near 70 MB (openai) / 115 MB (anthropic) on these runs
HUGE_ERROR_BYTES = 8_000_000


@dataclass
class Measured:
    """One finished child: exit code, wall seconds, peak RSS (MB), output."""

    code: int
    wall: float
    peak_mb: float
    stdout: str
    stderr: str


# The CLI is started by a small launcher process, which waits for it and reports its `ru_maxrss`: a child's
# `ru_maxrss` starts from the memory of the process that spawned it (Linux records the spawner's high-water mark
# when the child execs), so spawned straight from a pytest worker that has run other tests it would report that
# worker's size, not the CLI's.
_LAUNCHER = """
import os, signal, subprocess, sys, threading
rss_path, kill_after, out_path, err_path, *cmd = sys.argv[1:]
with open(out_path, "wb") as out, open(err_path, "wb") as err:
    proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    killer = threading.Timer(float(kill_after), proc.kill)
    killer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    killer.cancel()
with open(rss_path, "w") as f:
    f.write(f"{usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def _measure(args: list[str], env: dict[str, str], tmp: Path, kill_after: float) -> Measured:
    """Run `python -m inspector ARGS`, kill it after `kill_after` s, and read its own peak RSS (`_LAUNCHER`)."""
    out_path, err_path, rss_path = tmp / "stdout", tmp / "stderr", tmp / "maxrss"
    t0 = time.monotonic()
    launcher = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, str(rss_path), str(kill_after), str(out_path), str(err_path),
         sys.executable, "-m", "inspector", *args],
        stdin=subprocess.DEVNULL, env=env, cwd=ROOT, timeout=kill_after + 60, check=False,
    )
    wall = time.monotonic() - t0
    assert launcher.returncode == 0, "the launcher failed"
    peak_kb, code = map(int, rss_path.read_text().split())
    return Measured(code, wall, peak_kb / 1024, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"))


def _session(tmp_path: Path) -> Path:
    p = tmp_path / "s" / DEMO.name
    p.parent.mkdir()
    shutil.copy(DEMO, p)
    return p


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_an_endless_stream_and_an_endless_line_are_refused_at_the_caps(server_cls: Any, kind: str, tmp_path: Path) -> None:
    session = _session(tmp_path)
    before = session.read_bytes()
    home = tmp_path / "home"
    with server_cls() as srv:
        srv.endless_seconds = ENDLESS_S
        srv.default = "endless_line"
        srv.script(["endless"])  # the history summary gets the endless stream, the split-turn prefix the endless line
        run = _measure(["compact", str(session), "--summarizer", kind, "--base-url", srv.base_url, "--model", "m1", "--yes", "--json",
                        "--timeout", "40"], _env(home, kind), tmp_path, kill_after=40)
        log = list(srv.endless_log)
    assert run.peak_mb < PEAK_RSS_MB, (run.peak_mb, log)
    assert sorted(b for b, _, _ in log) == ["endless", "endless_line"]
    assert all(seconds < ENDLESS_S / 2 for _, seconds, _ in log), log  # the client stopped reading, long before the server
    assert run.code == 1, run.stderr  # nothing written: the fallback summary is not written without --accept-fallback
    assert session.read_bytes() == before
    assert "the summary passed 1,000,000 characters; refused" in run.stderr
    assert "a line of the reply passed 8 MiB; refused" in run.stderr


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_a_huge_error_body_is_read_in_part_shown_cut_and_the_timeout_holds(server_cls: Any, kind: str, tmp_path: Path) -> None:
    session = _session(tmp_path)
    before = session.read_bytes()
    with server_cls(default="huge_error") as srv:
        srv.huge_bytes = HUGE_ERROR_BYTES
        run = _measure(["compact", str(session), "--summarizer", kind, "--base-url", srv.base_url, "--model", "m1", "--yes",
                        "--timeout", "5"], _env(tmp_path / "home", kind), tmp_path, kill_after=45)
        requests = len(srv.requests)
    assert run.wall < 20, run.wall  # --timeout 5 (the SDK's import is outside it) and a bounded display
    assert run.peak_mb < PEAK_RSS_MB, run.peak_mb
    assert run.code == 2, run.stderr[-2000:]
    assert session.read_bytes() == before
    assert requests == 3  # retried, then the circuit opened
    err = " ".join(run.stderr.split())
    assert "retry 1/3 in" in err and "fallback summary_unavailable" in err
    if kind == "anthropic":  # (the openai SDK keeps a body that is not JSON, as a cut one is, out of its message)
        assert "EEEE… [" in err and "more characters cut]" in err
    assert len(run.stderr) < 20_000 and len(run.stdout) < 5_000  # the body is never dumped
