"""The OpenClaw/pi reader: entry types, v1/v2 migration, tree, context rebuild, tolerance to damage."""

from __future__ import annotations

import os

from conftest import assistant, entry, header, jline, msg, tool_result, user, write_lines

from inspector.read.estimates import reader_estimates
from inspector.rules.openclaw_2026_4_12.tokens import COMPACTION_SUMMARY_PREFIX
from inspector.session.session import open_session


def rows(session, leaf=None):
    ctx = session.context(leaf)
    return [(r.role, r.entry_id) for r in ctx.messages]


def basic(tmp_path, extra=()):
    lines = [
        header(),
        entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5"),
        msg("u1", "m1", user("read the file")),
        msg("a1", "u1", assistant("", tool_calls=[("c1", "read", {"path": "a.py"})])),
        msg("t1", "a1", tool_result("c1", "read", "print(1)\n" * 50)),
        msg("a2", "t1", assistant("done")),
        *extra,
    ]
    return write_lines(tmp_path / "s.jsonl", lines)


def test_plain_v3_context_and_model(tmp_path):
    s = open_session(basic(tmp_path))
    assert s.valid and s.version == 3
    assert rows(s) == [("user", "u1"), ("assistant", "a1"), ("toolResult", "t1"), ("assistant", "a2")]
    ctx = s.context()
    assert ctx.model == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert ctx.thinking_level == "off"
    t1 = s.entry_by_id("t1")
    assert t1.tool_name == "read" and t1.tool_call_id == "c1"
    assert s.entry_by_id("a1").tool_call_ids == ("c1",)
    assert not [d for d in s.all_diagnostics() if d.severity != "info"]


def test_compaction_split_turn_keeps_from_assistant(tmp_path):
    extra = [
        msg("u2", "a2", user("next")),
        msg("a3", "u2", assistant("", tool_calls=[("c2", "exec", {"cmd": "ls"})])),
        msg("t2", "a3", tool_result("c2", "exec", "x")),
        entry("compaction", "k1", "t2", summary="SUM", firstKeptEntryId="a3", tokensBefore=1234, fromHook=False),
        msg("a4", "k1", assistant("after")),
    ]
    s = open_session(basic(tmp_path, extra))
    assert rows(s) == [("compactionSummary", "k1"), ("assistant", "a3"), ("toolResult", "t2"), ("assistant", "a4")]
    msg0 = s.load_message(s.entry_by_id("k1"))
    assert msg0 == {"role": "compactionSummary", "summary": "SUM", "tokensBefore": 1234, "timestamp": 1767225605000}
    assert COMPACTION_SUMMARY_PREFIX.startswith("The conversation history before this point was compacted")


def test_manual_compaction_self_reference_keeps_nothing_before(tmp_path):
    extra = [entry("compaction", "k1", "a2", summary="S", firstKeptEntryId="k1", tokensBefore=9), msg("u3", "k1", user("hi"))]
    s = open_session(basic(tmp_path, extra))
    assert rows(s) == [("compactionSummary", "k1"), ("user", "u3")]
    assert any(d.kind == "first_kept_not_found" and "manual" in d.message for d in s.all_diagnostics())


def test_first_kept_at_non_message_entry_and_not_on_path(tmp_path):
    extra = [entry("compaction", "k1", "a2", summary="S", firstKeptEntryId="m1", tokensBefore=9)]
    s = open_session(basic(tmp_path, extra))
    assert [r[1] for r in rows(s)] == ["k1", "u1", "a1", "t1", "a2"]
    extra = [entry("compaction", "k1", "a2", summary="S", firstKeptEntryId="nope", tokensBefore=9)]
    s = open_session(basic(tmp_path, extra))
    assert rows(s) == [("compactionSummary", "k1")]


def test_only_latest_compaction_counts_and_earlier_is_not_emitted(tmp_path):
    extra = [
        entry("compaction", "k1", "a2", summary="OLD", firstKeptEntryId="t1", tokensBefore=5),
        msg("u2", "k1", user("more")),
        entry("compaction", "k2", "u2", summary="NEW", firstKeptEntryId="a2", tokensBefore=7),
    ]
    s = open_session(basic(tmp_path, extra))
    assert rows(s) == [("compactionSummary", "k2"), ("assistant", "a2"), ("user", "u2")]


