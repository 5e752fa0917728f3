"""The index cache (`inspector.storage.cache`): a restored or extended session is the session a cold read gives.

Every test compares with `open_session` on the same bytes, field by field and through the figures the
commands print (stats, context, timeline). Real files, a real cache dir (the autouse fixture's).
"""

from __future__ import annotations

import marshal
import mmap
import os
import pickle
import stat
from array import array
from pathlib import Path

import pytest
from conftest import assistant, corpus_file, entry, header, jline, msg, tool_result, user, write_lines

from inspector.figures.diagnosis.timeline import TimelineOptions, build_timeline
from inspector.figures.session_figures import WindowOptions, context_report, session_stats
from inspector.session import index_cache, snapshot
from inspector.session.index_cache import COLD, EXTENDED, RESTORED, how_opened, index_entry_name, open_cached, save_opened
from inspector.session.session import Session, open_session
from inspector.storage.cache import cache_dir as store
from inspector.storage.cache.filekey import GROWN, STALE, UNCHANGED, compare, make_key


@pytest.fixture(autouse=True)
def _fresh_process_state() -> None:
    """Sessions opened by an earlier test are not this test's to save."""
    index_cache.forget_opened()


def turns(start: int, count: int, parent: str | None) -> tuple[list[dict], str | None]:
    """`count` user → assistant(tool call) → tool result → assistant turns, ids from `start`."""
    objs: list[dict] = []
    for i in range(start, start + count):
        objs.append(msg(f"u{i}", parent, user(f"question {i} " + "q" * (i % 50))))
        objs.append(msg(f"a{i}", f"u{i}", assistant("", tool_calls=[(f"c{i}", "read", {"path": f"f{i}.py"})])))
        objs.append(msg(f"t{i}", f"a{i}", tool_result(f"c{i}", "read", "x" * (100 + 37 * i))))
        objs.append(msg(f"r{i}", f"t{i}", assistant(f"answer {i}")))
        parent = f"r{i}"
    return objs, parent


