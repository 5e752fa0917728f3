"""`--rules` on every command, `"rules"` in every `--json`, and a memo that never replays another rule choice."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from inprocess import run_cli

from inspector.cli import command_names
from inspector.rules.ruleset import known_rule_ids
from inspector.samples.demo import demo_session_path

DEMO = demo_session_path()


def _env(home: Path, path_dirs: list[Path] | None = None) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / ".openclaw"), XDG_CACHE_HOME=str(home / "cache"))
    env.pop("OPENCLAW_CONFIG_PATH", None)
    env["PATH"] = os.pathsep.join([*(str(p) for p in path_dirs or []), str(home / "empty-bin")])
    return env


@pytest.mark.parametrize("command", command_names())
def test_every_command_accepts_rules_and_names_the_known_ids(command: str) -> None:
    helped = run_cli([command, "--help"])
    assert helped.returncode == 0
    assert "--rules ID" in helped.stdout
    for known in known_rule_ids():
        assert known in " ".join(helped.stdout.split())
    bad = run_cli([command, "--rules", "openclaw-1999.1.1", "--help"])
    assert bad.returncode == 2
    assert "unknown rules 'openclaw-1999.1.1'" in bad.stderr
    for known in known_rule_ids():
        assert known in bad.stderr


@pytest.mark.parametrize(
    "argv",
    [["stats", "--json", DEMO], ["context", "--json", DEMO], ["timeline", "--json", DEMO], ["plan", "--json", DEMO],
     ["prune", "--json", DEMO], ["ls", "--json", DEMO], ["breaker", "--json"]],
    ids=lambda a: a[0],
)
def test_every_json_output_says_which_rules_and_why(argv: list[object], tmp_path: Path) -> None:
    env = _env(tmp_path)
    plain = run_cli(argv, env=env)
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["rules"] == {"id": "openclaw-2026.4.12", "reason": "default"}
    flagged = run_cli([*argv, "--rules", "openclaw-2026.4.12"], env=env)
    assert json.loads(flagged.stdout)["rules"] == {"id": "openclaw-2026.4.12", "reason": "--rules"}


def test_the_config_version_decides_and_the_reason_says_so(tmp_path: Path) -> None:
    env = _env(tmp_path)
    config = tmp_path / ".openclaw" / "openclaw.json"
    config.parent.mkdir()
    config.write_text('{meta: {lastTouchedVersion: "2026.4.12"}}')  # JSON5, as OpenClaw writes it
    got = json.loads(run_cli(["stats", "--json", "--no-tiktoken", DEMO], env=env).stdout)["rules"]
    assert got == {"id": "openclaw-2026.4.12", "reason": "openclaw.json (meta.lastTouchedVersion) says OpenClaw 2026.4.12"}


def _cli(*args: object, env: dict[str, str]) -> dict:
    proc = subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, env=env, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return json.loads(proc.stdout)


def test_a_memo_is_not_replayed_once_another_openclaw_is_installed(tmp_path: Path) -> None:
    """The memo of `stats --json` records that the choice asked PATH: an `openclaw` installed later is asked."""
    session = tmp_path / "s.jsonl"
    session.write_bytes(DEMO.read_bytes())
    bin_dir = tmp_path / "bin"
    env = _env(tmp_path, [bin_dir])
    first = _cli("stats", "--json", "--no-tiktoken", session, env=env)
    assert first["rules"]["reason"] == "default"
    assert _cli("stats", "--json", "--no-tiktoken", session, env=env) == first  # replayed or not: the same
    bin_dir.mkdir()
    exe = bin_dir / "openclaw"
    exe.write_text("#!/bin/sh\necho 2026.4.12\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    after = _cli("stats", "--json", "--no-tiktoken", session, env=env)
    assert after["rules"] == {"id": "openclaw-2026.4.12", "reason": "the installed openclaw --version says OpenClaw 2026.4.12"}


def test_the_app_refuses_an_unknown_rules_id(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "inspector", "--demo", "--rules", "nope"], capture_output=True, text=True,
                          env=_env(tmp_path), timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert "unknown rules 'nope'" in proc.stderr and "openclaw-2026.4.12" in proc.stderr


def test_a_pi_session_follows_its_pi_and_the_memo_notices_a_newer_pi(tmp_path: Path) -> None:
    """A file in pi's sessions folder gets the rules of the pi that wrote it; a memo made before pi's settings named
    a newer pi is not replayed."""
    env = _env(tmp_path)
    agent = tmp_path / ".pi" / "agent"
    session = agent / "sessions" / "--w--" / "2026-01-01T00-00-00-000Z_s1.jsonl"
    session.parent.mkdir(parents=True)
    session.write_bytes(DEMO.read_bytes())
    (agent / "settings.json").write_text('{"lastChangelogVersion": "0.66.1"}')
    first = _cli("stats", "--json", "--no-tiktoken", session, env=env)["rules"]
    assert first == {"id": "openclaw-2026.4.12", "reason": "a pi session; pi's settings.json (lastChangelogVersion) says pi 0.66.1"}
    (agent / "settings.json").write_text('{"lastChangelogVersion": "0.73.1"}')
    second = _cli("stats", "--json", "--no-tiktoken", session, env=env)["rules"]
    assert second["id"] == "pi-0.73.1"
