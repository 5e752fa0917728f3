"""Generate a large, realistic OpenClaw v3 session file for benchmarks.

    python bench/generate.py /tmp/big.jsonl --size 1GB                  # stop once 1 GiB is written
    python bench/generate.py /tmp/chat.jsonl --size 256MB --shape chat  # the chat-heavy shape
    python bench/generate.py /tmp/s.jsonl --entries 50000               # stop after N entries (header not counted)

Four shapes (`--shape`): `tools` (the default) spends its bytes on large tool results (a lognormal long tail up to
200k characters, ~3.5 KB per entry); `chat` is what most real sessions look like: many small messages (user turns,
assistants with short text, thinking and tool calls, tool results of 200 B-6 KB) with a few large results (1%,
20-80k characters), ~2 KB per entry; `thinking`: assistants that think, say a line and call a tool nearly every
step, many small tool results all carrying `details`, a `custom` entry every ~30 entries; `cjk`: the chat shape
in Chinese and Japanese. All share the turn structure below; only sizes and mixes differ.

The mix follows a long OpenClaw coding session: mostly messages (user turns, assistants with thinking and tool calls,
tool results whose sizes have a long tail, exec results carrying their `aggregated` copy in `details`), some CJK, an
`openclaw.cache-ttl` after every run, compactions (also mid-run) whenever a request would cross the threshold
(pi-native and safeguard), occasional model/thinking-level changes, delivery-mirror siblings and a few abandoned
branches with a `branch_summary`. Lines are streamed to disk through `SessionBuilder`, which writes each entry with
`inspector.js.jsjson.js_stringify` (JavaScript's `JSON.stringify`, so the output is byte-compatible with pi); memory stays
constant. Text comes from pools built once from the generators in `inspector.samples.demo_text` and sliced at random line
boundaries. Deterministic for a given `--seed`.

Sizes: KB/MB/GB are binary (KiB/MiB/GiB); a bare number is bytes. Keep big outputs out of the repo (/tmp or bench/out/).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from inspector.samples import demo_text
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.png import png_base64
from inspector.samples.usage import make_usage

SYSTEM_PROMPT_TOKENS = 21_000
COMPACT_AT_CHARS = 520_000  # ≈ 175k tokens of conversation at ~3 chars/token: pi's threshold for a 200k window
KEEP_RECENT_CHARS = 80_000  # keepRecentTokens 20000 × 4
MODELS = (("anthropic", "claude-sonnet-4-5", "anthropic-messages", {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75}),
          ("anthropic", "claude-opus-4-5", "anthropic-messages", {"input": 5, "output": 25, "cacheRead": 0.5, "cacheWrite": 6.25}))
PATHS = ("src/server.ts", "src/routes/items.ts", "src/routes/orders.ts", "src/middleware/rateLimiter.ts",
         "src/lib/redis.ts", "src/jobs/reports.ts", "test/helpers/db.ts", "README.md", "package.json",
         "docs/rate-limiting.md", "locales/zh-CN.json", "src/services/search.ts", "src/models/order.ts")
COMMANDS = ("npm test 2>&1 | tail -n 300", "npm run lint", "git status --short", "git diff --stat", "rg -n TODO src",
            "npm run build", "docker compose ps", "redis-cli INFO stats", "k6 run loadtest/smoke.js", "ls -la src")
USER_ASKS = ("Can you look at why {p} is slow under load?", "Add tests for {p}.", "Refactor {p}: split it into smaller modules.",
             "Run the suite and fix whatever fails.", "What does {p} do? Summarise it for the README.",
             "请检查一下 {p} 里的错误处理，顺便补上中文注释。", "Bump the dependencies and make sure CI is still green.",
             "{p} がタイムアウトする原因を調べてください。", "Review the diff before I open the PR 🙏",
             "Why did the last deploy spike 429s? Check the logs.")


@dataclass
class Stats:
    """What was generated."""

    entries: int = 0
    bytes: int = 0
    tool_results: int = 0
    compactions: int = 0
    branches: int = 0
    seconds: float = 0.0
    mark_bytes: int | None = None  # the file's size at the end of the first turn that reached `mark_at` bytes
    mark_entries: int | None = None  # and its entries then (header not counted)


class _CountingSink:
    """A text sink that writes UTF-8 to a binary file and counts the bytes."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw, self.bytes, self.lines = raw, 0, 0

    def write(self, text: str) -> None:
        data = text.encode("utf-8")
        self.raw.write(data)
        self.bytes += len(data)
        self.lines += 1


