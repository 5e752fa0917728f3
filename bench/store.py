"""The SQLite store benchmark (issue 23): a generated 200,000-event store session, opened by the CLI vs read raw.

    python bench/store.py                     # 200,000 events (chat shape), median of 3, JSON on stdout
    python bench/store.py --events 20000 --repeat 1

The session comes from `bench/generate.py` (chat shape), written into a store with Python's sqlite3 and the real
schema (`tests/store_support.py`: the tables as `openclaw doctor --session-sqlite import` 2026.9.6 creates them, big
events as zstd frames), never through doctor. Figures, in the same run:

- baseline: every event read with sqlite3 and `orjson.loads` (a compressed one decompressed first), in a fresh process;
- open: `stats STORE --json --no-tiktoken --no-cache` in a fresh process with an empty cache dir (the mirror written
  from nothing, indexed while it is written: `session/store_index.py`); target <= 3x the baseline; and again on the
  mirror it left (the mirror only checked, the index built: `--no-cache`);
- live: p50/p95 of the time from an event's insert (another connection, committed) to its entry being in a
  session refreshed through the mirror (`sync_mirror` + `Session.refresh`), engine level; target p95 < 250 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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

OPEN_MAX = 3.0
LIVE_P95_MAX_MS = 250.0
KEY = "agent:main:main"

BASELINE = """
import sqlite3, sys, time, orjson, zstandard
t0 = time.perf_counter()
conn = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
conn.text_factory = bytes
z = zstandard.ZstdDecompressor()
n = 0
for text, blob in conn.execute("SELECT event_json, event_zstd FROM transcript_events WHERE session_id=? ORDER BY seq", (sys.argv[2],)):
    orjson.loads(text if text is not None else z.decompress(blob))
    n += 1
print(time.perf_counter() - t0, n)
"""


def build(events: int, data_dir: Path, seed: int) -> tuple[Path, str, int]:
    """The store (generated once per generator version and size), its session id and its byte size."""
    from store_support import build_store, jsonl_lines

    stem = data_dir / f"store-{events}-seed{seed}-{generate.generator_fingerprint()}"
    home = stem.with_suffix(".home")
    store = home / ".openclaw" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    meta = stem.with_suffix(".json")
    if not meta.exists() or not store.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        jsonl = stem.with_suffix(".jsonl")
        generate.generate(jsonl, entries=events - 1, seed=seed, shape="chat")
        lines = jsonl_lines(jsonl)
        if store.exists():
            store.unlink()
        _, ids = build_store(home, {KEY: lines}, journal="wal")
        meta.write_text(json.dumps({"session_id": ids[KEY], "events": len(lines), "jsonl_bytes": jsonl.stat().st_size}))
        jsonl.unlink()
    info = json.loads(meta.read_text())
    return store, info["session_id"], info["events"]


def _run(args: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(args, env=env, capture_output=True, timeout=1800)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.decode()[-2000:])
    return elapsed


def open_figures(store: Path, sid: str, repeat: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    base, cold, warm = [], [], []
    cmd = [sys.executable, "-m", "inspector", "stats", str(store), "--json", "--no-tiktoken", "--no-cache"]
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", BASELINE, str(store), sid], capture_output=True, text=True, check=True, env=env)
        base.append(float(out.stdout.split()[0]))
        with tempfile.TemporaryDirectory(prefix="store-bench-cache-") as cache:
            run_env = dict(env, SESSION_INSPECTOR_CACHE_DIR=cache)
            cold.append(_run(cmd, run_env))
            warm.append(_run(cmd, run_env))
    b, c, w = statistics.median(base), statistics.median(cold), statistics.median(warm)
    return {"baseline_seconds": round(b, 3), "open_seconds": round(c, 3), "open_ratio": round(c / b, 2),
            "mirror_present_seconds": round(w, 3), "mirror_present_ratio": round(w / b, 2), "target_ratio": OPEN_MAX,
            "ok": c / b <= OPEN_MAX}


def live_figures(store: Path, sid: str, samples: int) -> dict[str, Any]:
    from store_support import append_events, writer

    from inspector.read.store.connection import connect
    from inspector.read.store.mirror import sync_mirror
    from inspector.session.session import open_session

    with tempfile.TemporaryDirectory(prefix="store-bench-cache-") as cache:
        os.environ["SESSION_INSPECTOR_CACHE_DIR"] = cache
        reader = connect(store)
        mirror = sync_mirror(store, sid, conn=reader)
        session = open_session(mirror.path)
        last = session.entries[len(session.entries) - 1].id
        w = writer(store)
        times = []
        for i in range(samples):
            eid = f"bench-live-{os.getpid()}-{i}"
            line = json.dumps({"type": "message", "id": eid, "parentId": last, "timestamp": "2026-01-01T00:00:01.000Z",
                               "message": {"role": "user", "content": f"live {i}", "timestamp": 1}}, separators=(",", ":"))
            t0 = time.perf_counter()
            append_events(w, sid, [line.encode()])
            sync_mirror(store, sid, conn=reader)
            new = session.refresh().new_entries
            assert [e.id for e in new] == [eid], "the inserted event is in the refreshed session"
            times.append((time.perf_counter() - t0) * 1000)
            last = eid
        w.execute("BEGIN IMMEDIATE")
        w.execute("DELETE FROM transcript_events WHERE session_id=? AND seq>=?", (sid, len(session.entries) - samples + 1))
        w.execute("COMMIT")
        w.close()
        reader.close()
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    return {"samples": samples, "p50_ms": round(statistics.median(times), 2), "p95_ms": round(p95, 2),
            "target_p95_ms": LIVE_P95_MAX_MS, "ok": p95 < LIVE_P95_MAX_MS}


def run(events: int, repeat: int, seed: int, data_dir: Path, samples: int = 50) -> dict[str, Any]:
    """Every store figure (see the module's docstring)."""
    store, sid, count = build(events, data_dir, seed)
    return {"events": count, "store_bytes": store.stat().st_size, "open": open_figures(store, sid, repeat),
            "live": live_figures(store, sid, samples)}


def markdown(s: dict[str, Any]) -> str:
    """The store rows of the README's table."""
    o, live = s["open"], s["live"]
    mark = lambda ok: " ✓" if ok else " ✗"
    return "\n".join([
        f"| SQLite store, {s['events']:,} events ({s['store_bytes'] / 2**20:,.0f} MiB) | |",
        "|---|---|",
        f"| sqlite3 + orjson.loads of every event | {o['baseline_seconds']:.2f} s |",
        f"| `stats --json --no-tiktoken --no-cache`, mirror written | **{o['open_ratio']:.2f}×** ({o['open_seconds']:.2f} s){mark(o['ok'])} |",
        f"| the same, mirror present | {o['mirror_present_ratio']:.2f}× ({o['mirror_present_seconds']:.2f} s) |",
        f"| insert -> in the refreshed session, p50 / p95 | {live['p50_ms']:.1f} / **{live['p95_ms']:.1f} ms**{mark(live['ok'])} |",
    ])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--samples", type=int, default=50, help="inserts timed for the live figure")
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "session-inspector-bench")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args(argv)
    result = run(args.events, args.repeat, args.seed, args.data_dir, args.samples)
    print(markdown(result) if args.markdown else json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
