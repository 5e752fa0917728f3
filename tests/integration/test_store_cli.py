"""The commands on sessions of OpenClaw 2026.9's SQLite stores: the same figures as on the JSONL they came from,
`--session`, `source`, diagnostics by seq, refusals, a busy store, `ls`; on hand-built stores and on stores the real
`openclaw doctor --session-sqlite import` built (skipped without the oracle or the shared corpus)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, ROOT
from inprocess import run_cli
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401
from oracle.openclaw_gateway import free_port
from store_support import add_session, build_store, create_store, dump_session, jsonl_lines, store_path, writer
from test_store import KEY, damaged_store, lines_of

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
IGNORED = ("rules", "source", "file")
"""What may differ between a command on a store session and on its JSONL: the rules chosen, the source, the path
read (the mirror's)."""


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / ".openclaw"))


def cli(home: Path, *args):
    return run_cli([str(a) for a in args], env=_env(home))


def same_apart_from_source(on_store: dict, on_file: dict) -> None:
    """Equal but for `IGNORED`; a diagnostic on the store names `seq` N where the file's names line N + 1 (its
    events are the store's from seq 0, without gaps) and no offset."""
    for d in on_file.get("diagnostics", []):
        if "line" in d:
            line = d.pop("line")
            d.pop("offset", None)
            d["seq"] = None if line is None else line - 1
    assert {k: v for k, v in on_store.items() if k not in IGNORED} == {k: v for k, v in on_file.items() if k not in IGNORED}


def compare_commands(home: Path, store: Path, jsonl: Path, key: str) -> None:
    for command in ("stats", "context"):
        a = cli(home, command, store, "--session", key, "--json", "--no-tiktoken")
        b = cli(home, command, jsonl, "--json", "--no-tiktoken", "--rules", json.loads(a.stdout)["rules"]["id"])
        assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
        on_store, on_file = json.loads(a.stdout), json.loads(b.stdout)
        assert on_store["source"]["kind"] == "sqlite" and on_store["source"]["session_key"] == key
        same_apart_from_source(on_store, on_file)


def test_stats_and_context_on_a_store_equal_those_on_the_jsonl(tmp_path):
    store, ids = build_store(tmp_path, {KEY: DEMO})
    compare_commands(tmp_path, store, DEMO, KEY)
    r = cli(tmp_path, "stats", store, "--json", "--no-tiktoken")
    data = json.loads(r.stdout)
    assert list(data)[:2] == ["rules", "source"]
    assert data["source"] == {"kind": "sqlite", "store": str(store), "session_id": ids[KEY], "session_key": KEY}
    assert data["rules"] == {"id": "openclaw-2026.9.6",
                             "reason": "the session is in an OpenClaw SQLite store (agent schema 23, written by 2026.9.6)"}


def test_every_session_command_reads_a_store(tmp_path):
    store, _ = build_store(tmp_path, {KEY: DEMO})
    for command in ("stats", "context", "timeline", "prune", "plan"):
        r = cli(tmp_path, command, store.parent.parent, "--json", "--no-tiktoken")
        assert r.returncode == 0, (command, r.stderr)
        assert json.loads(r.stdout)["source"]["store"] == str(store), command


def test_session_by_id_by_key_default_newest_and_unknown(tmp_path):
    store, _ = build_store(tmp_path, {"agent:main:old": lines_of(3, sid="old"), "agent:main:new": lines_of(5, sid="new")})
    newest = json.loads(cli(tmp_path, "stats", store, "--json", "--no-tiktoken").stdout)
    assert newest["source"]["session_key"] == "agent:main:new" and newest["entries"]["total"] == 5
    by_id = json.loads(cli(tmp_path, "stats", store, "--session", "old", "--json", "--no-tiktoken").stdout)
    by_key = json.loads(cli(tmp_path, "stats", store, "--session", "agent:main:old", "--json", "--no-tiktoken").stdout)
    assert by_id == by_key and by_id["entries"]["total"] == 3
    r = cli(tmp_path, "stats", store, "--session", "agent:main:gone", "--json")
    assert r.returncode == 2 and r.stdout == ""
    assert "no session 'agent:main:gone'; known: agent:main:new, agent:main:old" in r.stderr
    r = cli(tmp_path, "stats", DEMO, "--session", "agent:main:new")
    assert r.returncode == 2 and "not one" in r.stderr


def test_damaged_events_show_their_seq_in_json_and_text(tmp_path):
    store, _ = damaged_store(tmp_path)
    r = cli(tmp_path, "stats", store, "--json", "--no-tiktoken")
    assert r.returncode == 0, r.stderr
    diagnostics = json.loads(r.stdout)["diagnostics"]
    assert all("line" not in d for d in diagnostics)
    found = {(d["seq"], d["kind"]) for d in diagnostics}
    assert {(9, "store_event_zstd"), (10, "store_event_size"), (11, "unparseable"), (12, "store_event_size")} <= found
    text = cli(tmp_path, "stats", store, "--no-tiktoken", "--width", "250").stdout
    assert "store_event_zstd" in text and "seq 9: zstd frame cannot be decoded" in text
    header_row = next(line for line in text.splitlines() if "severity" in line and "kind" in line)
    assert "seq" in header_row and "line" not in header_row


