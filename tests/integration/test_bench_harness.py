"""`make bench`'s harness works end to end (not timings: those live in `make bench`).

The generator's chat shape is deterministic and cut at a whole-session boundary, and `bench/run.py` runs every
figure on a tiny generated file, restores the file after its append runs, and tallies the same tokens in the
tokenizer-alone figure as the counting step.
"""

from __future__ import annotations

import json
import subprocess
import sys

import orjson
from conftest import ROOT, bench_generator


def test_chat_shape_is_deterministic_small_per_entry_and_cut_between_turns(tmp_path):
    gen = bench_generator()
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    stats = gen.generate(a, size_bytes=3 << 19, seed=5, shape="chat", mark_at=1 << 20)
    gen.generate(b, size_bytes=3 << 19, seed=5, shape="chat", mark_at=1 << 20)
    data = a.read_bytes()
    assert data == b.read_bytes()
    assert 1 << 20 <= stats.mark_bytes < stats.bytes == len(data)
    head, continuation = data[: stats.mark_bytes], data[stats.mark_bytes:]
    assert head.endswith(b"\n") and head.count(b"\n") == stats.mark_entries + 1
    ids = {orjson.loads(line).get("id") for line in head.splitlines()}
    first_new = orjson.loads(continuation.splitlines()[0])
    assert first_new["parentId"] in ids  # the continuation extends the cut session
    sizes = [len(line) for line in data.splitlines()[1:]]
    assert 1500 <= sum(sizes) / len(sizes) <= 2600  # ~2 KB per entry
    results = [len(line) for line in data.splitlines() if b'"role":"toolResult"' in line]
    assert sorted(results)[len(results) // 2] < 6000  # mostly small results
    tools = tmp_path / "t.jsonl"
    gen.generate(tools, size_bytes=1 << 20, seed=5)
    tool_sizes = [len(line) for line in tools.read_bytes().splitlines()[1:]]
    assert sum(tool_sizes) / len(tool_sizes) > sum(sizes) / len(sizes)  # the default shape: larger entries


def test_bench_run_measures_every_figure_on_a_tiny_file(tmp_path):
    data_dir, out_dir = tmp_path / "data", tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), "--shapes", "chat", "--size", "2MB", "--repeat", "1",
         "--commands", "stats_no_tiktoken", "--data-dir", str(data_dir), "--out", str(out_dir), "--markdown",
         "--store-events", "500"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((out_dir / "results.json").read_text())
    chat = results["shapes"]["chat"]
    session = sorted(data_dir.glob("chat-*.jsonl"))
    assert len(session) == 1
    assert session[0].stat().st_size == chat["size_bytes"]  # truncated back after the append runs
    assert chat["entries"] == chat["baseline"]["lines"] - 1 == session[0].read_bytes().count(b"\n") - 1
    assert chat["append_bytes"] > 0 and chat["append_latency"]["appends"] == 50
    tok = chat["tokenizer"]
    assert tok["tokens"] == tok["tokens_counted"] > 0  # both figures tokenize the same texts
    assert chat["memory"]["traced_bytes_per_entry"] > 0
    cli = chat["cli"]["stats_no_tiktoken"]
    assert cli["cold"]["stdout_bytes"] > 0 and not cli["cold_wrote_cache"]
    store = results["store"]  # the SQLite store session (bench/store.py)
    assert store["events"] >= 500 and store["open"]["baseline_seconds"] > 0 and store["open"]["open_seconds"] > 0
    assert store["live"]["samples"] == 50 and 0 < store["live"]["p50_ms"] <= store["live"]["p95_ms"]
    assert "SQLite store" in proc.stdout
    if results["cache_supported"]:
        assert cli["warm_output_identical"] and cli["append_output_identical"]  # cached output == cold output
        assert cli["warm"]["seconds"] > 0 and cli["append"]["stdout_bytes"] > 0
        assert cli["append_alone"]["stdout_bytes"] > 0  # the continuation alone, as a session of its own
        assert "0.1× bound + share ≤ " in proc.stdout and "warm run + share ≤ " in proc.stdout and "+ alone ≤ " in proc.stdout
    assert "| `stats --json --no-tiktoken`, cold (`--no-cache`) |" in proc.stdout
    assert proc.stdout.startswith("| figure | target | chat: 2 MiB")


def test_bench_scripts_explain_themselves():
    for script, needle in (("generate.py", "--shape {chat,cjk,thinking,tools}"), ("run.py", "--markdown")):
        proc = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--help"], capture_output=True, text=True,
                              timeout=60, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert needle in proc.stdout
