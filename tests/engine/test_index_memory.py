"""What the index keeps per entry, under each release's rules: a cheap guard against a memory regression.

The CLI's peak on a big session is the index plus the interpreter (issue 27: ≤ 0.25× the file, aimed at 0.23×): its
columns (`inspector.storage.entry_table`), the tree's id index and a rule set's own state (2026.9.6's navigation).
A session of the benchmark's `thinking` shape (the one closest to the budget: a tool call nearly every step, small
results carrying `details`, custom entries), read by worker processes as a big file is, then its leaf's context
built; tracemalloc counts what stays alive, per entry. The bounds are the figures measured when they were set (297-299
bytes; before the zlib blocks and 2026.9.6's flags, 340 and 412) plus a tenth: a column that grows by a few bytes per
entry, or a per-entry dict or set kept by a rule set, fails it.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

import pytest
from conftest import bench_generator

from inspector.read import parallel as par
from inspector.session.session import open_session

BYTES_PER_ENTRY = {"openclaw-2026.4.12": 325, "openclaw-2026.9.6": 325, "pi-0.73.1": 325}
"""The bound per release: retained bytes per entry after `open_session` + `context()`."""


@pytest.fixture(scope="module")
def thinking_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mem") / "thinking.jsonl"
    bench_generator().generate(path, entries=6000, seed=3, shape="thinking")
    return path


def _retained_per_entry(path: Path, rules_id: str) -> float:
    open_session(path, rules_id).context()  # imports and caches first: not the index's
    gc.collect()
    tracemalloc.start()
    try:
        session = open_session(path, rules_id)
        session.context()
        gc.collect()
        retained, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return retained / len(session.entries)


@pytest.mark.parametrize("rules_id", sorted(BYTES_PER_ENTRY))
def test_the_index_keeps_few_bytes_per_entry(thinking_session: Path, rules_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "2")
    monkeypatch.setattr(par, "PARALLEL_MIN_BYTES", 0)  # the worker path of a big file, on a small one
    per_entry = _retained_per_entry(thinking_session, rules_id)
    print(f"{rules_id}: {per_entry:.0f} bytes per entry")
    assert per_entry <= BYTES_PER_ENTRY[rules_id]