def test_write_commands_refuse_a_store_and_write_nothing(tmp_path):
    """`undo` refuses a store; `compact` goes through the Gateway (`test_compact_gateway`), here none runs."""
    store, _ = build_store(tmp_path, {KEY: DEMO})
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    r = cli(tmp_path, "undo", store.parent.parent)
    assert r.returncode == 2 and r.stdout == ""
    assert f"openclaw sessions compact {KEY}" in r.stderr and "never written" in r.stderr
    for args in (("compact", store, "--yes"), ("compact", store, "--dry-run")):
        r = run_cli([str(a) for a in args], env=dict(_env(tmp_path), OPENCLAW_GATEWAY_PORT=str(free_port())))
        assert r.returncode == 2 and "no Gateway is running at ws://127.0.0.1:" in r.stderr
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before
    wal = Path(f"{store}-wal")  # a read-only reader of a WAL database may create an empty WAL, never fill it
    assert not wal.exists() or wal.stat().st_size == 0


def test_a_busy_store_is_a_clear_error(tmp_path):
    store, _ = build_store(tmp_path, {KEY: lines_of(3)}, journal="delete")
    holder = writer(store)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        r = cli(tmp_path, "stats", store, "--json")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert "locked by another process" in r.stderr


def test_ls_lists_stores_beside_jsonl_and_import_archives(tmp_path):
    path = store_path(tmp_path)
    conn = create_store(path)
    add_session(conn, KEY, jsonl_lines(DEMO), label="Lumen API", entry={"totalTokens": 1234, "contextTokens": 999, "compactionCount": 3})
    add_session(conn, "agent:main:cron:nightly", lines_of(2, sid="n1"), archived_at=1_770_000_000_000, updated_at=1_770_000_000_001)
    conn.close()
    sessions_dir = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    sessions_dir.mkdir()
    shutil.copyfile(DEMO, sessions_dir / "live-one.jsonl")
    archive_dir = tmp_path / ".openclaw" / "agents" / "main" / "session-sqlite-import-archive"
    archive_dir.mkdir()
    shutil.copyfile(DEMO, archive_dir / "agent_main_main.1b4717be.jsonl.imported-1795799666526")
    r = cli(tmp_path, "ls", "--json", "--all")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    (listing,) = data["stores"]
    assert listing["store"] == str(path) and listing["agent_id"] == "main" and listing["error"] is None
    rows = {s["session_key"]: s for s in listing["sessions"]}
    assert rows[KEY]["label"] == "Lumen API" and rows[KEY]["tokens"]["total"] == 1234 and rows[KEY]["compaction_count"] == 3
    assert rows["agent:main:cron:nightly"]["archived_at"] == 1_770_000_000_000 and rows[KEY]["events"] == 157
    kinds = {(s["kind"], s["archive_reason"], s["session_id"]) for s in data["sessions"]}
    assert ("archive", "imported", "1b4717be") in kinds and ("live", None, "live-one") in kinds
    text = cli(tmp_path, "ls", "--all", "--width", "250").stdout
    assert "SQLite stores" in text and "Lumen API" in text and "agent:main:cron:nightly" in text and "archive:imported" in text
    for target in (path, path.parent.parent):  # the store file itself, or its agent dir
        one = json.loads(cli(tmp_path, "ls", target, "--json").stdout)
        assert [s["session_key"] for s in one["stores"][0]["sessions"]] == ["agent:main:cron:nightly", KEY]


def test_ls_of_jsonl_only_has_no_stores_key(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    shutil.copyfile(DEMO, folder / "a.jsonl")
    assert "stores" not in json.loads(cli(tmp_path, "ls", folder, "--json").stdout)


def _real_store(oracle, tmp_path: Path, files: dict[str, Path]) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return oracle.import_store(files, home)


def test_real_import_of_the_demo_equals_the_jsonl(openclaw_2026_9, tmp_path):  # noqa: F811
    store = _real_store(openclaw_2026_9, tmp_path, {KEY: DEMO})
    compare_commands(tmp_path, store, DEMO, KEY)


@pytest.mark.corpus
def test_real_import_of_corpus_sessions_equals_the_stored_events(openclaw_2026_9, tmp_path):  # noqa: F811
    """The import normalises some events (e.g. provider `openai-codex` -> `openai`): the store session equals its
    events as stored, read apart from the inspector (plain sqlite3 + zstandard)."""
    files = sorted((CORPUS / "pi").glob("*.jsonl")) if (CORPUS / "pi").is_dir() else []
    if not files:
        pytest.skip(f"no pi session in the corpus ({CORPUS})")
    keys = {f"agent:main:c{n}": path for n, path in enumerate(files)}
    store = _real_store(openclaw_2026_9, tmp_path, keys)
    listing = json.loads(cli(tmp_path, "ls", store, "--json").stdout)["stores"][0]["sessions"]
    by_key = {s["session_key"]: s["session_id"] for s in listing}
    assert set(by_key) == set(keys)
    for key in keys:
        dumped = dump_session(store, by_key[key], tmp_path / f"{by_key[key]}.jsonl")
        compare_commands(tmp_path, store, dumped, key)
