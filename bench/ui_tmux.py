"""UI figures per shape in a real terminal: the app driven in tmux, read back with `capture-pane` (issue 27).

    python bench/ui_tmux.py                                  # chat, tools, thinking, cjk at 64 MiB + a store session
    python bench/ui_tmux.py --shapes chat --size 256MB --markdown
    python bench/ui_tmux.py --shapes thinking --store-events 0 --cols 120 --rows 36

Per shape (`bench/generate.py --shape`, generated once into `--data-dir`; the store session: `bench/store.py`'s), a
fresh `session-inspector FILE` (`python -m inspector`, an empty index cache of its own) runs in a detached tmux
session of `--cols` x `--rows`. The screen is polled every `POLL` seconds; a screen is *settled* once it did not
change for `QUIET` seconds, and a time is the one of its last change (so the quiet wait is not counted):

- first screen: start -> the first screen showing the transcript's column header (`ctx`);
- whole-file figures: start -> the screen settled with the indexing done (no "indexing" / "reading" left);
- every key of the help screen (`KEYS`, pressed once the previous one settled, Esc closing what a key opened):
  send -> settled;
- Esc during each background job (the forecast `C`, the estimator `e`, the timeline `l`): the job's key, `ESC_AFTER`
  seconds later Esc, Esc -> settled;
- append to screen: a user line appended to the file -> its text on screen (the file is truncated back after);
- peak RSS after the key tour: `VmHWM` of the app's process (`/proc/PID/status`), and its ratio to the file.

Results go to `bench/out/ui_tmux.json`; `--markdown` prints the README table (one column per shape).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT), str(ROOT / "tests")]

import generate

POLL = 0.02
QUIET = 0.4
ESC_AFTER = 0.15
KEYS = (
    "C", "Escape", "o", "o", "b", "u", "U", "c", "w", "Escape", "s", "s", "m", "Escape", "/", "Escape",
    "e", "e", "e", "e", "?", "Escape", "p", "Escape", "l", "Escape", "R", "Escape", "d", "Escape",
    "X", "Escape", "f", "Escape", "n", "N", "z", "z", "a", "r", "t", "Escape",
    "Down", "Up", "PageDown", "PageUp", "End", "Home", "Enter", "Escape",
)
"""The keys of `tests/ui/test_ui_responsive.py`'s tour, as tmux names them."""
JOBS = ("C", "e", "l")
SHAPES = ("chat", "tools", "thinking", "cjk")
BUSY_WORDS = ("indexing", "reading", "computing")


class Pane:
    """The app in a detached tmux session."""

    def __init__(self, name: str, cols: int, rows: int, argv: list[str], env: dict[str, str]) -> None:
        self.name = name
        exports = " ".join(f"{k}={_quote(v)}" for k, v in env.items())
        command = f"exec env {exports} {' '.join(_quote(a) for a in argv)}"
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(cols), "-y", str(rows), command], check=True)
        subprocess.run(["tmux", "set-option", "-t", name, "remain-on-exit", "on"], capture_output=True)
        self.started = time.perf_counter()
        self.pid = int(self._tmux("display-message", "-p", "-t", name, "#{pane_pid}").strip())

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def send(self, key: str) -> float:
        subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
        return time.perf_counter()

    def settled(self, since: float, timeout: float = 120.0, until: Any = None) -> tuple[float, str]:
        """Seconds from `since` to the last change before the screen stayed the same for `QUIET` (and `until(text)`
        holds, when given), and that screen."""
        last, changed = self.screen(), time.perf_counter()
        while time.perf_counter() - since < timeout:
            time.sleep(POLL)
            now = self.screen()
            if now != last:
                last, changed = now, time.perf_counter()
            elif time.perf_counter() - changed >= QUIET and (until is None or until(now)):
                return changed - since, now
        return float("nan"), last

    def wait_for(self, predicate: Any, since: float, timeout: float = 120.0) -> float:
        while time.perf_counter() - since < timeout:
            if predicate(self.screen()):
                return time.perf_counter() - since
            time.sleep(POLL)
        return float("nan")

    def peak_rss(self) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _idle(text: str) -> bool:
    low = text.lower()
    return " ctx " in low and not any(w in low for w in BUSY_WORDS)