def test_boundary_compaction_at_entry_one(tmp_path):
    extra = [entry("compaction", "k1", "a2", summary="## Decisions\nNo prior history.", firstKeptEntryId="m1", tokensBefore=0, fromHook=True)]
    s = open_session(basic(tmp_path, extra))
    from inspector.figures.session_figures import compaction_kind, first_entry_index

    assert first_entry_index(s) == 0
    k1 = s.entry_by_id("k1")
    assert compaction_kind(s, k1.id, (k1.data or {}).get("firstKeptEntryId"), first_entry_index(s)) == "boundary_only"
    assert len(rows(s)) == 5


def test_branch_summary_custom_message_labels_session_info(tmp_path):
    extra = [
        entry("branch_summary", "b1", "a2", fromId="t1", summary="went elsewhere"),
        entry("branch_summary", "b2", "b1", fromId="t1", summary=""),
        {"type": "custom_message", "customType": "note", "content": "hello", "display": True,
         "id": "cm", "parentId": "b2", "timestamp": "2026-01-01T00:00:06.000Z"},
        entry("label", "l1", "cm", targetId="u1", label="start"),
        entry("session_info", "i1", "l1", name="  My session "),
        entry("custom", "x1", "i1", customType="openclaw.cache-ttl", data={"timestamp": 1, "provider": "anthropic", "modelId": "m"}),
    ]
    s = open_session(basic(tmp_path, extra))
    r = rows(s)
    assert r[-2:] == [("branchSummary", "b1"), ("custom", "cm")]
    assert s.load_message(s.entry_by_id("cm"))["content"] == "hello"
    assert s.load_message(s.entry_by_id("b1"))["summary"] == "went elsewhere"
    assert s.tree.labels == {"u1": "start"}
    assert s.tree.session_name == "My session"


def test_delivery_mirror_sibling_warns_about_pairing(tmp_path):
    mirror = assistant("delivered", provider="openclaw", model="delivery-mirror")
    lines = [
        header(),
        msg("u1", None, user("go")),
        msg("a1", "u1", assistant("", tool_calls=[("c1", "exec", {"cmd": "ls"})])),
        msg("t1", "a1", tool_result("c1", "exec", "out")),
        msg("mm", "a1", mirror),
    ]
    s = open_session(write_lines(tmp_path / "s.jsonl", lines))
    assert rows(s) == [("user", "u1"), ("assistant", "a1"), ("assistant", "mm")]
    diags = [d for d in s.all_diagnostics() if d.kind == "missing_tool_result"]
    assert diags and "sibling branch" in diags[0].message and diags[0].line == 3
    assert [s.entries[i].id for i in s.tree.branch_points()] == ["a1"]
    assert rows(s, "t1") == [("user", "u1"), ("assistant", "a1"), ("toolResult", "t1")]


def test_unknown_type_kept_and_in_tree(tmp_path):
    extra = [entry("future_thing", "f1", "a2", blob={"x": 1})]
    s = open_session(basic(tmp_path, extra))
    f = s.entry_by_id("f1")
    assert f.type == "future_thing" and f.data["blob"] == {"x": 1}
    assert s.context().leaf_id == "f1"
    assert any(d.kind == "unknown_type" and d.line == 7 for d in s.diagnostics)


