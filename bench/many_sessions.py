"""Generate a directory of many OpenClaw session files: a year of one agent's use (issue 12, "many sessions").

    python bench/many_sessions.py /tmp/many/sessions --files 5000            # ≈ 5,000 transcripts + sessions.json
    python bench/many_sessions.py /tmp/many/sessions --files 500 --big 2     # a small one, two big sessions

DIR becomes an OpenClaw sessions directory: `<sessionId>.jsonl` transcripts, a `sessions.json` store naming most of
them (`agent:main:<channel>:<peer>` keys with `sessionId`, `updatedAt`, sometimes `sessionFile`), a few `.reset.`
archives and compaction checkpoints beside them. Sizes follow real use: most sessions are a few turns (2 KB–100 KB),
some run for hundreds of turns (a few MB, with compactions and a name set late or early), and `--big` of them are
large sessions written by `bench/generate.py` (`--big-size` each). Modification times spread over a year, newest last.
Every line is written by `inspector.samples.fixtures.SessionBuilder` (pi's byte-exact serialization). Deterministic
for a given `--seed`. Keep the output out of the repo (/tmp).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.generate import generate, parse_size
from inspector.js.timeutil import iso_from_ms
from inspector.samples import demo_text
from inspector.samples.fixtures import SessionBuilder

YEAR_START_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z
YEAR_MS = 365 * 86_400_000
MODELS = (("anthropic", "claude-sonnet-4-5", "anthropic-messages"), ("openai", "gpt-5.1", "openai-responses"),
          ("anthropic", "claude-opus-4-5", "anthropic-messages"))
CHANNELS = ("telegram", "discord", "slack", "whatsapp", "webchat", "cron")
ASKS = ("What changed in {p} since yesterday?", "Run the tests and tell me what fails.", "Summarize today's inbox.",
        "Remind me what we decided about {p}.", "Fix the lint errors in {p}.", "Draft a reply to the last email.",
        "Check the deploy status.", "What is on my calendar tomorrow?", "Rename the helper in {p} and update callers.")
PATHS = ("src/server.ts", "src/routes/items.ts", "notes/todo.md", "README.md", "src/lib/cache.ts")


class _Text:
    """Realistic tool output, built once and sliced (building it per session would dominate the run)."""

    def __init__(self, rng: random.Random) -> None:
        self.pool = "\n".join([demo_text.ts_source(rng, "src/app.ts", 60_000), demo_text.grep_output(rng, "limit", 400),
                               demo_text.web_doc_page(rng, 60_000)])

    def take(self, rng: random.Random, size: int) -> str:
        size = min(size, len(self.pool) - 1)
        start = rng.randrange(len(self.pool) - size)
        return self.pool[start:start + size]


def _session(path: Path, rng: random.Random, text: _Text, start_ms: int, turns: int, seed: int) -> tuple[str, int]:
    """Write one transcript of `turns` user turns; returns (session id, last entry time in ms)."""
    provider, model, api = rng.choice(MODELS)
    b = SessionBuilder(seed=seed, start=start_ms, provider=provider, model=model, api=api)
    sid = b.header(cwd="/home/dev/.openclaw/workspace")
    b.model_change(provider, model, api=api)
    b.thinking_level_change(rng.choice(("off", "low", "medium")))
    name_at = rng.randrange(turns) if rng.random() < 0.3 else -1
    for turn in range(turns):
        b.wait(rng.randint(5_000, 600_000))
        uid = b.user(rng.choice(ASKS).format(p=rng.choice(PATHS)))
        for _ in range(min(6, int(rng.expovariate(1 / 1.5)))):
            call = b.tool_call(rng.choice(("exec", "read", "web_fetch")), {"path": rng.choice(PATHS)})
            b.assistant([call], output_tokens=40)
            size = max(20, min(int(rng.lognormvariate(6.5, 1.4)), 120_000))
            b.tool_result(call["id"], call["name"], text.take(rng, size))
        b.assistant(text.take(rng, rng.randint(40, 1200)))
        if rng.random() < 0.3:
            b.cache_ttl()
        if turn == name_at:
            b.session_info(f"{rng.choice(('Inbox', 'Deploy', 'Refactor', 'Calendar'))} {seed}")
        if turns > 40 and turn % 40 == 39:
            b.compaction(demo_text.COMPACTION_HISTORY, uid, 120_000 + rng.randrange(30_000), from_hook=True)
    b.write(path)
    return sid, b.now_ms


def _turns(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.80:
        return rng.randint(1, 12)
    if roll < 0.97:
        return rng.randint(12, 80)
    return rng.randint(80, 260)


def generate_dir(root: Path, files: int, *, big: int, big_size: int, seed: int = 0) -> dict[str, float]:
    """Write `files` transcripts (plus `sessions.json`, archives, checkpoints) to `root`; returns counts and bytes."""
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    text = _Text(random.Random(seed + 1))
    store: dict[str, dict] = {}
    total = 0
    step = YEAR_MS // max(1, files)
    big_at = set(rng.sample(range(files), min(big, files)))
    for i in range(files):
        start_ms = YEAR_START_MS + i * step + rng.randrange(max(1, step // 2))
        tmp = root / f".gen-{i}.tmp"
        if i in big_at:
            generate(tmp, size_bytes=big_size, seed=seed + i)
            with tmp.open("rb") as f:
                sid = json.loads(f.readline())["id"]
            last_ms = start_ms + 40 * 86_400_000
        else:
            sid, last_ms = _session(tmp, rng, text, start_ms, _turns(rng), seed * 100_000 + i)
        roll = rng.random()
        if roll < 0.04:
            stamp = iso_from_ms(last_ms + 60_000).replace(":", "-")
            target = root / f"{sid}.jsonl.reset.{stamp}"
        elif roll < 0.06:
            target = root / f"{sid}.checkpoint.{SessionBuilder(seed=i).new_uuid()}.jsonl"
        else:
            target = root / f"{sid}.jsonl"
            if rng.random() < 0.8:
                peer = rng.randrange(10**9)
                entry: dict = {"sessionId": sid, "updatedAt": last_ms, "chatType": "direct"}
                if rng.random() < 0.1:
                    entry["sessionFile"] = target.name
                store[f"agent:main:{rng.choice(CHANNELS)}:direct:{peer}"] = entry
        tmp.rename(target)
        os.utime(target, ns=(last_ms * 1_000_000, last_ms * 1_000_000))
        total += target.stat().st_size
    (root / "sessions.json").write_text(json.dumps(store, indent=2) + "\n", encoding="utf-8")
    return {"files": files, "bytes": total, "store_entries": len(store)}


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the sessions directory to fill (keep it out of the repo)")
    parser.add_argument("--files", type=int, default=5000, help="transcripts to write (default 5000)")
    parser.add_argument("--big", type=int, default=10, help="how many of them are large sessions (default 10)")
    parser.add_argument("--big-size", type=parse_size, default=parse_size("24MB"), help="size of each (default 24MB)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    counts = generate_dir(args.out, args.files, big=args.big, big_size=args.big_size, seed=args.seed)
    print(f"{counts['files']} files, {counts['bytes'] / 2**20:.0f} MiB, {counts['store_entries']} in sessions.json, "
          f"{time.perf_counter() - started:.1f} s → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
