"""A file in pi's own sessions folder gets the rules of the pi that wrote it (`pi_session_rules`), not OpenClaw's."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from inspector.host.rules_choice import choose_rules, pi_session_rules


def _pi_home(tmp_path: Path, settings_version: str | None = None) -> tuple[dict[str, str], Path]:
    """A scratch HOME with one v3 session under `.pi/agent/sessions/`, and an empty PATH."""
    home = tmp_path / "home"
    sessions = home / ".pi" / "agent" / "sessions" / "--w--"
    sessions.mkdir(parents=True)
    path = sessions / "2026-01-01T00-00-00-000Z_s1.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    path.write_text(json.dumps(header) + "\n")
    if settings_version is not None:
        (home / ".pi" / "agent" / "settings.json").write_text(json.dumps({"lastChangelogVersion": settings_version}))
    return {"HOME": str(home), "PATH": str(tmp_path / "empty-path")}, path


def _fake_program(folder: Path, name: str, printed: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    exe.write_text(f"#!/bin/sh\necho '{printed}'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return str(folder)


def test_pi_settings_version_names_the_pi_rules(tmp_path: Path) -> None:
    env, path = _pi_home(tmp_path, "0.73.1")
    got = choose_rules(None, session_path=path, config={"meta": {"lastTouchedVersion": "2026.9.6"}}, env=env)
    assert (got.id, got.source) == ("pi-0.73.1", "session")
    assert "pi 0.73.1" in got.reason and "lastChangelogVersion" in got.reason


def test_an_older_pi_gets_pi_0_66_1s_rules(tmp_path: Path) -> None:
    env, path = _pi_home(tmp_path, "0.70.2")
    assert choose_rules(None, session_path=path, env=env).id == "openclaw-2026.4.12"


def test_the_installed_pi_wins_over_its_settings(tmp_path: Path) -> None:
    env, path = _pi_home(tmp_path, "0.60.0")
    env["PATH"] = _fake_program(tmp_path / "bin", "pi", "0.74.0")
    got = choose_rules(None, session_path=path, env=env)
    assert got.id == "pi-0.73.1" and "pi --version" in got.reason
    assert choose_rules(None, session_path=path, env=env, ask_installed=False).id == "openclaw-2026.4.12"


def test_pi_agent_dir_override_and_files_elsewhere(tmp_path: Path) -> None:
    env, path = _pi_home(tmp_path, "0.73.1")
    moved = tmp_path / "elsewhere"
    os.rename(Path(env["HOME"]) / ".pi" / "agent", moved)
    assert pi_session_rules(moved / "sessions" / "--w--" / path.name, env) is None  # not under ~/.pi/agent any more
    env["PI_CODING_AGENT_DIR"] = str(moved)
    assert pi_session_rules(moved / "sessions" / "--w--" / path.name, env).id == "pi-0.73.1"  # type: ignore[union-attr]
    outside = tmp_path / "other.jsonl"
    outside.write_text(path.read_text() if path.exists() else "")
    assert pi_session_rules(outside, env) is None


def test_no_version_known_falls_through_to_openclaws_choice(tmp_path: Path) -> None:
    env, path = _pi_home(tmp_path)
    got = choose_rules(None, session_path=path, config={"meta": {"lastTouchedVersion": "2026.9.6"}}, env=env)
    assert got.source == "config"