def test_v1_migration_first_kept_entry_index_counts_header_and_skips_bad_lines(tmp_path):
    lines = [
        {"type": "session", "id": "old", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/", "provider": "anthropic"},
        {"type": "message", "timestamp": "2025-01-01T00:00:01.000Z", "message": user("one")},  # parsed #1
        "{not json",  # malformed: not counted
        {"type": "message", "timestamp": "2025-01-01T00:00:02.000Z", "message": assistant("two")},  # parsed #2
        {"type": "message", "timestamp": "2025-01-01T00:00:03.000Z", "message": {"role": "hookMessage", "customType": "h", "content": "x", "display": True, "timestamp": 1}},
        {"type": "compaction", "timestamp": "2025-01-01T00:00:04.000Z", "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 50},
        {"type": "message", "timestamp": "2025-01-01T00:00:05.000Z", "message": user("after")},
    ]
    p = write_lines(tmp_path / "v1.jsonl", lines)
    before = p.read_bytes(), os.stat(p).st_mtime_ns
    s = open_session(p)
    assert s.version == 1
    assert rows(s) == [("compactionSummary", "v1-L6"), ("assistant", "v1-L4"), ("custom", "v1-L5"), ("user", "v1-L7")]
    assert s.entry_by_id("v1-L4").parent_id == "v1-L2"
    assert s.load_message(s.entry_by_id("v1-L5"))["role"] == "custom"
    assert any(d.kind == "unparseable" and d.line == 3 for d in s.diagnostics)
    assert (p.read_bytes(), os.stat(p).st_mtime_ns) == before, "the reader must never write"


def test_damaged_lines_are_reported_with_line_numbers(tmp_path):
    good = [header(), msg("u1", None, user("a")), msg("a1", "u1", assistant("b"))]
    p = tmp_path / "d.jsonl"
    data = (
        b"\xef\xbb\xbf" + jline(good[0]).encode() + b"\r\n"
        + jline(good[1]).encode() + b"\n"
        + b'{"type":"message","id":"x\x00y"}\n'
        + b"\n"
        + jline(msg("bad", "u1", user("cafQQ"))).encode().replace(b"QQ", b"\xc3") + b"\n"
        + jline(good[2]).encode()[:-10] + b"\n"
        + jline(good[2]).encode() + b"\n"
        + b"[1,2]\n"
    )
    p.write_bytes(data)
    s = open_session(p)
    kinds = {(d.kind, d.line) for d in s.diagnostics}
    assert ("bom", 1) in kinds and ("crlf", 1) in kinds
    assert ("unparseable", 3) in kinds and ("unparseable", 6) in kinds
    assert ("not_object", 8) in kinds
    assert [e.id for e in s.entries] == ["u1", "bad", "a1"]
    nul = next(d for d in s.diagnostics if d.line == 3)
    assert "NUL" in nul.message
    assert any(d.kind == "invalid_utf8" and d.line == 5 for d in s.diagnostics)


def test_invalid_utf8_is_replaced_like_node(tmp_path):
    p = tmp_path / "u.jsonl"
    line = jline(msg("u1", None, user("abcXdef"))).encode().replace(b"X", b"\xff")
    p.write_bytes(jline(header()).encode() + b"\n" + line + b"\n")
    s = open_session(p)
    m = s.load_message(s.entry_by_id("u1"))
    assert m["content"][0]["text"] == "abc\ufffddef"


def test_empty_and_headerless_files(tmp_path):
    p = tmp_path / "empty.jsonl"
    p.write_bytes(b"")
    s = open_session(p)
    assert not s.valid and [d.kind for d in s.diagnostics] == ["empty"]
    p2 = write_lines(tmp_path / "nohead.jsonl", [msg("u1", None, user("a"))])
    s2 = open_session(p2)
    assert not s2.valid and s2.diagnostics[0].kind == "missing_header"
    assert [e.id for e in s2.entries] == ["u1"]


def test_duplicate_ids_wrong_types_and_cycles(tmp_path):
    lines = [
        header(),
        msg("u1", None, user("a")),
        msg("u1", None, user("dup")),
        {"type": "message", "id": 5, "parentId": ["x"], "timestamp": 3, "message": "nope"},
        msg("c1", "c2", user("cycle a")),
        msg("c2", "c1", user("cycle b")),
    ]
    s = open_session(write_lines(tmp_path / "w.jsonl", lines))
    kinds = {d.kind for d in s.all_diagnostics()}
    assert {"duplicate_id", "bad_id", "bad_parent", "bad_message", "parent_cycle"} <= kinds
    assert [r[1] for r in rows(s)] == ["c1", "c2"]


def test_partial_last_line_waits_then_arrives(tmp_path):
    p = write_lines(tmp_path / "live.jsonl", [header(), msg("u1", None, user("a"))])
    full = jline(msg("a1", "u1", assistant("b")))
    with open(p, "ab") as f:
        f.write(full[:25].encode())
    s = open_session(p)
    assert [e.id for e in s.entries] == ["u1"]
    assert not [d for d in s.all_diagnostics() if d.severity == "error"]
    assert any(d.kind == "partial_line" for d in s.all_diagnostics())
    with open(p, "ab") as f:
        f.write(full[25:].encode() + b"\n")
    res = s.refresh()
    assert [e.id for e in res.new_entries] == ["a1"] and not res.reset
    assert s.entries[-1].line == 3
    assert rows(s)[-1] == ("assistant", "a1")


def test_unterminated_complete_last_line_is_read_and_newline_skipped(tmp_path):
    p = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, user("a"))], trailing_newline=False)
    s = open_session(p)
    assert [e.id for e in s.entries] == ["u1"]
    with open(p, "ab") as f:
        f.write(b"\n" + jline(msg("a1", "u1", assistant("b"))).encode() + b"\n")
    res = s.refresh()
    assert [(e.id, e.line) for e in res.new_entries] == [("a1", 3)]
    assert not [d for d in s.diagnostics if d.severity == "error"]


