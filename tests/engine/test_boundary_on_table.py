"""pi's compaction boundary found on the entry table (ids read in one pass, types without building entries) is the
one found on plain entries, on a generated session with many compactions, and where the first kept id is absent."""

from __future__ import annotations

from inspector.model import entries as m
from inspector.rules.openclaw_2026_4_12.compaction.prepare import resolve_boundary
from inspector.session.session import open_session


def test_the_table_finds_the_boundary_plain_entries_find(bench_session):
    session = open_session(bench_session)
    path = list(session.context().path)
    table, plain = session.entries, list(session.entries)
    compactions = [i for i, idx in enumerate(path) if plain[idx].type == m.COMPACTION]
    assert len(compactions) >= 3, "the generated session compacts several times"
    for end in (*compactions, *(c + 1 for c in compactions), len(path)):  # every earlier compaction is the last once
        got = resolve_boundary(table, path[:end])
        assert got == resolve_boundary(plain, path[:end])
        if end > compactions[0]:
            assert got[0] >= 0 and got[1] > 0, "a boundary after the first compaction"
    assert resolve_boundary(table, path[: compactions[0]]) == (-1, 0, None)


def test_an_absent_first_kept_id_starts_after_the_compaction(bench_session):
    session = open_session(bench_session)
    path = list(session.context().path)
    last = max(i for i, idx in enumerate(path) if session.entries[idx].type == m.COMPACTION)
    kept = session.entries[path[last]].data["firstKeptEntryId"]
    kept_pos = next(i for i, idx in enumerate(path) if session.entries[idx].id == kept)
    without_kept = path[:kept_pos] + path[kept_pos + 1:]  # the kept entry left off the path: not found
    prev, start, _summary = resolve_boundary(session.entries, without_kept)
    assert (prev, start) == (last - 1, last)
    assert resolve_boundary(list(session.entries), without_kept)[:2] == (prev, start)
