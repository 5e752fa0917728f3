"""The packed entry index (`inspector.storage.entry_table.EntryTable`) and what is computed from its columns.

- every `Entry` appended comes back equal from the table (`table[i]`, slices, iteration), whatever its fields,
  including `data` that compact JSON cannot give back (inf, NaN, lone surrogates, ints beyond 64 bits);
- a session read in pieces keeps a cached leaf context (extended entry by entry, rebuilt from the known path at a
  compaction) equal in every field to one built from scratch, also when an appended entry repeats an id or is the
  missing parent of the path's root;
- usage totals, shape counts and missing parents kept and extended (`EntryTable.usage_total`, `figures.shape_totals`,
  `Session.path_usage`, `SessionTree.roots`/`orphans`) equal one pass over everything.
"""

from __future__ import annotations

import dataclasses
import math
import tempfile
from array import array
from collections import Counter
from pathlib import Path
from unittest.mock import patch

import pytest
from conftest import assistant, jline, tool_result, user
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.figures.session_figures import shape_totals, usage_totals
from inspector.model import entries as m
from inspector.model import packed_usage
from inspector.read.estimates import reader_estimates
from inspector.session.context import build_context, compactions_on_path
from inspector.session.session import Session, open_session
from inspector.storage.entry_range import EntryRange
from inspector.storage.entry_table import EntryTable

LAYOUT = reader_estimates().layout

PROPS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
HEADER = {"type": "session", "version": 3, "id": "t", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/"}

short = st.text(max_size=6)
json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8)
)
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(short, inner, max_size=3), max_leaves=8)


@st.composite
def entries(draw: st.DrawFn) -> list[m.Entry]:
    out = []
    for index in range(draw(st.integers(0, 12))):
        data = draw(st.none() | st.dictionaries(short, json_value, max_size=4))
        timestamp = draw(st.none() | st.sampled_from(["2026-01-01T00:00:00.000Z", "x"]))
        if data is not None and draw(st.booleans()) and timestamp is not None:
            data["timestamp"] = timestamp  # the usual case: the entry's own timestamp in its data
        usage = draw(st.none() | st.dictionaries(st.sampled_from(m.USAGE_KEYS), st.integers(0, 10**6), max_size=5))
        estimates = draw(st.none() | st.tuples(*[st.integers(0, 2**40)] * 4))
        out.append(
            m.Entry(
                index,
                LAYOUT.pack_nums(draw(st.integers(0, 10**9)), draw(st.integers(0, 2**50)), draw(st.integers(0, 2**31)), estimates, draw(st.none() | st.floats(0, 2e12)), draw(st.integers(0, 7))), LAYOUT,
                draw(st.sampled_from([m.MESSAGE, m.CUSTOM, m.COMPACTION, "future"])),
                draw(st.none() | short),
                draw(st.none() | short),
                timestamp,
                data,
                draw(st.none() | st.sampled_from(["user", "assistant", "toolResult"])),
                draw(st.none() | short),
                draw(st.none() | short),
                tuple(draw(st.lists(short, max_size=3))),
                draw(st.none() | short),
                draw(st.none() | short),
                draw(st.none() | st.sampled_from(["stop", "toolUse"])),
                m.pack_usage(usage),
                tuple(draw(st.lists(st.sampled_from(["text", "toolCall", "image"]), max_size=3))),
            )
        )
    return out


def same_entry(a: m.Entry, b: m.Entry) -> bool:
    """Field by field, NaN equal to NaN (a dict holding NaN compares unequal to its copy)."""
    return all(_same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(m.Entry))


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@PROPS
@given(entries())
def test_every_entry_comes_back_equal(items: list[m.Entry]) -> None:
    table = EntryTable(LAYOUT)
    for e in items:
        assert table.append(e) == e.index
    assert len(table) == len(items)
    assert all(same_entry(got, e) for got, e in zip(table, items, strict=True))
    assert all(same_entry(table[e.index - len(items)], e) for e in items), "negative indices"
    assert all(map(same_entry, table[1:-1], items[1:-1]))
    assert all(map(same_entry, reversed(table), reversed(items)))
    for e in items:
        assert table.role_of(e.index) == e.role and table.type_of(e.index) == e.type
        assert table.tool_call_id_of(e.index) == e.tool_call_id and table.tool_call_ids_of(e.index) == e.tool_call_ids
        assert table.usage_packed(e.index) == e.usage_packed and table.nums_of(e.index) == e.nums
    assert table.usage_column(range(len(items))) == [e.usage_packed for e in items]


