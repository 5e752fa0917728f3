"""The headless CLI as a user runs it: JSON contracts, exit codes, one-line errors.

`cli` runs the command in this process (`inprocess.run_cli`: same argv, environment, stdout/stderr and exit
code); `cli_process` is a real `python -m inspector` subprocess, for the contract end to end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT, assistant, entry, header, msg, tool_result, user, write_lines
from inprocess import run_cli

CONTEXT_ROW_KEYS = {"index", "entry_id", "line", "role", "tool_name", "estimates", "usage"}
ESTIMATE_KEYS = {"pi_tokens", "openclaw_prune_chars", "openclaw_compaction_tokens", "tool_guard_chars", "tiktoken"}


def _env(home=None):
    return dict(os.environ, HOME=str(home or ROOT / "tests" / "no-such-home"), OPENCLAW_STATE_DIR=str((home or ROOT) / "no-state"))


def cli(*args, home=None):
    return run_cli(args, env=_env(home))


def cli_process(*args, home=None):
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, text=True, env=_env(home), timeout=120)


def sample(tmp_path):
    return write_lines(
        tmp_path / "s.jsonl",
        [
            header(),
            entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"),
            msg("u1", "m1", user("read it")),
            msg("a1", "u1", assistant("", tool_calls=[("c1", "read", {"path": "a.py"})])),
            msg("t1", "a1", tool_result("c1", "read", "x" * 4000, details={"lines": 1})),
            entry("compaction", "k1", "t1", summary="S" * 40, firstKeptEntryId="a1", tokensBefore=99),
            msg("a2", "k1", assistant("done")),
            "{damaged",
        ],
    )


def test_context_json_contract(tmp_path):
    r = cli_process("context", sample(tmp_path), "--json", "--context-window", "50000")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert {"file", "leaf_id", "context_window", "guard", "diagnostics", "messages"} <= set(data)
    assert data["context_window"] == {"tokens": 50000, "source": "flag"}
    assert data["leaf_id"] == "a2"
    rows = data["messages"]
    assert [(x["role"], x["entry_id"], x["line"]) for x in rows] == [
        ("compactionSummary", "k1", 6), ("assistant", "a1", 4), ("toolResult", "t1", 5), ("assistant", "a2", 7)
    ]
    for row in rows:
        assert CONTEXT_ROW_KEYS <= set(row) and ESTIMATE_KEYS <= set(row["estimates"])
    assert rows[2]["estimates"]["pi_tokens"] == 1000
    assert rows[2]["estimates"]["tool_guard_chars"] == 2 * (4000 + len('{"lines":1}'))
    assert rows[1]["usage"]["totalTokens"] == 120 and rows[2]["usage"] is None
    assert rows[0]["estimates"]["openclaw_prune_chars"] == 256
    assert any(d["kind"] == "unparseable" and d["line"] == 8 for d in data["diagnostics"])


def test_stats_json_and_text(tmp_path):
    p = sample(tmp_path)
    r = cli("stats", p, "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["entries"]["by_type"] == {"compaction": 1, "message": 4, "model_change": 1}
    assert data["compactions"][0]["kind"] == "split_turn" and data["compactions"][0]["in_force"]
    assert data["context_window"]["tokens"] == 200000 and data["context_window"]["source"].startswith("model:")
    assert data["guard"]["level"] == "ok"
    assert data["usage"]["all_entries"]["assistant_calls"] == 2
    assert data["context"]["estimates"]["pi_tokens"] == sum(
        x["estimates"]["pi_tokens"] for x in json.loads(cli("context", p, "--json").stdout)["messages"]
    )
    text = cli("stats", p)
    assert text.returncode == 0 and "context window" in text.stdout and "unparseable" in text.stdout


def test_missing_unreadable_and_bad_leaf_exit_nonzero_with_one_line(tmp_path):
    r = cli("stats", tmp_path / "nope.jsonl")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "no such file" in r.stderr
    r = cli("context", tmp_path)
    assert r.returncode == 2 and "is a directory" in r.stderr
    r = cli("context", sample(tmp_path), "--leaf", "zzz")
    assert r.returncode == 2 and "zzz" in r.stdout + r.stderr


def test_guard_levels_follow_window(tmp_path):
    p = sample(tmp_path)
    assert json.loads(cli("stats", p, "--json", "--context-window", "20000", "--no-tiktoken").stdout)["guard"]["level"] == "warn"
    assert json.loads(cli("stats", p, "--json", "--context-window", "8000", "--no-tiktoken").stdout)["guard"]["level"] == "block"


def test_config_file_sets_window(tmp_path):
    cfg = tmp_path / "openclaw.json"
    cfg.write_text("{ // json5\n models: { providers: { anthropic: { models: [ { id: 'claude-sonnet-4-5', contextWindow: 64000, }, ], }, }, },\n}")
    data = json.loads(cli("stats", sample(tmp_path), "--json", "--config", cfg, "--no-tiktoken").stdout)
    assert data["context_window"]["tokens"] == 64000 and "contextWindow" in data["context_window"]["source"]


def test_untrusted_text_is_inert_in_text_output(tmp_path):
    evil = "[bold red]X[/] \x1b[31mred\x1b]0;title\x07 [link=http://e]l[/link]"
    p = write_lines(tmp_path / "e.jsonl", [header(), msg("u1", None, user(evil)), entry("session_info", "i", "u1", name=evil)])
    r = cli("stats", p)
    assert r.returncode == 0
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "[bold red]X[/]" in r.stdout and "\\x1b[31m" in r.stdout


def test_ls_figures_are_the_browsers(tmp_path):
    """`ls --figures` adds what the session browser shows (`inspector.figures.file_summary`), in the table and in JSON."""
    from inspector.figures.file_summary import summarize_session

    good = sample(tmp_path)
    (tmp_path / "cc.jsonl").write_text('{"type":"user","uuid":"a"}\n', encoding="utf-8")
    plain = json.loads(cli("ls", tmp_path, "--json").stdout)
    assert all("figures" not in s for s in plain["sessions"])
    data = json.loads(cli("ls", tmp_path, "--json", "--figures").stdout)
    by_name = {s["path"].rsplit("/", 1)[-1]: s for s in data["sessions"]}
    assert set(by_name) == {"s.jsonl", "cc.jsonl"}
    assert by_name["s.jsonl"]["figures"] == summarize_session(good).to_json()
    assert by_name["s.jsonl"]["figures"]["messages"] > 0 and by_name["s.jsonl"]["figures"]["compactions"] == 1
    assert by_name["cc.jsonl"]["figures"]["error"] == "not an OpenClaw / pi session"
    assert set(plain["sessions"][0]) <= set(by_name["s.jsonl"])  # only `figures` is added
    text = cli("ls", tmp_path, "--figures")
    assert text.returncode == 0 and "Msgs" in text.stdout and "Context" in text.stdout
    assert f"{by_name['s.jsonl']['figures']['context_tokens']:,}" in text.stdout


def test_context_window_out_of_range_is_a_usage_error_for_every_command(tmp_path):
    p = sample(tmp_path)
    for command in ("stats", "context", "prune"):
        for bad in ("0", "-1", "99999999999999999999", "2147483648", "12k", "1.5"):
            r = cli(command, p, "--json", "--no-tiktoken", f"--context-window={bad}")
            assert r.returncode == 2, (command, bad, r.stdout)
            assert "Traceback" not in r.stderr and "--context-window" in r.stderr, (command, bad, r.stderr)
            assert r.stdout == ""
    data = json.loads(cli("stats", p, "--json", "--no-tiktoken", "--context-window", "2147483647").stdout)
    assert data["context_window"] == {"tokens": 2147483647, "source": "flag"}


def test_context_window_arg_bounds():
    import argparse

    import pytest

    from inspector.base.window_arg import MAX_CONTEXT_WINDOW_OVERRIDE, context_window_arg

    assert MAX_CONTEXT_WINDOW_OVERRIDE == 2**31 - 1
    assert context_window_arg("1") == 1 and context_window_arg(" 200000 ") == 200_000
    assert context_window_arg(str(2**31 - 1)) == 2**31 - 1
    for bad in ("0", "-5", str(2**31), "", "abc", "1e6"):
        with pytest.raises(argparse.ArgumentTypeError):
            context_window_arg(bad)


def test_every_command_module_registers_the_command_it_is_named_after():
    import argparse

    from inspector.cli import command_modules, command_name, command_names

    names = command_names()
    assert {"context", "ls", "prune", "stats"} <= set(names)
    for mod in command_modules():
        sub = argparse.ArgumentParser().add_subparsers()
        mod.register(sub)
        assert list(sub.choices) == [command_name(mod)]


def test_a_path_that_is_not_a_command_opens_the_app_not_a_usage_error(tmp_path):
    # `session-inspector FILE --help`: the app's parser answers (exit 0), so FILE was not taken for a command.
    r = cli(sample(tmp_path), "--help")
    assert r.returncode == 0 and "--demo" in r.stdout
    r = cli("stats", "--help")
    assert r.returncode == 0 and "--context-window" in r.stdout and "--demo" not in r.stdout


_RUN_WITH_EXIT_HOOKS = """
import atexit, sys, threading, time
from inspector import cli
marker, late = sys.argv[1], sys.argv[2] == "thread"
atexit.register(lambda: open(marker, "a").write("atexit "))
if late:  # a non-daemon thread still running when the command ends: waited for, as by a normal exit
    threading.Thread(target=lambda: (time.sleep(0.3), open(marker, "a").write("thread "))).start()
