"""`session-inspector prune` as a user runs it: range-checked flags, times JavaScript cannot print, inert output.

`run` runs the command in this process (`inprocess.run_cli`: same argv, environment, output and exit code); the
largest accepted values also go through a real `python -m inspector` subprocess (`run_process`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from inprocess import run_cli

from inspector.samples.fixtures import SessionBuilder

START = "2026-03-01T10:00:00.000Z"


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return run_cli(["prune", *argv], env=dict(os.environ, PYTHONPATH=str(ROOT)))


def run_process(*argv: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "inspector", "prune", *argv], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


@pytest.fixture
def session_path(tmp_path):
    b = SessionBuilder(seed=9, start=START)
    b.header()
    b.user("go")
    b.assistant([b.tool_call("read", {"p": 1})])
    b.tool_result(b.last_tool_call_ids[0], "read", "x" * 6000)
    b.assistant("done")
    b.cache_ttl()
    return b.write(tmp_path / "s.jsonl")


@pytest.mark.parametrize(
    "flag,value,words",
    [
        ("--keep-last-assistants", "9999999999999999999999", "from 0 to 9,007,199,254,740,991"),
        ("--keep-last-assistants", "-1", "from 0 to"),
        ("--keep-last-assistants", "2.5", "whole number"),
        ("--min-prunable-tool-chars", "1e9", "whole number"),
        ("--soft-trim-max-chars", "99999999999999999999", "from 0 to"),
        ("--soft-trim-head-chars", "x", "whole number"),
        ("--soft-trim-tail-chars", "-3", "from 0 to"),
        ("--soft-trim-ratio", "nan", "from 0 to 1"),
        ("--hard-clear-ratio", "1.5", "from 0 to 1"),
        ("--hard-clear-ratio", "inf", "from 0 to 1"),
        ("--ttl", "99999999999999999999h", "JavaScript's Date range"),
        ("--ttl", "5 minutes", "invalid duration"),
        ("--context-window", "0", "from 1 to 2,147,483,647"),
        ("--context-window", "99999999999999999999", "from 1 to 2,147,483,647"),
        ("--now", "yesterday", "not an ISO-8601 time"),
        ("--now", "+275760-09-13T00:00:00.001Z", "not an ISO-8601 time"),
    ],
)
def test_out_of_range_flags_are_clear_errors(session_path, flag, value, words):
    proc = run(str(session_path), f"{flag}={value}", "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert words in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"session-inspector prune: error: argument {flag}")


def test_largest_accepted_values_run(session_path):
    proc = run_process(str(session_path), "--json", "--no-tiktoken", "--keep-last-assistants", str(2**53 - 1), "--ttl",
               "100000000d", "--context-window", str(2**31 - 1), "--soft-trim-max-chars", str(2**53 - 1),
               "--now", "9999-12-31T23:59:59.999Z")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["settings"]["ttlMs"] == 8_640_000_000_000_000 and data["settings"]["keepLastAssistants"] == 2**53 - 1
    assert data["gate"]["expires_at"] is None and not data["gate"]["open"]  # touch + 8.64e15 ms: past year 275760
    assert [d["kind"] for d in data["diagnostics"]] == ["expiry_out_of_range"]
    assert data["stage"] == "gate_closed" and data["pruner_stage"] == "too_few_assistants"


def test_times_javascript_cannot_print_are_diagnostics_not_crashes(tmp_path):
    """Message timestamps of 1e20 and -1e20 ms and a touch at 1e20: OpenClaw compares numbers and never formats
    them; the preview shows null times and says why. The touch in the far future keeps the gate closed."""
    b = SessionBuilder(seed=10, start=START)
    b.header()
    b.user("go")
    b.assistant([b.tool_call("read", {})])
    call = b.last_tool_call_ids[0]
    b.message({"role": "toolResult", "toolCallId": call, "toolName": "read", "content": [{"type": "text", "text": "r"}],
               "isError": False, "timestamp": 1e20})
    b.message({"role": "user", "content": "again", "timestamp": -1e20})
    b.assistant("done")
    b.cache_ttl(timestamp_ms=int(1e20))
    path = b.write(tmp_path / "s.jsonl")
    proc = run(str(path), "--json", "--no-tiktoken", "--all", "--now", "2026-03-02T00:00:00Z")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    kinds = [(d["kind"], d["entry_id"] is not None) for d in data["diagnostics"]]
    assert kinds.count(("timestamp_out_of_range", True)) == 3
    rows = {r["index"]: r for r in data["messages"]}
    assert rows[2]["timestamp"] is None and rows[2]["cache_expires_at"] is None and rows[3]["timestamp"] is None
    g = data["gate"]
    assert g["source"] == "cache_ttl_entry" and g["last_cache_touch_at"] is None and g["last_cache_touch_at_ms"] == 1e20
    assert not g["open"] and "in the future" in g["reason"]
    human = run(str(path), "--no-tiktoken", "--all", "--now", "2026-03-02T00:00:00Z")
    assert human.returncode == 0 and "diagnostic: timestamp_out_of_range" in human.stdout


def test_human_output_is_inert(tmp_path):
    """Model and tool names from the file with ESC/OSC/BEL and Rich markup print as visible text."""
    evil_model = "claude-3-7\x1b[31m[bold]red[/bold]"
    evil_tool = "read\x1b]0;pwned\x07"
    b = SessionBuilder(seed=12, start=START, model=evil_model)
    b.header()
    b.user("go")
    b.assistant([b.tool_call(evil_tool, {})])
    b.tool_result(b.last_tool_call_ids[0], evil_tool, "x" * 100)
    b.assistant("done")
    b.cache_ttl()
    proc = run(str(b.write(tmp_path / "s.jsonl")), "--no-tiktoken", "--force")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[31m[bold]red[/bold]" in out and "\\x1b]0;pwned\\x07" in "".join(out.split())