def test_an_index_out_of_order_is_refused() -> None:
    table = EntryTable(LAYOUT)
    try:
        table.append(m.Entry(3, LAYOUT.pack_nums(1, 0, 1, None, None), LAYOUT, m.MESSAGE, "a", None))
    except ValueError:
        return
    raise AssertionError("an entry whose index is not the table's length was accepted")


def test_data_is_a_fresh_copy() -> None:
    table = EntryTable(LAYOUT)
    table.append(m.Entry(0, LAYOUT.pack_nums(2, 0, 1, None, None), LAYOUT, m.CUSTOM, "a", None, "t", {"timestamp": "t", "data": {"n": 1}}))
    first = table[0]
    assert first.data is not None
    first.data["data"]["n"] = 2
    assert table[0].data == {"timestamp": "t", "data": {"n": 1}}, "changing an Entry handed out changes nothing in the table"


@st.composite
def growing_sessions(draw: st.DrawFn) -> list[str]:
    """Sessions whose later lines repeat ids, name parents that appear only later, and compact."""
    lines = [jline(HEADER)]
    seen: list[str] = []
    for i in range(draw(st.integers(1, 30))):
        # Mostly a new id continuing the last entry; sometimes a repeated id, a parent seen earlier, a parent that
        # appears only later (`f<k>`: an orphan until then) or none.
        eid = draw(st.sampled_from([f"e{i}"] * 6 + seen[-3:] + [f"f{i}"]))
        parent = draw(st.sampled_from([seen[-1] if seen else None] * 6 + seen[-4:] + [f"f{i + 1}", f"f{i + 3}", None]))
        kind = draw(st.sampled_from(["user", "assistant", "assistant", "toolResult", "compaction", "model_change", "thinking"]))
        base = {"id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z"}
        if kind == "user":
            obj = {"type": "message", **base, "message": user(f"u{i}")}
        elif kind == "assistant":
            usage = {"input": draw(st.integers(0, 9999)), "output": 7, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1,
                     "cost": {"input": draw(st.floats(0, 1)), "output": 0.1, "cacheRead": 0, "cacheWrite": 0, "total": 0.3}}  # fmt: skip
            obj = {"type": "message", **base, "message": {**assistant(f"a{i}", tool_calls=[(f"c{i}", "read", {})]), "usage": usage}}
        elif kind == "toolResult":
            obj = {"type": "message", **base, "message": tool_result(f"c{i - 1}", "read", "r")}
        elif kind == "compaction":
            kept = draw(st.sampled_from([*seen, eid, "missing"]))
            obj = {"type": "compaction", **base, "summary": f"s{i}", "firstKeptEntryId": kept, "tokensBefore": 5}
        elif kind == "model_change":
            obj = {"type": "model_change", **base, "provider": "p", "modelId": f"m{i}"}
        else:
            obj = {"type": "thinking_level_change", **base, "thinkingLevel": draw(st.sampled_from(["low", "high", 3]))}
        seen.append(eid)
        lines.append(jline(obj))
    return lines


def reference_tree_figures(session: Session) -> tuple[list[int], list[int], list[int]]:
    """Roots, orphans and branch points by their definitions, one entry at a time (what the column passes replace)."""
    by_id, entries = session.tree.by_id, list(session.entries)
    roots = [e.index for e in entries if not e.parent_id or e.parent_id == e.id or e.parent_id not in by_id]
    orphans = [e.index for e in entries if e.parent_id and e.parent_id != e.id and e.parent_id not in by_id]
    children = Counter(e.parent_id for e in entries if e.parent_id)
    branch_points = sorted(by_id[pid] for pid, n in children.items() if n > 1 and pid in by_id)
    return roots, orphans, branch_points


def context_key(ctx: m.SessionContext) -> tuple:
    rows = [(r.index, r.entry_index, r.entry_id, r.line, r.role, r.tool_name, r.nums, r.usage_packed, r.excluded_from_llm) for r in ctx.messages]
    diags = [d.to_json() for d in ctx.diagnostics]
    return (ctx.leaf_id, rows, ctx.path, ctx.model, ctx.thinking_level, ctx.compaction_index, ctx.first_kept_index, diags)


