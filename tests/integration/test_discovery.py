"""Session discovery (inspector/host/discovery/__init__.py) and the ``ls`` command (inspector/cli/commands/ls.py)."""

from __future__ import annotations

import argparse
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import ROOT

from inspector.cli.commands import ls
from inspector.host.discovery import classify_file_name, discover_sessions

CORPUS = ROOT.parent / "shared" / "corpus"
HEADER = '{"type":"session","version":3,"id":"x","timestamp":"2026-04-13T10:00:00.000Z","cwd":"/tmp"}\n'
CKPT_UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def write(path: Path, text: str = HEADER, mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def by_name(discovery) -> dict[str, object]:
    return {s.path.name: s for s in discovery.sessions}


def make_openclaw_home(home: Path) -> Path:
    """A fake ~/.openclaw with one agent dir holding every kind of file OpenClaw leaves behind."""
    sessions = home / ".openclaw" / "agents" / "main" / "sessions"
    write(sessions / "aaa.jsonl", mtime=1_700_000_000)
    write(sessions / "bbb.jsonl", mtime=1_700_000_100)
    write(sessions / "custom" / "renamed.jsonl")
    write(sessions / "aaa.jsonl.reset.2026-04-13T10-20-30.123Z")
    write(sessions / "ccc.jsonl.deleted.2026-04-12T01-02-03Z")
    write(sessions / "bbb.jsonl.bak.2026-04-11T00-00-00.000Z")
    write(sessions / "bbb.jsonl.bak-4242-1776000000000")
    write(sessions / f"aaa.checkpoint.{CKPT_UUID}.jsonl")
    write(sessions / "aaa.jsonl.lock", '{"pid": 1}')
    write(sessions / "aaa.jsonl.repair-1-2.tmp")
    write(sessions / "bbb.jsonl.truncate-tmp")
    write(sessions / "sessions.json.bak.123", "{}")
    store = {
        "agent:main:main": {"sessionId": "aaa", "updatedAt": 1_776_000_000_000},
        "agent:main:telegram:dm:42": {
            "sessionId": "zzz", "updatedAt": 1_776_000_500_000, "sessionFile": "custom/renamed.jsonl"
        },
        "agent:main:cron:nightly": {
            "sessionId": "bbb", "updatedAt": 1_775_000_000_000, "sessionFile": str(sessions / "bbb.jsonl")
        },
        "agent:main:gone": {"sessionId": "ghost", "updatedAt": 1},
    }
    write(sessions / "sessions.json", json.dumps(store))
    return sessions


def test_openclaw_state_dir_every_kind_of_file(tmp_path: Path) -> None:
    sessions_dir = make_openclaw_home(tmp_path)
    found = discover_sessions(home=tmp_path, env={})
    assert found.warnings == []
    names = by_name(found)
    assert set(names) == {
        "aaa.jsonl", "bbb.jsonl", "renamed.jsonl",
        "aaa.jsonl.reset.2026-04-13T10-20-30.123Z", "ccc.jsonl.deleted.2026-04-12T01-02-03Z",
        "bbb.jsonl.bak.2026-04-11T00-00-00.000Z", "bbb.jsonl.bak-4242-1776000000000",
        f"aaa.checkpoint.{CKPT_UUID}.jsonl",
    }
    assert all(s.source == "openclaw" and s.agent_id == "main" for s in found.sessions)

    aaa = names["aaa.jsonl"]
    assert (aaa.kind, aaa.session_id, aaa.session_key) == ("live", "aaa", "agent:main:main")
    assert aaa.updated_at == datetime.fromtimestamp(1_776_000_000, tz=UTC)
    renamed = names["renamed.jsonl"]
    assert (renamed.kind, renamed.session_id, renamed.session_key) == ("live", "zzz", "agent:main:telegram:dm:42")
    assert renamed.path == (sessions_dir / "custom" / "renamed.jsonl").resolve()
    assert names["bbb.jsonl"].session_key == "agent:main:cron:nightly"

    reset = names["aaa.jsonl.reset.2026-04-13T10-20-30.123Z"]
    assert (reset.kind, reset.archive_reason, reset.session_id) == ("archive", "reset", "aaa")
    assert reset.archived_at == datetime(2026, 4, 13, 10, 20, 30, 123000, tzinfo=UTC)
    assert reset.session_key is None
    deleted = names["ccc.jsonl.deleted.2026-04-12T01-02-03Z"]
    assert deleted.archive_reason == "deleted"
    assert deleted.archived_at == datetime(2026, 4, 12, 1, 2, 3, tzinfo=UTC)
    assert names["bbb.jsonl.bak.2026-04-11T00-00-00.000Z"].archive_reason == "bak"
    repair = names["bbb.jsonl.bak-4242-1776000000000"]
    assert (repair.kind, repair.archive_reason, repair.session_id) == ("archive", "bak", "bbb")
    assert repair.archived_at == datetime.fromtimestamp(1_776_000_000, tz=UTC)
    checkpoint = names[f"aaa.checkpoint.{CKPT_UUID}.jsonl"]
    assert (checkpoint.kind, checkpoint.session_id, checkpoint.checkpoint_id) == ("checkpoint", "aaa", CKPT_UUID)

    # Newest first: sessions.json updatedAt beats file mtimes.
    live = [s.path.name for s in found.live]
    assert live == ["renamed.jsonl", "aaa.jsonl", "bbb.jsonl"]


def test_sizes_and_mtimes_are_the_files(tmp_path: Path) -> None:
    path = write(tmp_path / "one.jsonl", "x" * 123, mtime=1_700_000_000)
    [session] = discover_sessions(tmp_path, env={}).sessions
    assert session.path == path and session.size == 123 and session.source == "dir"
    assert session.mtime == datetime.fromtimestamp(1_700_000_000, tz=UTC)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("abc.jsonl", ("live", "abc", None)),
        ("abc-topic-42.jsonl", ("live", "abc-topic-42", None)),
        ("abc.jsonl.reset.2026-04-13T10-20-30Z.0123456789abcdef0123456789abcdef", ("archive", "abc", "reset")),
        ("abc.jsonl.reset.not-a-stamp", None),
        ("abc.jsonl.lock", None),
        ("sessions.json", None),
        ("sessions.json.1234.0f8fad5b-d9cb-469f-a165-70867728950e.tmp", None),
        ("abc.jsonl.manual-compaction-tmp", None),
        ("abc.trajectory.jsonl", None),
        ("notes.txt", None),
        (f"abc.checkpoint.{CKPT_UUID.upper()}.jsonl", ("checkpoint", "abc", None)),
        ("abc.checkpoint.not-a-uuid.jsonl", ("live", "abc.checkpoint.not-a-uuid", None)),
    ],
)
def test_file_name_rules(name: str, expected: tuple | None) -> None:
    got = classify_file_name(name)
    assert (None if got is None else (got.kind, got.session_id, got.archive_reason)) == expected


