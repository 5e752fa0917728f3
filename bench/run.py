"""Engine benchmarks (not tests): index a ~1 GB session and compare with raw orjson parsing of the same file.

    python bench/run.py [--size 1GB] [--file PATH] [--repeat 3]

Each measurement runs in a fresh process (so peak RSS is its own), on a warm page cache (the baseline runs
first, once unmeasured, to warm it), `--repeat` times; the median is reported. Figures:

- baseline: `orjson.loads` of every line (the floor for anything that reads every entry);
- tail: `read_tail(path, 1000)` (the last 1000 entries with estimates), in seconds;
- index: `open_session(path)` + the leaf's context (every entry indexed, every estimate computed), and
  its ratio to the baseline; also with one worker process (`SESSION_INSPECTOR_WORKERS=1`);
- peak RSS of the index process, and its ratio to the file size;
- append: one line appended to the file, then `Session.refresh()` + `context()`: p50/p95 over 50 appends
  (the file is truncated back to its size afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"


def parse_size(text: str) -> int:
    text = text.strip().upper()
    for suffix, mult in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * mult)
    return int(text)


# -- measurements, each run in a child process ---------------------------------------------------------------


def measure(kind: str, path: str) -> dict:
    import resource

    t0 = time.perf_counter()
    result: dict = {}
    if kind == "baseline":
        import orjson

        n = 0
        with open(path, "rb") as f:
            for line in f:
                if line.strip():
                    orjson.loads(line)
                    n += 1
        result["lines"] = n
    elif kind == "tail":
        from inspector.tail import read_tail

        view = read_tail(path, 1000)
        result["entries"] = len(view.entries)
    elif kind in ("index", "index_serial"):
        from inspector.session import open_session

        session = open_session(path)
        ctx = session.context()
        result["entries"] = len(session.entries)
        result["context_messages"] = len(ctx.messages)
    elif kind == "append":
        result.update(measure_append(path))
        return result
    result["seconds"] = time.perf_counter() - t0
    result["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return result


def measure_append(path: str) -> dict:
    import orjson

    from inspector.formats.encode import encode_entry
    from inspector.session import open_session

    session = open_session(path)
    session.context()
    size = os.path.getsize(path)
    template = orjson.loads(session.raw_line(session.entries[-1]))
    times = []
    try:
        for i in range(50):
            obj = dict(template)
            obj["id"] = f"b{i:07x}"
            obj["parentId"] = session.entries[-1].id
            with open(path, "ab") as f:
                f.write(encode_entry(obj))
            t0 = time.perf_counter()
            res = session.refresh()
            session.context()
            times.append(time.perf_counter() - t0)
            assert len(res.new_entries) == 1 and not res.reset
    finally:
        os.truncate(path, size)
    times.sort()
    return {"p50_ms": 1000 * times[len(times) // 2], "p95_ms": 1000 * times[int(len(times) * 0.95) - 1], "appends": len(times)}


def run_child(kind: str, path: Path, env_extra: dict | None = None) -> dict:
    env = dict(os.environ, **(env_extra or {}))
    out = subprocess.run(
        [sys.executable, __file__, "--measure", kind, str(path)], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(out.stdout)


def median_of(kind: str, path: Path, repeat: int, env_extra: dict | None = None) -> dict:
    runs = [run_child(kind, path, env_extra) for _ in range(repeat)]
    best = sorted(runs, key=lambda r: r.get("seconds", 0))[len(runs) // 2]
    best["runs_seconds"] = [round(r.get("seconds", 0), 3) for r in runs]
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", default="1GB", help="size of the generated session (default 1GB)")
    ap.add_argument("--file", type=Path, default=None, help="benchmark this file instead of generating one")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--measure", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return 0

    path = args.file
    if path is None:
        OUT.mkdir(parents=True, exist_ok=True)
        path = OUT / f"bench-{args.size.lower()}.jsonl"
        if not path.exists():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, str(HERE / "generate.py"), str(path), "--size", args.size], check=True)
            print(f"generated {path} in {time.perf_counter() - t0:.1f} s")
    size = path.stat().st_size
    run_child("baseline", path)  # warm the page cache
    baseline = median_of("baseline", path, args.repeat)
    tail = median_of("tail", path, args.repeat)
    index = median_of("index", path, args.repeat)
    serial = median_of("index_serial", path, max(1, args.repeat - 2), {"SESSION_INSPECTOR_WORKERS": "1"})
    append = run_child("append", path)
    results = {
        "file": str(path),
        "size_bytes": size,
        "entries": index["entries"],
        "cpus": os.cpu_count(),
        "baseline_orjson_seconds": round(baseline["seconds"], 3),
        "tail_1000_seconds": round(tail["seconds"], 3),
        "index_seconds": round(index["seconds"], 3),
        "index_ratio_to_baseline": round(index["seconds"] / baseline["seconds"], 2),
        "index_serial_seconds": round(serial["seconds"], 3),
        "index_serial_ratio_to_baseline": round(serial["seconds"] / baseline["seconds"], 2),
        "index_peak_rss_bytes": index["peak_rss_bytes"],
        "index_peak_rss_ratio_to_file": round(index["peak_rss_bytes"] / size, 3),
        "baseline_peak_rss_bytes": baseline["peak_rss_bytes"],
        "append_p50_ms": round(append["p50_ms"], 2),
        "append_p95_ms": round(append["p95_ms"], 2),
        "runs": {"baseline": baseline["runs_seconds"], "tail": tail["runs_seconds"], "index": index["runs_seconds"]},
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2))
    mb = size / 1e6
    print(f"file            {path} ({mb:,.0f} MB, {results['entries']:,} entries, {results['cpus']} CPUs)")
    print(f"baseline        orjson.loads every line: {results['baseline_orjson_seconds']:.2f} s")
    print(f"tail usable     last 1000 entries with estimates: {results['tail_1000_seconds']:.3f} s   (target < 0.5 s)")
    print(
        f"full index      {results['index_seconds']:.2f} s = {results['index_ratio_to_baseline']:.2f}x baseline   (target <= 1.5x); "
        f"one process: {results['index_serial_seconds']:.2f} s = {results['index_serial_ratio_to_baseline']:.2f}x"
    )
    print(
        f"peak RSS        {results['index_peak_rss_bytes'] / 1e6:,.0f} MB = {results['index_peak_rss_ratio_to_file']:.3f}x file size   (target <= 0.25x)"
    )
    print(f"one append      p50 {results['append_p50_ms']:.2f} ms, p95 {results['append_p95_ms']:.2f} ms   (target < 10 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
