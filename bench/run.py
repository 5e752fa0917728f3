"""Benchmarks (not tests): the file shapes, cold / warm / after an append, against raw orjson of the same file.

    python bench/run.py                          # tools 1 GiB + chat 256 MiB, median of 3 (`make bench`)
    python bench/run.py --markdown               # the same, and only the README table on stdout
    python bench/run.py --shapes chat --size 64MB --repeat 1
    python bench/run.py --shapes tools,chat,thinking,cjk   # every shape (thinking and cjk: 256 MiB each)
    python bench/run.py --render bench/out/results.json   # re-print the table of a saved run
    python bench/run.py --file ~/.openclaw/agents/main/sessions/X.jsonl --repeat 1   # a real session (a copy)
    python bench/run.py --shapes chat,cjk --rules openclaw-2026.4.12,openclaw-2026.9.6   # per release

With `--rules ID[,ID]`, the cold index (`measure.py index FILE ID`) and every CLI row (`--rules ID`) run under each
rule set in turn, one column per shape and rule set ("chat [ID]" when there are several); the other figures (tail,
tokenizer, memory, append latency) stay the default rule set's. Without it, the CLI chooses as it does for a user.

Per shape (`bench/generate.py --shape`), a session is generated once (deterministic for `--seed`) into
`--data-dir` (default: the system temp dir, never the repo) together with the entries that continue it (1 MiB).
Every figure runs in a fresh process, on a warm page cache, `--repeat` times; the median is kept:

- baseline: `orjson.loads` of every line; every time ratio is to this, same file, same run;
- cold index: `open_session` + the leaf's context, its peak RSS, index memory per entry (`bench/measure.py`);
- the CLI end to end (`bench/cli_runs.py`): `stats --json`, `stats --json --no-tiktoken`, `context --json`,
  each cold (`--no-cache`), warm (a second run on the cache a first run wrote into a fresh directory; the output
  must be byte-identical to the cold one) and after the continuation is appended (on the warm cache; the file is
  truncated back afterwards); warm and append rows are skipped when the CLI has no `--no-cache`;
- the tokenizer alone (cl100k `encode_ordinary` of every context message's model-visible texts, one thread)
  vs the full tiktoken counting step (`figures.tiktoken_counts_for`), on the context just before the last
  compaction (the fullest near the end);
- tail (`read_tail`, last 1000 entries) and one appended line (`refresh()` + context, p50/p95 of 50);
- with `--store-events N` (default 200,000; 0: none), an OpenClaw SQLite store session of N events
  (`bench/store.py`): the CLI opening it vs sqlite3 + orjson of its events, and insert -> refreshed p95.

Results go to `bench/out/results.json` (and a timestamped copy); the markdown table is printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
sys.path.insert(0, str(HERE))

import generate
from cli_runs import COMMANDS, CliRun, CliRunner
from report import render

DEFAULT_SIZES = {"tools": "1GB", "chat": "256MB", "thinking": "256MB", "cjk": "256MB"}
APPEND_BYTES = 1 << 20
TINY_ENTRIES = 50  # the session of the start-up floor
MEMORY_SAMPLE_BYTES = 64 << 20  # index memory per entry is measured on the file's first whole lines up to this


_STARTED = time.perf_counter()


def _log(text: str) -> None:
    print(f"[{time.perf_counter() - _STARTED:5.0f} s] {text}", file=sys.stderr, flush=True)


@dataclass
class BenchFile:
    """A generated session and the bytes that continue it."""

    shape: str
    path: Path
    continuation: Path | None
    size: int
    entries: int | None


def generate_apart(path: Path, **kwargs: Any) -> Any:
    """`generate.generate` in a fresh (spawned) process, so this one stays small: a child's `ru_maxrss` counts the
    pages it shared with this process when forked (Linux keeps that high-water mark across `exec`), so every
    measured child would report at least this process's size."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(generate.generate, path, **kwargs).result()


def prepare(shape: str, size: int, seed: int, data_dir: Path) -> BenchFile:
    """The session of `shape` and `size` (generated once per generator version), restored to its own size."""
    version = generate.generator_fingerprint()
    stem = data_dir / f"{shape}-{size}-seed{seed}-{version}"
    path, cont, meta_path = stem.with_suffix(".jsonl"), stem.with_suffix(".append"), stem.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else None
    if meta is None or not path.exists() or not cont.exists() or path.stat().st_size < meta["size"]:
        data_dir.mkdir(parents=True, exist_ok=True)
        meta_path.unlink(missing_ok=True)  # no meta until the file and its continuation are complete
        t0 = time.perf_counter()
        stats = generate_apart(path, size_bytes=size + APPEND_BYTES, seed=seed, shape=shape, mark_at=size)
        if stats.mark_bytes is None or stats.mark_bytes >= stats.bytes:
            raise RuntimeError(f"{path}: no continuation after {size} bytes")
        with path.open("rb+") as f:
            f.seek(stats.mark_bytes)
            cont.write_bytes(f.read())
            f.truncate(stats.mark_bytes)
        meta = {"size": stats.mark_bytes, "entries": stats.mark_entries}
        meta_path.write_text(json.dumps(meta))
        _log(f"generated {path} ({shape}, {meta['size'] / 2**20:.1f} MiB, {meta['entries']:,} entries) "
             f"in {time.perf_counter() - t0:.1f} s")
    elif path.stat().st_size != meta["size"]:
        os.truncate(path, meta["size"])  # an interrupted append run left its bytes behind
    return BenchFile(shape, path, cont, meta["size"], meta["entries"])


