"""`inprocess.run_cli` answers exactly what a `python -m inspector` subprocess answers.

The CLI tests run most commands in the test process (a subprocess costs a second of imports); this holds them to
the real thing: for JSON, tables, warnings, usage errors, unsupported formats and missing files, the exit code,
stdout and stderr of both are equal character for character.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, assistant, entry, header, msg, tool_result, user, write_lines
from inprocess import run_cli


def session(tmp_path: Path) -> Path:
    evil = "[bold]x[/] \x1b[31mred\x07 ✓ 日本"
    return write_lines(tmp_path / "s.jsonl", [
        header(),
        entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"),
        msg("u1", "m1", user("read it " + evil)),
        msg("a1", "u1", assistant("", tool_calls=[("c1", "read", {"path": "a.py"})])),
        msg("t1", "a1", tool_result("c1", "read", "x" * 4000 + evil)),
        msg("a2", "t1", assistant("done")),
        "{damaged",
    ])


COMMANDS = [
    ["stats", "{s}", "--json", "--no-tiktoken"],
    ["stats", "{s}", "--no-tiktoken"],
    ["context", "{s}", "--no-tiktoken", "--width", "100"],
    ["prune", "{s}", "--json", "--no-tiktoken", "--all", "--now", "2026-01-01T00:03:00Z"],
    ["prune", "{s}", "--no-tiktoken", "--all", "--now", "2026-01-01T00:03:00Z"],
    ["timeline", "{s}", "--no-tiktoken"],
    ["plan", "{s}", "--json", "--no-tiktoken"],
    ["ls", "{d}", "--json"],
    ["stats", "{s}", "--context-window=0"],
    ["stats", "{d}/missing.jsonl"],
    ["context", "{s}", "--leaf", "zzz"],
    ["stats", "{d}/claude.jsonl"],
    ["stats", "--help"],
    ["no-such-flag-command", "--help"],
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(x.strip("-{}/") for x in a[:3]))
def test_in_process_run_equals_the_subprocess(tmp_path: Path, argv: list[str]) -> None:
    s = session(tmp_path)
    (tmp_path / "claude.jsonl").write_text(json.dumps({"type": "user", "uuid": "a", "sessionId": "x"}) + "\n")
    args = [a.format(s=s, d=tmp_path) for a in argv]
    env = dict(os.environ, HOME=str(tmp_path / "home"), OPENCLAW_STATE_DIR=str(tmp_path / "no-state"), COLUMNS="80",
               PYTHONPATH=str(ROOT))
    env.pop("OPENCLAW_CONFIG_PATH", None)
    real = subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    here = run_cli(args, env=env, cwd=tmp_path)
    assert (here.returncode, here.stdout, here.stderr) == (real.returncode, real.stdout, real.stderr)
    assert real.stdout or real.stderr  # every case says something

