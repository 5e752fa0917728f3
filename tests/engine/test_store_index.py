"""A big store session indexed in the pass that writes its mirror (`inspector.session.store_index`): the same mirror,
sidecar and index as writing the mirror and then opening it, the plain way again for a damaged event, and the
index handed only to an `open_session` of the file it indexed. The size thresholds are lowered so small sessions
take the big sessions' path, in many batches."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from inprocess import run_cli
from store_support import build_store, compress, writer
from test_store import KEY, lines_of

from inspector.host.discovery.stores import open_store_session
from inspector.read import parallel
from inspector.read.store.mirror import sync_mirror
from inspector.session import session as session_module
from inspector.session import store_index
from inspector.session.session import Session, open_session
from inspector.session.store_index import IndexingRewrite

sys.path.insert(0, str(ROOT / "bench"))
import generate

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
RULES = "openclaw-2026.9.6"


@pytest.fixture
def big_path(monkeypatch):
    """Every session big enough for the one pass, in batches of about 3 KB, on two workers."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(parallel, "worker_count", lambda: 2)
    monkeypatch.setattr(store_index, "RANGE_BYTES", 3000)
    monkeypatch.setattr(store_index, "FETCH_ROWS", 7)
    yield
    session_module._preloaded.clear()


def _cache(tmp_path: Path, name: str, monkeypatch) -> None:
    path = tmp_path / name
    path.mkdir()
    monkeypatch.setenv("SESSION_INSPECTOR_CACHE_DIR", str(path))


def _same_index(a: Session, b: Session) -> None:
    assert len(a.entries) == len(b.entries) > 0
    assert [a.entries[i] for i in range(len(a.entries))] == [b.entries[i] for i in range(len(b.entries))]
    assert a.diagnostics == b.diagnostics and a.header == b.header and a.version == b.version
    assert (a.scanner.consumed, a.scanner.next_line, a.scanner.pending_len) == (b.scanner.consumed, b.scanner.next_line, b.scanner.pending_len)
    assert a.scanner.identity is not None and b.scanner.identity is not None and a.scanner.identity.size == b.scanner.identity.size
    ca, cb = a.context(), b.context()
    assert ca.path == cb.path and ca.messages == cb.messages and ca.diagnostics == cb.diagnostics
    assert a.all_diagnostics(ca) == b.all_diagnostics(cb) and a.context_messages(ca) == b.context_messages(cb)


def _generated(tmp_path: Path) -> list[bytes]:
    path = tmp_path / "generated.jsonl"
    generate.generate(path, entries=600, seed=5, shape="chat")
    return path.read_bytes().splitlines()


@pytest.mark.parametrize("source", ["demo", "generated"])
def test_the_one_pass_writes_the_same_mirror_and_makes_the_same_index(tmp_path, monkeypatch, source):
    lines = DEMO.read_bytes().splitlines() if source == "demo" else _generated(tmp_path)
    store, ids = build_store(tmp_path / "home", {KEY: lines})
    sid = ids[KEY]
    conn = writer(store)
    assert conn.execute("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL").fetchone()[0] > 5
    conn.close()
    _cache(tmp_path, "plain", monkeypatch)
    plain = sync_mirror(store, sid)
    reference = open_session(plain.path, RULES)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "PARALLEL_MIN_BYTES", 1)
        mp.setattr(parallel, "worker_count", lambda: 2)
        mp.setattr(store_index, "RANGE_BYTES", 3000)
        mp.setattr(store_index, "FETCH_ROWS", 7)
        _cache(tmp_path, "one-pass", mp)
        rewrite = IndexingRewrite(lambda snap: RULES)
        mirror = sync_mirror(store, sid, rewrite=rewrite)
    assert mirror.change == "created" and rewrite.session is not None
    assert mirror.path.read_bytes() == plain.path.read_bytes()
    assert mirror.path.with_suffix(".json").read_bytes() == plain.path.with_suffix(".json").read_bytes()
    assert (mirror.runs, mirror.events, mirror.size, mirror.problems) == (plain.runs, plain.events, plain.size, plain.problems)
    session = rewrite.session
    assert session.path == mirror.path and os.stat(mirror.path).st_ino == session.scanner.identity.ino
    _same_index(session, reference)
    last = len(session.entries) - 1
    assert session.raw_line(session.entries[last]) == reference.raw_line(reference.entries[last])


