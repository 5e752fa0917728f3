"""OpenClaw 2026.9.6's context rebuild (`inspector.rules.openclaw_2026_9_6.context_rebuild`) on hand-made sessions:
reset boundaries, leaf rows, side appends, excluded messages, the reset's tool pairing; the incremental path equal
to a rebuild; and 2026.4.12's rebuild unchanged by the new rows (pi 0.66.1 keeps them in the tree, out of the
context). The real 2026.9.6 is compared in tests/integration/test_context_2026_9_oracle.py."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from inspector.model import entries as m
from inspector.rules.openclaw_2026_9_6 import context_rebuild as sept
from inspector.rules.openclaw_2026_9_6.tool_pairing import reset_kept
from inspector.rules.ruleset import rule_set
from inspector.samples.fixtures import SessionBuilder
from inspector.session import context as april
from inspector.session.session import Session, open_session


def _open(b: SessionBuilder, tmp_path: Path) -> Session:
    return open_session(b.write(tmp_path / "s.jsonl"))


def _ids(session: Session, ctx: m.SessionContext) -> list[str | None]:
    return [row.entry_id for row in ctx.messages]


def _builder() -> SessionBuilder:
    b = SessionBuilder(seed=3)
    b.header(version=4)
    return b


def test_the_rule_set_names_the_2026_9_rebuild() -> None:
    assert rule_set("openclaw-2026.9.6").context_rebuild is sept
    assert rule_set("openclaw-2026.4.12").context_rebuild.build_context is april.build_context


def test_a_reset_without_first_kept_starts_the_context_afresh(tmp_path: Path) -> None:
    b = _builder()
    b.user("before")
    b.assistant("old answer")
    reset = b.reset("new")
    after = b.user("after")
    answer = b.assistant("new answer")
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert _ids(s, ctx) == [after, answer]
    assert ctx.reset_index == s.tree.by_id[reset] and ctx.compaction_index is None and ctx.first_kept_index is None
    assert not ctx.diagnostics  # no first kept entry is expected
    # 2026.4.12 (pi 0.66.1) does not know the type: the reset is on the path and the context runs through it
    old = april.build_context(s.tree)
    assert len(old.messages) == 4 and old.reset_index is None and s.tree.by_id[reset] in old.path


def test_a_reset_keeps_users_assistants_and_paired_results_from_its_first_kept_entry(tmp_path: Path) -> None:
    b = _builder()
    b.user("dropped: before the first kept entry")
    first = b.user("kept")
    call = b.tool_call("exec", {"c": "ls"})
    asked = b.assistant([call])
    result = b.tool_result(call["id"], "exec", "a b")
    orphan = b.tool_result("no-such-call", "exec", "?")
    bash = b.message({"role": "bashExecution", "command": "ls", "output": "x", "timestamp": b.now_ms})
    note = b.custom_message("note", "not kept by a reset")
    b.reset("idle", first)
    after = b.user("after")
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert _ids(s, ctx) == [first, asked, result, after]
    assert {orphan, bash, note}.isdisjoint(_ids(s, ctx))
    assert ctx.first_kept_index == s.tree.by_id[first]


def test_reset_pairing_takes_a_real_result_over_the_synthetic_one() -> None:
    synthetic = {"role": "toolResult", "toolCallId": "c1", "isError": True, "details": {"openclawSyntheticMissingToolResult": True}}
    real = {"role": "toolResult", "toolCallId": "c1", "isError": False}
    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "exec"}]}
    # the synthetic result claims the call, the real one replaces it: only the real one is kept
    assert reset_kept([call, synthetic, real]) == {0, 2}
    # a result without an id answers the frame's only call; a second call of the same id stays unpaired
    assert reset_kept([call, {"role": "toolResult", "toolName": "exec"}]) == {0, 1}
    assert reset_kept([call, {"role": "toolResult", "toolName": "read"}]) == {0}
    # a result of an earlier frame's unresolved call is matched across frames
    later = {"role": "assistant", "content": [{"type": "toolUse", "id": "c2"}]}
    assert reset_kept([call, later, real]) == {0, 1, 2}
    assert reset_kept([None, real, {"role": "user"}]) == {2}  # no frame: a result alone is dropped


def test_excluded_messages_are_left_out_unless_exactly_true(tmp_path: Path) -> None:
    b = _builder()
    first = b.user("hi")
    hidden = b.message({"role": "user", "content": "hidden", "excludeFromContext": True, "timestamp": b.now_ms})
    bash = b.message({"role": "bashExecution", "command": "ls", "output": "", "excludeFromContext": 1, "timestamp": b.now_ms})
    last = b.assistant("ok")
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert _ids(s, ctx) == [first, bash, last]  # `1` is not `true`: the entry stays (convertToLlm drops a bash run)
    assert [row.excluded_from_llm for row in ctx.messages] == [False, True, False]
    assert hidden in _ids(s, april.build_context(s.tree))  # pi 0.66.1 keeps it


def test_a_side_append_is_not_the_leaf(tmp_path: Path) -> None:
    b = _builder()
    first = b.user("hi")
    answer = b.assistant("ok")
    side = b.message({"role": "user", "content": "aside", "timestamp": b.now_ms}, side=True)
    s = _open(b, tmp_path)
    assert s.tree.entries.id_of(sept.active_leaf_index(s.tree) or 0) == answer
    ctx = sept.build_context(s.tree)
    assert ctx.leaf_id == answer and _ids(s, ctx) == [first, answer]
    assert april.build_context(s.tree).leaf_id == side  # pi 0.66.1: the last entry


def test_a_leaf_row_moves_the_active_leaf(tmp_path: Path) -> None:
    b = _builder()
    first = b.user("one")
    answer = b.assistant("two")
    b.user("three")
    b.assistant("four")
    b.leaf(answer)
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert ctx.leaf_id == answer and _ids(s, ctx) == [first, answer]
    again = b.user("five")  # the next entry continues from the target
    s = _open(b, tmp_path)
    assert _ids(s, sept.build_context(s.tree)) == [first, answer, again]


def test_a_leaf_row_to_an_unknown_entry_is_ignored(tmp_path: Path) -> None:
    b = _builder()
    b.user("one")
    answer = b.assistant("two")
    b.leaf("no-such-entry")
    s = _open(b, tmp_path)
    assert sept.build_context(s.tree).leaf_id == answer


def test_after_a_reset_a_leaf_row_outside_it_is_ignored_and_strays_are_reparented(tmp_path: Path) -> None:
    b = _builder()
    old = b.user("old")
    b.reset("new")
    new = b.user("new")
    b.leaf(old)  # points before the reset: the leaf stays
    s = _open(b, tmp_path)
    assert sept.build_context(s.tree).leaf_id == new
    b.branch(old)
    stray = b.user("child of an entry before the reset")  # reparented onto the leaf
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert _ids(s, ctx) == [new, stray]


def test_a_compaction_after_a_reset_is_the_boundary(tmp_path: Path) -> None:
    b = _builder()
    b.user("a")
    b.reset("new")
    kept = b.user("b")
    b.assistant("c")
    comp = b.compaction("summary", kept, 100)
    last = b.user("d")
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert ctx.compaction_index == s.tree.by_id[comp] and ctx.reset_index is None
    assert _ids(s, ctx)[0] == comp and _ids(s, ctx)[-1] == last and kept in _ids(s, ctx)


def test_an_empty_session_has_no_leaf(tmp_path: Path) -> None:
    b = _builder()
    s = _open(b, tmp_path)
    ctx = sept.build_context(s.tree)
    assert ctx.leaf_id is None and ctx.messages == [] and sept.active_leaf_index(s.tree) is None


def _random_session(seed: int) -> SessionBuilder:
    rng = random.Random(seed)
    b = _builder()
    ids: list[str] = []
    for _ in range(40):
        op = rng.random()
        if op < 0.5:
            ids.append(b.user("u") if rng.random() < 0.5 else b.assistant("a"))
        elif op < 0.6 and ids:
            ids.append(b.reset("new", rng.choice([None, rng.choice(ids)])))
        elif op < 0.7 and ids:
            ids.append(b.leaf(rng.choice(ids)))
        elif op < 0.78:
            ids.append(b.message({"role": "user", "content": "s", "timestamp": b.now_ms}, side=True))
        elif op < 0.85:
            ids.append(b.message({"role": "user", "content": "x", "excludeFromContext": True, "timestamp": b.now_ms}))
        elif op < 0.92 and ids:
            b.branch(rng.choice(ids))
        else:
            ids.append(b.model_change("openai", f"m{rng.randint(1, 3)}"))
    return b


def test_extending_the_context_equals_rebuilding_it(tmp_path: Path) -> None:
    extended_some = 0
    for seed in range(30):
        lines = _random_session(seed).text().splitlines(keepends=True)
        path = tmp_path / f"s{seed}.jsonl"
        path.write_text(lines[0])
        session = open_session(path)
        ctx = sept.build_context(session.tree)
        for line in lines[1:]:
            with path.open("a") as f:
                f.write(line)
            before = len(session.tree.entries)
            assert not session.refresh().reset
            new = range(before, len(session.tree.entries))
            fresh = sept.build_context(session.tree)
            if sept.continues_leaf(session.tree, ctx, new):
                copy = dataclasses.replace(ctx, messages=list(ctx.messages), path=ctx.path[:], diagnostics=list(ctx.diagnostics))
                assert all(sept.extend_context(session.tree, copy, i) for i in new)
                assert (copy.leaf_id, _ids(session, copy), list(copy.path), copy.model) == (
                    fresh.leaf_id, _ids(session, fresh), list(fresh.path), fresh.model,
                )  # fmt: skip
                extended_some += 1
            else:
                assert sept.follow_leaf(session.tree, ctx, new.start) is None
            ctx = fresh
    assert extended_some > 200