class _Pools:
    """Big strings of realistic tool output per kind, sliced at line boundaries."""

    def __init__(self, rng: random.Random) -> None:
        def build(make, target: int) -> str:
            parts, size = [], 0
            while size < target:
                part = make()
                parts.append(part)
                size += len(part)
            return "\n".join(parts)

        self.kinds = {
            "code": build(lambda: demo_text.ts_source(rng, f"src/{demo_text.ident(rng, 2)}.ts", 12_000), 700_000),
            "tests": build(lambda: demo_text.jest_log(rng, 12, {"limiter › resets": "expect(received).toBe(expected)"}), 500_000),
            "profile": build(lambda: demo_text.v8_profile(rng, 40), 300_000),
            "redis": build(lambda: demo_text.redis_info(rng, 12), 200_000),
            "load": build(lambda: demo_text.k6_report(rng, 6), 200_000),
            "grep": build(lambda: demo_text.grep_output(rng, "createMemoryLimiter", 200), 300_000),
            "aria": build(lambda: demo_text.aria_snapshot(rng, 150), 400_000),
            "web": build(lambda: demo_text.web_doc_page(rng, 30_000), 400_000),
            "zh": build(lambda: demo_text.zh_wiki_page(rng, 20_000), 300_000),
        }

    def take(self, rng: random.Random, kind: str, size: int) -> str:
        pool = self.kinds[kind]
        if size >= len(pool):
            return (pool * (size // len(pool) + 1))[:size]
        start = rng.randrange(len(pool) - size)
        nl = pool.find("\n", start, start + 400)
        start = nl + 1 if nl >= 0 and nl + 1 + size <= len(pool) else start
        return pool[start:start + size]


def _tools_result_size(rng: random.Random) -> int:
    """Tool-result text size of the `tools` shape: mostly small, a long tail up to ~200k characters."""
    size = int(rng.lognormvariate(7.45, 1.35))
    return max(12, min(size, 200_000))


def _chat_result_size(rng: random.Random) -> int:
    """Tool-result text size of the `chat` shape: 1% large (20k-80k characters), the rest 200-6000."""
    if rng.random() < 0.01:
        return rng.randint(20_000, 80_000)
    return max(200, min(int(rng.lognormvariate(7.0, 0.9)), 6000))


@dataclass(frozen=True)
class Shape:
    """How a generated session spends its bytes: tool-result sizes and the lengths of assistant prose."""

    name: str
    result_size: Callable[[random.Random], int]
    thinking_chars: tuple[int, int]
    final_chars: tuple[int, int]
    description: str
    thinking_p: float = 0.45
    """How often a step of the assistant thinks first."""
    note_p: float = 0.5
    """How often a step says a line of text before its tool calls."""
    details_p: float = 0.0
    """How often a tool result that would carry no `details` gets small ones (status, timing, the path)."""
    custom_p: float = 0.0
    """How often a step is followed by a `custom` entry (extension state: OpenClaw's notes, hooks, snapshots)."""
    cjk_p: float = 0.0
    """How often text that would come from the English pools comes from the Chinese one (and asks are CJK)."""


def _small_result_size(rng: random.Random) -> int:
    """Tool-result text size of the `thinking` shape: many small results (80-2500 characters), 0.5% of 20-40k."""
    if rng.random() < 0.005:
        return rng.randint(20_000, 40_000)
    return max(80, min(int(rng.lognormvariate(6.2, 0.8)), 2500))


SHAPES = {
    "tools": Shape("tools", _tools_result_size, (80, 1500), (60, 2500),
                   "mostly large tool results (a long tail up to 200k characters): ~3.5 KB per entry"),
    "chat": Shape("chat", _chat_result_size, (40, 600), (40, 900),
                  "many small messages, tool results of 200 B-6 KB, 1% of 20-80 KB: ~2 KB per entry"),
    "thinking": Shape("thinking", _small_result_size, (300, 2500), (40, 900),
                      "assistants that think, say a line and call a tool; small tool results that carry `details`; "
                      "a custom entry every ~30 entries: ~2 KB per entry",
                      thinking_p=0.95, note_p=0.9, details_p=1.0, custom_p=0.08),
    "cjk": Shape("cjk", _chat_result_size, (40, 600), (40, 900),
                 "the chat shape in Chinese and Japanese: asks, thinking, prose and most fetched pages: ~2 KB per entry",
                 cjk_p=0.85),
}
CUSTOM_TYPES = ("openclaw.system-note", "hook", "openclaw:turn-aborted", "model-snapshot", "openclaw.sessions_yield")
CJK_ASKS = tuple(a for a in USER_ASKS if not a.isascii()) + ("把 {p} 的日志格式改成 JSON，并更新测试。", "{p} のテストを追加してください。")
CJK_NOTES = ("好的，我先看一下代码。", "测试全部通过了。", "ファイルを先に読みます。", "这个失败的原因找到了，正在修复。")


def generator_fingerprint() -> str:
    """A short hash of the code that decides the generated bytes (this file and `inspector.samples`), so a
    benchmark can keep generated files between runs and regenerate them when the generator changes."""
    h = hashlib.sha256()
    root = Path(__file__).resolve().parents[1]
    for path in [Path(__file__).resolve(), *sorted((root / "inspector" / "samples").glob("*.py")), root / "inspector" / "js" / "jsjson.py"]:
        h.update(path.read_bytes())
    return h.hexdigest()[:10]


def parse_size(text: str) -> int:
    """`1GB`, `500MB`, `64k`, `1.5G` or plain bytes -> bytes (binary units)."""
    m = re.fullmatch(r"\s*([\d.]+)\s*([kmgt]?)i?b?\s*", text.lower())
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    return int(float(m.group(1)) * 1024 ** " kmgt".index(m.group(2) or " "))


class _Session:
    """Drives a SessionBuilder through turns, tracking just enough context to compute usage and compactions."""

    def __init__(self, sink: _CountingSink, seed: int, shape: Shape) -> None:
        self.shape = shape
        self.rng = random.Random(seed)
        self.b = SessionBuilder(seed=seed, start="2026-01-05T07:58:31.904Z", sink=sink, track_context=False)
        self.pools = _Pools(random.Random(seed + 1))
        self.sink = sink
        self.stats = Stats()
        self.model = MODELS[0]
        self.ctx_chars = 0
        self.cached_prompt = 0
        self.cut_candidates: deque[tuple[str, int]] = deque(maxlen=400)  # (entry id, ctx chars before it)
        self.last_total = 0
        self.png = png_base64(48, 32, [[(x * y) % 5 for x in range(48)] for y in range(32)],
                              [(255, 255, 255), (30, 30, 30), (200, 40, 40), (40, 160, 80), (60, 90, 200)])

    # ---- pieces ------------------------------------------------------------------------------------------------------

    def _usage(self, out_chars: int) -> dict:
        rng = self.rng
        prompt = SYSTEM_PROMPT_TOKENS + self.ctx_chars // 3
        cache_read = min(self.cached_prompt, prompt)
        uncached = 3 + rng.randrange(9)
        output = max(1, out_chars // 3 + rng.randrange(20))
        usage = make_usage(uncached, output, cache_read, max(0, prompt - cache_read - uncached), prices=self.model[3])
        self.cached_prompt = prompt
        self.last_total = usage["totalTokens"]
        return usage

    def _prose(self) -> str:
        """The pool assistant prose comes from: English pages, or Chinese ones as often as the shape says."""
        return "zh" if self.shape.cjk_p and self.rng.random() < self.shape.cjk_p else "web"

    def _assistant(self, blocks: list, out_chars: int) -> str:
        provider, model, api, _ = self.model
        aid = self.b.assistant(blocks, usage=self._usage(out_chars), provider=provider, model=model, api=api,
                               output_tokens=out_chars // 3)
        self.cut_candidates.append((aid, self.ctx_chars))
        self.ctx_chars += out_chars
        return aid

    def _tool_call_and_result(self) -> tuple[dict, tuple]:
        rng, b = self.rng, self.b
        size = self.shape.result_size(rng)
        roll = rng.random()
        if roll < 0.40:
            cmd = rng.choice(COMMANDS)
            kind = "tests" if "test" in cmd else rng.choice(("grep", "redis", "load", "profile", "tests"))
            out = self.pools.take(rng, kind, size)
            call = b.tool_call("exec", {"command": cmd, "workdir": "/home/dev/.openclaw/workspace/projects/lumen-api"})
            if rng.random() < 0.08:
                return call, (out + "\n\nCommand exited with code 1", {}, True)
            details = {"status": "completed", "exitCode": 0, "durationMs": rng.randint(20, 90_000), "aggregated": out,
                       "cwd": "/home/dev/.openclaw/workspace/projects/lumen-api"}
            return call, (out, details, False)
        if roll < 0.70:
            path = "projects/lumen-api/" + rng.choice(PATHS)
            return b.tool_call("read", {"path": path}), (self.pools.take(rng, "code", size), None, False)
        if roll < 0.80:
            path = "projects/lumen-api/" + rng.choice(PATHS)
            new = self.pools.take(rng, "code", rng.randint(40, 900))
            call = b.tool_call("edit", {"path": path, "oldText": new[: len(new) // 3], "newText": new})
            return call, (f"Successfully replaced text in {path}.", {"diff": new[:400], "firstChangedLine": rng.randint(1, 900)}, False)
        if roll < 0.86:
            path = "projects/lumen-api/" + rng.choice(PATHS)
            content = self.pools.take(rng, "code", min(size, 30_000))
            return b.tool_call("write", {"path": path, "content": content}), \
                (f"Successfully wrote {len(content.encode())} bytes to {path}", None, False)
        if roll < 0.94:
            kind = "zh" if rng.random() < max(0.25, self.shape.cjk_p) else "web"
            call = b.tool_call("web_fetch", {"url": f"https://docs.example.com/{demo_text.ident(rng, 2)}", "extractMode": "markdown"})
            return call, (self.pools.take(rng, kind, min(size * 2, 60_000)), {"status": 200, "extractor": "readability"}, False)
        if roll < 0.985:
            call = b.tool_call("browser", {"action": "snapshot", "targetId": f"{rng.getrandbits(24):06X}"})
            return call, (self.pools.take(rng, "aria", size), None, False)
        call = b.tool_call("browser", {"action": "screenshot", "targetId": f"{rng.getrandbits(24):06X}"})
        return call, ([b.text_block("Screenshot (viewport)"), b.image(self.png)], {"path": "/tmp/shot.png"}, False)

    def _turn(self) -> str:
        rng, b = self.rng, self.b
        b.wait(rng.randint(20_000, 900_000))
        if rng.random() < 0.3:
            self.cached_prompt = 0  # the prompt cache expired during the pause
        cjk = self.shape.cjk_p and rng.random() < self.shape.cjk_p
        ask = rng.choice(CJK_ASKS if cjk else USER_ASKS).format(p=rng.choice(PATHS))
        if rng.random() < 0.1:
            ask += "\n\n" + self.pools.take(rng, rng.choice(("code", "tests")), rng.randint(200, 6000))
        content = [ask, b.image(self.png)] if rng.random() < 0.01 else ask
        uid = b.user(content)
        self.cut_candidates.append((uid, self.ctx_chars))
        self.ctx_chars += len(ask)
        for _ in range(min(12, int(rng.expovariate(1 / 3.0)) + 1)):
            self._maybe_compact()
            blocks: list = []
            out_chars = 0
            if rng.random() < self.shape.thinking_p:
                thought = self.pools.take(rng, self._prose(), rng.randint(*self.shape.thinking_chars))
                blocks.append(b.thinking(thought))
                out_chars += len(thought)
            if rng.random() < self.shape.note_p:
                note = rng.choice(CJK_NOTES) if self.shape.cjk_p and rng.random() < self.shape.cjk_p else \
                    rng.choice(("Let me check that.", "Running the tests now.", "Reading the file first.",
                                "好的，我先看一下代码。", "That explains the failure; fixing it."))
                blocks.append(note)
                out_chars += len(note)
            pairs = [self._tool_call_and_result() for _ in range(1 if rng.random() < 0.75 else rng.randint(2, 4))]
            blocks += [call for call, _ in pairs]
            out_chars += sum(len(str(call["arguments"])) for call, _ in pairs)
            aid = self._assistant(blocks, out_chars)
            if rng.random() < 0.004:
                b.delivery_mirror("Status: " + rng.choice(("tests green ✅", "deploying to staging", "PR is up")))
            for call, (content, details, is_error) in pairs:
                if details is None and self.shape.details_p and rng.random() < self.shape.details_p:
                    details = {"status": "ok", "durationMs": rng.randint(3, 4000), "tool": call["name"],
                               "target": str(call["arguments"].get("path") or call["arguments"].get("targetId") or "")}
                kwargs = {} if details is None else {"details": details}
                b.tool_result(call["id"], call["name"], content, is_error=is_error,
                              duration_ms=rng.randint(5, 4000), **kwargs)
                self.ctx_chars += sum(len(x["text"]) if isinstance(x, dict) and x.get("type") == "text" else
                                      (4800 if isinstance(x, dict) else len(x)) for x in
                                      (content if isinstance(content, list) else [content]))
                self.stats.tool_results += 1
            if self.shape.custom_p and rng.random() < self.shape.custom_p:
                b.custom(rng.choice(CUSTOM_TYPES), {"timestamp": b.now_ms, "runId": f"run-{rng.getrandbits(32):08x}",
                                                    "note": rng.choice(("turn settled", "hook ran", "yielded to a sub-agent"))})
            del aid
        final = self.pools.take(rng, self._prose(), rng.randint(*self.shape.final_chars))
        self._maybe_compact()
        self._assistant([final], len(final))
        return b.cache_ttl(provider=self.model[0], model_id=self.model[1])

    def _maybe_compact(self) -> None:
        """Compact before a request that would cross the threshold (pi/OpenClaw compact mid-run too)."""
        if self.ctx_chars >= COMPACT_AT_CHARS and self.cut_candidates:
            self._compact()

    def _compact(self) -> None:
        rng, b = self.rng, self.b
        kept = next(((eid, before) for eid, before in reversed(self.cut_candidates)
                     if self.ctx_chars - before >= KEEP_RECENT_CHARS), self.cut_candidates[0])
        summary = demo_text.COMPACTION_HISTORY if rng.random() < 0.5 else \
            self.pools.take(rng, "web", rng.randint(2000, 12_000))
        from_hook = rng.random() < 0.6
        details = {"readFiles": sorted(rng.sample(PATHS, 3)), "modifiedFiles": sorted(rng.sample(PATHS, 2))}
        b.compaction(summary, kept[0], self.last_total + rng.randint(0, 3000), details=details, from_hook=from_hook)
        self.ctx_chars = len(summary) + (self.ctx_chars - kept[1])
        self.cached_prompt = 0
        self.cut_candidates.clear()
        self.stats.compactions += 1

    def _abandoned_branch(self, fork_point: str) -> None:
        ctx_at_fork = self.ctx_chars
        for _ in range(self.rng.randint(1, 2)):
            self._turn()
        summary = ("The user explored a different conversation branch before returning here.\nSummary of that "
                   "exploration:\n\n" + demo_text.BRANCH_SUMMARY)
        self.b.branch_summary(fork_point, summary, details={"readFiles": [], "modifiedFiles": [PATHS[4]]}, from_hook=False)
        self.ctx_chars = ctx_at_fork + len(summary)
        self.cut_candidates.clear()
        self.cached_prompt = 0
        self.stats.branches += 1

    # ---- driver ------------------------------------------------------------------------------------------------------

    def run(self, max_bytes: int | None, max_entries: int | None, mark_at: int | None = None) -> Stats:
        rng, b = self.rng, self.b
        started = time.perf_counter()
        b.header(cwd="/home/dev/.openclaw/workspace")
        provider, model, api, _ = self.model
        b.model_change(provider, model, api=api)
        b.thinking_level_change("low")
        b.custom("model-snapshot", {"timestamp": b.now_ms, "provider": provider, "modelApi": api, "modelId": model})

        def done() -> bool:
            entries = self.sink.lines - 1
            return (max_bytes is not None and self.sink.bytes >= max_bytes) or \
                (max_entries is not None and entries >= max_entries)

        turns = 0
        while not done():
            fork_point = self._turn()
            turns += 1
            roll = rng.random()
            if turns % 700 == 25:  # a few abandoned branches: at turn 25, then every 700 turns
                self._abandoned_branch(fork_point)
            elif roll < 0.02:
                self.model = MODELS[1] if self.model is MODELS[0] else MODELS[0]
                b.model_change(self.model[0], self.model[1], api=self.model[2])
                b.custom("model-snapshot", {"timestamp": b.now_ms, "provider": self.model[0], "modelApi": self.model[2],
                                            "modelId": self.model[1]})
                self.cached_prompt = 0
            elif roll < 0.03:
                b.thinking_level_change(rng.choice(("off", "low", "medium", "high")))
            elif roll < 0.032:
                b.label(fork_point, f"checkpoint {turns}")
            if mark_at is not None and self.stats.mark_bytes is None and self.sink.bytes >= mark_at:
                self.stats.mark_bytes, self.stats.mark_entries = self.sink.bytes, self.sink.lines - 1
        self.stats.entries = self.sink.lines - 1
        self.stats.bytes = self.sink.bytes
        self.stats.seconds = time.perf_counter() - started
        return self.stats


def generate(path: str | Path, *, size_bytes: int | None = None, entries: int | None = None, seed: int = 0,
             shape: str = "tools", mark_at: int | None = None) -> Stats:
    """Write a generated session of `shape` (a key of `SHAPES`) to `path`, stopping at the end of the turn that
    reaches `size_bytes` or `entries`.

    With `mark_at`, `Stats.mark_bytes` is where the first turn that reached `mark_at` bytes ended: the file cut
    there is a whole session, and the bytes after it are entries that continue it (what `bench/run.py` appends).
    """
    if size_bytes is None and entries is None:
        raise ValueError("give size_bytes or entries")
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r} (known: {', '.join(SHAPES)})")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb", buffering=1 << 22) as raw:
        sink = _CountingSink(raw)
        return _Session(sink, seed, SHAPES[shape]).run(size_bytes, entries, mark_at)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="output .jsonl path (keep it out of the repo: /tmp or bench/out/)")
    limit = parser.add_mutually_exclusive_group(required=True)
    limit.add_argument("--size", type=parse_size, help="stop after this many bytes, e.g. 1GB, 200MB")
    limit.add_argument("--entries", type=int, help="stop after this many entries")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shape", choices=sorted(SHAPES), default="tools",
                        help="; ".join(f"{s.name}: {s.description}" for s in SHAPES.values()).replace("%", "%%")
                        + " (default tools)")
    args = parser.parse_args(argv)
    stats = generate(args.out, size_bytes=args.size, entries=args.entries, seed=args.seed, shape=args.shape)
    print(f"{args.out} ({args.shape}): {stats.entries} entries, {stats.bytes / max(stats.entries, 1):.0f} B/entry, {stats.bytes / 2**20:.1f} MiB, {stats.tool_results} tool results, "
          f"{stats.compactions} compactions, {stats.branches} abandoned branches, {stats.seconds:.1f} s "
          f"({stats.bytes / 2**20 / max(stats.seconds, 1e-9):.0f} MiB/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
