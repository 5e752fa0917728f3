"""The markdown table of a `bench/run.py` result (the README's performance table), with the targets of issue 12.

    python bench/report.py bench/out/results.json    # re-render a saved run (same as `run.py --render`)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cli_runs import COMMANDS, LABELS

# issue 12's targets
COLD_MAX = 3.0
WARM_MAX = 0.1
RSS_MAX = 0.25
ENTRY_BYTES_MAX = 400
TIKTOKEN_MAX = 1.2
TAIL_MAX_S = 0.5
APPEND_P95_MAX_MS = 10.0


def _s(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds < 1 else f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.1f} s"


def _size(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def _mark(ok: bool) -> str:
    return " ✓" if ok else " ✗"


def _ratio(seconds: float, base: float, limit: float | None) -> str:
    r = seconds / base
    text = f"**{r:.2f}×** ({_s(seconds)})" if r >= 0.01 else f"**{r:.3f}×** ({_s(seconds)})"
    return text + (_mark(r <= limit) if limit is not None else "")


def _rss(peak: int, size: int) -> str:
    r = peak / size
    return f"{r:.3f}× ({peak / 1e6:,.0f} MB){_mark(r <= RSS_MAX)}"


def _shape_cells(s: dict[str, Any]) -> dict[str, str]:
    """One column of the table: figure key -> cell."""
    base = s["baseline"]["seconds"]
    size = s["size_bytes"]
    cells: dict[str, str] = {
        "baseline": _s(base),
        "index": _ratio(s["index"]["seconds"], base, COLD_MAX),
        "index_rss": _rss(s["index"]["peak_rss_bytes"], size),
    }
    mem = s.get("memory")
    if mem:
        per = mem["traced_bytes_per_entry"]
        sample = mem.get("sample_bytes")
        where = f" (first {_size(sample)})" if sample and sample < size else ""
        cells["memory"] = f"{per:,.0f} B{where}{_mark(per <= ENTRY_BYTES_MAX)}"
    for name, runs in s.get("cli", {}).items():
        cold = runs["cold"]
        cells[f"{name}.cold"] = _ratio(cold["seconds"], base, COLD_MAX)
        rss = _rss(cold["peak_rss_bytes"], size)
        warm = runs.get("warm")
        if warm is None:
            cells[f"{name}.warm"] = "no cache in this CLI"
            cells[f"{name}.append"] = "no cache in this CLI"
        else:
            same = "" if runs.get("warm_output_identical", True) else " **output differs from the cold run's!**"
            cells[f"{name}.warm"] = _ratio(warm["seconds"], base, WARM_MAX) + same
            if runs.get("first"):
                cells[f"{name}.first"] = _ratio(runs["first"]["seconds"], base, None)
            rss += f"; warm {warm['peak_rss_bytes'] / size:.3f}×"
            app = runs.get("append")
            if app is not None:
                cells[f"{name}.append"] = _append_cell(app["seconds"], base, warm["seconds"], cold["seconds"] * s["append_bytes"] / size,
                                                       runs.get("append_alone"))
                if not runs.get("append_output_identical", True):
                    cells[f"{name}.append"] += " **output differs from a cold run's!**"
        cells[f"{name}.rss"] = rss
    tok = s.get("tokenizer")
    if tok and tok.get("tokenizer_seconds"):
        cells["tokenizer"] = f"{tok['tokenizer_mb_per_s']:.1f} MB/s ({tok['text_bytes'] / 1e6:.1f} MB in {_s(tok['tokenizer_seconds'])})"
        r = tok["counting_ratio_to_tokenizer"]
        cells["counting"] = f"**{r:.2f}×** ({_s(tok['counting_seconds'])}){_mark(r <= TIKTOKEN_MAX)}"
        if tok.get("encoding_load_seconds") is not None:
            cells["encoding_load"] = _s(tok["encoding_load_seconds"])
    if s.get("tail"):
        t = s["tail"]["seconds"]
        cells["tail"] = f"{_s(t)}{_mark(t < TAIL_MAX_S)}"
    lat = s.get("append_latency")
    if lat:
        cells["append_latency"] = f"p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms{_mark(lat['p95_ms'] < APPEND_P95_MAX_MS)}"
    return cells


def _append_cell(seconds: float, base: float, warm: float, share: float, alone: dict[str, Any] | None) -> str:
    """The appended run against "that plus the cost of the new megabyte", both ways "that" reads: the warm target's
    bound (0.1×) or the warm run measured; the new bytes' cost as their *share* of the cold run, or a cold run of them
    *alone* (a session of the header and the new bytes)."""
    costs = [("share", share)] + ([("alone", alone["seconds"])] if alone is not None else [])
    parts = []
    for label, that in (("0.1× bound", WARM_MAX * base), ("warm run", warm)):
        limits = [f"+ {name} ≤ {(that + cost) / base:.3f}×{_mark(seconds <= that + cost)}" for name, cost in costs]
        parts.append(f"{label} " + ", ".join(limits))
    return f"**{seconds / base:.3f}×** ({_s(seconds)}); " + "; ".join(parts)


def _rows(append_mib: str) -> list[tuple[str, str, str]]:
    rows = [
        ("baseline", "`orjson.loads` of every line (the baseline)", "—"),
        ("index", "cold index: `open_session` + the leaf's context (every estimate)", f"≤ {COLD_MAX:g}×"),
        ("index_rss", "… its peak RSS, × file size", f"≤ {RSS_MAX:g}×"),
        ("memory", "index memory per entry (tracemalloc, `entry_memory.py`)", f"≤ {ENTRY_BYTES_MAX} B"),
    ]
    for name in COMMANDS:
        label = LABELS[name]
        rows += [
            (f"{name}.cold", f"{label}, cold (`--no-cache`)", f"≤ {COLD_MAX:g}×"),
            (f"{name}.first", f"{label}, first run (no cache yet: writes it)", "≈ cold"),
            (f"{name}.warm", f"{label}, warm (second run, cached)", f"≤ {WARM_MAX:g}×"),
            (f"{name}.append", f"{label}, after {append_mib} appended", f"≤ the warm target ({WARM_MAX:g}×) or run, + the "
             "new bytes: their *share* of the cold run, or a cold run of them *alone*"),
            (f"{name}.rss", f"{label}, peak RSS × file (cold; warm)", f"≤ {RSS_MAX:g}×"),
        ]
    rows += [
        ("tokenizer", "tokenizer alone: cl100k `encode_ordinary` of a full context's texts, one thread", "—"),
        ("counting", "tiktoken counting step (`figures.tiktoken_counts_for`) ÷ tokenizer alone", f"≤ {TIKTOKEN_MAX:g}×"),
        ("encoding_load", "… plus, once per process, loading the counter's encoding (`get_token_counter`)", "—"),
        ("tail", "tail usable: last 1000 entries with all estimates (`read_tail`)", f"< {TAIL_MAX_S:g} s"),
        ("append_latency", "one appended line: `refresh()` + context (50 appends)", f"p95 < {APPEND_P95_MAX_MS:g} ms"),
    ]
    return rows


def render(results: dict[str, Any]) -> str:
    """The markdown table (both shapes as columns) and the line that says how it was measured."""
    shapes = results["shapes"]
    names = list(shapes)
    columns = {n: _shape_cells(shapes[n]) for n in names}
    heads = [f"{n}: {_size(shapes[n]['size_bytes'])}, {shapes[n]['entries']:,} entries "
             f"({shapes[n]['size_bytes'] / max(shapes[n]['entries'], 1):,.0f} B each)" for n in names]
    append_bytes = [shapes[n]["append_bytes"] for n in names if shapes[n].get("append_bytes")]
    append_mib = f"{max(append_bytes) / 2**20:.1f} MiB" if append_bytes else "1 MiB"
    lines = ["| figure | target | " + " | ".join(heads) + " |", "|---|---|" + "---|" * len(names)]
    for key, label, target in _rows(append_mib):
        cells = [columns[n].get(key) for n in names]
        if all(c is None for c in cells):
            continue
        lines.append(f"| {label} | {target} | " + " | ".join(c or "—" for c in cells) + " |")
    start = results.get("startup") or {}
    lines.append("")
    lines.append(
        f"Measured {results['generated_at']} on {results['cpus']} CPUs (commit {results.get('commit', '?')}"
        + (f", PYTHONPATH={results['pythonpath']}" if results.get("pythonpath") else "") + "), "
        f"`{results['command']}`: every figure in its own fresh process, median of {results['repeat']}, ratios to "
        f"the baseline of the same file in the same run. CLI rows are the wall time of `python -m inspector …` "
        f"end to end, start-up included; the floor under them: a bare interpreter {_s(start.get('python_seconds', 0))}, "
        f"`python -m inspector stats --help` {_s(start.get('cli_help_seconds', 0))}, on a "
        f"{results.get('tiny_entries', 50)}-entry session: "
        + ", ".join(f"{LABELS[n]} {_s(start[f'{n}_tiny_seconds'])}" for n in COMMANDS if f"{n}_tiny_seconds" in start)
        + "."
    )
    if results.get("store"):
        from store import markdown

        lines += ["", markdown(results["store"])]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Print the markdown of a saved results file."""
    if len(argv) != 1:
        print("usage: report.py RESULTS.json", file=sys.stderr)
        return 2
    print(render(json.loads(Path(argv[0]).read_text())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
