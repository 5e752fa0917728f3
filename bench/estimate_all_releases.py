"""`estimate_all` of each release on the messages of the demo session (and of the pi corpus when present): the
indexer computes it for every message, so its cost per message is the indexing cost of the estimates.

Usage: `PYTHONPATH=. python bench/estimate_all_releases.py [FILE.jsonl ...]`; prints, per file, the best of five
passes for each release and the ratio to 2026.4.12 (both releases' `estimate_all` are fused: one pass per message).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import orjson

from inspector.rules.ruleset import known_rule_ids, rule_set

DEFAULT_FILES = [Path(__file__).resolve().parents[1] / "inspector" / "data" / "demo-session.jsonl",
                 *sorted(Path("/work/shared/corpus/pi").glob("*.jsonl"))]


def messages(path: Path) -> list[dict]:
    """Every `message` entry's message of a JSONL session."""
    out = []
    for line in path.read_bytes().splitlines():
        try:
            entry = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(entry, dict) and entry.get("type") == "message" and isinstance(entry.get("message"), dict):
            out.append(entry["message"])
    return out


def best_of(f, msgs: list[dict], runs: int = 5) -> float:
    """The fastest of `runs` passes of `f` over `msgs`, in seconds."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for msg in msgs:
            f(msg)
        best = min(best, time.perf_counter() - start)
    return best


def main(paths: list[Path]) -> None:
    ids = known_rule_ids()
    for path in paths:
        msgs = messages(path)
        if not msgs:
            continue
        times = {rid: best_of(rule_set(rid).tokens.estimate_all, msgs) for rid in ids}
        cells = [f"{rid} {t * 1e3:.1f} ms ({t / len(msgs) * 1e6:.1f} us/msg, x{t / times[ids[0]]:.1f})"
                 for rid, t in times.items()]
        print(f"{path.name}: {len(msgs)} messages; " + "; ".join(cells))


if __name__ == "__main__":
    main([Path(p) for p in sys.argv[1:]] or [p for p in DEFAULT_FILES if p.exists()])
