"""UI figures per shape in a real terminal: the app driven in tmux, read back with `capture-pane` (issue 27).

    python bench/ui_tmux.py                                   # every shape at its default size + a store session
    python bench/ui_tmux.py --shapes chat --size 256MB --markdown
    python bench/ui_tmux.py --size chat=64MB,tools=256MB --store-events 0 --forecast-file none
    make bench UI_BENCH_ARGS='--size 16MB --markdown'         # after the CLI bench (`bench/run.py`)

Per shape (`bench/generate.py --shape`, the same files as `bench/run.py`'s, generated once into `--data-dir`; the store
session: `bench/store.py`'s), a fresh `python -m inspector FILE` (an empty index cache of its own) runs in a detached
tmux session of `--cols` x `--rows`. A screen is *settled* once it did not change for `ui_pane.QUIET` seconds (the
app's own clock and spinners masked: `ui_pane.normalized`); a time is the one of its last change (the quiet wait is
not counted), and a key counts only once the screen shows what it opens (`OPENS`; a press whose screen never does is
listed under "screen checks failed"):

- first screen: start -> the transcript's rows on screen (the "opening …" line gone);
- whole-file figures: start -> settled with the indexing done (no "opening …", "indexing …", "loading…", "computing…" left);
- every key of the help screen (`KEYS`, the tour of `tests/ui/test_ui_responsive.py`): send -> settled and shown;
  the forecast `C` is the first: key -> the forecast shown (its triggers drawn);
- Esc during each background job (`JOBS`: every `run_worker` / `@work` a key starts): the job's keys, Esc
  `ESC_AFTER` seconds after its screen is up (after the key for the estimator and the search, which open none),
  Esc -> settled on the transcript; then the app's CPU between the key and Esc (did the job still run) and over
  the next second (a job's thread that was not stopped shows as a busy core);
- append to screen: a user line appended to the file -> its text on screen (the file is truncated back after);
- peak RSS after the tour: `VmHWM` of the app's process, and its ratio to the file;
- `q` right after a job started (`C`): q -> the process gone.

With `--forecast-file` (default: `bench/run.py`'s 1 GiB tools session, when it was generated), the issue's target "the
forecast of a 1 GB session within the cold-index time": the app opened on it (start -> whole-file figures), `C` ->
the forecast shown, against `bench/measure.py index` (the engine's cold index) of the same file in the same run.

Results go to `bench/out/ui_tmux.json`; `--markdown` prints the README table (`bench/ui_table.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
from ui_pane import Check, Pane, normalized
from ui_table import markdown

ESC_AFTER = 0.15
CPU_WINDOW = 1.0
SHAPES = ("chat", "tools", "thinking", "cjk")
DEFAULT_SIZES = {"chat": "64MB", "tools": "64MB", "thinking": "64MB", "cjk": "64MB"}
DEFAULT_STORE_EVENTS = 20_000
KEYS = (
    "C", "Escape", "o", "o", "b", "u", "U", "c", "w", "Escape", "s", "s", "m", "Escape", "/", "-l rate", "Enter", "Escape",
    "e", "e", "e", "e", "?", "Escape", "p", "Escape", "l", "Escape", "R", "Escape", "d", "Escape",
    "X", "Escape", "f", "Escape", "n", "N", "z", "z", "a", "r", "t", "Escape",
    "Down", "Up", "PageDown", "PageUp", "End", "Home", "Enter", "Escape",
)
"""The keys of `tests/ui/test_ui_responsive.py`'s tour, as tmux names them, with a query typed in the search (`-l
TEXT`: TEXT typed), so that `n` / `N` move between matches instead of opening the search bar (where the keys after
them would be typed)."""
OPENS = {
    "C": ("Compaction forecast", "Triggers"), "?": ("Each transcript row",), "p": ("Pruning preview", "saved"),
    "l": ("Timeline ·", "Calls "), "R": ("Timeline ·", "Calls "), "d": ("Diagnostics ·",),
    "X": ("summarizer ", "Plan"), "f": ("Show only",),
}
"""What each key's screen shows once it is there (every string on the screen); the first names the screen."""
JOBS = (
    ("forecast", (), "C"), ("estimator (tiktoken)", ("e",), "e"), ("timeline", (), "l"), ("repeats", (), "R"),
    ("pruning preview", (), "p"), ("compaction plan", (), "X"), ("search (no match)", ("/", "-l zzqx-no-match"), "Enter"),
)
"""Every background job a key starts: (name, keys sent first, each settled; the key that starts the job)."""
_HEADER = re.compile(r"^\s+(ctx|line) role", re.MULTILINE)
_ESTIMATOR = re.compile(r"sizes: (.+?)\s{2,}")
_SEARCH_BAR = re.compile(r"^▊  \S", re.MULTILINE)
"""The search bar's input (its placeholder "search messages", or the query it keeps)."""
_OPENING = re.compile(r"^ opening \S", re.MULTILINE)
_BUSY = re.compile(r"loading…|computing…|computing the |indexing \S+: \d+%|^ opening \S", re.MULTILINE)
"""What the app shows while it still reads or computes (the header's "opening …", the gauge's "loading…", the
indexing progress, the panels' "computing…")."""


def transcript_shown(screen: str) -> bool:
    """The inspector's transcript with nothing opened over it."""
    return (bool(_HEADER.search(screen)) and not _SEARCH_BAR.search(screen)
            and not any(marks[0] in screen for marks in OPENS.values()))


def first_screen(screen: str) -> bool:
    """The transcript's rows (the column header, the opening line gone)."""
    return bool(_HEADER.search(screen)) and not _OPENING.search(screen)


def idle(screen: str) -> bool:
    """The transcript with the whole-file figures in (nothing loading, indexing, computing)."""
    return bool(_HEADER.search(screen)) and not _BUSY.search(screen)


def shows(*marks: str) -> Check:
    """Whether a screen shows every one of `marks`."""
    return lambda screen: all(m in screen for m in marks)


def check_for(key: str, before: str) -> Check | None:
    """What the screen must show once `key` took effect (None: nothing checkable, e.g. a cursor move)."""
    if key in OPENS:
        return shows(*OPENS[key])
    if key == "Escape":
        return lambda s: transcript_shown(s) or (not any(m[0] in s for m in OPENS.values()) and s != before)
    if key == "/":
        return lambda s: bool(_SEARCH_BAR.search(s))
    if key == "e":
        was = _ESTIMATOR.search(before)
        return lambda s: (m := _ESTIMATOR.search(s)) is not None and (was is None or m.group(1) != was.group(1))
    return None


def press(pane: Pane, key: str, timeout: float = 60.0) -> tuple[float, bool]:
    """Send `key` (`-l TEXT`: type TEXT); seconds to the settled screen that shows what it opens, and whether it did."""
    before = normalized(pane.screen())
    check = None if key.startswith("-l ") else check_for(key, before)
    if key.startswith("-l "):
        subprocess.run(["tmux", "send-keys", "-t", pane.name, "-l", key[3:]], check=True)
        sent = time.perf_counter()
    else:
        sent = pane.send(key)
    took, _screen, shown = pane.settled(sent, timeout=timeout, until=check)
    if not pane.alive():
        raise RuntimeError(f"the app ended after key {key!r}:\n{pane.screen()}")
    return took, shown


def tour(pane: Pane, keys: dict[str, float], failed: list[str]) -> None:
    """Every key of `KEYS` once the previous one settled: the slowest press per key into `keys`, the keys whose
    screen never showed what they open into `failed` (filled as it goes: a crash leaves what was measured)."""
    for i, key in enumerate(KEYS):
        took, shown = press(pane, key)
        if not shown:
            failed.append(f"{i}:{key}")
        keys[key] = max(keys.get(key, 0.0), took) if took == took else float("nan")


def esc_during_jobs(pane: Pane, failed: list[str]) -> dict[str, dict[str, float]]:
    """Esc `ESC_AFTER` seconds into each job: Esc -> the transcript settled, the CPU before Esc and after (a key
    before a job whose screen never showed what it opens goes to `failed`)."""
    out: dict[str, dict[str, float]] = {}
    for name, first, start in JOBS:
        for key in first:
            if not press(pane, key, timeout=20)[1]:
                failed.append(f"{name}:{key}")
        cpu0 = pane.cpu_seconds()
        started = pane.send(start)
        if start in OPENS:  # Esc once the job's screen is up (and its work under way), not before the key took
            pane.wait_for(shows(OPENS[start][0]), started, timeout=30)
        time.sleep(ESC_AFTER)
        cpu1 = pane.cpu_seconds()
        esc = pane.send("Escape")
        took, _screen, shown = pane.settled(esc, timeout=60, until=transcript_shown)
        out[name] = {"esc": took, "shown": float(shown), "cpu_before_esc": (cpu1 - cpu0) / (esc - started),
                     "cpu_after": pane.cpu_share(CPU_WINDOW)}
        if name.startswith("estimator"):  # back to the first estimator (pi chars/4)
            for key in ("e", "e"):
                if not press(pane, key, timeout=20)[1]:
                    failed.append(f"{name}:{key} after")
    return out


def q_during_job(pane: Pane, key: str = "C") -> dict[str, float]:
    """`key`, `ESC_AFTER` seconds later q: q -> the process gone."""
    pane.send(key)
    time.sleep(ESC_AFTER)
    return {"key": key, "exit": pane.gone_after(pane.send("q"))}  # type: ignore[dict-item]


def _append(pane: Pane, path: Path) -> float:
    """Seconds from a user line appended to `path` to its text on screen."""
    size = path.stat().st_size
    with path.open("rb") as f:
        f.seek(max(0, size - 65536))
        last = json.loads(f.read().splitlines()[-1])
    marker = f"appended-{os.getpid()}"
    line = {"type": "message", "id": "bench0001", "parentId": last.get("id"), "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": marker, "timestamp": 1767225600000}}
    press(pane, "End")
    try:
        with path.open("a") as f:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
        return pane.wait_for(lambda s: marker in s, time.perf_counter(), timeout=30)
    finally:
        os.truncate(path, size)


def start(label: str, target: list[str], cols: int, rows: int, cache: Path) -> Pane:
    shutil.rmtree(cache, ignore_errors=True)
    env = {"SESSION_INSPECTOR_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}
    return Pane(f"si-bench-{os.getpid()}-{label}", cols, rows, [sys.executable, "-m", "inspector", *target], env)


def measure(label: str, target: list[str], size: int, cols: int, rows: int, cache: Path, append_to: Path | None) -> dict[str, Any]:
    """Every figure of one session (`target`: the app's arguments)."""
    pane = start(label, target, cols, rows, cache)
    out: dict[str, Any] = {"shape": label, "bytes": size, "terminal": f"{cols}x{rows}"}
    phases: dict[str, float] = {}
    out["bench_seconds"] = phases
    try:
        out["first_screen"] = pane.wait_for(first_screen, pane.started)
        out["whole_file"], _, _ = pane.settled(pane.started, until=idle, timeout=600)
        phases["open"] = time.perf_counter() - pane.started
        t0 = time.perf_counter()
        out["keys"], out["checks_failed"] = {}, []
        tour(pane, out["keys"], out["checks_failed"])
        phases["tour"], t0 = time.perf_counter() - t0, time.perf_counter()
        out["esc_during"] = esc_during_jobs(pane, out["checks_failed"])
        phases["jobs"], t0 = time.perf_counter() - t0, time.perf_counter()
        if append_to is not None:
            out["append"] = _append(pane, append_to)
        out["peak_rss"] = pane.peak_rss()
        out["peak_rss_ratio"] = out["peak_rss"] / size
        out["q_during_job"] = q_during_job(pane)
        phases["append_q"] = time.perf_counter() - t0
        print(f"ui bench: {label}: " + ", ".join(f"{k} {v:.0f} s" for k, v in phases.items()), file=sys.stderr, flush=True)
    except RuntimeError as crash:  # the app ended under a key: say so (its last words), measure the next session
        lines = [line.strip(" │╰╯─") for line in str(crash).splitlines() if line.strip(" │╰╯─")]
        out["crashed"] = " / ".join([lines[0], *[line for line in lines if "Error" in line][-1:]])
        print(f"ui bench: {label}: {out['crashed']}", file=sys.stderr, flush=True)
    finally:
        if pane.alive():
            subprocess.run(["tmux", "send-keys", "-t", pane.name, "q"], capture_output=True)
            pane.gone_after(time.perf_counter(), timeout=5)
        pane.close()
    return out


def forecast(path: Path, cols: int, rows: int, cache: Path) -> dict[str, Any]:
    """The app on `path`: start -> whole-file figures, `C` -> the forecast shown; the engine's cold index of the
    same file (`bench/measure.py index`, a fresh process) in the same run."""
    out: dict[str, Any] = {"file": path.name, "bytes": path.stat().st_size}
    proc = subprocess.run([sys.executable, str(HERE / "measure.py"), "index", str(path)], capture_output=True, text=True,
                          env=os.environ | {"PYTHONPATH": str(ROOT)}, check=True)
    out["cold_index"] = json.loads(proc.stdout)["seconds"]
    pane = start("forecast", [str(path)], cols, rows, cache)
    try:
        out["whole_file"], _, _ = pane.settled(pane.started, until=idle, timeout=900)
        out["forecast"], _ = press(pane, "C", timeout=900)
        out["peak_rss"] = pane.peak_rss()
    finally:
        subprocess.run(["tmux", "send-keys", "-t", pane.name, "q"], capture_output=True)
        pane.gone_after(time.perf_counter(), timeout=10)
        pane.close()
    out["forecast_over_cold_index"] = out["forecast"] / out["cold_index"]
    return out


def sizes(spec: str | None, shapes: list[str]) -> dict[str, int]:
    """`--size 64MB` (every shape) or `--size chat=64MB,tools=256MB` (the others at their default)."""
    out = {s: generate.parse_size(DEFAULT_SIZES[s]) for s in shapes}
    for part in (spec or "").split(","):
        if "=" in part:
            shape, value = (p.strip() for p in part.split("=", 1))
            if shape not in out:
                raise SystemExit(f"--size: {shape!r} is not among --shapes")
            out[shape] = generate.parse_size(value)
        elif part.strip():
            out = dict.fromkeys(out, generate.parse_size(part))
    return out


def sessions(args: argparse.Namespace) -> list[tuple[str, list[str], int, Path | None]]:
    """(label, the app's arguments, bytes, the file to append to) of every session to measure."""
    import run

    shapes = [s for s in args.shapes.split(",") if s]
    targets: list[tuple[str, list[str], int, Path | None]] = []
    for shape, size in sizes(args.size, shapes).items():
        bench = run.prepare(shape, size, 0, args.data_dir)
        targets.append((shape, [str(bench.path)], bench.size, bench.path))
    if args.store_events:
        import store

        db, sid, events = store.build(args.store_events, args.data_dir, 0)
        targets.append((f"store ({events:,} events)", [str(db), "--session", sid], db.stat().st_size, None))
    return targets


def forecast_file(args: argparse.Namespace) -> Path | None:
    if args.forecast_file == "none":
        return None
    if args.forecast_file:
        return Path(args.forecast_file)
    path = args.data_dir / f"tools-{1 << 30}-seed0-{generate.generator_fingerprint()}.jsonl"
    return path if path.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--size", default=None, help="every shape (16MB), or per shape (chat=64MB,tools=256MB); "
                        f"default {','.join(f'{k}={v}' for k, v in DEFAULT_SIZES.items())}")
    parser.add_argument("--store-events", type=int, default=DEFAULT_STORE_EVENTS, help="events of the store session (0: none)")
    parser.add_argument("--forecast-file", default=None, help="the 1 GiB session of the forecast figure (none: skip; "
                        "default: bench/run.py's tools 1 GiB session, when generated)")
    parser.add_argument("--cols", type=int, default=160)
    parser.add_argument("--rows", type=int, default=48)
    parser.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "session-inspector-bench")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "ui_tmux.json")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("tmux is not installed: the UI bench is skipped", file=sys.stderr)
        return 2
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    big: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory() as scratch:
        for label, target, size, path in sessions(args):
            print(f"ui bench: {label}: {size / 2**20:.0f} MiB", file=sys.stderr, flush=True)
            results.append(measure(label.split()[0], target, size, args.cols, args.rows, Path(scratch) / "cache", path))
        path = forecast_file(args)
        if path is not None:
            print(f"ui bench: forecast of {path.name}", file=sys.stderr, flush=True)
            big = forecast(path, args.cols, args.rows, Path(scratch) / "cache")
    load = os.getloadavg()
    header = (f"Measured {time.strftime('%Y-%m-%d %H:%M %Z')} on {os.cpu_count()} CPUs, load average {load[0]:.1f} / "
              f"{load[1]:.1f} / {load[2]:.1f} (1 / 5 / 15 min), terminal {args.cols}x{args.rows}, "
              f"{time.perf_counter() - started:.0f} s in all: `python bench/ui_tmux.py {' '.join(sys.argv[1:] if argv is None else argv)}`")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"header": header, "results": results, "forecast": big}, indent=1))
    if args.markdown:
        print(markdown(results, big, header, KEYS, [name for name, _, _ in JOBS]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