sys.argv = ["session-inspector", *sys.argv[3:]]
cli.run()
"""


def test_the_console_script_ends_a_command_at_once_with_its_output_whole_and_its_exit_hooks_run(tmp_path):
    """`cli.run` skips the interpreter's teardown after a headless command (`exit_now`): the output is still complete
    (flushed), atexit handlers still run, the exit code is the command's, and a running non-daemon thread is waited
    for as a normal exit would."""
    path = sample(tmp_path)
    in_process = cli("timeline", "--json", "--no-cache", path)
    assert in_process.returncode == 0
    for late in ("none", "thread"):
        marker = tmp_path / f"marker-{late}"
        out = tmp_path / f"out-{late}.json"
        with out.open("wb") as f:
            proc = subprocess.run([sys.executable, "-c", _RUN_WITH_EXIT_HOOKS, str(marker), late, "timeline", "--json",
                                   "--no-cache", str(path)], stdout=f, stderr=subprocess.PIPE, env=_env(), timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert out.read_text() == in_process.stdout
        assert marker.read_text() == ("thread atexit " if late == "thread" else "atexit ")
    missing = subprocess.run([sys.executable, "-c", _RUN_WITH_EXIT_HOOKS, str(tmp_path / "m"), "none", "stats", "--json",
                              str(tmp_path / "absent.jsonl")], capture_output=True, text=True, env=_env(), timeout=120)
    assert missing.returncode == 2 and "absent.jsonl" in missing.stderr
    assert (tmp_path / "m").read_text() == "atexit "
