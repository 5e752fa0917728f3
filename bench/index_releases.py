"""Cold index of one session file under each rule set, in fresh processes: `open_session(path, rules)` + the leaf's
context (`bench/measure.py index FILE RULES`), against `orjson.loads` of every line (`measure.py baseline FILE`).

    PYTHONPATH=. python bench/index_releases.py FILE.jsonl [--repeat 3]

Runs are interleaved (baseline, then each rule set, `--repeat` rounds) so that a busy machine weighs on all of
them alike; prints the median seconds of each, its ratio to the baseline and to the first rule set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _measure(kind: str, path: str, *extra: str) -> float:
    with tempfile.TemporaryDirectory(prefix="index-bench-cache-") as cache:
        env = dict(os.environ, SESSION_INSPECTOR_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, str(HERE / "measure.py"), kind, path, *extra], env=env, check=True,
                             capture_output=True, text=True)
    return float(json.loads(out.stdout)["seconds"])


def main(argv: list[str] | None = None) -> int:
    from inspector.rules.ruleset import known_rule_ids

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rules", nargs="*", default=None, help="rule set ids (default: every known one)")
    args = ap.parse_args(argv)
    ids = args.rules or list(known_rule_ids())
    times: dict[str, list[float]] = {"baseline": [], **{rid: [] for rid in ids}}
    for _ in range(args.repeat):
        times["baseline"].append(_measure("baseline", args.file))
        for rid in ids:
            times[rid].append(_measure("index", args.file, rid))
    base = statistics.median(times["baseline"])
    first = statistics.median(times[ids[0]])
    print(f"{Path(args.file).name}: orjson baseline {base:.2f} s")
    for rid in ids:
        t = statistics.median(times[rid])
        print(f"  {rid}: cold index + context {t:.2f} s = {t / base:.2f}x orjson, {t / first:.2f}x {ids[0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