def test_truncation_and_replacement_reindex(tmp_path):
    p = basic(tmp_path)
    s = open_session(p)
    assert len(s.entries) == 5
    write_lines(p, [header(), msg("u9", None, user("new"))])
    res = s.refresh()
    assert res.reset and "truncated" in res.notice
    assert [e.id for e in s.entries] == ["u9"]
    q = tmp_path / "other.jsonl"
    write_lines(q, [header(), msg("z1", None, user("z")), msg("z2", "z1", user("zz")), msg("z3", "z2", user("zzz"))])
    os.replace(q, p)
    res = s.refresh()
    assert res.reset and "replaced" in res.notice
    assert [e.id for e in s.entries] == ["z1", "z2", "z3"]


def test_huge_single_line_is_parsed_without_keeping_content(tmp_path):
    big = "x" * (40 * 1024 * 1024)
    p = write_lines(tmp_path / "big.jsonl", [header(), msg("u1", None, user("a")), msg("t1", "u1", tool_result("c", "read", big)), msg("a1", "t1", assistant("k"))])
    s = open_session(p)
    t1 = s.entry_by_id("t1")
    assert t1.estimates["pi"] == len(big) // 4
    assert t1.data is None
    assert any(d.kind == "huge_line" and d.line == 3 for d in s.diagnostics)
    assert [r[1] for r in rows(s)] == ["u1", "t1", "a1"]


def test_bash_execution_excluded_flag(tmp_path):
    bash = {"role": "bashExecution", "command": "ls", "output": "a\nb", "exitCode": 0, "cancelled": False,
            "truncated": False, "excludeFromContext": True, "timestamp": 1}
    s = open_session(write_lines(tmp_path / "b.jsonl", [header(), msg("b1", None, bash)]))
    row = s.context().messages[0]
    assert row.role == "bashExecution" and row.excluded_from_llm


def test_excluded_flag_and_branch_summary_follow_javascript_truthiness(tmp_path):
    """pi tests `m.excludeFromContext` and `entry.summary` with JavaScript truthiness: `{}` and `[]` are true."""
    from pi_reference import build_session_context, load_entries, migrate

    from inspector.rules.openclaw_2026_4_12.tokens import model_visible_texts

    lines = [header()]
    prev = None
    for i, flag in enumerate([{}, [], 0, "", "no"]):
        bash = {"role": "bashExecution", "command": "ls", "output": "a", "exitCode": 0, "excludeFromContext": flag, "timestamp": 1}
        lines.append(msg(f"b{i}", prev, bash))
        prev = f"b{i}"
    for i, summary in enumerate([{}, [], 0, "", "S"]):
        lines.append(entry("branch_summary", f"s{i}", prev, fromId=prev, summary=summary))
        prev = f"s{i}"
    p = write_lines(tmp_path / "t.jsonl", lines)
    s = open_session(p)
    ctx = s.context()
    assert [(r.entry_id, r.excluded_from_llm) for r in ctx.messages] == [
        ("b0", True), ("b1", True), ("b2", False), ("b3", False), ("b4", True), ("s0", False), ("s1", False), ("s4", False)
    ]
    for row in ctx.messages[:5]:  # the flag and the text the model sees agree
        assert row.excluded_from_llm == (model_visible_texts(s.load_message(s.entries[row.entry_index])) == [])
    ref = load_entries(p)
    migrate(ref)
    assert [r.line for r in ctx.messages] == [n for n, _ in build_session_context(ref)]


