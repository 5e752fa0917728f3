"""Memory per indexed entry and the cost of shipping records between processes.

    python bench/entry_memory.py FILE            # e.g. a file from `bench/generate.py --entries 50000`

Each figure is measured in a fresh process (`--measure KIND FILE`), serially (`SESSION_INSPECTOR_WORKERS=1`), so
the numbers do not depend on what ran before:

* `traced_bytes_per_entry`: everything `open_session` keeps alive (tracemalloc: entries, tree, interned strings,
  diagnostics), divided by the number of entries;
* `entry_bytes_per_entry`: the `Entry` objects alone, shallow (`sys.getsizeof` of the object, its packed `nums` and
  packed usage), divided by the number of entries;
* `record_pickle_bytes`, `record_dumps_us`, `record_loads_us`: per record of the first 16 MiB of the file, what a
  worker process sends back to the parent (`extract_range`): pickled size, pickling time, and unpickling time
  including the rebuilding of the named records (`from_wire`); CPU time (`time.process_time`, best of 20: the machine
  may be shared), so the figures compare across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from inspector.read.estimates import reader_estimates

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # PYTHONPATH wins: compare two checkouts with the same script


def measure(kind: str, path: str) -> dict:
    """One figure, in this process."""
    os.environ["SESSION_INSPECTOR_WORKERS"] = "1"
    if kind == "memory":
        from inspector.session.session import open_session

        tracemalloc.start()
        session = open_session(path)
        traced, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        entries = session.entries
        try:
            shallow: float | None = round(sum(
                sys.getsizeof(e) + sys.getsizeof(e.nums) + (sys.getsizeof(e.usage_packed) if e.usage_packed is not None else 0)
                for e in entries
            ) / len(entries), 1)
        except AttributeError:  # an index without one object per entry (packed arrays): only the traced figure applies
            shallow = None
        return {
            "entries": len(entries),
            "traced_bytes_per_entry": round(traced / len(entries), 1),
            "entry_bytes_per_entry": shallow,
        }
    if kind == "records":
        from inspector.read.jsonl_reader import extract_range
        from inspector.session.session import open_session

        try:
            from inspector.read.records import from_wire
        except ImportError:  # a checkout from before the wire form: records were sent as they are
            def from_wire(rec):  # type: ignore[no-untyped-def]
                return rec

        size = os.stat(path).st_size
        rows, _, _ = extract_range(path, 0, min(size, 16 << 20), 1, 3, reader_estimates())
        dumps, loads = [], []
        for _ in range(20):
            t0 = time.process_time()
            blob = pickle.dumps((rows, 0, b""), protocol=pickle.HIGHEST_PROTOCOL)
            t1 = time.process_time()
            back = pickle.loads(blob)[0]
            [from_wire(rec) for _, _, _, rec in back]
            t2 = time.process_time()
            dumps.append(t1 - t0)
            loads.append(t2 - t1)
        n = len(rows)
        return {
            "records": n,
            "record_pickle_bytes": round(len(blob) / n, 1),
            "record_dumps_us": round(min(dumps) / n * 1e6, 2),
            "record_loads_us": round(min(loads) / n * 1e6, 2),
        }
    raise SystemExit(f"unknown measure {kind!r}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", nargs="?", type=Path)
    ap.add_argument("--measure", nargs=2, metavar=("KIND", "PATH"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(*args.measure)))
        return 0
    if args.file is None:
        ap.error("FILE is required")
    out: dict = {"file": str(args.file), "size": args.file.stat().st_size}
    for kind in ("memory", "records"):
        proc = subprocess.run([sys.executable, __file__, "--measure", kind, str(args.file)], capture_output=True, text=True, check=True)
        out.update(json.loads(proc.stdout))
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
