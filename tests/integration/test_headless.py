"""Headless CLI in hostile surroundings (issue 14): unsupported formats, pipes, output errors, Python words.

The exit code and the exact bytes on stdout/stderr are the contract. `cli` runs a command in this process
(`inprocess.run_cli`: the same argv, environment, stdout/stderr and exit code); real subprocesses (`cli_process`
and the pipe tests) where the process is the point: closed or full pipes, closed stdout, FIFOs and devices that
would hang a broken reader (the subprocess has a timeout).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, assistant, corpus_file, entry, header, msg, tool_result, user, write_lines
from inprocess import run_cli

from inspector.read.detect import CLAUDE_CODE, CODEX, OPENCLAW, UNKNOWN, classify_lines, detect_format


def env_for(home: Path | None = None, **extra: str) -> dict[str, str]:
    base = home or ROOT / "tests" / "no-such-home"
    env = dict(os.environ, HOME=str(base), OPENCLAW_STATE_DIR=str(base / "no-state"))
    env.pop("OPENCLAW_CONFIG_PATH", None)
    env.update(extra)
    return env


def cli(*args, env=None):
    return run_cli(args, env=env or env_for())


def cli_process(*args, env=None, **kw):
    return subprocess.run(
        [sys.executable, "-m", "inspector", *map(str, args)],
        capture_output=True, text=True, env=env or env_for(), timeout=120, **kw,
    )


def sample(tmp_path: Path, tool_name: str = "read", n_tools: int = 1) -> Path:
    objs: list = [header(), entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"),
                  msg("u1", "m1", user("go"))]
    parent = "u1"
    for i in range(n_tools):
        objs.append(msg(f"a{i}", parent, assistant("", tool_calls=[(f"c{i}", tool_name, {"path": "a.py"})])))
        objs.append(msg(f"t{i}", f"a{i}", tool_result(f"c{i}", tool_name, "x" * 4000)))
        parent = f"t{i}"
    objs.append(msg("z", parent, assistant("done")))
    return write_lines(tmp_path / "s.jsonl", objs)


CLAUDE_LINES = [
    {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
    {"parentUuid": None, "isSidechain": False, "type": "user", "uuid": "u1", "sessionId": "s",
     "message": {"role": "user", "content": "hi"}},
]
CODEX_LINES = [
    {"timestamp": "2026-01-02T03:04:05.000Z", "type": "session_meta", "payload": {"id": "x", "cwd": "/w"}},
    {"timestamp": "2026-01-02T03:04:06.000Z", "type": "response_item", "payload": {"type": "message"}},
]


# --- format detection ---------------------------------------------------------------------------------------

def test_classify_lines_each_family():
    enc = lambda objs: [json.dumps(o).encode() for o in objs]
    assert classify_lines(enc(CLAUDE_LINES)).name == CLAUDE_CODE
    assert classify_lines(enc(CODEX_LINES)).name == CODEX
    assert classify_lines(enc([header(), msg("u1", None, user("x"))])).name == OPENCLAW
    assert classify_lines([b"not json", b"{}"]).name == UNKNOWN


def test_detect_format_on_corpus():
    for name in ("cc-01-spotter-short.jsonl", "cc-04-spotter-258c7280-compact-excerpt.jsonl",
                 "cc-06-claude-code-log-representative_messages.jsonl", "cc-08-spotter-subagent-file-agent-a2898e3.jsonl"):
        assert detect_format(corpus_file("claude-code", name)).name == CLAUDE_CODE, name
    for name in ("codex-01-claude-code-log-rollout-2026-01-02T03-04-05-11111111.jsonl",
                 "codex-03-agent-history-real-codex-session-01.jsonl"):
        assert detect_format(corpus_file("codex", name)).name == CODEX, name


@pytest.mark.parametrize("command", ["stats", "context", "timeline"])
def test_claude_code_and_codex_files_are_read(tmp_path, command):
    for lines, fmt in ((CLAUDE_LINES, "claude-code"), (CODEX_LINES, "codex")):
        p = write_lines(tmp_path / "x.jsonl", [json.dumps(o) for o in lines])
        r = cli(command, p, "--json")
        assert r.returncode == 0, (command, r.stdout, r.stderr)
        data = json.loads(r.stdout)
        assert data["source"] == {"kind": fmt, "file": str(p)} and data["file"] == str(p)


def test_a_file_of_no_known_format_is_not_mirrored(tmp_path):
    p = write_lines(tmp_path / "x.jsonl", [json.dumps({"hello": "world"})])
    data = json.loads(cli("stats", p, "--json").stdout)
    assert data["format"] == "openclaw" and "source" not in data and data["file"] == str(p)


def test_openclaw_file_still_exit_0(tmp_path):
    r = cli("stats", sample(tmp_path))
    assert r.returncode == 0, r.stderr


# --- pipes and output errors ----------------------------------------------------------------------------------

def test_closed_pipe_is_a_quiet_end(tmp_path):
    p = sample(tmp_path, n_tools=400)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "context", str(p), "--no-tiktoken"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for())
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    code = proc.wait(timeout=120)
    assert code in (0, 141), (code, err)
    assert err == b"", err


def test_dev_full_is_one_line_exit_1(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    p = sample(tmp_path, n_tools=50)
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "inspector", "context", str(p), "--no-tiktoken"],
                           stdout=full, stderr=subprocess.PIPE, text=True, env=env_for(), timeout=120)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr and "No space left" in lines[0], r.stderr


def test_closed_stdout_is_one_line_exit_1(tmp_path):
    p = sample(tmp_path)
    r = subprocess.run([sys.executable, "-m", "inspector", "stats", str(p), "--no-tiktoken"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env_for(), timeout=120,
                       preexec_fn=lambda: os.close(1))
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def wide_sample(tmp_path: Path) -> Path:
    long_id = "entry-" + "e" * 40
    return write_lines(tmp_path / ("session-" + "n" * 60 + ".jsonl"), [
        header(), msg("u1", None, user("go")),
        msg("a1", "u1", assistant("", tool_calls=[("c1", "a_very_long_tool_name_for_width", {})])),
        msg(long_id, "a1", tool_result("c1", "a_very_long_tool_name_for_width", "x" * 4452)),
    ])


def test_pipe_uses_full_width_numbers_never_cut(tmp_path):
    p = wide_sample(tmp_path)
    r = cli("context", p, "--no-tiktoken")
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if "toolResult" in line)
    assert "1113" in row and "\u2026" not in row, r.stdout
    assert "entry-" + "e" * 40 in row


def test_columns_and_width_flag_never_ellipsise_numbers(tmp_path):
    p = wide_sample(tmp_path)
    r = cli("context", p, "--no-tiktoken", env=env_for(COLUMNS="70"))
    assert r.returncode == 0, r.stderr
    assert max(len(x) for x in r.stdout.splitlines()) <= 70
    assert "1113" in r.stdout and "111\u2026" not in r.stdout and "11\u2026" not in r.stdout
    r = cli("context", p, "--no-tiktoken", "--width", "60")
    assert r.returncode == 0 and max(len(x) for x in r.stdout.splitlines()) <= 60
    assert "1113" in r.stdout
    r = cli("context", p, "--width", "0")
    assert r.returncode == 2 and "width" in r.stderr and "Traceback" not in r.stderr


def test_license_is_an_spdx_string():
    """A TOML-table `project.license` makes setuptools >= 77 print a deprecation warning on every install."""
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["project"]["license"] == "MIT"
    assert any(req.replace(" ", "").startswith("setuptools>=77") for req in data["build-system"]["requires"])


# --- config and paths that are not regular files ----------------------------------------------------------------

def test_session_path_fifo_and_device_are_clear_errors(tmp_path):
    fifo = tmp_path / "s.jsonl"
    os.mkfifo(fifo)
    r = cli_process("stats", fifo)
    assert r.returncode == 2 and "FIFO" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    if os.path.exists("/dev/urandom"):
        r = cli_process("context", "/dev/urandom")
        assert r.returncode == 2 and "character device" in r.stderr, r.stderr


def test_config_fifo_zero_and_huge_are_clear_errors(tmp_path):
    from inspector.host.openclaw_config import load_openclaw_config

    fifo = tmp_path / "openclaw.json"
    os.mkfifo(fifo)
    loaded = load_openclaw_config(fifo)
    assert loaded.data == {} and "FIFO" in (loaded.error or "")
    if os.path.exists("/dev/zero"):
        loaded = load_openclaw_config(Path("/dev/zero"))
        assert loaded.data == {} and "character device" in (loaded.error or "")
    big = tmp_path / "big.json"
    big.write_text("{" + ",".join(f'"k{i}": "{"v" * 100}"' for i in range(200_000)) + "}")
    loaded = load_openclaw_config(big)
    assert loaded.data == {} and "too large" in (loaded.error or "")
    listed = tmp_path / "list.json"
    listed.write_text("[1]")
    assert "got an array" in (load_openclaw_config(listed).error or "")
    listed.write_text("null")
    assert "NoneType" not in (load_openclaw_config(listed).error or "x")


def test_config_env_fifo_does_not_hang(tmp_path):
    fifo = tmp_path / "cfg.json"
    os.mkfifo(fifo)
    r = cli_process("stats", sample(tmp_path), "--no-tiktoken", env=env_for(OPENCLAW_CONFIG_PATH=str(fifo)))
    assert r.returncode == 0 and "FIFO" in r.stdout + r.stderr, (r.stdout, r.stderr)
    r = cli_process("stats", sample(tmp_path), "--no-tiktoken", "--config", fifo)
    assert r.returncode == 0 and "FIFO" in r.stdout + r.stderr


# --- numeric flags -----------------------------------------------------------------------------------------------

NUMERIC_FLAGS = [
    ("stats", "--context-window"), ("context", "--context-window"), ("timeline", "--context-window"),
    ("timeline", "--top"), ("stats", "--width"), ("prune", "--context-window"),
    ("prune", "--keep-last-assistants"), ("prune", "--soft-trim-max-chars"), ("prune", "--soft-trim-head-chars"),
    ("prune", "--soft-trim-tail-chars"), ("prune", "--min-prunable-tool-chars"), ("prune", "--soft-trim-ratio"),
    ("prune", "--hard-clear-ratio"), ("prune", "--ttl"), ("timeline", "--early-thresholds"),
]


@pytest.mark.parametrize("command,flag", NUMERIC_FLAGS)
def test_numeric_flags_are_range_checked(tmp_path, command, flag):
    p = sample(tmp_path)
    for value in ("-1", "99999999999999999999", "1e400", "nan"):
        r = cli(command, p, f"{flag}={value}", "--json", "--no-tiktoken")
        assert r.returncode == 2, (flag, value, r.stdout[:200], r.stderr)
        assert "Traceback" not in r.stderr and "error: argument" in r.stderr and flag in r.stderr, r.stderr


# --- Python words never reach human output ---------------------------------------------------------------------

PYTHON_WORDS = re.compile(r"\bNone\b|\bNoneType\b|\bTrue\b|\bFalse\b|\(1 [a-z]+s\)")


def bare_session(tmp_path: Path) -> Path:
    """No model anywhere, a compaction (booleans in its row), a damaged line: every 'unknown' path."""
    return write_lines(tmp_path / "bare.jsonl", [
        header(),
        msg("u1", None, {"role": "user", "content": "hi", "timestamp": 1767225601000}),
        msg("a1", "u1", {"role": "assistant", "content": [{"type": "text", "text": "x"}], "timestamp": 1767225601000}),
        entry("compaction", "k1", "a1", summary="s", firstKeptEntryId="a1", tokensBefore=5),
        "{damaged",
    ])


@pytest.mark.parametrize("command", ["stats", "context", "prune", "timeline"])
def test_no_python_words_in_human_output(tmp_path, command):
    r = cli(command, bare_session(tmp_path), "--no-tiktoken")
    assert r.returncode == 0, r.stderr
    found = PYTHON_WORDS.findall(r.stdout + r.stderr)
    assert not found, (found, r.stdout)


def test_json_keeps_its_types(tmp_path):
    data = json.loads(cli("stats", bare_session(tmp_path), "--json", "--no-tiktoken").stdout)
    assert data["model"] is None or data["model"].get("provider") is None
    assert data["compactions"][0]["in_force"] is True


# --- terminal injection ----------------------------------------------------------------------------------------

EVIL = "\x1b]0;pwned\x07\x1b[2J"
OSC52 = "\x1b]52;c;cHduZWQ=\x07\u009b31m"
CONTROL_BYTES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def evil_session(tmp_path: Path) -> Path:
    tool = EVIL + "read"
    return write_lines(tmp_path / "evil.jsonl", [
        {**header(sid="sid" + OSC52), "cwd": "/w" + EVIL},
        entry("model_change", "m1" + EVIL, None, provider="anthropic" + OSC52, modelId="claude" + EVIL),
        entry("session_info", "n1" + OSC52, "m1" + EVIL, name="name" + EVIL),
        msg("u1" + OSC52, "n1" + OSC52, user("go" + EVIL)),
        msg("a1" + EVIL, "u1" + OSC52, assistant("", tool_calls=[("c1" + OSC52, tool, {"p": EVIL})],
                                                  provider="openai" + EVIL, model="gpt" + OSC52)),
        msg("t1" + OSC52, "a1" + EVIL, tool_result("c1" + OSC52, tool, "x" * 3000 + EVIL)),
        entry("compaction", "k1" + EVIL, "t1" + OSC52, summary="S" + EVIL, firstKeptEntryId="a1" + EVIL, tokensBefore=9),
        msg("z" + EVIL, "k1" + EVIL, assistant("done" + OSC52, provider="p" + EVIL, model="m" + OSC52)),
        '{"type":"message","id":"bad' + EVIL.replace("\x1b", "\\u001b").replace("\x07", "\\u0007") + '"',
    ])


@pytest.mark.parametrize("command", ["stats", "context", "prune", "timeline", "ls"])
def test_no_control_bytes_reach_stdout(tmp_path, command):
    p = evil_session(tmp_path)
    args = [command, tmp_path if command == "ls" else p]
    if command != "ls":
        args.append("--no-tiktoken")
    if command == "prune":
        args.append("--all")
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    assert "read" in r.stdout or command in ("stats", "ls", "timeline")
    bad = CONTROL_BYTES.findall(r.stdout.replace("\n", "")) + CONTROL_BYTES.findall(r.stderr.replace("\n", ""))
    assert not bad, (bad[:5], r.stdout[-2000:])


# --- ls ------------------------------------------------------------------------------------------------------------

def test_ls_file_lists_that_one_session(tmp_path):
    p = sample(tmp_path)
    r = cli("ls", p)
    assert r.returncode == 0, r.stderr
    assert "s.jsonl" in r.stdout and "openclaw" in r.stdout and "not a directory" not in r.stderr
    data = json.loads(cli("ls", p, "--json").stdout)
    assert [Path(s["path"]).name for s in data["sessions"]] == ["s.jsonl"]
    assert data["sessions"][0]["format"] == "openclaw"


def test_ls_format_column_and_unsupported_file(tmp_path):
    sample(tmp_path)
    write_lines(tmp_path / "claude.jsonl", [json.dumps(o) for o in CLAUDE_LINES])
    write_lines(tmp_path / "codex.jsonl", [json.dumps(o) for o in CODEX_LINES])
    data = json.loads(cli("ls", tmp_path, "--json").stdout)
    formats = {Path(s["path"]).name: s["format"] for s in data["sessions"]}
    assert formats == {"s.jsonl": "openclaw", "claude.jsonl": "claude-code", "codex.jsonl": "codex"}
    r = cli("ls", tmp_path)
    assert r.returncode == 0 and "Format" in r.stdout and "claude-code" in r.stdout and "codex" in r.stdout
    r = cli("ls", tmp_path / "claude.jsonl", "--json")
    assert r.returncode == 0 and [s["format"] for s in json.loads(r.stdout)["sessions"]] == ["claude-code"]


def openclaw_state(tmp_path: Path) -> Path:
    sessions = tmp_path / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    write_lines(sessions / "abc.jsonl", [header(sid="abc"), msg("u1", None, user("x"))])
    return sessions


def test_ls_deeply_nested_sessions_json_is_a_warning(tmp_path):
    sessions = openclaw_state(tmp_path)
    (sessions / "sessions.json").write_text("[" * 100_000 + "]" * 100_000)
    r = cli("ls", tmp_path / "state")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "sessions.json" in r.stderr and "abc.jsonl" in r.stdout


def test_ls_sessions_json_fifo_does_not_hang(tmp_path):
    sessions = openclaw_state(tmp_path)
    os.mkfifo(sessions / "sessions.json")
    r = cli_process("ls", tmp_path / "state")
    assert r.returncode == 0 and "FIFO" in r.stderr and "abc.jsonl" in r.stdout, r.stderr


def test_stats_numbers_survive_a_narrow_pipe(tmp_path):
    r = cli("stats", sample(tmp_path, n_tools=3), "--no-tiktoken", env=env_for(COLUMNS="50"))
    assert r.returncode == 0, r.stderr
    assert not re.search(r"\d\u2026", r.stdout), r.stdout
