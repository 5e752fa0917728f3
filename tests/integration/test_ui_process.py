"""Issue 14, the TUI as a real process: without a terminal it says so and exits 2; SIGTERM gives the terminal back.

Each test starts `python -m inspector --demo` as a real subprocess on a pseudo-terminal (or without one), with a
timeout, and reads the bytes it writes: the escape sequences are the test.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import pytest
from conftest import ROOT as REPO
from conftest import bench_generator

ALT_SCREEN_ON = b"\x1b[?1049h"
ALT_SCREEN_OFF = b"\x1b[?1049l"
MOUSE_OFF = (b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l")


def env() -> dict[str, str]:
    return os.environ | {"PYTHONPATH": str(REPO), "TERM": "xterm-256color", "COLUMNS": "80", "LINES": "24"}


def pty_pair(rows: int = 24, cols: int = 80) -> tuple[int, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    return master, slave


def read_until(fd: int, wanted: list[bytes], timeout: float, proc: subprocess.Popen | None = None) -> bytes:
    """Read `fd` until every byte string of `wanted` was seen, the other side closed, or `timeout`."""
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if wanted and all(w in out for w in wanted):
            break
        ready, _, _ = select.select([fd], [], [], 0.1)
        if not ready:
            if proc is not None and proc.poll() is not None and not wanted:
                break
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        out += chunk
    return out


def test_stdout_not_a_terminal_prints_a_hint_and_exits_2(tmp_path):
    """`session-inspector --demo > file` (keys and stderr still on a terminal): one line on stderr, exit 2, no
    drawing, quickly (it used to spin until killed)."""
    master, slave = pty_pair()
    out_file = tmp_path / "out.txt"
    try:
        with open(out_file, "wb") as stdout:
            started = time.monotonic()
            proc = subprocess.run([sys.executable, "-m", "inspector", "--demo"], stdin=slave, stdout=stdout, stderr=slave,
                                  env=env(), cwd=tmp_path, timeout=60)
        elapsed = time.monotonic() - started
        said = read_until(master, [b"\n"], 5)
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 2
    line = said.decode("utf-8", "replace").strip()
    assert line.count("\n") == 0 and "not a terminal (stdout redirected)" in line
    assert "session-inspector stats PATH" in line and "run it in a terminal" in line
    assert ALT_SCREEN_ON not in said and out_file.read_bytes() == b""
    assert elapsed < 30


def test_no_terminal_at_all_exits_2_with_the_hint_on_stderr(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "inspector", str(tmp_path)], stdin=subprocess.DEVNULL,
                          capture_output=True, env=env(), cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "not a terminal (stdin, stdout, stderr redirected)" in err


def test_headless_commands_still_work_without_a_terminal(tmp_path):
    demo = REPO / "inspector" / "data" / "demo-session.jsonl"
    proc = subprocess.run([sys.executable, "-m", "inspector", "stats", str(demo), "--json", "--no-tiktoken"],
                          stdin=subprocess.DEVNULL, capture_output=True, env=env(), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith(b"{")


@pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminal test for Linux")
def test_sigterm_restores_the_terminal(tmp_path):
    """SIGTERM to the running TUI ends it as `q` does: alternate screen off, mouse tracking off, exit 143."""
    master, slave = pty_pair()
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "--demo"], stdin=slave, stdout=slave, stderr=slave,
                            env=env(), cwd=tmp_path, start_new_session=True)
    os.close(slave)
    try:
        shown = read_until(master, [ALT_SCREEN_ON, b"\x1b[?1003h", b"Context now"], 60, proc)
        assert ALT_SCREEN_ON in shown and b"Context now" in shown, shown[-400:]
        proc.send_signal(signal.SIGTERM)
        rest = read_until(master, [], 30, proc)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert ALT_SCREEN_OFF in rest, rest[-400:]
    for sequence in MOUSE_OFF:
        assert sequence in rest
    assert rest.rfind(ALT_SCREEN_OFF) > rest.rfind(ALT_SCREEN_ON)
    assert proc.returncode == 128 + signal.SIGTERM


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


TAKE_TERMINAL = ("import fcntl, runpy, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
                 "sys.argv = ['inspector', '--demo']; runpy.run_module('inspector', run_name='__main__')")
"""`python -m inspector --demo` that first makes its pseudo-terminal (stdin) its controlling one, as a terminal does."""


@pytest.mark.skipif(sys.platform != "linux", reason="pseudo-terminal test for Linux")
@pytest.mark.parametrize(("controlling", "busy"), [(True, False), (False, False), (True, True)],
                         ids=["controlling-terminal", "no-SIGHUP", "while-indexing"])
def test_the_app_does_not_survive_its_terminal(tmp_path, controlling, busy):
    """The terminal closed under the app (a tmux pane killed, a window closed): the process is gone within a few
    seconds, exit 129, and does not spin meanwhile (orphans used to spin at ~37% CPU for good). With the pty as
    controlling terminal the kernel sends SIGHUP + SIGCONT; without, only the hang-up of the tty itself tells.
    `while-indexing`: closed while a 16 MiB session is still being indexed in a worker thread (the case that hung)."""
    target = "--demo"
    if busy:
        target = str(tmp_path / "big.jsonl")
        bench_generator().generate(target, size_bytes=16 << 20, seed=0, shape="chat")
    master, slave = pty_pair()
    take = TAKE_TERMINAL.replace("'--demo'", repr(target))
    argv = ["-c", take] if controlling else ["-m", "inspector", target]
    proc = subprocess.Popen([sys.executable, *argv], stdin=slave, stdout=slave, stderr=slave,
                            env=env() | {"SESSION_INSPECTOR_CACHE_DIR": str(tmp_path / "cache")}, cwd=tmp_path,
                            start_new_session=True)
    os.close(slave)
    try:
        wanted = [ALT_SCREEN_ON, b"opening"] if busy else [ALT_SCREEN_ON, b"Context now"]
        shown = read_until(master, wanted, 60, proc)
        assert wanted[1] in shown, shown[-400:]
        cpu_before = _cpu_seconds(proc.pid)
        os.close(master)
        master = -1
        closed = time.monotonic()
        status = rusage = None
        while time.monotonic() - closed < 10:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.02)
        gone_after = time.monotonic() - closed
    finally:
        if master >= 0:
            os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert rusage is not None and pid == proc.pid, f"still running {gone_after:.1f} s after its terminal closed"
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu_after = rusage.ru_utime + rusage.ru_stime - cpu_before
    assert gone_after < 5, gone_after
    assert proc.returncode == 128 + signal.SIGHUP
    assert cpu_after < 0.5 * gone_after + 0.3 or busy, (cpu_after, gone_after)  # the indexer's thread runs till the end
