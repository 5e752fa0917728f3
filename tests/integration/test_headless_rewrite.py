"""A file rewritten in place (same inode, grown: pi's v1->v3 migration) is noticed on refresh and re-indexed."""

from __future__ import annotations

import os

from conftest import assistant, header, jline, msg, user

from inspector.session.session import open_session


def test_in_place_rewrite_that_grows_is_reindexed(tmp_path):
    p = tmp_path / "s.jsonl"
    v1 = [{"type": "session", "id": "s-1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"},
          {"type": "message", "timestamp": "2026-01-01T00:00:01.000Z", "message": user("old question")}]
    p.write_text("".join(jline(o) + "\n" for o in v1), encoding="utf-8")
    s = open_session(p)
    ino = os.stat(p).st_ino
    assert s.version == 1
    v3 = [header(), msg("u1", None, user("old question")), msg("a1", "u1", assistant("new answer"))]
    with open(p, "r+b") as f:  # same inode, rewritten from byte 0, longer than before
        f.write("".join(jline(o) + "\n" for o in v3).encode())
    assert os.stat(p).st_ino == ino
    result = s.refresh()
    assert result.reset and "rewritten in place" in (result.notice or "")
    assert s.version == 3
    assert [e.id for e in s.entries if e.id] == ["u1", "a1"]


def test_plain_append_is_not_a_rewrite(tmp_path):
    p = tmp_path / "s.jsonl"
    p.write_text(jline(header()) + "\n" + jline(msg("u1", None, user("q"))) + "\n", encoding="utf-8")
    s = open_session(p)
    with open(p, "a", encoding="utf-8") as f:
        f.write(jline(msg("a1", "u1", assistant("a"))) + "\n")
    result = s.refresh()
    assert not result.reset and [e.id for e in result.new_entries] == ["a1"]