@PROPS
@given(growing_sessions(), st.lists(st.integers(1, 6), max_size=8), st.sampled_from([2, 3, m.PATH_USAGE_STEP]))
def test_a_session_read_in_pieces_keeps_the_context_a_fresh_build_gives(lines: list[str], cuts: list[int], step: int) -> None:
    with tempfile.TemporaryDirectory() as d, patch.object(m, "PATH_USAGE_STEP", step):  # small steps: many marks
        path = Path(d) / "grow.jsonl"
        path.write_bytes(b"")
        live = Session(path).load()
        done = 0
        for count in [*cuts, len(lines)]:
            with open(path, "a", encoding="utf-8") as f:
                f.writelines(line + "\n" for line in lines[done : done + count])
            done = min(len(lines), done + count)
            assert not live.refresh().reset
            ctx = live.context()
            live.path_usage(ctx)  # computed now: later pieces extend it
            on_path = compactions_on_path(live.entries, ctx)  # the same: carried over to the next piece's context
            fresh = build_context(live.tree, None)
            assert context_key(ctx) == context_key(fresh)
            assert on_path == {i for i in fresh.path if live.entries.type_of(i) == m.COMPACTION}
            assert fresh.compactions_on_path is None and compactions_on_path(live.entries, fresh) == on_path
            assert type(ctx.path) is array and ctx.path.typecode == "i"
            assert live.path_usage(ctx) == m.UsageSum().plus(live.entries.usage_column(fresh.path))
            assert live.entries.usage_total() == m.UsageSum().plus(e.usage_packed for e in live.entries)
            fresh_session = open_session(path)  # the figures kept and extended piece by piece equal a cold read's
            assert (live.tree.roots(), live.tree.orphans(), live.tree.branch_points()) == (
                fresh_session.tree.roots(), fresh_session.tree.orphans(), fresh_session.tree.branch_points()
            )
            assert (live.tree.roots(), live.tree.orphans(), live.tree.branch_points()) == reference_tree_figures(live)
            by_shape = [(live.entries.shapes[c], n) for c, n in live.entries.shape_counts_since(0).items()]
            fresh_by_shape = [(fresh_session.entries.shapes[c], n) for c, n in fresh_session.entries.shape_counts_since(0).items()]
            assert by_shape == fresh_by_shape == list(Counter(map(live.entries.shape_of, range(len(live.entries)))).items()), "first-seen order"
            kept_totals, fresh_totals = shape_totals(live), shape_totals(fresh_session)  # kept across pieces
            assert [list(c.items()) for c in kept_totals] == [list(c.items()) for c in fresh_totals], "first-seen order"
            for etype in (m.COMPACTION, m.MESSAGE, m.LABEL, "future"):
                assert live.entries.indices_of_type(etype) == [e.index for e in live.entries if e.type == etype]
        once = open_session(path)
        assert context_key(live.context()) == context_key(once.context())
        assert usage_totals(live.entries.usage_total()) == usage_totals(e.usage_packed for e in once.entries)


def test_a_repeated_id_makes_the_path_be_walked_again(tmp_path: Path) -> None:
    """`A`'s child `B` repeats the old leaf's id `x`: `B`'s parent `A` now has the parent `B` (later wins), a cycle
    that extending the cached path would not see."""
    path = tmp_path / "dup.jsonl"
    first = [HEADER, {"type": "message", "id": "x", "parentId": None, "timestamp": "t", "message": user("one")}]
    path.write_text("".join(jline(o) + "\n" for o in first))
    live = Session(path).load()
    assert list(live.context().path) == [0]
    more = [
        {"type": "message", "id": "a", "parentId": "x", "timestamp": "t", "message": user("two")},
        {"type": "message", "id": "x", "parentId": "a", "timestamp": "t", "message": user("three")},
    ]
    with open(path, "a", encoding="utf-8") as f:
        f.write("".join(jline(o) + "\n" for o in more))
    live.refresh()
    assert context_key(live.context()) == context_key(build_context(live.tree, None))
    assert [d.kind for d in live.context().diagnostics] == ["parent_cycle"]


def test_the_missing_parent_of_the_root_arriving_changes_the_path(tmp_path: Path) -> None:
    """The root `b` names a parent `a` that is not there yet; `c` continues `b`, then `a` arrives continuing `c`:
    each continues the leaf, but `b`'s parent is now `a` (a cycle), which extending the cached path would not see."""
    path = tmp_path / "orphan.jsonl"
    first = [HEADER, {"type": "message", "id": "b", "parentId": "a", "timestamp": "t", "message": user("child first")}]
    path.write_text("".join(jline(o) + "\n" for o in first))
    live = Session(path).load()
    assert list(live.context().path) == [0]
    with open(path, "a", encoding="utf-8") as f:
        f.write(jline({"type": "message", "id": "c", "parentId": "b", "timestamp": "t", "message": user("grandchild")}) + "\n")
        f.write(jline({"type": "message", "id": "a", "parentId": "c", "timestamp": "t", "message": user("parent later")}) + "\n")
    live.refresh()
    assert context_key(live.context()) == context_key(build_context(live.tree, None))
    assert [d.kind for d in live.context().diagnostics] == ["parent_cycle"]


