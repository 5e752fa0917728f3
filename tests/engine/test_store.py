"""Reading OpenClaw 2026.9's SQLite stores: the snapshot, decoding, damaged events by seq, the JSONL mirror (append,
rewrite, concurrent writer), the session rows, never a write to the store."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, assistant, entry, header, jline, msg, user
from store_support import (
    add_session,
    append_events,
    build_store,
    compress,
    create_store,
    jsonl_lines,
    rewrite_session,
    store_path,
    writer,
)

from inspector.host.discovery.stores import StoreSessionError, choose_session, list_store, open_store_session, store_of
from inspector.host.rules_choice import choose_rules
from inspector.read.store.connection import StoreBusy, StoreError, connect
from inspector.read.store.events import PLACEHOLDER, read_events
from inspector.read.store.mirror import sync_mirror
from inspector.read.store.rows import pick_session
from inspector.session.session import open_session
from inspector.storage.cache.cache_dir import clear, owned_files

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
KEY = "agent:main:main"


def lines_of(n: int, sid: str = "s-1", big: int = 0) -> list[bytes]:
    out = [jline(header(sid=sid)).encode()]
    parent = None
    for i in range(n):
        text = f"message {i} " + ("x" * big if big and i % 3 == 0 else "")
        out.append(jline(msg(f"e{i}", parent, user(text) if i % 2 == 0 else assistant(text))).encode())
        parent = f"e{i}"
    return out


def demo_store(tmp_path: Path) -> tuple[Path, str]:
    store, ids = build_store(tmp_path, {KEY: DEMO})
    return store, ids[KEY]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_mirror_is_the_events_byte_for_byte_compressed_ones_decoded(tmp_path):
    store, sid = demo_store(tmp_path)
    conn = connect(store)
    assert conn.execute("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL").fetchone()[0] > 10
    conn.close()
    mirror = sync_mirror(store, sid)
    assert mirror.change == "created" and mirror.events == len(jsonl_lines(DEMO))
    assert mirror.path.read_bytes() == DEMO.read_bytes()
    assert mirror.runs == [[1, 0, mirror.events]] and mirror.seq_of_line(1) == 0 and mirror.seq_of_line(mirror.events + 1) is None
    assert (mirror.session_key, mirror.schema_version, mirror.app_version) == (KEY, 23, "2026.9.6")
    again = sync_mirror(store, sid)
    assert (again.change, again.added) == ("unchanged", 0)


def test_store_is_never_written_nor_checkpointed(tmp_path):
    store, sid = demo_store(tmp_path)
    w = writer(store)  # a Gateway holding the database open keeps its WAL
    append_events(w, sid, [jline(msg("late", "a29de36a", assistant("late"))).encode()])
    wal = Path(str(store) + "-wal")
    before = {p: (digest(p), p.stat().st_mtime_ns) for p in (store, wal)}
    sync_mirror(store, sid)
    list_store(store)
    assert {p: (digest(p), p.stat().st_mtime_ns) for p in (store, wal)} == before
    conn = connect(store)
    with pytest.raises(Exception, match=r"readonly|read-only|query_only"):
        conn.execute("CREATE TABLE x (a)")
    conn.close()
    w.close()


def test_appended_events_are_appended_and_a_session_refresh_reads_them(tmp_path):
    store, ids = build_store(tmp_path, {KEY: lines_of(20, big=3000)})
    sid = ids[KEY]
    mirror = sync_mirror(store, sid)
    session = open_session(mirror.path)
    assert len(session.entries) == 20
    w = writer(store)
    new = [jline(msg(f"n{i}", "e19" if i == 0 else f"n{i - 1}", assistant("y" * 2000))).encode() for i in range(3)]
    append_events(w, sid, new)
    mirror = sync_mirror(store, sid)
    assert (mirror.change, mirror.added, mirror.last_seq) == ("appended", 3, 23)
    assert mirror.path.read_bytes() == b"\n".join(lines_of(20, big=3000) + new) + b"\n"
    result = session.refresh()
    assert not result.reset and [e.id for e in result.new_entries] == ["n0", "n1", "n2"]
    assert session.context().path[-1] == session.tree.by_id.get("n2")
    w.close()


def test_a_rewrite_replaces_the_mirror_and_the_session_reindexes_with_a_notice(tmp_path):
    store, ids = build_store(tmp_path, {KEY: lines_of(30)})
    sid = ids[KEY]
    mirror = sync_mirror(store, sid)
    session = open_session(mirror.path)
    w = writer(store)
    rewrite_session(w, sid, lines_of(5))
    mirror = sync_mirror(store, sid)
    assert mirror.change == "rewritten" and mirror.events == 6
    result = session.refresh()
    assert result.reset and result.notice and len(session.entries) == 5
    w.close()


def test_rows_missing_below_the_mirror_rewrite_it_whole(tmp_path):
    store, ids = build_store(tmp_path, {KEY: lines_of(10)})
    sid = ids[KEY]
    sync_mirror(store, sid)
    w = writer(store)
    w.execute("DELETE FROM transcript_events WHERE session_id=? AND seq=4", (sid,))  # same generation, a row gone
    mirror = sync_mirror(store, sid)
    assert mirror.change == "rewritten" and mirror.runs == [[1, 0, 4], [5, 5, 6]]
    assert [mirror.seq_of_line(n) for n in (4, 5, 10)] == [3, 5, 10]
    w.close()


def test_a_mirror_changed_behind_its_sidecar_is_rewritten(tmp_path):
    store, sid = demo_store(tmp_path)
    mirror = sync_mirror(store, sid)
    with open(mirror.path, "ab") as f:
        f.write(b'{"partial')
    assert sync_mirror(store, sid).change == "rewritten"
    assert mirror.path.read_bytes() == DEMO.read_bytes()


def damaged_store(tmp_path: Path) -> tuple[Path, str]:
    lines = lines_of(8)
    path = store_path(tmp_path)
    conn = create_store(path)
    sid = add_session(conn, KEY, lines, compress_from=None)
    big = jline(msg("z1", "e7", assistant("z" * 5000))).encode()
    rows = [
        (9, None, b"\x28\xb5\x2f\xfd garbage", 100),  # not a zstd frame
        (10, None, compress(big), len(big) + 3),  # decodes to fewer bytes than recorded
        (11, "{not json", None, 9),  # invalid JSON
        (12, jline(entry("mystery_kind", "q1", "e7")), None, 5),  # recorded size wrong (kept); unknown type
        (13, None, compress(big), len(big)),  # fine
    ]
    nav = json.dumps({"version": 1, "report": {"kind": "canonical"}, "navigation": {}, "reset": {}, "model": {},
                      "modelBytes": 0, "modelWithoutCheckpointBytes": 0, "withoutCustomDataBytes": 0})
    for seq, text, blob, size in rows:
        conn.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, event_zstd, event_utf8_bytes, navigation_json, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, 0)", (sid, seq, text, blob, size, nav if blob is not None else None),
        )
    conn.close()
    return path, sid


def test_damaged_events_are_problems_named_by_seq_never_a_crash(tmp_path):
    store, sid = damaged_store(tmp_path)
    mirror = sync_mirror(store, sid)
    kinds = {seq: (p.kind, p.skipped) for seq, p in mirror.problems.items()}
    assert kinds == {9: ("store_event_zstd", True), 10: ("store_event_size", True), 12: ("store_event_size", False)}
    lines = mirror.path.read_bytes().split(b"\n")
    assert lines[9] == PLACEHOLDER % 9 and lines[10] == PLACEHOLDER % 10 and lines[13].startswith(b'{"type":"message"')
    session = open_session(mirror.path)
    shown = [mirror.relabel(d.to_json()) for d in session.all_diagnostics()] + mirror.extra_diagnostics()
    by_seq = {(d["seq"], d["kind"]) for d in shown}
    assert {(9, "store_event_zstd"), (10, "store_event_size"), (11, "unparseable"), (12, "store_event_size"), (12, "unknown_type")} <= by_seq
    assert all("line" not in d and "offset" not in d for d in shown)
    assert next(d for d in shown if d["seq"] == 9)["message"].startswith("seq 9: zstd frame cannot be decoded")
    assert session.entry_by_id("z1") is not None and session.entry_by_id("q1") is not None, "the good events are read"


def test_a_locked_store_waits_briefly_then_says_so(tmp_path):
    store, ids = build_store(tmp_path, {KEY: lines_of(3)}, journal="delete")
    holder = writer(store)
    holder.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    with pytest.raises(StoreBusy, match="locked by another process"):
        sync_mirror(store, ids[KEY], conn=connect(store, busy_timeout_s=0.3))
    assert 0.25 <= time.monotonic() - started < 5
    holder.execute("ROLLBACK")
    assert sync_mirror(store, ids[KEY]).events == 4
    holder.close()


WRITER = """
import sys, time
sys.path[:0] = [sys.argv[3]]
from store_support import append_events, writer
conn = writer(sys.argv[1])
conn.execute("PRAGMA busy_timeout=10000")
sid, n = sys.argv[2], int(sys.argv[4])
for i in range(n):
    line = ('{"type":"message","id":"w%d","parentId":%s,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"%s","timestamp":1}}'
            % (i, '"w%d"' % (i - 1) if i else "null", "x" * (50 + 3000 * (i % 4 == 0))))
    append_events(conn, sid, [line.encode()])
    time.sleep(0.002)