def copy_of(path: Path, scratch: Path) -> BenchFile:
    """A copy of a given session (the benchmark appends to what it measures; a user's file is only read)."""
    name = f"file:{path.stem}"
    copy = scratch / f"file-{path.stem}{path.suffix}"
    shutil.copyfile(path, copy)
    return BenchFile(name, copy, None, copy.stat().st_size, None)


def child(kind: str, path: Path, env: dict[str, str], rules: str | None = None) -> dict[str, Any]:
    """One `bench/measure.py` figure in a fresh process (`rules`: the cold index under that rule set)."""
    extra = [rules] if rules is not None and kind == "index" else []
    out = subprocess.run([sys.executable, str(HERE / "measure.py"), kind, str(path), *extra], capture_output=True,
                         text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"measure.py {kind} failed: {out.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the median time, plus every run's time."""
    best = dict(sorted(runs, key=lambda r: r.get("seconds", 0))[(len(runs) - 1) // 2])
    best["runs_seconds"] = [round(r.get("seconds", 0), 4) for r in runs]
    return best


def _median_cli(runs: list[CliRun]) -> dict[str, Any]:
    return median_run([r.to_json() for r in runs])


class ShapeBench:
    """Every figure for one file, in order (the baseline first, on a warm page cache)."""

    def __init__(self, bench: BenchFile, runner: CliRunner, repeat: int, commands: list[str],
                 rules: str | None = None) -> None:
        self.bench, self.runner, self.repeat, self.commands, self.rules = bench, runner, repeat, commands, rules
        self.scratch = runner.scratch / (bench.shape.replace(":", "-") + (f"-{rules}" if rules else ""))
        self.phases: dict[str, float] = {}  # figure -> wall seconds spent on it (to keep a default run short)

    def _child(self, kind: str, path: Path | None = None) -> dict[str, Any]:
        """`child`, with an empty cache dir of its own (an engine-level cache never helps a cold figure)."""
        cache = Path(tempfile.mkdtemp(prefix="cache-", dir=self.scratch))
        try:
            env = dict(self.runner.base_env, SESSION_INSPECTOR_CACHE_DIR=str(cache))
            return child(kind, path or self.bench.path, env, self.rules)
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    def _sample(self) -> Path:
        """The file's first whole lines up to `MEMORY_SAMPLE_BYTES` (tracemalloc is slow; per entry it is the same)."""
        if self.bench.size <= MEMORY_SAMPLE_BYTES:
            return self.bench.path
        sample = self.scratch / "memory-sample.jsonl"
        # Copied in 1 MiB pieces, never held whole: this process's peak RSS becomes a floor under every child's
        # `ru_maxrss` (Linux carries it over fork and exec), so a 64 MiB read here showed as ~160 MB in every run.
        block = 1 << 20
        with self.bench.path.open("rb") as src, sample.open("wb+") as dst:
            copied = 0
            while copied < MEMORY_SAMPLE_BYTES and (chunk := src.read(min(block, MEMORY_SAMPLE_BYTES - copied))):
                dst.write(chunk)
                copied += len(chunk)
            end = copied
            while end > 0:  # cut after the last newline
                start = max(0, end - block)
                dst.seek(start)
                nl = dst.read(end - start).rfind(b"\n")
                if nl >= 0:
                    dst.truncate(start + nl + 1)
                    break
                end = start
        return sample

    def _repeat(self, kind: str, times: int | None = None, path: Path | None = None) -> dict[str, Any]:
        _log(f"  {self.bench.shape}: {kind}")
        t0 = time.perf_counter()
        result = median_run([self._child(kind, path) for _ in range(times or self.repeat)])
        self.phases[kind] = round(time.perf_counter() - t0, 1)
        return result

    def run(self) -> dict[str, Any]:
        """All figures of this shape, as JSON."""
        shutil.rmtree(self.scratch, ignore_errors=True)
        self.scratch.mkdir(parents=True)
        b = self.bench
        self._child("baseline")  # warm the page cache
        result: dict[str, Any] = {"file": str(b.path), "shape": b.shape, "size_bytes": b.size, "rules": self.rules}
        result["baseline"] = self._repeat("baseline")
        result["index"] = self._repeat("index")
        result["entries"] = result["index"]["entries"]
        sample = self._sample()
        result["memory"] = self._repeat("memory", 1, sample)
        result["memory"]["sample_bytes"] = sample.stat().st_size
        if sample != b.path:
            sample.unlink()
        result["tokenizer"] = self._repeat("tokenizer")
        result["tail"] = self._repeat("tail")
        result["append_bytes"] = b.continuation.stat().st_size if b.continuation else 0
        for name in self.commands:
            t0 = time.perf_counter()
            result.setdefault("cli", {})[name] = self._cli(name)
            self.phases[name] = round(time.perf_counter() - t0, 1)
        _log(f"  {b.shape}: append latency")
        result["append_latency"] = self._child("append_latency")
        result["phase_seconds"] = self.phases
        return result

    def _cli(self, name: str) -> dict[str, Any]:
        b, runner = self.bench, self.runner
        _log(f"  {b.shape}: {name} cold")
        unused = self.scratch / f"{name}-unused-cache"
        cold = [runner.run(name, b.path, cache_dir=unused, use_cache=False, rules=self.rules) for _ in range(self.repeat)]
        out: dict[str, Any] = {"cold": _median_cli(cold), "warm": None, "append": None}
        out["cold_wrote_cache"] = sorted(str(p.relative_to(unused)) for p in unused.rglob("*")) if unused.exists() else []
        if not runner.has_cache():
            return out
        _log(f"  {b.shape}: {name} warm")
        cache = self.scratch / f"{name}-cache"
        first = runner.run(name, b.path, cache_dir=cache, use_cache=True, rules=self.rules)
        warm = [runner.run(name, b.path, cache_dir=cache, use_cache=True, rules=self.rules) for _ in range(self.repeat)]
        out["first"] = first.to_json()
        out["warm"] = _median_cli(warm)
        out["warm_output_identical"] = {r.stdout_sha256 for r in [*cold, first, *warm]} == {cold[0].stdout_sha256}
        if b.continuation is not None:
            _log(f"  {b.shape}: {name} after an append")
            appended, reference = self._appended(name, cache)
            out["append"] = _median_cli(appended)
            out["append_output_identical"] = {r.stdout_sha256 for r in appended} == {reference.stdout_sha256}
            out["append_alone"] = _median_cli(self._continuation_alone(name))
        return out

    def _continuation_alone(self, name: str) -> list[CliRun]:
        """`name`, cold, on a session of the header and the appended bytes alone: what the new bytes cost a process
        by themselves (start-up, imports, the tokenizer's load, their own parse and counts)."""
        b, runner = self.bench, self.runner
        assert b.continuation is not None
        alone = self.scratch / f"{b.shape}-continuation-alone.jsonl"
        with b.path.open("rb") as f:
            head = f.readline()
        alone.write_bytes(head + b.continuation.read_bytes())
        try:
            return [runner.run(name, alone, cache_dir=self.scratch / f"{name}-unused-cache", use_cache=False,
                               rules=self.rules) for _ in range(self.repeat)]
        finally:
            alone.unlink()

    def _appended(self, name: str, cache: Path) -> tuple[list[CliRun], CliRun]:
        """`name` after the continuation is appended, each time on the warm cache as it was, and a cold run on the
        appended file (the reference for the output); the file is truncated back afterwards."""
        b, runner = self.bench, self.runner
        assert b.continuation is not None
        snapshot = cache.with_name(cache.name + "-warm")
        if cache.exists():  # else the CLI keeps its cache elsewhere (under XDG_CACHE_HOME): not restored per run
            shutil.copytree(cache, snapshot)
        data = b.continuation.read_bytes()
        runs: list[CliRun] = []
        reference: CliRun | None = None
        for _ in range(self.repeat):
            if snapshot.exists():
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(snapshot, cache)
            try:
                with b.path.open("ab") as f:
                    f.write(data)
                runs.append(runner.run(name, b.path, cache_dir=cache, use_cache=True, rules=self.rules))
                if len(runs) == self.repeat:
                    reference = runner.run(name, b.path, cache_dir=self.scratch / f"{name}-unused-cache", use_cache=False,
                                           rules=self.rules)
            finally:
                os.truncate(b.path, b.size)
        assert reference is not None
        return runs, reference


def _commit() -> str:
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def _sizes(spec: str | None, shapes: list[str]) -> dict[str, int]:
    """`--size 64MB` (every shape) or `--size tools=1GB,chat=64MB`; defaults per shape."""
    sizes = {s: generate.parse_size(DEFAULT_SIZES[s]) for s in shapes}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        if "=" in part:
            shape, value = part.split("=", 1)
            if shape.strip() not in sizes:
                raise SystemExit(f"--size: {shape.strip()!r} is not among --shapes")
            sizes[shape.strip()] = generate.parse_size(value)
        else:
            sizes = dict.fromkeys(sizes, generate.parse_size(part))
    return sizes


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", default=None, help="comma-separated shapes (default tools,chat; none with --file)")
    ap.add_argument("--file", type=Path, action="append", default=[],
                    help="also measure this session (a copy of it; no append rows); repeatable")
    ap.add_argument("--size", default=None, help="session size for every shape (e.g. 64MB), or tools=1GB,chat=256MB")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure; the median is kept (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--commands", default=",".join(COMMANDS), help=f"CLI rows to run (default {','.join(COMMANDS)})")
    ap.add_argument("--data-dir", type=Path, default=Path(tempfile.gettempdir()) / "session-inspector-bench",
                    help="where generated sessions are kept between runs (default: $TMPDIR/session-inspector-bench)")
    ap.add_argument("--out", type=Path, default=OUT, help="where results JSON is written (default bench/out)")
    ap.add_argument("--markdown", action="store_true", help="print only the markdown table on stdout")
    ap.add_argument("--render", type=Path, metavar="RESULTS", help="print the table of a saved results file and exit")
    ap.add_argument("--rules", default=None, metavar="ID[,ID]",
                    help="rule set ids: the cold index and the CLI rows under each (default: none given, the CLI's own "
                         "choice: the default rule set for a generated session)")
    ap.add_argument("--store-events", type=int, default=200_000,
                    help="events of the SQLite store session measured (bench/store.py; default 200000, 0: none)")
    args = ap.parse_args(argv)
    if args.render:
        print(render(json.loads(args.render.read_text())))
        return 0
    shapes_arg = args.shapes if args.shapes is not None else ("" if args.file else "tools,chat")
    shapes = [s.strip() for s in shapes_arg.split(",") if s.strip()]
    for f in args.file:
        if not f.is_file():
            ap.error(f"--file {f}: not a file")
    commands = [c.strip() for c in args.commands.split(",") if c.strip()]
    for s in shapes:
        if s not in generate.SHAPES:
            ap.error(f"unknown shape {s!r} (known: {', '.join(generate.SHAPES)})")
    for c in commands:
        if c not in COMMANDS:
            ap.error(f"unknown command {c!r} (known: {', '.join(COMMANDS)})")
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    # Not checked here (importing the engine would raise this process's RSS, a floor under every child's): an
    # unknown id fails the first measured process.
    rules: list[str | None] = [r.strip() for r in (args.rules or "").split(",") if r.strip()] or [None]
    sizes = _sizes(args.size, shapes)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="si-bench-") as scratch:
        runner = CliRunner(Path(scratch), args.data_dir / "pycache")
        tiny = Path(scratch) / "tiny.jsonl"
        tiny_stats = generate_apart(tiny, entries=TINY_ENTRIES, seed=args.seed, shape="chat")
        results: dict[str, Any] = {
            "generated_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "command": "python bench/run.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "commit": _commit(),
            # code measured from elsewhere than this checkout
            "pythonpath": None if os.environ.get("PYTHONPATH", str(ROOT)) == str(ROOT) else os.environ["PYTHONPATH"],
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "repeat": args.repeat,
            "cache_supported": runner.has_cache(),
            "startup": runner.warm_up(tiny, commands),
            "tiny_entries": tiny_stats.entries,
            "shapes": {},
        }
        results["rules"] = rules
        benches = [prepare(shape, sizes[shape], args.seed, args.data_dir) for shape in shapes]
        benches += [copy_of(f, Path(scratch)) for f in args.file]
        for bench in benches:
            for rid in rules:
                key = bench.shape if len(rules) == 1 else f"{bench.shape} [{rid}]"
                _log(f"{key}: {bench.path} ({bench.size / 2**20:.1f} MiB)")
                results["shapes"][key] = ShapeBench(bench, runner, args.repeat, commands, rid).run()
        if args.store_events > 0:
            import store

            _log(f"store: {args.store_events:,} events")
            results["store"] = store.run(args.store_events, args.repeat, args.seed, args.data_dir)
    results["wall_seconds"] = round(time.perf_counter() - started, 1)
    args.out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(results, indent=2)
    (args.out / "results.json").write_text(text)
    (args.out / f"results-{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}.json").write_text(text)
    table = render(results)
    if not args.markdown:
        print(f"results: {args.out / 'results.json'} ({results['wall_seconds']:.0f} s)\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