def test_tail_session_is_the_end_of_the_full_index(tmp_path):
    from inspector.session.tail import read_tail, tail_session

    lines = [header(), msg("u0", None, user("start"))]
    prev = "u0"
    for i in range(1, 60):
        lines.append(msg(f"e{i}", prev, assistant(f"step {i}") if i % 2 else user(f"ask {i}")))
        prev = f"e{i}"
    p = write_lines(tmp_path / "t.jsonl", lines)
    full = open_session(p)
    tail = tail_session(p, 10)
    assert tail.provisional and not full.provisional and tail.valid and tail.version == 3
    assert [(e.id, e.offset, e.length, e.estimates) for e in tail.entries] == [
        (e.id, e.offset, e.length, e.estimates) for e in full.entries[-10:]
    ]
    assert [r.entry_id for r in tail.context().messages] == [r.entry_id for r in full.context().messages[-10:]]
    assert tail.load_message(tail.entries[-1]) == full.load_message(full.entries[-1])
    assert len(read_tail(p, 1000).entries) == len(full.entries)  # a short file: everything, header skipped


def test_message_entry_fields_come_from_the_record_by_name():
    """A message's row in the entry table is built from its record's fields by position (`EntryReader._message_entry`,
    `EntryTable.add_row`): each must come back in its namesake of the `Entry`."""
    from dataclasses import fields

    from inspector.model.entries import Entry
    from inspector.read.jsonl_reader import EntryReader
    from inspector.read.records import MessageRecord, extract_record

    a = assistant("hi", tool_calls=[("c1", "read", {"path": "a"}), ("c2", "exec", {"command": "ls"})], stop="toolUse")
    line = jline(msg("a1", "p0", a)).encode()
    rec = extract_record(line, 3, reader_estimates())
    assert type(rec) is MessageRecord
    reader = EntryReader(lambda d: None)
    reader.start_after_header()
    e = reader.feed(7, 100, line)
    shared = ({f.name for f in fields(Entry)} | {"message_timestamp"}) & set(MessageRecord._fields)
    assert shared == {"role", "tool_name", "tool_call_id", "tool_call_ids", "provider", "model", "stop_reason",
                      "usage_packed", "block_kinds", "id", "parent_id", "message_timestamp"}
    for name in shared:
        assert getattr(e, name) == getattr(rec, name), name
    assert (e.type, e.index, e.line, e.offset, e.length, e.timestamp, e.data) == ("message", 0, 7, 100, len(line), None, None)
    assert (e.tool_name, e.tool_call_ids, e.stop_reason, e.block_kinds) == ("read, exec", ("c1", "c2"), "toolUse", ("text", "toolCall", "toolCall"))
    assert e.message_timestamp == a["timestamp"] and e.estimates is not None and e.usage["totalTokens"] == 120


def test_a_compaction_keeps_from_the_entry_its_repeated_first_kept_id_names_on_the_path(tmp_path):
    """`firstKeptEntryId` naming an id two entries share: the kept messages start at the one on the path (the later
    one: a parent id names the last entry with that id), as pi's `buildSessionContext` finds it."""
    from pi_reference import build_session_context, load_entries, migrate

    lines = [
        header(),
        msg("u1", None, user("one")),
        msg("x", "u1", user("the first x: shadowed, off the path")),
        msg("a1", "u1", assistant("two")),
        msg("x", "a1", user("the second x: on the path")),
        msg("a2", "x", assistant("three")),
        entry("compaction", "k1", "a2", summary="s", firstKeptEntryId="x", tokensBefore=5),
        msg("u3", "k1", user("four")),
    ]
    path = write_lines(tmp_path / "s.jsonl", lines)
    s = open_session(path)
    ref = load_entries(path)
    migrate(ref)
    assert [(r.line, r.role) for r in s.context().messages] == [(n, m["role"]) for n, m in build_session_context(ref)]
    assert [r.line for r in s.context().messages] == [7, 5, 6, 8]  # the summary, then from the second x
