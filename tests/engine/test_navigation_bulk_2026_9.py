"""OpenClaw 2026.9.6's navigation read in bulk (`Navigation.advance`, runs of plain rows from
`navigation_rows.plain_rows`) equals it read row by row (`advance_by_row`: `classify`, then `_add`), on random
sessions with every kind of row (resets, leaf rows, side appends, labels, invalid messages, results without a call
id, custom entries, entries without a parent key), read at once, line by line, and restored from a snapshot; and
the table's bulk reads it uses (`flag_bytes_in`, `call_kinds_in`) equal the per-row reads."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

from conftest import bench_generator

from inspector.model import entries as m
from inspector.rules.openclaw_2026_9_6.canonical_ids import CanonicalIds
from inspector.rules.openclaw_2026_9_6.navigation import Navigation
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session
from inspector.session.tree import SessionTree
from inspector.storage import nums_layout as nl
from inspector.storage.call_cells import CALL_IDS_KIND
from inspector.storage.entry_table import EntryTable

RULES = "openclaw-2026.9.6"


def _random_session(seed: int) -> SessionBuilder:
    rng = random.Random(seed)
    b = SessionBuilder(seed=seed)
    b.header(version=4)
    ids: list[str] = []
    for _ in range(rng.randint(20, 120)):
        op = rng.random()
        if op < 0.35:  # runs of plain messages: the bulk path's
            for _ in range(rng.randint(1, 6)):
                ids.append(b.user("u") if rng.random() < 0.5 else b.assistant("a"))
        elif op < 0.45:
            call = f"c{rng.randint(0, 9)}"
            ids.append(b.assistant([b.tool_call("read", {"p": 1}, call)]))
            ids.append(b.tool_result(call, "read", "out"))
        elif op < 0.5:
            ids.append(b.message({"role": "toolResult", "toolName": "read", "content": [{"type": "text", "text": "x"}]}))
        elif op < 0.55:
            ids.append(b.message({"role": "toolResult", "toolCallId": "q", "toolName": "read", "content": "plain"}))
        elif op < 0.6 and ids:
            ids.append(b.reset(rng.choice(["new", "bogus"]), rng.choice([None, rng.choice(ids)])))
        elif op < 0.66 and ids:
            ids.append(b.leaf(rng.choice([*ids, "nowhere"])))
        elif op < 0.71:
            ids.append(b.message({"role": "user", "content": "s", "timestamp": b.now_ms}, side=True))
        elif op < 0.75:
            ids.append(b.message({"role": "nobody", "content": "?"}))
        elif op < 0.8:
            ids.append(b.custom(rng.choice(["openclaw.cache-ttl", ""]), {"n": 1}))
        elif op < 0.83 and ids:
            ids.append(b.label(rng.choice([*ids, "nowhere"]), "l"))
        elif op < 0.86:
            ids.append(b.entry("mystery", {"x": 1}))
        elif op < 0.89:
            b.raw_line('{"type":"custom","customType":"t","id":"np%d"}' % rng.randint(0, 99))  # no parentId key
        elif op < 0.92:
            b.raw_line('{"type":"message","id":"","parentId":null,"message":{"role":"user","content":"e"}}')
        elif op < 0.96 and ids:
            b.branch(rng.choice(ids))
        else:
            ids.append(b.model_change("openai", f"m{rng.randint(1, 3)}"))
    return b


def _state(nav: Navigation, entries: EntryTable) -> dict[str, object]:
    state = dict(vars(nav))
    state["by_id"] = nav.by_id.as_dict(entries.ids)
    return state


def _fresh(tree: SessionTree) -> Navigation:
    return Navigation(CanonicalIds(tree))


def _alike(tree: SessionTree, kept: Navigation | None = None) -> bool:
    """`advance` (of `kept`, else a fresh navigation) and `advance_by_row` of a fresh one reach the same state."""
    entries = tree.entries
    bulk = (kept or _fresh(tree)).advance(entries)
    return _state(bulk, entries) == _state(_fresh(tree).advance_by_row(entries), entries)


def test_bulk_navigation_equals_row_by_row(tmp_path: Path) -> None:
    for seed in range(60):
        session = open_session(_random_session(seed).write(tmp_path / f"s{seed}.jsonl"), RULES)
        assert _alike(session.tree), seed


def test_bulk_navigation_line_by_line_equals_row_by_row(tmp_path: Path) -> None:
    for seed in range(12):
        lines = _random_session(100 + seed).text().splitlines(keepends=True)
        path = tmp_path / f"s{seed}.jsonl"
        path.write_text(lines[0])
        session = open_session(path, RULES)
        kept = _fresh(session.tree)
        for line in lines[1:]:
            with path.open("a") as f:
                f.write(line)
            assert not session.refresh().reset
            assert _alike(session.tree, kept), seed


def _restored(table: EntryTable) -> EntryTable:
    back = EntryTable.__new__(EntryTable)
    vars(back).update(pickle.loads(pickle.dumps(table.snapshot_attrs(), protocol=pickle.HIGHEST_PROTOCOL)))
    return back


def test_bulk_reads_of_a_restored_table_and_rows_added_since(tmp_path: Path) -> None:
    for seed in range(8):
        session = open_session(_random_session(200 + seed).write(tmp_path / f"s{seed}.jsonl"), RULES)
        whole = session.tree.entries
        half = len(whole) // 2
        table = EntryTable(whole.layout)
        for i in range(half):
            table.append(whole[i])
        table = _restored(table)
        for i in range(half, len(whole)):
            table.append(whole[i])
        for t in (whole, table):
            n = len(t)
            for a, b in [(0, n), (0, half), (half, n), (1, max(1, n - 1))]:
                flags = t.flag_bytes_in(a, b)
                assert list(flags) == [nl.row_flags(t.nums_of(i)) & 0xFF for i in range(a, b)]
                kinds = t.call_kinds_in(a, b)
                expected = []
                for i in range(a, b):
                    calls = t.calls_of(i)
                    expected.append(0 if calls is None else kinds[i - a])  # kind bytes checked below
                assert list(kinds) == expected
                for i in range(a, b):
                    if kinds[i - a] == CALL_IDS_KIND:
                        assert t.tool_call_ids_of(i) and t.tool_call_id_of(i) is None
                    elif kinds[i - a]:
                        assert t.tool_call_id_of(i) is not None
            tree = session.tree if t is whole else SessionTree(t)
            if t is not whole:
                tree.link_range(range(len(t)))
            assert _alike(tree), seed


def test_the_bench_shapes_navigate_alike(tmp_path: Path) -> None:
    gen = bench_generator()
    for shape in ("tools", "chat", "thinking", "cjk"):
        path = tmp_path / f"{shape}.jsonl"
        gen.generate(path, entries=1500, seed=5, shape=shape)
        tree = open_session(path, RULES).tree
        entries = tree.entries
        assert _alike(tree), shape
        assert any(entries.type_of(i) != m.MESSAGE for i in range(len(entries)))


def test_a_worker_read_table_navigates_alike(tmp_path: Path, monkeypatch) -> None:
    """A table the workers packed keeps its call text as zlib blocks (`BlockText`): the bulk reads over it
    (`call_kinds_in`, `flag_bytes_in`) equal the per-row reads, and the navigation the row-by-row one."""
    from inspector.read import parallel as par
    from inspector.storage.block_text import BlockText

    monkeypatch.setenv("SESSION_INSPECTOR_WORKERS", "2")
    monkeypatch.setattr(par, "PARALLEL_MIN_BYTES", 0)
    path = tmp_path / "thinking.jsonl"
    bench_generator().generate(path, entries=3000, seed=9, shape="thinking")
    tree = open_session(path, RULES).tree
    entries = tree.entries
    assert isinstance(entries.call_text, BlockText), "the worker path was taken"
    n = len(entries)
    for a, b in [(0, n), (1, n // 2), (n // 3, n - 1)]:
        kinds = entries.call_kinds_in(a, b)
        for i in range(a, b):
            calls = entries.calls_of(i)
            if calls is None:
                assert kinds[i - a] == 0
            elif kinds[i - a] == CALL_IDS_KIND:
                assert entries.tool_call_ids_of(i) and entries.tool_call_id_of(i) is None
            else:
                assert kinds[i - a] and entries.tool_call_id_of(i) is not None
    assert _alike(tree)
