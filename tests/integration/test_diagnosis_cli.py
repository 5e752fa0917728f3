"""`session-inspector timeline` as a user runs it: the JSON contract, CSV, human text, errors.

`cli` runs the command in this process (`inprocess.run_cli`: same argv, environment, output and exit code); the
JSON contract also runs as a real `python -m inspector` subprocess (`cli_process`).
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

from conftest import ROOT
from inprocess import run_cli
from test_diagnosis_fixtures import CWD, ESTIMATES, PROMPTS, build_runaway

from inspector.samples.fixtures import SessionBuilder

CALL_KEYS = {"entry_id", "line", "prompt_tokens", "output_tokens", "cache_read", "cache_write", "transcript_estimate",
             "not_in_transcript", "cost"}
DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"


def _env(home=None):
    env = dict(os.environ, HOME=str(home or ROOT / "tests" / "no-such-home"), OPENCLAW_STATE_DIR=str((home or ROOT) / "no-state"))
    env["PYTHONPATH"] = str(ROOT)
    env["COLUMNS"] = "200"  # rich wraps to the terminal width; a wide one keeps each cell on one line
    return env


def cli(*args, home=None):
    return run_cli(args, env=_env(home))


def cli_process(*args, home=None):
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, text=True, env=_env(home), timeout=120)


def test_json_contract(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    r = cli_process("timeline", tmp_path / "s.jsonl", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    for key in ("calls", "jumps", "thresholds_crossed", "repeats", "overhead", "cache", "cost", "fill", "skipped", "markers"):
        assert key in data
    assert all(CALL_KEYS <= set(c) for c in data["calls"])
    assert [c["prompt_tokens"] for c in data["calls"]] == PROMPTS
    assert [c["transcript_estimate"] for c in data["calls"]] == ESTIMATES
    assert {"entry_id", "delta_tokens", "cause_entry_ids"} <= set(data["jumps"][0])
    assert data["jumps"][0]["entry_id"] == ids["A6"] and data["jumps"][0]["cause_entry_ids"][0] == ids["R5"]
    assert {"kind", "count", "tokens", "entry_ids"} <= set(data["repeats"][0])
    assert [t["name"] for t in data["thresholds_crossed"]] == ["early_0.5", "early_0.7", "compaction", "window"]
    assert data["derived_fields"]["not_in_transcript"].startswith("derived")


def test_flags_reach_the_engine(tmp_path):
    build_runaway(tmp_path / "s.jsonl")
    r = cli("timeline", tmp_path / "s.jsonl", "--json", "--context-window", "20000", "--early-thresholds", "0.25", "--top", "1")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["context_window"]["tokens"] == 20000 and len(data["jumps"]) == 1
    assert [t["tokens"] for t in data["thresholds_crossed"]] == [0, 5000, 20000]  # reserve floor 20000: compaction at 0


def test_csv_one_row_per_call(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    r = cli("timeline", tmp_path / "s.jsonl", "--csv")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert len(rows) == 8
    assert [row["entry_id"] for row in rows][:2] == [ids["A1"], ids["A2"]]
    assert [int(row["prompt_tokens"]) for row in rows] == PROMPTS
    assert [int(row["not_in_transcript"]) for row in rows] == [4900] + [5000] * 7
    assert rows[0]["cost_source"] == "recorded" and float(rows[0]["cost"]) > 0


def test_human_output(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    r = cli("timeline", tmp_path / "s.jsonl")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for text in ("Calls on the active path (8)", "Largest jumps", "Repeats (4", "file_reread", "not in the transcript (derived",
                 "cache: hit ratio 51%", "skipped: 1 synthetic", "1 zero-usage"):
        assert text in out, text
    assert ids["R5"] in out  # the cause of the largest jump is named


def test_untrusted_text_stays_inert(tmp_path):
    b = SessionBuilder(seed=11)
    b.header(cwd=CWD)
    b.user("go")
    evil = "echo \x1b]0;pwned\x07 [bold red]x[/bold red] \x1b[31mred"
    for _ in range(2):
        b.assistant([b.tool_call("exec", {"command": evil})])
        b.tool_result(b.last_tool_call_ids[0], "exec", "out")
    b.assistant("done")
    b.write(tmp_path / "e.jsonl")
    r = cli("timeline", tmp_path / "e.jsonl")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "\\x1b]0;pwned\\x07" in r.stdout and "[bold red]x[/bold red]" in r.stdout
    js = json.loads(cli("timeline", tmp_path / "e.jsonl", "--json").stdout)
    assert js["repeats"][0]["subject"] == evil  # JSON keeps the exact text (escaped by JSON itself)


def test_errors_are_one_line_and_exit_2(tmp_path):
    missing = cli("timeline", tmp_path / "nope.jsonl")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no such file" in missing.stderr
    build_runaway(tmp_path / "s.jsonl")
    both = cli("timeline", tmp_path / "s.jsonl", "--json", "--csv")
    assert both.returncode == 2 and "exclusive" in both.stderr
    leaf = cli("timeline", tmp_path / "s.jsonl", "--leaf", "zzz")
    assert leaf.returncode == 2 and "zzz" in leaf.stderr
    bad = cli("timeline", tmp_path / "s.jsonl", "--early-thresholds", "1.5")
    assert bad.returncode == 2 and "fraction" in bad.stderr
    zero = cli("timeline", tmp_path / "s.jsonl", "--context-window", "0")
    assert zero.returncode == 2


def test_totals_agree_with_stats_json_on_the_demo():
    """Σ recorded usage over the calls = `stats --json` usage.active_path minus the skipped calls."""
    tl = json.loads(cli("timeline", DEMO, "--json").stdout)
    stats = json.loads(cli("stats", DEMO, "--json", "--no-tiktoken").stdout)
    active = stats["usage"]["active_path"]
    sums = {
        "input": sum(c["input"] for c in tl["calls"]),
        "output": sum(c["output_tokens"] for c in tl["calls"]),
        "cacheRead": sum(c["cache_read"] for c in tl["calls"]),
        "cacheWrite": sum(c["cache_write"] for c in tl["calls"]),
    }
    for k, v in sums.items():
        assert v + tl["totals"]["skipped"][k] == active[k], k
    assert len(tl["calls"]) + tl["skipped"]["synthetic"] + tl["skipped"]["zero_usage"] == active["assistant_calls"]
    assert tl["fill"]["fill"] == stats["context_fill"]
    assert tl["context_window"] == stats["context_window"] and tl["guard"] == stats["guard"]