def test_broken_sessions_json_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    sessions = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    write(sessions / "aaa.jsonl")
    write(sessions / "sessions.json", '{"agent:main:main": {"sessionId": "aaa",\n')
    found = discover_sessions(home=tmp_path, env={})
    assert [s.path.name for s in found.sessions] == ["aaa.jsonl"]
    assert found.sessions[0].session_key is None
    assert len(found.warnings) == 1 and "sessions.json" in found.warnings[0] and "line" in found.warnings[0]


def test_sessions_json_that_is_not_an_object(tmp_path: Path) -> None:
    sessions = tmp_path / ".openclaw" / "agents" / "ops" / "sessions"
    write(sessions / "aaa.jsonl")
    write(sessions / "sessions.json", "[1, 2]")
    found = discover_sessions(home=tmp_path, env={})
    assert found.sessions[0].agent_id == "ops"
    assert any("not a JSON object" in w for w in found.warnings)


def test_session_file_overrides_outside_the_dir_are_rejected_or_rerooted(tmp_path: Path) -> None:
    sessions = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    write(sessions / "s1.jsonl")
    write(sessions / "moved.jsonl")
    write(tmp_path / "outside.jsonl")
    store = {
        # Escapes the dir: OpenClaw refuses it and falls back to <sessionId>.jsonl.
        "k1": {"sessionId": "s1", "updatedAt": 5, "sessionFile": "../../../../outside.jsonl"},
        # Absolute path from another (restored) state root: re-rooted onto this dir.
        "k2": {"sessionId": "s2", "updatedAt": 6, "sessionFile": "/old/root/agents/main/sessions/moved.jsonl"},
    }
    write(sessions / "sessions.json", json.dumps(store))
    names = by_name(discover_sessions(home=tmp_path, env={}))
    assert set(names) == {"s1.jsonl", "moved.jsonl"}
    assert names["s1.jsonl"].session_key == "k1"
    assert (names["moved.jsonl"].session_key, names["moved.jsonl"].session_id) == ("k2", "s2")


