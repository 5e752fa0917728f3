"""The app in a detached tmux session, read back with `capture-pane` (`bench/ui_tmux.py`'s terminal).

A screen is compared *normalized*: what the app repaints on its own while nothing happens (the header's
"live · checked 12:34:56" clock, once a second; braille spinners) is masked, so that a key is not kept "unsettled" by
the clock, nor its time stretched to the clock's next tick.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable

POLL = 0.02
"""Seconds between two reads of the screen."""
QUIET = 0.4
"""A screen is settled once its normalized text did not change for this long."""

_CLOCK = re.compile(r"\b\d{2}:\d{2}:\d{2}\b")
_SPINNER = re.compile("[\u2800-\u28ff]")

Check = Callable[[str], bool]


def normalized(screen: str) -> str:
    """`screen` without what the app repaints by itself (clock, spinners)."""
    return _SPINNER.sub("*", _CLOCK.sub("hh:mm:ss", screen))


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


class Pane:
    """One app process in a detached tmux session of `cols` x `rows` (kept after the process ends: remain-on-exit)."""

    def __init__(self, name: str, cols: int, rows: int, argv: list[str], env: dict[str, str]) -> None:
        self.name = name
        exports = " ".join(f"{k}={quote(v)}" for k, v in env.items())
        command = f"exec env {exports} {' '.join(quote(a) for a in argv)}"
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(cols), "-y", str(rows), command], check=True)
        subprocess.run(["tmux", "set-option", "-t", name, "remain-on-exit", "on"], capture_output=True)
        self.started = time.perf_counter()
        self.pid = int(self._tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip())

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def send(self, key: str) -> float:
        """Press `key` (tmux's name for it); returns when it was sent."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
        return time.perf_counter()

    def settled(self, since: float, timeout: float = 120.0, until: Check | None = None) -> tuple[float, str, bool]:
        """(seconds from `since` to the last change of the normalized screen before it stayed the same for `QUIET`,
        that screen, whether `until(screen)` held). Without `until`, any settled screen; with it, the first settled
        screen where it holds (on timeout: NaN, the last screen, False)."""
        last, changed = normalized(self.screen()), time.perf_counter()
        while time.perf_counter() - since < timeout:
            time.sleep(POLL)
            now = normalized(self.screen())
            if now != last:
                last, changed = now, time.perf_counter()
            elif time.perf_counter() - changed >= QUIET and (until is None or until(now)):
                return changed - since, now, True
        return float("nan"), last, False

    def wait_for(self, predicate: Check, since: float, timeout: float = 120.0) -> float:
        """Seconds from `since` to the first screen where `predicate` holds (NaN on timeout)."""
        while time.perf_counter() - since < timeout:
            if predicate(self.screen()):
                return time.perf_counter() - since
            time.sleep(POLL)
        return float("nan")

    def alive(self) -> bool:
        """Whether the app's process still runs (a zombie or a reaped process does not)."""
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except (FileNotFoundError, ProcessLookupError, IndexError):
            return False

    def gone_after(self, since: float, timeout: float = 30.0) -> float:
        """Seconds from `since` until the process is gone (NaN if it still runs after `timeout`)."""
        while time.perf_counter() - since < timeout:
            if not self.alive():
                return time.perf_counter() - since
            time.sleep(POLL)
        return float("nan")

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of the app's process (all its threads) so far."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def cpu_share(self, seconds: float) -> float:
        """The share of one core the process used over the next `seconds` (a thread left running shows here)."""
        before, t0 = self.cpu_seconds(), time.perf_counter()
        time.sleep(seconds)
        return (self.cpu_seconds() - before) / (time.perf_counter() - t0)

    def peak_rss(self) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