def test_an_orphan_whose_parent_arrives_is_no_longer_one(tmp_path: Path) -> None:
    path = tmp_path / "late.jsonl"
    first = [HEADER, {"type": "message", "id": "b", "parentId": "a", "timestamp": "t", "message": user("child first")}]
    path.write_text("".join(jline(o) + "\n" for o in first))
    live = Session(path).load()
    assert (live.tree.orphans(), live.tree.roots(), live.tree.branch_points()) == ([0], [0], [])
    with open(path, "a", encoding="utf-8") as f:
        f.write(jline({"type": "message", "id": "a", "parentId": None, "timestamp": "t", "message": user("parent later")}) + "\n")
        f.write(jline({"type": "message", "id": "c", "parentId": "a", "timestamp": "t", "message": user("second child")}) + "\n")
    live.refresh()
    assert (live.tree.orphans(), live.tree.roots()) == ([], [1])
    assert live.tree.branch_points() == [1], "the late parent has the early orphan and the new entry as children"


@pytest.mark.parametrize("step", [2, 3, 4096])
def test_a_path_usage_summed_from_joined_rows_equals_one_summed_usage_by_usage(monkeypatch, step) -> None:
    """`PathUsage.plus_rows` (the packed usages of a piece of the path, joined by `EntryTable.usage_rows`) keeps the
    same total and the same marks as `PathUsage.plus` over the piece's usages one by one; a piece may not pass a mark."""
    monkeypatch.setattr(packed_usage, "PATH_USAGE_STEP", step)  # where `PathUsage` reads it
    table = EntryTable(LAYOUT)
    for i in range(23):
        usage = None if i % 4 == 1 else {"input": i, "output": 2**50 + i, "cost": {"total": 0.1 * i}}
        table.append(m.Entry(i, LAYOUT.pack_nums(i + 2, 0, 1, None, None), LAYOUT, m.MESSAGE, f"e{i}", None, role="assistant",
                             usage_packed=m.pack_usage(usage) if usage is not None else None))
    path = [0, 2, 1, 5, 4, 3, *range(6, 23)]
    by_usage = m.PathUsage().plus(table.usage_column(path))
    by_rows = m.PathUsage()
    for start in range(0, len(path), step):
        piece = path[start : start + step]
        by_rows = by_rows.plus_rows(table.usage_rows(piece), len(piece))
    assert by_rows == by_usage and len(by_rows.marks) == 1 + len(path) // step
    with pytest.raises(ValueError):
        m.PathUsage().plus_rows(b"", step + 1)


def test_missing_parents_kept_over_appends_equal_a_fresh_count(tmp_path: Path) -> None:
    """Orphans, roots and branch points kept and extended over many appends (parents that arrive late, never, or twice
    over) equal those of the file read at once after each append."""
    import random

    rng = random.Random(7)
    path = tmp_path / "orphans.jsonl"
    path.write_text(jline(HEADER) + "\n")
    live = Session(path).load()
    ids = [f"n{i}" for i in range(60)]
    for step in range(12):
        lines = []
        for _ in range(rng.randint(0, 6)):
            eid = rng.choice(ids)  # ids repeat: a later entry wins
            parent = rng.choice([None, "", "never", *ids])
            lines.append({"type": "message", "id": eid, "parentId": parent, "timestamp": "t", "message": user(f"s{step}")})
        with open(path, "a", encoding="utf-8") as f:
            f.write("".join(jline(o) + "\n" for o in lines))
        live.refresh()
        once = open_session(path).tree
        assert (live.tree.orphans(), live.tree.roots(), live.tree.branch_points()) == (once.orphans(), once.roots(), once.branch_points())


def test_an_entry_range_reads_as_the_list_of_its_entries(tmp_path: Path) -> None:
    """`Session.refresh()`'s new entries (`EntryRange`): built when read, the same as slicing the list of entries."""
    path = tmp_path / "s.jsonl"
    objs = [HEADER] + [{"type": "message", "id": f"e{i}", "parentId": f"e{i - 1}" if i else None, "timestamp": "t", "message": user(f"m{i}")} for i in range(7)]
    path.write_text("".join(jline(o) + "\n" for o in objs))
    session = open_session(path)
    everything = list(session.entries)
    n = len(everything)
    for start, stop in [(0, n), (2, 5), (n, n), (n - 1, n)]:
        view, expected = EntryRange(session.entries, start, stop), everything[start:stop]
        assert len(view) == len(expected) and bool(view) == bool(expected)
        assert list(view) == expected and list(reversed(view)) == expected[::-1]
        assert [view[i] for i in range(-len(view), len(view))] == expected + expected
        assert view[1:3] == expected[1:3] and view[::-2] == expected[::-2]
        with pytest.raises(IndexError):
            view[len(view)]
    assert list(EntryRange(session.entries)) == everything

