"""`session-inspector compact` as a user sees it (issue 24, part 6): what is printed once and only when true.

Ctrl+C ends a run with exit 1 and a line; the breaker line counts the requests this run made and is printed once;
the undo hint names the file; `--json` has `"error": null` on success; an interactive run does not say "dry run"
before it asks; the app's temp copy of the demo does not outlive the process.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT
from llm_servers import OpenAIServer

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    p = tmp_path / "demo dir" / DEMO.name
    p.parent.mkdir()
    shutil.copy(DEMO, p)
    return p


def _env(state: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SESSION_INSPECTOR_STATE_DIR": str(state)}
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        env.pop(k, None)
    return env


def cli(*args: str, state: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", "compact", *args], capture_output=True, text=True, timeout=120,
                          env=_env(state), stdin=subprocess.DEVNULL, cwd=ROOT)


def test_ctrl_c_exits_1_with_a_line_and_writes_nothing(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    with OpenAIServer(default="hang") as srv:
        proc = subprocess.Popen([sys.executable, "-m", "inspector", "compact", str(demo), "--summarizer", "openai", "--base-url",
                                 srv.base_url, "--model", "m1", "--yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=_env(tmp_path / "s"), stdin=subprocess.DEVNULL, cwd=ROOT)
        deadline = time.monotonic() + 60
        while not srv.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert srv.requests, "the run never reached the server"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert "cancelled (Ctrl+C): nothing written" in err
    assert demo.read_bytes() == before


def test_breaker_line_counts_the_requests_and_is_printed_once(demo: Path, tmp_path: Path) -> None:
    with OpenAIServer(default="http500") as srv:
        out = cli(str(demo), "--summarizer", "openai", "--base-url", srv.base_url, "--model", "m1", "--yes", state=tmp_path / "s")
        made = len(srv.requests)
    assert out.returncode == 2, out.stderr
    assert made == 3
    assert "no request was made" not in out.stdout + out.stderr
    assert "3 summary requests were made in this run" in out.stdout
    assert (out.stdout + out.stderr).count("nothing written") == 1 and "failed at" not in out.stderr, (out.stdout, out.stderr)
    again = cli(str(demo), "--summarizer", "openai", "--base-url", "http://127.0.0.1:9", "--model", "m1", "--yes", state=tmp_path / "s")
    assert "no request was made" in again.stdout  # the circuit is still open: this run made none


def test_undo_hint_names_the_file_and_json_error_is_null(demo: Path, tmp_path: Path) -> None:
    out = cli(str(demo), "--yes", state=tmp_path / "s")
    assert out.returncode == 0, out.stderr
    assert f"undo with: session-inspector undo {shlex.quote(str(demo.resolve()))}" in out.stdout
    assert "undo PATH" not in out.stdout
    assert "committed" not in out.stderr  # the result is printed once, on stdout
    undo = subprocess.run([sys.executable, "-m", "inspector", "undo", str(demo)], capture_output=True, text=True, env=_env(tmp_path / "s"),
                          cwd=ROOT, timeout=120)
    assert undo.returncode == 0, undo.stderr
    res = json.loads(cli(str(demo), "--dry-run", "--json", state=tmp_path / "s").stdout)
    assert res["status"] == "dry_run" and res["error"] is None
    done = json.loads(cli(str(demo), "--yes", "--json", state=tmp_path / "s").stdout)
    assert done["status"] == "committed" and done["error"] is None


def _read_until(fd: int, needle: bytes, timeout: float) -> bytes:
    got = b""
    deadline = time.monotonic() + timeout
    while needle not in got and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    return got


def test_an_interactive_run_does_not_say_dry_run_before_asking(demo: Path, tmp_path: Path) -> None:
    before = demo.read_bytes()
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "compact", str(demo)], stdin=slave, stderr=slave, stdout=subprocess.PIPE,
                            env={**_env(tmp_path / "s"), "COLUMNS": "200"}, cwd=ROOT, close_fds=True)
    os.close(slave)
    try:
        shown = _read_until(master, b"Write it?", 120)
        assert b"Write it?" in shown, shown[-2000:]
        os.write(master, b"n\n")
        rest = _read_until(master, b"not written", 30)
        proc.wait(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    assert b"dry run" not in shown.lower() and b"nothing written" not in shown.lower()
    assert b"not written" in rest and proc.returncode == 1
    assert demo.read_bytes() == before


def test_the_apps_temp_copy_is_removed_at_exit(tmp_path: Path) -> None:
    code = ("from pathlib import Path\nfrom widgets.compaction.run_screen import writable_target\n"
            f"copy, note = writable_target(Path({str(DEMO)!r}), Path({str(DEMO)!r}))\nprint(copy)\nassert copy.exists() and note\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    copy = Path(out.stdout.strip())
    assert copy.name == DEMO.name and not copy.parent.exists()