def session_file(path: Path, count: int = 40) -> tuple[Path, str | None]:
    objs, leaf = turns(0, count, "m1")
    write_lines(path, [header(), entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"), *objs])
    return path, leaf


def append(path: Path, text: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def figures(session: Session) -> tuple:
    """What the commands print, computed from `session` (tiktoken off: its counts are tested by the CLI tests)."""
    opts = WindowOptions()
    ctx = session.context()
    return (
        session_stats(session, opts, None),
        context_report(session, ctx, opts, None),
        build_timeline(session, ctx, TimelineOptions(window=opts, tokenizer=None)).to_json(),
    )


def assert_same(got: Session, path: Path) -> None:
    """`got` holds what a cold read of `path` holds, and gives the same figures."""
    cold = open_session(path)
    assert got.entries == cold.entries
    assert got.diagnostics == cold.diagnostics
    assert got.all_diagnostics() == cold.all_diagnostics()
    assert (got.tree.by_id, got.tree.duplicates, got.tree.labels, got.tree.session_name) == (
        cold.tree.by_id, cold.tree.duplicates, cold.tree.labels, cold.tree.session_name,
    )
    assert got.tree.branch_points() == cold.tree.branch_points()
    assert (got.header, got.version, got.valid, got.file_size, got.bytes_indexed, got.pending_bytes) == (
        cold.header, cold.version, cold.valid, cold.file_size, cold.bytes_indexed, cold.pending_bytes,
    )
    assert got.scanner.next_line == cold.scanner.next_line
    assert got.context() == cold.context()
    assert figures(got) == figures(cold)


def reopen(path: Path) -> Session:
    save_opened()
    return open_cached(path)


def entry_path(cache: Path, path: Path) -> Path:
    return cache / index_entry_name(path)


# --- unchanged, grown ------------------------------------------------------------------------------------


def test_unchanged_file_is_restored_and_equal(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    first = open_cached(path)
    assert how_opened(first) == COLD
    first.context()
    assert save_opened() == 1
    again = open_cached(path)
    assert how_opened(again) == RESTORED
    assert again is not first and again.path == path
    assert_same(again, path)
    assert save_opened() == 0, "an unchanged restore writes nothing"


def test_a_file_system_that_cannot_map_files_gets_a_copy(tmp_path: Path, _own_index_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path).context()
    save_opened()
    name = index_entry_name(path)
    mapped = store.read_entry(_own_index_cache, name, mapped=True)
    assert mapped is not None and isinstance(mapped[1].obj, mmap.mmap)

    def no_mmap(*args: object, **kwargs: object) -> object:
        raise OSError(19, "No such device")

    monkeypatch.setattr(store.mmap, "mmap", no_mmap)
    copied = store.read_entry(_own_index_cache, name, mapped=True)
    assert copied is not None and isinstance(copied[1].obj, bytes)
    assert copied[0] == mapped[0] and bytes(copied[1]) == bytes(mapped[1])
    assert how_opened(open_cached(path)) == RESTORED


def test_arrays_pickled_out_of_band_restore_as_arrays_that_grow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every array out of band (the bound lowered to 0): restored as arrays (copies: they grow with the rows added
    since), and the session is the one a cold read gives, before and after an append."""
    monkeypatch.setattr(snapshot, "ARRAY_OUT_OF_BAND", 0)
    path, leaf = session_file(tmp_path / "s.jsonl")
    session = open_session(path)
    session.context()
    data = snapshot.dump(session)
    _, buffers = snapshot._unframe(data)
    restored = snapshot.load(data, path)
    table = restored.entries
    assert sum(b.nbytes for b in buffers) >= sum(len(a) * a.itemsize for a in (table.shape, table.call_end, table.usage_slot))
    assert all(type(a) is array for a in (table.shape, table.call_end, table.usage_slot, restored.context().path))
    assert_same(restored, path)
    objs, _ = turns(100, 2, leaf)
    append(path, "".join(jline(o) + "\n" for o in objs))
    restored.refresh()
    assert_same(restored, path)


def test_restored_session_keeps_refreshing(tmp_path: Path) -> None:
    path, leaf = session_file(tmp_path / "s.jsonl", 10)
    open_cached(path)
    restored = reopen(path)
    assert how_opened(restored) == RESTORED
    objs, _ = turns(100, 2, leaf)
    append(path, "".join(jline(o) + "\n" for o in objs))
    result = restored.refresh()
    assert [e.id for e in result.new_entries] == [o["id"] for o in objs]
    assert_same(restored, path)


def test_a_headless_restore_maps_the_snapshot_and_outlives_its_replacement_and_removal(tmp_path: Path, _own_index_cache: Path) -> None:
    """`open_cached` (a headless command) reads the snapshot through a memory map, the UI's `restore` a copy. The
    cache only ever renames a new entry over an old one or unlinks it, so a mapped session stays whole through both."""
    path, leaf = session_file(tmp_path / "s.jsonl")
    open_cached(path).context()
    restored = reopen(path)
    assert how_opened(restored) == RESTORED
    assert isinstance(restored.entries._frozen.nums.obj, mmap.mmap)
    assert restored.context().path.typecode == "i", "the path travels as one array (32-bit indices)"
    ui_copy = index_cache.restore(path)
    assert ui_copy is not None and isinstance(ui_copy.entries._frozen.nums.obj, bytes)
    name = index_entry_name(path)
    assert store.write_entry(_own_index_cache, name, {"kind": "other"}, b"x" * 4096)  # renamed over the mapped file
    assert store.clear(_own_index_cache)[0] >= 1 and not entry_path(_own_index_cache, path).exists()
    objs, _ = turns(100, 3, leaf)
    append(path, "".join(jline(o) + "\n" for o in objs))
    restored.refresh()
    assert_same(restored, path)


def test_appended_lines_extend_the_snapshot(tmp_path: Path) -> None:
    path, leaf = session_file(tmp_path / "s.jsonl")
    open_cached(path).context()
    objs, _ = turns(100, 5, leaf)
    append(path, "".join(jline(o) + "\n" for o in objs))
    grown = reopen(path)
    assert how_opened(grown) == EXTENDED
    assert grown.tree.by_id.is_flat, "the appended lines were linked without building the id dict"
    opts = WindowOptions()
    session_stats(grown, opts, None)
    context_report(grown, grown.context(), opts, None)
    assert grown.entries.ids_packed, "stats and context read a few ids, never the list of them all"
    assert_same(grown, path)
    assert not grown.entries.ids_packed, "a comparison of every id built the lists"
    assert save_opened() == 0, "a few appended lines are read again next time rather than rewriting the snapshot"
    again = open_cached(path)
    assert how_opened(again) == EXTENDED
    assert_same(again, path)


def test_snapshot_rewritten_after_a_large_extension(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index_cache, "RESAVE_MIN_BYTES", 1000)
    path, leaf = session_file(tmp_path / "s.jsonl")
    open_cached(path).context()
    objs, _ = turns(100, 20, leaf)
    append(path, "".join(jline(o) + "\n" for o in objs))
    grown = reopen(path)
    assert how_opened(grown) == EXTENDED
    again = reopen(path)  # the extended state was saved: restored as is now
    assert how_opened(again) == RESTORED
    assert_same(again, path)


def test_partial_last_line_completed_later(tmp_path: Path) -> None:
    path, leaf = session_file(tmp_path / "s.jsonl", 5)
    objs, _ = turns(100, 2, leaf)
    line = jline(objs[0])
    append(path, line[:25])  # a writer mid-line
    first = open_cached(path)
    assert first.pending_bytes == 25
    assert_same(first, path)
    append(path, line[25:-10])
    still = reopen(path)
    assert how_opened(still) == EXTENDED and still.pending_bytes == len(line) - 10
    assert_same(still, path)
    append(path, line[-10:] + "\n" + "".join(jline(o) + "\n" for o in objs[1:]))
    done = reopen(path)
    assert how_opened(done) == EXTENDED and done.pending_bytes == 0
    assert_same(done, path)


def test_unterminated_parseable_last_line(tmp_path: Path) -> None:
    path, leaf = session_file(tmp_path / "s.jsonl", 5)
    objs, _ = turns(100, 2, leaf)
    append(path, jline(objs[0]))  # complete JSON, no newline yet: read as an entry, like a cold read does
    first = open_cached(path)
    assert first.entries[-1].id == objs[0]["id"]
    append(path, "\n" + jline(objs[1]) + "\n")
    grown = reopen(path)
    assert how_opened(grown) == EXTENDED
    assert_same(grown, path)


def test_unterminated_line_that_goes_on_is_rebuilt(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl", 5)
    append(path, "123")  # parses (a number: a `not_object` line); a writer may still be writing it
    open_cached(path)
    append(path, "456\n")
    got = reopen(path)
    assert how_opened(got) == COLD
    assert_same(got, path)


def test_empty_file_that_grows_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    open_cached(path)
    session_file(tmp_path / "full.jsonl", 3)
    path.write_bytes((tmp_path / "full.jsonl").read_bytes())  # same inode, grown from nothing
    got = reopen(path)
    assert how_opened(got) == COLD
    assert not any(d.kind == "empty" for d in got.diagnostics)
    assert_same(got, path)


# --- truncated, replaced, rewritten ------------------------------------------------------------------------


def test_truncated_file_is_rebuilt(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    data = path.read_bytes()
    with open(path, "r+b") as f:
        f.truncate(data.rindex(b"\n", 0, len(data) - 1) + 1)
    got = reopen(path)
    assert how_opened(got) == COLD
    assert_same(got, path)


def test_file_renamed_over_is_rebuilt(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    other, _ = session_file(tmp_path / "other.jsonl", 45)
    os.replace(other, path)
    got = reopen(path)
    assert how_opened(got) == COLD
    assert_same(got, path)


def test_same_size_other_bytes_renamed_over(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    data = path.read_bytes()
    swapped = data.replace(b"question 7 ", b"QUESTION 7 ")
    assert len(swapped) == len(data) and swapped != data
    tmp = tmp_path / "new.jsonl"
    tmp.write_bytes(swapped)
    os.replace(tmp, path)
    got = reopen(path)
    assert how_opened(got) == COLD
    assert_same(got, path)


@pytest.mark.parametrize("where", ["head", "middle", "tail"])
def test_rewritten_in_place_with_mtime_forced_back(tmp_path: Path, where: str) -> None:
    path, _ = session_file(tmp_path / "s.jsonl", 60)
    open_cached(path)
    st = os.stat(path)
    data = bytearray(path.read_bytes())
    needle = {"head": b"question 0 ", "middle": b"question 30 ", "tail": b"answer 59"}[where]
    at = data.index(needle)
    data[at : at + 1] = b"Q" if where != "tail" else b"A"
    with open(path, "r+b") as f:  # same inode, same size
        f.write(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_mtime_ns == st.st_mtime_ns and os.stat(path).st_size == st.st_size
    got = reopen(path)
    assert how_opened(got) == COLD
    assert_same(got, path)


def test_file_key_verdicts(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl", 3)
    key = make_key(path, os.path.getsize(path), store_stat(path))
    assert key is not None and key.exact is not None
    assert compare(key, path) == UNCHANGED
    os.chmod(path, 0o600)  # same bytes, another ctime: never taken for unchanged
    assert compare(key, path) == STALE
    append(path, "\n")
    assert compare(key, path) == GROWN
    assert compare(key, tmp_path / "missing.jsonl") == STALE
    grown_key = make_key(path, key.end, store_stat(path))
    assert grown_key is not None and grown_key.exact is None, "read short of the end: only good for extending"


def test_fifo_put_in_place_of_the_file_is_stale_without_blocking(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl", 3)
    key = make_key(path, os.path.getsize(path), store_stat(path))
    assert key is not None
    path.unlink()
    os.mkfifo(path)
    assert compare(key, path) == STALE  # opened non-blocking: no writer needed to get here
    assert make_key(path, 0, None) is None


def store_stat(path: Path):
    from inspector.storage.cache.filekey import FileStat

    return FileStat.of(os.stat(path))


# --- a damaged, foreign or unusable cache ------------------------------------------------------------------


def test_garbage_entry_is_ignored_and_replaced(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    target = entry_path(_own_index_cache, path)
    target.write_bytes(b"\x00garbage" * 100)
    os.chmod(target, 0o600)
    got = open_cached(path)
    assert how_opened(got) == COLD
    assert_same(got, path)
    assert save_opened() == 1
    assert how_opened(open_cached(path)) == RESTORED


def test_truncated_pickle_is_ignored_and_replaced(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    save_opened()
    target = entry_path(_own_index_cache, path)
    data = target.read_bytes()
    target.write_bytes(data[: len(data) - 200])
    got = open_cached(path)
    assert how_opened(got) == COLD
    assert not target.exists(), "a snapshot that fails to load is removed"
    assert_same(got, path)
    save_opened()
    assert how_opened(open_cached(path)) == RESTORED


def test_entry_of_another_version_is_ignored(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    save_opened()
    target = entry_path(_own_index_cache, path)
    header_obj, payload = store.read_entry(_own_index_cache, target.name) or ({}, b"")
    header_obj["code"] = "f0-another-version"
    target.write_bytes(store.encode_header(header_obj) + bytes(payload))
    got = open_cached(path)
    assert how_opened(got) == COLD
    assert_same(got, path)
    save_opened()
    assert how_opened(open_cached(path)) == RESTORED


def test_snapshot_of_other_state_is_refused(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl", 3)
    session = open_session(path)
    del session.pending_bytes  # state written by code with other attributes
    with pytest.raises(ValueError):
        snapshot.load(snapshot.dump(session), path)


def test_entries_travel_as_columns(tmp_path: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl", 40)
    session = open_session(path)
    session.context()
    tree_state = pickle.loads(pickle.dumps(snapshot.freeze(session.tree)))  # big columns are made whole as pickled
    assert snapshot.thaw(tree_state).entries == session.entries
    payload = snapshot.dump(session)
    assert b"\x8c\x05Entry" not in payload, "entries travel as the table's packed columns, not as Entry objects"
    assert b"\x8c\x0eContextMessage" in payload, "the context rows travel too"
    restored = snapshot.load(payload, path)
    assert restored.entries == session.entries
    assert restored.reader.entries is restored.tree.entries, "reader and tree share one table again"


def test_tiktoken_counts_are_kept(tmp_path: Path) -> None:
    path, leaf = session_file(tmp_path / "s.jsonl", 5)
    session = open_cached(path)
    counts = {e.offset: 10 + i for i, e in enumerate(session.entries) if e.role}
    session.token_counts["cl100k_base"] = counts
    restored = reopen(path)
    assert restored.token_counts == {"cl100k_base": counts}
    restored.token_counts["o200k_base"] = {restored.entries[0].offset: 3}
    assert save_opened() == 1, "new counts on an unchanged restore are saved"
    assert open_cached(path).token_counts["o200k_base"] == {restored.entries[0].offset: 3}
    objs, _ = turns(100, 1, leaf)
    append(path, "".join(jline(o) + "\n" for o in objs))
    grown = reopen(path)
    assert how_opened(grown) == EXTENDED
    assert grown.token_counts["cl100k_base"] == counts, "counts of entries at unchanged offsets stay valid"


def test_cache_dir_that_is_a_file_turns_the_cache_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv(store.ENV_DIR, str(blocker))
    path, _ = session_file(tmp_path / "s.jsonl")
    got = open_cached(path)
    assert how_opened(got) == COLD
    assert save_opened() == 0
    assert blocker.read_text() == "x"
    assert_same(got, path)


def test_cache_dir_writable_by_others_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv(store.ENV_DIR, str(shared))
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    assert save_opened() == 0
    assert os.listdir(shared) == []
    with pytest.raises(store.CacheUnavailable, match="writable by group or others"):
        store.checked_dir(create=False)


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another user needs root")
def test_cache_dir_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 65534, 65534)
    monkeypatch.setenv(store.ENV_DIR, str(theirs))
    with pytest.raises(store.CacheUnavailable, match="owned by another user"):
        store.checked_dir(create=True)
    path, _ = session_file(tmp_path / "s.jsonl")
    assert how_opened(open_cached(path)) == COLD
    assert save_opened() == 0


@pytest.mark.skipif(os.getuid() == 0, reason="root reads a 000 directory anyway")
def test_unreadable_cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o700)
    monkeypatch.setenv(store.ENV_DIR, str(locked))
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    save_opened()
    os.chmod(locked, 0)
    try:
        got = open_cached(path)
        assert how_opened(got) == COLD
        assert save_opened() == 0
        assert_same(got, path)
    finally:
        os.chmod(locked, 0o700)


def test_entry_files_are_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = tmp_path / "new" / "cache"
    monkeypatch.setenv(store.ENV_DIR, str(fresh))
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    assert save_opened() == 1
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o700
    names = os.listdir(fresh)
    assert names == [index_entry_name(path)]
    assert stat.S_IMODE(os.stat(fresh / names[0]).st_mode) == 0o600


def test_foreign_entry_file_is_not_read(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    save_opened()
    target = entry_path(_own_index_cache, path)
    os.chmod(target, 0o666)  # writable by others: could have been planted
    assert how_opened(open_cached(path)) == COLD


# --- bounded size, clear -------------------------------------------------------------------------------------


def test_lru_eviction_keeps_the_recently_used(tmp_path: Path, _own_index_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [session_file(tmp_path / f"s{i}.jsonl", 20)[0] for i in range(4)]
    for p in paths[:3]:
        open_cached(p)
    save_opened()
    sizes = {p: entry_path(_own_index_cache, p).stat().st_size for p in paths[:3]}
    for age, p in enumerate(paths[:3]):  # s0 oldest ... s2 newest
        os.utime(entry_path(_own_index_cache, p), (1_000_000 + age, 1_000_000 + age))
    assert how_opened(open_cached(paths[0])) == RESTORED  # using s0 makes it the most recent
    monkeypatch.setenv(store.ENV_MAX_BYTES, str(sum(sizes.values()) + 100))
    open_cached(paths[3])
    save_opened()
    left = {p.name for p in paths if entry_path(_own_index_cache, p).exists()}
    assert "s3.jsonl" in left and "s0.jsonl" in left
    assert "s1.jsonl" not in left, "the least recently used entry goes first"
    assert sum(f.size for f in store.owned_files(_own_index_cache)) <= sum(sizes.values()) + 100


def test_entry_larger_than_the_bound_is_not_written(tmp_path: Path, _own_index_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(store.ENV_MAX_BYTES, "100")
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    assert save_opened() == 0
    assert store.owned_files(_own_index_cache) == []


def test_clear_removes_only_its_own_files(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    open_cached(path)
    save_opened()
    keep = _own_index_cache / "notes.txt"
    keep.write_text("mine")
    stale_tmp = _own_index_cache / f".{index_entry_name(path)}.123.abcdef.tmp"
    stale_tmp.write_bytes(b"half")
    removed, freed = store.clear(_own_index_cache)
    assert removed == 2 and freed > 4
    assert os.listdir(_own_index_cache) == ["notes.txt"]


def test_no_cache_reads_and_writes_nothing(tmp_path: Path, _own_index_cache: Path) -> None:
    path, _ = session_file(tmp_path / "s.jsonl")
    got = open_cached(path, enabled=False)
    assert how_opened(got) is None
    assert save_opened() == 0
    assert os.listdir(_own_index_cache) == []
    assert index_cache.file_key(got) is None


def test_temporary_files_of_dead_writers_are_evicted(tmp_path: Path, _own_index_cache: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from inspector.base.clock import FixedClock

    path, _ = session_file(tmp_path / "s.jsonl", 3)
    name = index_entry_name(path)
    old = _own_index_cache / f".{name}.99.aaaaaa.tmp"
    live = _own_index_cache / f".{name}.98.bbbbbb.tmp"
    old.write_bytes(b"dead writer")
    live.write_bytes(b"writing now")
    now = datetime.now(UTC)
    os.utime(old, (now.timestamp() - 2 * store.STALE_TEMP_SECONDS,) * 2)
    freed = store.evict(_own_index_cache, store.DEFAULT_MAX_BYTES, clock=FixedClock(now + timedelta(seconds=1)))
    assert freed == len(b"dead writer")
    assert not old.exists() and live.exists()


def test_memo_eligibility() -> None:
    from inspector.cli.output_memo import eligible

    assert eligible(["stats", "--json", "s.jsonl"])
    assert eligible(["timeline", "s.jsonl", "--json", "--encoding", "cl100k_base"])
    assert eligible(["context", "--json", "s.jsonl", "--encoding=o200k_base", "--no-tiktoken"])
    assert not eligible(["stats", "s.jsonl"]), "only --json output is memoized"
    assert not eligible(["stats", "--json", "s.jsonl", "--no-cache"])
    assert not eligible(["stats", "--json", "s.jsonl", "--encoding", "o200k_base"]), "availability may change"
    assert not eligible(["stats", "--json", "s.jsonl", "--encoding=o200k_base"])
    assert not eligible(["plan", "--json", "s.jsonl"]) and not eligible(["prune", "--json", "s.jsonl"])
    assert not eligible(["stats", "--json", "--help"])


@pytest.mark.parametrize("name", ["before-compaction.v1.jsonl", "large-session.v1.jsonl", "pi-session-info.v3.jsonl"])
def test_real_transcripts_restored_and_extended(tmp_path: Path, name: str) -> None:
    """Real pi transcripts (v1 migrated in memory, v3): restored whole, and extended from their first half."""
    data = corpus_file("pi", name).read_bytes()
    path = tmp_path / name
    path.write_bytes(data)
    open_cached(path).context()
    restored = reopen(path)
    assert how_opened(restored) == RESTORED
    assert_same(restored, path)
    half = data.index(b"\n", len(data) // 2) + 1
    path.write_bytes(data[:half])
    index_cache.forget_opened()
    open_cached(path).context()
    save_opened()
    with open(path, "ab") as f:
        f.write(data[half:])
    grown = open_cached(path)
    assert how_opened(grown) == EXTENDED
    assert_same(grown, path)


def test_entry_header_round_trip_is_plain_data(tmp_path: Path) -> None:
    directory = tmp_path / "c"
    directory.mkdir(mode=0o700)
    header_obj = {"kind": "memo", "argv": ("stats", "s\udcff.jsonl"), "n": 2**70, "x": 1.5, "none": None, "ok": True,
                  "nested": {"list": [1, ("a", "b")]}}
    assert store.write_entry(directory, "memo-" + "0" * 32 + ".sic", header_obj, b"payload")
    got = store.read_entry(directory, "memo-" + "0" * 32 + ".sic")
    assert got is not None
    back, payload = got
    # as a JSON round trip would give it back: tuples are lists; a lone surrogate (a non-UTF-8 file name) survives
    assert back == {"kind": "memo", "argv": ["stats", "s\udcff.jsonl"], "n": 2**70, "x": 1.5, "none": None, "ok": True,
                    "nested": {"list": [1, ["a", "b"]]}}
    assert bytes(payload) == b"payload"
    with pytest.raises(TypeError):
        store.encode_header({"kind": object()})
    with pytest.raises(TypeError):
        store.encode_header({"kind": {1: "not a string key"}})


@pytest.mark.parametrize("header_bytes", [b"\xff\x00garbage", b"", marshal.dumps(compile("1", "x", "eval")), marshal.dumps(["a list"])])
def test_damaged_entry_header_is_ignored_and_removed(tmp_path: Path, header_bytes: bytes) -> None:
    directory = tmp_path / "c"
    directory.mkdir(mode=0o700)
    name = "memo-" + "1" * 32 + ".sic"
    target = directory / name
    target.write_bytes(store.MAGIC + len(header_bytes).to_bytes(4, "little") + header_bytes + b"payload")
    os.chmod(target, 0o600)
    assert store.read_entry(directory, name) is None
    assert not target.exists()


@pytest.mark.parametrize("raw", ["/tmp/x/", "/tmp//x", "./x", "x/./y/", "//net/x", "///x", "a/../b", ".", "/", "rel", "~x", "/a/b/.."])
def test_the_cache_dir_is_named_as_pathlib_would(raw: str, monkeypatch) -> None:
    monkeypatch.setenv(store.ENV_DIR, raw)
    assert store.cache_dir() == str(Path(os.path.expanduser(raw)))


def test_compaction_facts_are_kept_and_follow_what_arrives(tmp_path: Path) -> None:
    """`stats`' compaction rows are kept between calls and extended: a missing first kept entry that arrives later, and
    an id repeated later (a first kept entry that now names another entry), change the kinds as a cold read does."""
    path = tmp_path / "s.jsonl"
    objs, leaf = turns(0, 3, "m1")
    comp = [
        entry("compaction", "k1", leaf, summary="s1", firstKeptEntryId="u1", tokensBefore=900),
        entry("compaction", "k2", "k1", summary="s2", firstKeptEntryId="later", tokensBefore=950, fromHook=True),
        entry("compaction", "k3", "k2", summary="s3", firstKeptEntryId="k3", tokensBefore=990),
    ]
    write_lines(path, [header(), entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"), *objs, *comp])
    session = open_session(path)
    kinds = [c["kind"] for c in session_stats(session, WindowOptions(), None)["compactions"]]
    assert kinds == ["turn_boundary", "first_kept_missing", "manual"]
    assert "compactions" in session.figure_state
    more, _ = turns(10, 1, "k3")
    later = msg("later", "k3", assistant("here at last"))
    repeat = msg("u1", "later", assistant("an id used again"))  # the first kept entry of k1 is now an assistant message
    for step in ([*more], [later], [repeat]):
        append(path, "".join(jline(o) + "\n" for o in step))
        session.refresh()
        got = session_stats(session, WindowOptions(), None)
        assert got == session_stats(open_session(path), WindowOptions(), None)
    assert [c["kind"] for c in got["compactions"]] == ["split_turn", "split_turn", "manual"]


def test_an_entry_given_in_pieces_is_written_whole(_own_index_cache: Path) -> None:
    pieces = [b"head", memoryview(array("q", [1, 2, 3])).cast("B"), bytearray(b"tail")]
    assert store.write_entry(_own_index_cache, "pieces", {"kind": "other"}, pieces)
    read = store.read_entry(_own_index_cache, "pieces")
    assert read is not None and bytes(read[1]) == b"head" + array("q", [1, 2, 3]).tobytes() + b"tail"
