"""Real token counts of a whole context: the tokenizer alone vs the product's full path, in one run.

    python bench/count_tokens.py FILE [FILE...] [--repeat N]

For each file, the context of its last entry: the texts the model sees (`model_visible_texts` of every context
message) are extracted once, then timed:

* `tiktoken alone`: `encode_ordinary` over those texts, one thread (the issue's "tokenizer alone");
* `bpe-openai alone`: bpe-openai's count over the same texts, one thread (when installed);
* `ours, all cores` / `ours, 1 core`: `figures.tiktoken_counts_for` with an empty `Session.token_counts`: every
  message's line re-read from disk, parsed, its texts extracted and counted (worker processes for big contexts);
* `old path`: one `Session.load_message` per message, counted by tiktoken in one thread (before issue 12).

Wall seconds, CPU seconds (this process and its workers) and MB/s of text (UTF-8) are printed, then the ratios of
our path to each tokenizer alone. The machine's load shows in wall times: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspector.counting.counter import get_token_counter
from inspector.figures import session_figures as figures
from inspector.rules.openclaw_2026_4_12.tokens import model_visible_texts
from inspector.session.session import open_session


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _timed(fn: Callable[[], int]) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), _cpu()
    total = fn()
    return time.perf_counter() - wall, _cpu() - cpu, total


def bench(path: Path, repeat: int) -> None:
    """Print the timings of one file (see the module docstring)."""
    session = open_session(path)
    ctx = session.context()
    texts = [t for row in ctx.messages if (msg := session.load_message(session.entries[row.entry_index])) for t in model_visible_texts(msg)]
    mb = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts) / 1e6
    reference = get_token_counter("cl100k_base", "tiktoken")
    fast = get_token_counter("cl100k_base")
    encoding = reference._encoding

    def ours() -> int:
        session.token_counts.clear()
        counts, _ = figures.tiktoken_counts_for(session, ctx, "cl100k_base")
        return sum(c for c in counts or [] if c)

    def ours_one_core() -> int:
        previous = os.environ.get("SESSION_INSPECTOR_WORKERS")
        os.environ["SESSION_INSPECTOR_WORKERS"] = "1"
        try:
            return ours()
        finally:
            if previous is None:
                del os.environ["SESSION_INSPECTOR_WORKERS"]
            else:
                os.environ["SESSION_INSPECTOR_WORKERS"] = previous

    def old() -> int:
        return sum(reference.count_message(session.load_message(session.entries[r.entry_index]) or {}) or 0 for r in ctx.messages)

    runs: list[tuple[str, Callable[[], int]]] = [("tiktoken alone (1 thread)", lambda: sum(len(encoding.encode_ordinary(t)) for t in texts))]
    if fast.implementation == "bpe-openai":
        runs.append(("bpe-openai alone (1 thread)", lambda: sum(fast.count_text(t) or 0 for t in texts)))
    runs += [(f"ours ({fast.implementation}), all cores", ours), (f"ours ({fast.implementation}), 1 core", ours_one_core),
             ("old path (tiktoken, 1 core)", old)]
    print(f"{path}: {len(ctx.messages)} context messages, {len(texts)} texts, {mb:.1f} MB of text")
    for r in range(repeat):
        wall: dict[str, float] = {}
        for name, fn in runs:
            seconds, cpu, total = _timed(fn)
            wall[name] = seconds
            print(f"  {name:34s} {seconds:6.2f} s wall {cpu:6.2f} s cpu {mb / seconds:6.2f} MB/s   {total:,} tokens")
        ours_all = wall[runs[-3][0]]
        ratios = "  ".join(f"ours/{name.split(' (')[0]} {ours_all / wall[name]:.2f}" for name, _ in runs[:-3])
        print(f"  run {r + 1}: {ratios}")


def main(argv: list[str] | None = None) -> int:
    """Command line: files to measure, `--repeat`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    for path in args.files:
        bench(path, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