def test_two_keys_for_one_transcript_take_the_most_recently_updated(tmp_path: Path) -> None:
    sessions = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    write(sessions / "shared.jsonl")
    store = {
        "agent:main:old": {"sessionId": "shared", "updatedAt": 2_000},
        "agent:main:new": {"sessionId": "shared", "updatedAt": 9_000},
        "agent:main:older": {"sessionId": "shared", "updatedAt": 1_000},
    }
    write(sessions / "sessions.json", json.dumps(store))
    [session] = discover_sessions(home=tmp_path, env={}).sessions
    assert session.session_key == "agent:main:new"
    assert session.updated_at == datetime.fromtimestamp(9, tz=UTC)


def test_legacy_clawdbot_dir_is_scanned_too(tmp_path: Path) -> None:
    write(tmp_path / ".clawdbot" / "agents" / "main" / "sessions" / "old.jsonl")
    assert [s.path.name for s in discover_sessions(home=tmp_path, env={}).sessions] == ["old.jsonl"]
    write(tmp_path / ".openclaw" / "agents" / "main" / "sessions" / "new.jsonl")
    assert {s.path.name for s in discover_sessions(home=tmp_path, env={}).sessions} == {"old.jsonl", "new.jsonl"}


def test_state_dir_env_override(tmp_path: Path) -> None:
    write(tmp_path / "home" / ".openclaw" / "agents" / "main" / "sessions" / "home.jsonl")
    write(tmp_path / "state" / "agents" / "work" / "sessions" / "env.jsonl")
    env = {"OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    found = discover_sessions(home=tmp_path / "home", env=env)
    assert [(s.path.name, s.agent_id) for s in found.sessions] == [("env.jsonl", "work")]


def test_pi_sessions(tmp_path: Path) -> None:
    project = tmp_path / ".pi" / "agent" / "sessions" / "--home-me-proj--"
    write(project / "2026-04-13T10-00-00-000Z_5b2c3d4e-0000-4000-8000-000000000001.jsonl")
    [session] = discover_sessions(home=tmp_path, env={}).sessions
    assert (session.source, session.cwd_slug, session.kind) == ("pi", "--home-me-proj--", "live")
    assert session.session_id == "5b2c3d4e-0000-4000-8000-000000000001"
    assert session.agent_id is None


def test_pi_agent_dir_env_override(tmp_path: Path) -> None:
    write(tmp_path / "pi-home" / "sessions" / "--x--" / "t_abc.jsonl")
    found = discover_sessions(home=tmp_path, env={"PI_CODING_AGENT_DIR": str(tmp_path / "pi-home")})
    assert [(s.source, s.session_id) for s in found.sessions] == [("pi", "abc")]


def test_root_dir_is_scanned_recursively_and_openclaw_dirs_inside_use_their_index(tmp_path: Path) -> None:
    write(tmp_path / "a" / "b" / "deep.jsonl")
    write(tmp_path / "top.jsonl.deleted.2026-01-01T00-00-00Z")
    backup = tmp_path / "backup" / "sessions"
    write(backup / "abc.jsonl")
    write(backup / "sessions.json", json.dumps({"agent:main:main": {"sessionId": "abc", "updatedAt": 1000}}))
    names = by_name(discover_sessions(tmp_path, env={}))
    assert names["deep.jsonl"].source == "dir" and names["deep.jsonl"].session_id == "deep"
    assert names["top.jsonl.deleted.2026-01-01T00-00-00Z"].kind == "archive"
    assert (names["abc.jsonl"].source, names["abc.jsonl"].session_key) == ("openclaw", "agent:main:main")


def test_root_that_is_a_state_dir_lists_only_agent_session_dirs(tmp_path: Path) -> None:
    make_openclaw_home(tmp_path)
    state = tmp_path / ".openclaw"
    write(state / "cron" / "runs" / "nightly.jsonl", '{"ts": 1}\n')
    write(state / "workspace" / "notes.jsonl", '{"x": 1}\n')
    names = {s.path.name for s in discover_sessions(state, env={}).live}
    assert names == {"aaa.jsonl", "bbb.jsonl", "renamed.jsonl"}


def test_missing_root_and_unlistable_agents_dir_are_warnings(tmp_path: Path) -> None:
    assert "no such directory" in discover_sessions(tmp_path / "nope", env={}).warnings[0]
    (tmp_path / ".openclaw").mkdir()
    (tmp_path / ".openclaw" / "agents").write_text("not a dir")
    found = discover_sessions(home=tmp_path, env={})
    assert found.sessions == [] and "cannot list directory" in found.warnings[0]


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can read any directory")
def test_unreadable_directory_is_skipped_with_warning(tmp_path: Path) -> None:
    write(tmp_path / "ok" / "a.jsonl")
    locked = tmp_path / "locked"
    write(locked / "b.jsonl")
    locked.chmod(0)
    try:
        found = discover_sessions(tmp_path, env={})
    finally:
        locked.chmod(0o755)
    assert [s.path.name for s in found.sessions] == ["a.jsonl"]
    assert any("locked" in w for w in found.warnings)


# --- ls -----------------------------------------------------------------------------------------


def ls_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    ls.register(parser.add_subparsers())
    return parser.parse_args(["ls", *argv])


def test_ls_json_lists_live_sessions_with_snake_case_fields(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sessions = make_openclaw_home(tmp_path)
    args = ls_args(str(sessions), "--json")
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["warnings"] == []
    assert [s["path"].rsplit("/", 1)[1] for s in out["sessions"]] == ["renamed.jsonl", "aaa.jsonl", "bbb.jsonl"]
    first = out["sessions"][0]
    assert set(first) == {
        "path", "kind", "source", "session_id", "session_key", "agent_id", "cwd_slug", "archive_reason",
        "archived_at", "checkpoint_id", "updated_at", "mtime", "size", "format", "glance",
    }
    assert set(first["glance"]) == {
        "header", "leaf_id", "last_activity", "model", "context_tokens", "session_name", "compactions", "lines",
        "estimated", "unknown", "bytes_read", "error",
    }
    assert first["session_key"] == "agent:main:telegram:dm:42"
    assert first["updated_at"] == "2026-04-12T13:28:20Z"


def test_ls_json_all_includes_archives_and_checkpoints(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sessions = make_openclaw_home(tmp_path)
    assert ls.run(argparse.Namespace(dir=sessions, json=True, all=True)) == 0
    out = json.loads(capsys.readouterr().out)
    kinds = sorted(s["kind"] for s in out["sessions"])
    assert kinds == ["archive"] * 4 + ["checkpoint"] + ["live"] * 3
    reset = next(s for s in out["sessions"] if s["archive_reason"] == "reset")
    assert reset["archived_at"] == "2026-04-13T10:20:30.123Z"


def test_ls_table_shows_sessions_and_counts_hidden_archives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    sessions = make_openclaw_home(tmp_path)
    assert ls.run(argparse.Namespace(dir=sessions, json=False, all=False)) == 0
    out = capsys.readouterr().out
    assert "agent:main:main" in out and "renamed.jsonl" in out
    assert "5 archive/checkpoint file(s) not shown (use --all)" in out
    assert "Archives and checkpoints" not in out
    assert ls.run(argparse.Namespace(dir=sessions, json=False, all=True)) == 0
    out = capsys.readouterr().out
    assert "Archives and checkpoints" in out and "archive:reset" in out and "checkpoint" in out


def test_ls_never_interprets_markup_or_escapes_in_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    write(tmp_path / "[bold red]x[/bold red].jsonl")
    write(tmp_path / "evil\x1b[2Jname.jsonl")
    assert ls.run(argparse.Namespace(dir=tmp_path, json=False, all=False)) == 0
    out = capsys.readouterr().out
    assert "[bold red]x[/bold red].jsonl" in out
    assert "\x1b[2J" not in out and "evil\\x1b[2Jname.jsonl" in out


def test_ls_missing_dir_exits_2_with_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert ls.run(argparse.Namespace(dir=tmp_path / "nope", json=True, all=False)) == 2
    assert "no such directory" in json.loads(capsys.readouterr().out)["warnings"][0]


def test_ls_without_dir_uses_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENCLAW_STATE_DIR", "OPENCLAW_HOME", "OPENCLAW_CONFIG_PATH", "PI_CODING_AGENT_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    write(tmp_path / ".openclaw" / "agents" / "main" / "sessions" / "mine.jsonl")
    assert ls.run(argparse.Namespace(dir=None, json=True, all=False)) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["session_id"] for s in out["sessions"]] == ["mine"]


def test_ls_help_documents_all_flag() -> None:
    parser = argparse.ArgumentParser()
    sub = ls.register(parser.add_subparsers())
    assert "--all" in sub.format_help() and "archives" in sub.format_help()


@pytest.mark.corpus
def test_corpus_directory_is_listed() -> None:
    if not CORPUS.is_dir():
        pytest.skip("shared corpus not present")
    found = discover_sessions(CORPUS, env={})
    names = {s.path.name for s in found.sessions}
    assert {"large-session.v1.jsonl", "pi-session-info.v3.jsonl"} <= names
    assert all(s.kind == "live" for s in found.sessions)