print("done")
"""


def test_a_concurrent_writer_process_never_shows_a_torn_snapshot(tmp_path):
    store, ids = build_store(tmp_path, {KEY: lines_of(0, sid="cw")})
    sid = ids[KEY]
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    n = 300
    proc = subprocess.Popen([sys.executable, str(script), str(store), sid, str(ROOT / "tests"), str(n)], stdout=subprocess.PIPE, text=True)
    seen = []
    try:
        while proc.poll() is None:
            mirror = sync_mirror(store, sid)
            data = mirror.path.read_bytes().split(b"\n")[:-1]
            ids_in = [json.loads(line)["id"] for line in data[1:]]
            assert ids_in == [f"w{i}" for i in range(len(ids_in))], "a consistent prefix, in seq order"
            assert mirror.runs == [[1, 0, len(data)]]
            seen.append(len(ids_in))
    finally:
        proc.wait(timeout=60)
    assert proc.returncode == 0
    mirror = sync_mirror(store, sid)
    assert mirror.events == n + 1 and not mirror.problems
    assert len(set(seen)) > 3, "the mirror grew while the writer wrote"


def test_session_rows_labels_counters_and_choice(tmp_path):
    path = store_path(tmp_path)
    conn = create_store(path)
    add_session(conn, "agent:main:main", lines_of(2, sid="a"), updated_at=10, label="Main",
                entry={"inputTokens": 5, "outputTokens": 6, "totalTokens": 11, "contextTokens": 9, "compactionCount": 2})
    add_session(conn, "agent:main:cron", lines_of(3, sid="b"), updated_at=30, display_name="Nightly", archived_at=40)
    add_session(conn, "agent:main:tg", lines_of(1, sid="c"), updated_at=20)
    conn.close()
    listing = list_store(path)
    assert listing.error is None and listing.agent_id == "main"
    rows = {s.session_id: s for s in listing.sessions}
    assert [s.session_id for s in listing.sessions] == ["b", "c", "a"]
    assert rows["a"].tokens == {"input": 5, "output": 6, "total": 11, "context": 9} and rows["a"].compaction_count == 2
    assert (rows["a"].name, rows["b"].name, rows["b"].archived_at, rows["b"].events) == ("Main", "Nightly", 40, 4)
    assert pick_session(listing.sessions, None).session_id == "b"
    assert choose_session(path, "agent:main:tg").session_id == "c"
    assert choose_session(path, "a").session_key == "agent:main:main"
    with pytest.raises(StoreSessionError, match="no session 'nope'; known: agent:main:cron, agent:main:tg, agent:main:main"):
        choose_session(path, "nope")
    assert open_store_session(path, "agent:main:main").session_id == "a"


def test_store_of_names_the_file_the_agent_dir_and_its_agent_dir(tmp_path):
    store, _ = demo_store(tmp_path)
    agent = store.parent.parent
    assert store_of(store) == store and store_of(agent) == store and store_of(agent / "agent") == store
    assert store_of(DEMO) is None and store_of(tmp_path) is None
    not_sqlite = tmp_path / "x.sqlite"
    not_sqlite.write_text("hello")
    with pytest.raises(StoreError, match="not a SQLite database"):
        connect(not_sqlite)


def test_a_store_session_gets_the_rules_of_the_release_that_wrote_it(tmp_path):
    store, sid = demo_store(tmp_path)
    mirror = sync_mirror(store, sid)
    choice = choose_rules(None, session_path=mirror.path, store=mirror, ask_installed=False)
    assert (choice.id, choice.source) == ("openclaw-2026.9.6", "session")
    assert choice.reason == "the session is in an OpenClaw SQLite store (agent schema 23, written by 2026.9.6)"
    assert choose_rules("openclaw-2026.4.12", store=mirror).id == "openclaw-2026.4.12"


def test_cache_clear_removes_mirrors(tmp_path, _own_index_cache):
    store, sid = demo_store(tmp_path)
    sync_mirror(store, sid)
    kinds = sorted(f.kind for f in owned_files(_own_index_cache))
    assert kinds == ["mirror", "mirror", "mirror"]
    removed, _ = clear(_own_index_cache)
    assert removed == 3 and not os.listdir(_own_index_cache)


def test_read_events_after_a_seq_reads_only_the_new_ones(tmp_path):
    store, sid = demo_store(tmp_path)
    conn = connect(store)
    snap = read_events(conn, store, sid, after_seq=150)
    assert snap.seqs == list(range(151, 157)) and snap.kept == 151 and snap.generation
    conn.close()
