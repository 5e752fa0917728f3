"""The README table of `bench/ui_tmux.py`'s results (one column per session), and its forecast line.

    python bench/ui_table.py bench/out/ui_tmux.json      # re-print a saved run
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def seconds(v: float | None) -> str:
    if v is None or v != v:
        return "—"
    return f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s"


def _row(label: str, results: list[dict[str, Any]], cell: Any) -> str:
    return f"| {label} | " + " | ".join(cell(r) for r in results) + " |"


def _job(r: dict[str, Any], job: str) -> str:
    j = r.get("esc_during", {}).get(job)
    if j is None:
        return "—"
    shown = "" if j.get("shown", 1.0) else " ✗"
    return f"{seconds(j['esc'])}{shown} · {j['cpu_before_esc']:.0%} → {j['cpu_after']:.0%}"


def _checks(r: dict[str, Any]) -> str:
    failed = r.get("checks_failed", [])
    return "all shown" if not failed else "✗ " + ", ".join(f"`{k}`" for k in failed)


def _q(r: dict[str, Any]) -> str:
    q = r.get("q_during_job")
    if not q:
        return "—"
    return f"{seconds(q['exit'])} (gone)" if q["exit"] == q["exit"] else "✗ still running"


def markdown(results: list[dict[str, Any]], forecast: dict[str, Any] | None, header: str, keys: Sequence[str],
             jobs: Sequence[str]) -> str:
    """The table (and the 1 GiB forecast line when measured), under `header`."""
    heads = [f"{r['shape']}: {r['bytes'] / 2**20:.0f} MiB" for r in results]
    rows = ["| figure | " + " | ".join(heads) + " |", "|---|" + "---|" * len(results)]
    rows.append(_row("first screen", results, lambda r: seconds(r.get("first_screen"))))
    rows.append(_row("whole-file figures", results, lambda r: seconds(r.get("whole_file"))))
    rows.append(_row("`C`: the forecast shown", results, lambda r: seconds(r.get("keys", {}).get("C"))))
    for key in dict.fromkeys(keys):
        if key != "C" and not key.startswith("-l "):
            rows.append(_row(f"key `{key}` to settled (slowest press)", results, lambda r, k=key: seconds(r.get("keys", {}).get(k))))
    rows.append(_row("every key showed what it opens", results, _checks))
    for job in jobs:
        rows.append(_row(f"Esc during {job} · CPU before Esc → after", results, lambda r, j=job: _job(r, j)))
    rows.append(_row("`q` right after `C`: the process gone", results, _q))
    rows.append(_row("append a line to shown", results, lambda r: seconds(r["append"]) if "append" in r else "—"))
    rows.append(_row("peak RSS after the tour (× file)", results,
                     lambda r: f"{r['peak_rss'] / 1e6:.0f} MB ({r['peak_rss_ratio']:.2f}×)" if "peak_rss" in r else "—"))
    text = header + "\n\n" + "\n".join(rows)
    for r in results:
        if "crashed" in r:
            text += f"\n\n**{r['shape']}: the app ended under the bench** (the cells after it are empty): {r['crashed']}"
    if forecast is not None:
        text += (f"\n\nForecast of `{forecast['file']}` ({forecast['bytes'] / 2**30:.2f} GiB): `C` → the forecast shown "
                 f"{seconds(forecast['forecast'])}, the engine's cold index of the same file (`bench/measure.py index`) "
                 f"{seconds(forecast['cold_index'])}: {forecast['forecast_over_cold_index']:.2f}× (target ≤ 1×); the app "
                 f"opened on it: whole-file figures {seconds(forecast['whole_file'])}, peak RSS "
                 f"{forecast['peak_rss'] / 1e6:.0f} MB ({forecast['peak_rss'] / forecast['bytes']:.2f}×).")
    return text


def main(argv: list[str]) -> int:
    from ui_tmux import JOBS, KEYS

    saved = json.loads(Path(argv[0]).read_text())
    print(markdown(saved["results"], saved.get("forecast"), saved["header"], KEYS, [name for name, _, _ in JOBS]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