def measure(label: str, target: list[str], size: int, cols: int, rows: int, cache: Path, append_to: Path | None) -> dict[str, Any]:
    """Every figure of one session (`target`: the app's arguments)."""
    shutil.rmtree(cache, ignore_errors=True)
    env = {"SESSION_INSPECTOR_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
    pane = Pane(f"si-bench-{os.getpid()}-{label}", cols, rows, [sys.executable, "-m", "inspector", *target], env)
    out: dict[str, Any] = {"shape": label, "bytes": size, "terminal": f"{cols}x{rows}"}
    try:
        out["first_screen"] = pane.wait_for(lambda s: " ctx " in s.lower(), pane.started)
        out["whole_file"], _ = pane.settled(pane.started, until=_idle)
        keys: dict[str, float] = {}
        for i, key in enumerate(KEYS):
            try:
                took, _ = pane.settled(pane.send(key), timeout=60)
            except subprocess.CalledProcessError:
                raise RuntimeError(f"the app ended after key {i} {key!r} of the tour") from None
            if "Pane is dead" in pane.screen():
                raise RuntimeError(f"the app ended after key {i} {key!r} of the tour:\n{pane.screen()}")
            keys[key] = max(keys.get(key, 0.0), took)
        out["keys"] = keys
        escs: dict[str, float] = {}
        for job in JOBS:
            pane.send(job)
            time.sleep(ESC_AFTER)
            escs[job], _ = pane.settled(pane.send("Escape"), timeout=60)
            if job == "e":  # back to the first estimator
                for _ in range(3):
                    pane.settled(pane.send("e"), timeout=60)
        out["esc_during"] = escs
        if append_to is not None:
            out["append"] = _append(pane, append_to)
        out["peak_rss"] = pane.peak_rss()
        out["peak_rss_ratio"] = out["peak_rss"] / size
    finally:
        subprocess.run(["tmux", "send-keys", "-t", pane.name, "q"], capture_output=True)
        time.sleep(0.5)
        pane.close()
    return out


def _append(pane: Pane, path: Path) -> float:
    """Seconds from a user line appended to `path` to its text on screen."""
    size = path.stat().st_size
    with path.open("rb") as f:
        f.seek(max(0, size - 65536))
        last = json.loads(f.read().splitlines()[-1])
    marker = f"appended-{os.getpid()}"
    line = {"type": "message", "id": "bench0001", "parentId": last.get("id"), "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": marker, "timestamp": 1767225600000}}
    pane.send("End")
    pane.settled(time.perf_counter(), timeout=30)
    try:
        with path.open("a") as f:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
        return pane.wait_for(lambda s: marker in s, time.perf_counter(), timeout=30)
    finally:
        os.truncate(path, size)


def _data(args: argparse.Namespace) -> list[tuple[str, list[str], int, Path | None]]:
    targets = []
    for shape in args.shapes.split(","):
        if not shape:
            continue
        path = args.data_dir / f"ui-{shape}-{args.size}-seed0-{generate.generator_fingerprint()}.jsonl"
        if not path.exists():
            args.data_dir.mkdir(parents=True, exist_ok=True)
            generate.generate(path.with_suffix(".tmp"), size_bytes=args.size, seed=0, shape=shape)
            path.with_suffix(".tmp").rename(path)
        targets.append((shape, [str(path)], path.stat().st_size, path))
    if args.store_events:
        import store

        db, sid, _events = store.build(args.store_events, args.data_dir, 0)
        targets.append((f"store ({args.store_events:,} events)", [str(db), "--session", sid], db.stat().st_size, None))
    return targets


def markdown(results: list[dict[str, Any]], header: str) -> str:
    def s(v: float) -> str:
        return "—" if v != v else (f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s")

    heads = [f"{r['shape']}: {r['bytes'] / 2**20:.0f} MiB" for r in results]
    rows = ["| figure | " + " | ".join(heads) + " |", "|---|" + "---|" * len(results)]
    rows.append("| first screen | " + " | ".join(s(r["first_screen"]) for r in results) + " |")
    rows.append("| whole-file figures | " + " | ".join(s(r["whole_file"]) for r in results) + " |")
    for key in dict.fromkeys(KEYS):
        rows.append(f"| key `{key}` to settled (slowest press) | " + " | ".join(s(r["keys"][key]) for r in results) + " |")
    for job in JOBS:
        rows.append(f"| Esc during `{job}` to settled | " + " | ".join(s(r["esc_during"][job]) for r in results) + " |")
    rows.append("| append a line to shown | " + " | ".join(s(r["append"]) if "append" in r else "—" for r in results) + " |")
    rows.append("| peak RSS after the key tour (× file) | "
                + " | ".join(f"{r['peak_rss'] / 1e6:.0f} MB ({r['peak_rss_ratio']:.2f}×)" for r in results) + " |")
    return header + "\n\n" + "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--size", type=generate.parse_size, default=64 << 20)
    parser.add_argument("--store-events", type=int, default=20_000, help="events of the store session (0: none)")
    parser.add_argument("--cols", type=int, default=160)
    parser.add_argument("--rows", type=int, default=48)
    parser.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "session-inspector-bench")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "ui_tmux.json")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    results = []
    with tempfile.TemporaryDirectory() as scratch:
        for label, target, size, path in _data(args):
            print(f"{label}: {size / 2**20:.0f} MiB", file=sys.stderr, flush=True)
            results.append(measure(label.split()[0], target, size, args.cols, args.rows, Path(scratch) / "cache", path))
    load = os.getloadavg()
    header = (f"Measured {time.strftime('%Y-%m-%d %H:%M %Z')} on {os.cpu_count()} CPUs, load average {load[0]:.1f} / {load[1]:.1f} / "
              f"{load[2]:.1f} (1 / 5 / 15 min), terminal {args.cols}x{args.rows}: `python bench/ui_tmux.py {' '.join(sys.argv[1:])}`")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"header": header, "results": results}, indent=1))
    if args.markdown:
        print(markdown(results, header))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