def test_damaged_events_are_placeholders_in_the_one_pass_too(tmp_path, monkeypatch, big_path):
    store, ids = build_store(tmp_path / "home", {KEY: lines_of(40, big=3000)})
    sid = ids[KEY]
    conn = writer(store)
    seq = conn.execute("SELECT min(seq) FROM transcript_events WHERE event_zstd IS NOT NULL AND seq > 20").fetchone()[0]
    conn.execute("UPDATE transcript_events SET event_zstd=? WHERE session_id=? AND seq=?", (compress(b'{"short":1}'), sid, seq))
    conn.execute("UPDATE transcript_events SET event_json=? WHERE session_id=? AND seq=5", ('{"a":\n1}', sid))
    conn.commit()
    conn.close()
    _cache(tmp_path, "one-pass", monkeypatch)
    rewrite = IndexingRewrite(lambda snap: RULES)
    mirror = sync_mirror(store, sid, rewrite=rewrite)
    assert rewrite.session is not None
    assert {s: p.kind for s, p in mirror.problems.items()} == {5: "store_event_newline", seq: "store_event_size"}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel, "PARALLEL_MIN_BYTES", 64 * 1024 * 1024)
        _cache(tmp_path, "plain", mp)
        plain = sync_mirror(store, sid)
        reference = open_session(plain.path, RULES)
    assert mirror.path.read_bytes() == plain.path.read_bytes()
    assert (mirror.runs, mirror.events, mirror.size, mirror.problems) == (plain.runs, plain.events, plain.size, plain.problems)
    _same_index(rewrite.session, reference)
    assert {d.kind for d in reference.diagnostics} >= {"unparseable"}


def test_a_small_session_is_written_and_opened_as_before(tmp_path, monkeypatch):
    store, ids = build_store(tmp_path / "home", {KEY: lines_of(30, big=2000)})
    _cache(tmp_path, "cache", monkeypatch)
    rewrite = IndexingRewrite(lambda snap: pytest.fail("a small session is not indexed in the pass"))
    mirror = sync_mirror(store, ids[KEY], rewrite=rewrite)
    assert rewrite.session is None and mirror.events == 31
    assert mirror.path.read_bytes() == b"".join(line + b"\n" for line in lines_of(30, big=2000))


def test_the_index_goes_only_to_an_open_of_the_file_it_indexed_under_its_rules(tmp_path, monkeypatch, big_path):
    store, _ = build_store(tmp_path / "home", {KEY: lines_of(40, big=3000)})
    _cache(tmp_path, "cache", monkeypatch)
    mirror = open_store_session(store, None, index=True)
    assert mirror.change == "created" and len(session_module._preloaded) == 1
    preloaded = next(iter(session_module._preloaded.values()))
    assert preloaded.rules_id == RULES, "the rules the store's writer gets (choose_rules)"
    assert open_session(mirror.path, "openclaw-2026.4.12") is not preloaded, "other rules: indexed again"
    assert open_session(mirror.path, RULES) is preloaded and not session_module._preloaded
    assert open_session(mirror.path, RULES) is not preloaded, "handed out once"
    session_module.preload(preloaded)
    with open(mirror.path, "ab") as f:
        f.write(lines_of(41)[-1] + b"\n")
    fresh = open_session(mirror.path, RULES)
    assert fresh is not preloaded and len(fresh.entries) == len(preloaded.entries) + 1
    again = open_store_session(store, None, index=True)
    assert again.change == "rewritten", "a mirror not as its sidecar says is written whole again"
    rewritten = session_module._preloaded[(str(again.path), RULES)]
    assert rewritten is not preloaded and len(rewritten.entries) == len(preloaded.entries)


def test_stats_on_a_big_store_session_equals_the_plain_open(tmp_path, monkeypatch):
    store, _ = build_store(tmp_path / "home", {KEY: _generated(tmp_path)})
    env = dict(os.environ, HOME=str(tmp_path / "home"))
    outputs = []
    for name in ("plain", "one-pass"):
        with pytest.MonkeyPatch.context() as mp:
            if name == "one-pass":
                mp.setattr(parallel, "PARALLEL_MIN_BYTES", 1)
                mp.setattr(parallel, "worker_count", lambda: 2)
                mp.setattr(store_index, "RANGE_BYTES", 3000)
            cache = tmp_path / name
            cache.mkdir()
            r = run_cli(["stats", store, "--json", "--no-tiktoken", "--no-cache"], env=dict(env, SESSION_INSPECTOR_CACHE_DIR=str(cache)))
            assert r.returncode == 0, r.stderr
            outputs.append({k: v for k, v in json.loads(r.stdout).items() if k != "file"})
    assert not session_module._preloaded, "the command took the index"
    assert outputs[0] == outputs[1] and outputs[0]["source"]["kind"] == "sqlite"
