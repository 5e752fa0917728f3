"""Writing an index snapshot costs little memory beyond the index: a cheap guard for the CLI's first run (issue 27).

A command's first run with the cache writes the snapshot after printing, and its peak must stay within the CLI's
budget (≤ 0.25× the file, aimed at 0.23×): the snapshot is pickled straight into the entry's file, the columns written
from where they lie (`WholeBytes`: zlib blocks decompressed one at a time), and nothing of the whole is held. A
session of the benchmark's `thinking` shape read by worker processes (zlib blocks, a packed extras text with cells
added between the runs' rows); tracemalloc measures the writer's peak above what the index holds. Measured when set,
on 6,000 entries: 0.54× the snapshot's size (~0.4 MB of it fixed: the pickler's frame and memo; 0.29× on 20,000);
joined, it was 1.88× (1.59×). A column joined again (the packed numbers alone are ~0.22×) fails it.
"""

from __future__ import annotations

import gc
import pickle
import random
import tracemalloc
import zlib
from array import array
from pathlib import Path

import pytest
from conftest import bench_generator

from inspector.read import parallel as par
from inspector.session import snapshot
from inspector.session.session import Session, open_session
from inspector.storage.block_text import BlockText
from inspector.storage.id_index import MISSING, IdIndex
from inspector.storage.packed_extras import PackedExtras

PEAK_FRACTION = 0.7
"""The writer's peak above the index, as a fraction of the snapshot's size."""


@pytest.fixture(scope="module")
def thinking_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("snapmem") / "thinking.jsonl"
    bench_generator().generate(path, entries=6000, seed=5, shape="thinking")
    return path


def _opened(path: Path, monkeypatch: pytest.MonkeyPatch) -> Session:
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "2")
    monkeypatch.setattr(par, "PARALLEL_MIN_BYTES", 0)  # the worker path of a big file, on a small one
    session = open_session(path)
    session.context()
    return session


def test_the_snapshot_writer_holds_nothing_of_the_whole(thinking_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = _opened(thinking_path, monkeypatch)
    assert type(session.entries.usage_buffer) is BlockText, "the worker path: the columns a snapshot must not join"
    snapshot.dump(session)  # imports and caches first
    gc.collect()
    target = tmp_path / "snap.bin"
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        with open(target, "wb") as f:
            snapshot.dump_into(session, f)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = target.stat().st_size
    print(f"writer's peak {peak - before} bytes for a {size}-byte snapshot ({(peak - before) / size:.2f}x)")
    assert peak - before <= PEAK_FRACTION * size
    restored = snapshot.load(target.read_bytes(), thinking_path)
    assert restored.entries == session.entries and restored.tree.by_id.as_dict() == session.tree.by_id.as_dict()
    assert target.read_bytes() == snapshot.dump(session), "the same bytes written to a file or to memory"


def test_a_released_id_index_stores_and_answers_the_same(thinking_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = _opened(thinking_path, monkeypatch)
    held = snapshot.dump(session)
    by_id = session.tree.by_id
    want = dict(by_id.as_dict())
    by_id.flatten()  # what the CLI's last save does (`index_cache.save(release=True)`)
    session._link_reader()
    assert by_id.is_flat and all(by_id.get(k) == v for k, v in list(want.items())[::97])
    assert snapshot.dump(session) == held, "the parent rows found in the flat table: the same snapshot"


def _crc_twins() -> tuple[str, str]:
    """Two ids with one crc32."""
    seen: dict[int, str] = {}
    rng = random.Random(7)
    for _ in range(1_000_000):
        key = f"{rng.getrandbits(48):012x}"
        twin = seen.setdefault(zlib.crc32(key.encode()), key)
        if twin != key:
            return twin, key
    raise AssertionError("no crc32 twins")


def test_rows_of_the_flat_table_are_the_dicts() -> None:
    a, b = _crc_twins()
    ids: list[str | None] = ["r", a, "x", b, None, "x", a, "y"]
    index = IdIndex()
    index.update((k, i) for i, k in enumerate(ids) if k is not None)
    index.attach(ids)
    keys = [a, b, "x", None, "absent", 7, "y", "r"]
    want = array("i", [index.as_dict().get(k, MISSING) for k in keys])  # type: ignore[arg-type]
    assert index.rows_of(keys) == want
    index.flatten()
    assert index.is_flat and index.rows_of(keys) == want
    with pytest.raises(TypeError):
        index.rows_of([["unhashable"]])


def test_extras_with_cells_added_between_runs_pack_as_anew() -> None:
    table = PackedExtras.growing(blocks=True)
    for start in (0, 10):
        run = PackedExtras.growing()
        for row in range(0, 6, 2):
            run.add(row, b'{"id":"%d"}' % (start + row))
        table.extend_run(run, start)
    table.update({7: b'{"added":7}', 9: ("ts", {"odd": 1}), 30: b'{"added":30}'})
    packed = PackedExtras.pack(table)
    anew = PackedExtras._packed(table)
    assert list(packed.rows) == list(anew.rows) and list(packed.ends) == list(anew.ends) and packed.odd == anew.odd
    assert bytes(packed.text) == anew.text
    back = pickle.loads(pickle.dumps(packed, protocol=5))
    assert type(back.text) is bytes and dict(back.items()) == dict(table.items())
