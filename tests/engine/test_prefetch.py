"""`inspector.cache.prefetch`: a session's snapshot read in a thread while the command imports, handed to the restore
as the same `read_entry` result, never read for an ambiguous command line, and never running when the process forks."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from conftest import assistant, header, msg, user, write_lines

from inspector.cache import prefetch, store
from inspector.cache.index_cache import how_opened, open_cached, save_opened


def _session(path: Path) -> Path:
    return write_lines(path, [header(), msg("u1", None, user("hi")), msg("a1", "u1", assistant("hello"))])


def _cached(tmp_path: Path) -> tuple[Path, str, str]:
    path = _session(tmp_path / "s.jsonl")
    open_cached(path).context()
    assert save_opened() == 1
    directory = store.checked_dir(create=False)
    return path, directory, prefetch.index_entry_name(path)


def test_a_prefetched_snapshot_is_the_entry_as_read_and_is_taken_once(tmp_path: Path, _own_index_cache: Path) -> None:
    path, directory, name = _cached(tmp_path)
    assert prefetch.take(directory, name) is prefetch.NOT_PREFETCHED
    prefetch.start([str(path)])
    got = prefetch.take(directory, name)
    expected = store.read_entry(directory, name)
    assert got is not prefetch.NOT_PREFETCHED and got is not None and expected is not None
    assert got[0] == expected[0] and bytes(got[1]) == bytes(expected[1])
    assert prefetch.take(directory, name) is prefetch.NOT_PREFETCHED  # taken once
    prefetch.start([str(path)])
    restored = open_cached(path)  # the restore takes the prefetched entry
    assert how_opened(restored) == "restored"
    assert prefetch.take(directory, name) is prefetch.NOT_PREFETCHED
    save_opened()


def test_nothing_is_read_for_two_files_or_none(tmp_path: Path, _own_index_cache: Path) -> None:
    path, directory, name = _cached(tmp_path)
    other = _session(tmp_path / "other.jsonl")
    prefetch.start([str(path), str(other)])  # which one is the session? (a config file, say): none read
    prefetch.start(["no-such-file", "--json"])
    assert prefetch.take(directory, name) is prefetch.NOT_PREFETCHED
    prefetch.forget()


def test_forget_drops_reads_not_taken(tmp_path: Path, _own_index_cache: Path) -> None:
    path, directory, name = _cached(tmp_path)
    prefetch.start([str(path)])
    prefetch.forget()
    assert prefetch.take(directory, name) is prefetch.NOT_PREFETCHED


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_fork_waits_for_the_reads(tmp_path: Path, _own_index_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`os.register_at_fork(before=settle)`: when a process forks, no prefetch thread is running."""
    path, directory, name = _cached(tmp_path)
    release = threading.Event()
    real_read = store.read_entry

    def slow_read(*args: object) -> object:
        release.wait(5)
        return real_read(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(prefetch, "read_entry", slow_read)
    prefetch.start([str(path)])
    (thread,) = prefetch._reads.values()
    assert thread.is_alive()
    timer = threading.Timer(0.3, release.set)  # the read ends in 0.3 s: the fork must wait for it
    timer.start()
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        os._exit(0)
    assert not thread.is_alive(), "the fork ran while the read was still going"
    os.waitpid(pid, 0)
    timer.join()
    assert prefetch.take(directory, name) is not prefetch.NOT_PREFETCHED
