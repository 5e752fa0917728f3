"""`session-inspector plan` as a user runs it: the JSON contract, exit codes, inert output.

`cli` runs the command in this process (`inprocess.run_cli`: same argv, environment, output and exit code); the
JSON contract also runs as a real `python -m inspector` subprocess (`cli_process`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT
from inprocess import run_cli
from oracle.cases import after_compaction_session, builder, split_turn_session, usage

CONTRACT = {
    "first_kept_entry_id", "first_kept_line", "is_split_turn", "tokens_before", "messages_to_summarize", "turn_prefix_messages",
    "context_window", "chunking", "history_share", "stages", "triggers", "mode", "context_engine", "previous_summary",
    "boundary_start", "file_ops", "settings", "nothing_to_plan", "rows",
}


def _env():
    return dict(os.environ, HOME=str(ROOT / "tests" / "no-such-home"), OPENCLAW_STATE_DIR=str(ROOT / "no-state"), COLUMNS="250")


def cli(*args):
    return run_cli(["plan", *args], env=_env())


def cli_process(*args):
    return subprocess.run([sys.executable, "-m", "inspector", "plan", *map(str, args)], capture_output=True, text=True, env=_env(), timeout=120)


def test_json_contract(tmp_path):
    b, ids = split_turn_session()
    path = b.write(tmp_path / "s.jsonl")
    r = cli_process(path, "--json", "--keep-recent-tokens", "2100", "--context-window", "100000", "--early-thresholds", "0.25,0.9")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert CONTRACT <= set(data)
    assert data["first_kept_entry_id"] == ids["a4"] and data["is_split_turn"] is True
    assert data["messages_to_summarize"][0].keys() >= {"entry_id", "line"}
    assert set(data["chunking"]) >= {"adaptive_chunk_ratio", "max_chunk_tokens", "chunks", "oversized", "token_share_parts"}
    assert set(data["history_share"]) >= {"budget_tokens", "dropped_messages", "dropped_tokens", "kept_tokens", "dropped_context_indexes"}
    assert set(data["file_ops"]) == {"read_files", "modified_files"}
    assert data["settings"]["keepRecentTokens"] == {"value": 2100, "source": "flag"}
    assert data["context_window"] == {"tokens": 100_000, "source": "flag"}
    assert [w["fraction"] for w in data["triggers"]["early_warnings"]] == [0.25, 0.9]
    assert data["mode"] == "safeguard" and data["context_engine"]["id"] == "legacy"


def test_config_file_drives_settings(tmp_path):
    b, _ = split_turn_session()
    path = b.write(tmp_path / "s.jsonl")
    cfg = tmp_path / "openclaw.json"
    cfg.write_text("{agents: {defaults: {compaction: {mode: 'default', reserveTokens: 30000, keepRecentTokens: 2100}}}, // json5\n}")
    data = json.loads(cli(path, "--json", "--config", cfg).stdout)
    assert (data["mode"], data["settings"]["reserveTokens"]["value"], data["first_kept_entry_id"]) == ("default", 30000, b.entries[-1]["id"])
    r = cli(path, "--json", "--config", cfg, "--reserve-tokens", "5", "--prompt-tokens", "1000")
    data = json.loads(r.stdout)
    assert data["settings"]["reserveTokens"]["value"] == 5 and data["triggers"]["pre_prompt"]["prompt_tokens"] == 1000


def test_human_output(tmp_path):
    b, ids = split_turn_session()
    path = b.write(tmp_path / "s.jsonl")
    r = cli(path, "--keep-recent-tokens", "2100")
    assert r.returncode == 0, r.stderr
    for text in ("first kept entry", ids["a4"], "SPLIT TURN", "pi threshold", "pre-prompt", "Stages", "split_turn_prefix"):
        assert text in r.stdout
    r = cli(after_compaction_session().write(tmp_path / "c.jsonl"))
    assert r.returncode == 0 and "Nothing to plan: the last entry on the path is a compaction" in r.stdout


def test_untrusted_text_stays_inert(tmp_path):
    b = builder()
    b.user("hi")
    b.assistant("ok", usage=usage(1000))
    b.custom_message("[bold red]x[/]\x1b[31m", "text")
    b.model_change("evil[/]\x1b]8;;http://x\x07", "m\x1b[2J")
    b.user("more")
    b.assistant([], usage=usage(0), stop_reason="error", error_message="\x1b[31mprompt is too long[/red]")
    evil = "[bold]\x1b[31mid"
    b.raw_line(json.dumps({"type": "message", "id": evil, "parentId": b.leaf_id, "timestamp": "2026-01-02T03:04:59.000Z",
                           "message": {"role": "user", "content": "last", "timestamp": 1}}))
    r = cli(b.write(tmp_path / "s.jsonl"), "--keep-recent-tokens", "1")
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "[bold]" in r.stdout and "prompt is too long[/red]" in r.stdout  # shown as the characters they are
    data = json.loads(cli(tmp_path / "s.jsonl", "--json").stdout)
    assert data["triggers"]["overflow"]["error_message"] == "\x1b[31mprompt is too long[/red]"  # JSON keeps the value


def test_errors(tmp_path):
    r = cli(tmp_path / "missing.jsonl")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no such file" in r.stderr
    b, _ = split_turn_session()
    path = b.write(tmp_path / "s.jsonl")
    r = cli(path, "--leaf", "nope")
    assert r.returncode == 2 and "no entry with id 'nope'" in r.stderr
    for bad in (["--keep-recent-tokens", "0"], ["--reserve-tokens", "-1"], ["--early-thresholds", "0.5,2"], ["--early-thresholds", "x"],
                ["--prompt-tokens", "1e3"], ["--ratio-formula", "magic"]):
        r = cli(path, *bad)
        assert r.returncode == 2 and "error:" in r.stderr, bad


def test_threshold_row_is_named_by_the_rule_set(tmp_path):
    """The agent core's threshold trigger is pi's under 2026.4.12 and pi 0.73.1, OpenClaw's own agent core's under
    2026.9.6 (`triggers.THRESHOLD_LABEL`)."""
    b, _ = split_turn_session()
    path = b.write(tmp_path / "s.jsonl")
    for rules, label in (("openclaw-2026.4.12", "pi threshold"), ("pi-0.73.1", "pi threshold"), ("openclaw-2026.9.6", "agent threshold")):
        r = cli(path, "--rules", rules)
        assert r.returncode == 0, r.stderr
        first_trigger = next(line for line in r.stdout.splitlines() if line.startswith("│"))
        assert first_trigger.strip("│ ").startswith(label + " "), (rules, first_trigger)
        assert ("pi threshold" in r.stdout) is (label == "pi threshold")
