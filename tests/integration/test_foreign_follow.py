"""Following a live Claude Code / Codex file (issues 26, 27): a row's usage revised by a later line (a growing API
message, a Codex `token_count`) reaches the followed session as a usage mark on the new mirror line, never as a
rewrite. After every appended line the followed session's figures are those of a cold read of the mirror (serial and
parallel) and of a mirror made at once from the final file; a snapshot of the index never restores stale usage; the
tail and the glance read the marks as the index does."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import inspector.read.parallel as par
from inspector.figures.session_figures import WindowOptions, session_stats
from inspector.host.listing.glance import glance_session
from inspector.read.formats.mirror import sync_foreign
from inspector.read.lines import SEGMENT_SEPARATOR
from inspector.read.usage_marks import is_usage_mark
from inspector.session import index_cache
from inspector.session.session import Session, open_session
from inspector.session.tail import tail_session
from inspector.storage.cache.filekey import FileStat

TS = "2026-01-01T00:00:00.000Z"


def cc(uuid, parent, kind, content, **extra):
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, "timestamp": TS,
            "message": {"role": kind, "content": content}, **extra}


def ca(uuid, parent, block, mid, read, out):
    line = cc(uuid, parent, "assistant", [block], requestId=f"req-{mid}")
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 100, "cache_read_input_tokens": read, "output_tokens": out}
    line["message"].update(id=mid, model="claude-opus-4-6", stop_reason=None, usage=usage)
    return line


def text(t):
    return {"type": "text", "text": t}


def tool_use(call_id):
    return {"type": "tool_use", "id": call_id, "name": "Read", "input": {"file_path": f"/{call_id}"}}


def results(uuid, parent, *calls):
    return cc(uuid, parent, "user", [{"type": "tool_result", "tool_use_id": c, "content": c * 300} for c in calls])


def claude_lines() -> list[dict]:
    """Three API messages split over lines (streaming usage growing on each), parallel calls answered on one line, a
    message closed by the next and a late line of it, a compaction."""
    return [
        cc("u1", None, "user", "read both files"),
        ca("a1", "u1", {"type": "thinking", "thinking": "plan " * 50, "signature": "s"}, "m1", 5000, 1),
        ca("a2", "a1", text("Reading."), "m1", 5000, 20),
        ca("a3", "a2", tool_use("t1"), "m1", 5000, 60),
        ca("a4", "a3", tool_use("t2"), "m1", 5000, 90),
        results("r1", "a4", "t1", "t2"),
        ca("b1", "r1", text("Both read. " * 40), "m2", 5800, 10),
        ca("b2", "b1", tool_use("t3"), "m2", 5800, 200),
        results("r2", "b2", "t3"),
        ca("c1", "r2", text("Done."), "m3", 6900, 5),
        ca("b3", "c1", text("late line of m2"), "m2", 5800, 300),
        {"type": "system", "subtype": "compact_boundary", "uuid": "k1", "parentUuid": None, "logicalParentUuid": "b3",
         "sessionId": "s", "isSidechain": False, "timestamp": TS, "compactMetadata": {"trigger": "auto", "preTokens": 7000}},
        cc("s1", "k1", "user", "summary of the work", isCompactSummary=True),
        ca("d1", "s1", text("Continuing."), "m4", 900, 7),
        ca("d2", "d1", tool_use("t4"), "m4", 900, 70),
        results("r3", "d2", "t4"),
        ca("e1", "r3", text("Finished."), "m5", 1500, 3),
        ca("e2", "e1", text("Really."), "m5", 1500, 9),
    ]


def cx(kind, payload):
    return {"timestamp": TS, "type": kind, "payload": payload}


def item(payload):
    return cx("response_item", payload)


def token_count(inp, cached, out):
    last = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out, "total_tokens": inp + out}
    return cx("event_msg", {"type": "token_count", "info": {"last_token_usage": last, "model_context_window": 272000}})


def codex_lines() -> list[dict]:
    """Responses measured by the `token_count` after them (one repeated), a response measured only after a local
    compaction, a turn without a count yet."""
    return [
        cx("session_meta", {"id": "s", "model_provider": "openai", "base_instructions": {"text": "be brief"}}),
        cx("turn_context", {"model": "gpt-5.1"}),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]}),
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": "thinking " * 30}]}),
        item({"type": "function_call", "name": "shell", "call_id": "c1", "arguments": json.dumps({"command": ["ls"]})}),
        token_count(9000, 8000, 40),
        item({"type": "function_call_output", "call_id": "c1", "output": "a.py\n" * 200}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two files."}]}),
        token_count(10500, 9000, 12),
        token_count(10500, 9000, 12),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "summarise them"}]}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "They list files. " * 20}]}),
        cx("compacted", {"message": "the summary"}),
        token_count(11800, 10000, 90),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "again"}]}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Again."}]}),
        token_count(1200, 0, 3),
    ]


def write(path: Path, objs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def figures(session: Session) -> dict[str, Any]:
    """What the followed session shows, to compare with a cold read (the path's usage sum is asked for, so the next
    refresh carries it over)."""
    ctx = session.context()
    stats = session_stats(session, WindowOptions(override=200_000), encoding=None)
    for key in ("file", "size_bytes"):
        stats.pop(key)
    return {
        "entries": [(e.id, e.line, e.type, e.usage) for e in session.entries],
        "context": [(r.entry_index, r.entry_id, r.usage) for r in ctx.messages],
        "assistant_messages": [session.load_message(e) for e in session.entries if e.role == "assistant"],
        "stats": stats,
    }


def without_offsets(figs: dict[str, Any]) -> dict[str, Any]:
    """The figures without the diagnostics' byte offsets: those are the mirror's (its marks take bytes), not the file's."""
    stats = figs["stats"]
    return {**figs, "stats": {**stats, "diagnostics": [{k: v for k, v in d.items() if k != "offset"} for d in stats["diagnostics"]]}}


def cold_figures(mirror_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Figures of a cold read of the mirror, serial and parallel (the same, else the test fails here)."""
    serial = figures(open_session(mirror_path))
    with monkeypatch.context() as mp:
        mp.setattr(par, "PARALLEL_MIN_BYTES", 0)
        mp.setattr(par, "worker_count", lambda: 2)
        assert figures(open_session(mirror_path)) == serial
    return serial


def at_once_figures(source: Path, fmt: str, tmp_path: Path, step: int) -> dict[str, Any]:
    """Figures of a mirror made in one sync from a copy of the file as it is now (no usage mark in it)."""
    copy = shutil.copyfile(source, tmp_path / f"copy-{step}.jsonl")
    mirror = sync_foreign(copy, fmt)
    assert SEGMENT_SEPARATOR + b'{"usageRevision"' not in mirror.path.read_bytes()
    return figures(open_session(mirror.path))


@pytest.mark.parametrize(("fmt", "lines", "batch"), [
    ("claude-code", claude_lines(), 1), ("claude-code", claude_lines(), 2), ("codex", codex_lines(), 1), ("codex", codex_lines(), 3),
])
def test_a_followed_file_shows_after_every_line_what_a_cold_read_shows(tmp_path, monkeypatch, fmt, lines, batch):
    source = write(tmp_path / "live.jsonl", lines[:1])
    mirror = sync_foreign(source, fmt)
    session = open_session(mirror.path)
    marks = 0
    for step, start in enumerate(range(1, len(lines), batch), 1):
        before = mirror.path.read_bytes()
        with source.open("a") as f:
            f.write("".join(json.dumps(o) + "\n" for o in lines[start : start + batch]))
        mirror = sync_foreign(source, fmt, mirror)
        assert mirror.change == "appended" and mirror.path.read_bytes().startswith(before), step  # nothing read changes
        marks += mirror.revised
        result = session.refresh()
        assert not result.reset and result.new_entries, step
        assert len(result.revised) == len({i for i in result.revised if session.entries[i].role == "assistant"})
        live = figures(session)
        assert live == cold_figures(mirror.path, monkeypatch), step
        assert without_offsets(live) == without_offsets(at_once_figures(source, fmt, tmp_path, step)), step
    assert marks >= 2  # rows of earlier syncs were revised, by marks
    tail = tail_session(mirror.path, 6)
    assert tail is not None
    cold = open_session(mirror.path)
    assert [(e.id, e.usage) for e in tail.entries] == [(e.id, e.usage) for e in cold.entries][-len(tail.entries) :]
    glance = glance_session(source)
    at_once = glance_session(shutil.copyfile(source, tmp_path / "glance.jsonl"))
    assert (glance.context_tokens, glance.leaf_id, glance.error) == (at_once.context_tokens, at_once.leaf_id, None)
    live_glance = glance_session(mirror.path)  # the walk over the followed mirror itself, marks and all
    assert live_glance.context_tokens == at_once.context_tokens


def test_a_codex_count_after_the_rows_were_read_gives_the_response_its_usage(tmp_path):
    lines = codex_lines()
    source = write(tmp_path / "rollout.jsonl", lines[:8])
    mirror = sync_foreign(source, "codex")
    session = open_session(mirror.path)
    answer = next(e for e in session.entries if e.line == 8)
    assert answer.role == "assistant" and answer.usage is None
    with source.open("a") as f:
        f.write(json.dumps(lines[8]) + "\n")
    mirror = sync_foreign(source, "codex", mirror)
    last = mirror.path.read_bytes().splitlines()[-1].split(SEGMENT_SEPARATOR)
    assert len(last) == 2 and is_usage_mark(last[1]) and json.loads(last[1])["usageRevision"]["id"] == answer.id
    result = session.refresh()
    assert result.revised == (answer.index,)
    assert session.entries[answer.index].usage == {"input": 1500, "output": 12, "cacheRead": 9000, "cacheWrite": 0, "totalTokens": 10500}
    assert session.context().messages[-1].usage == session.entries[answer.index].usage
    stats = session_stats(session, WindowOptions(), encoding=None)
    assert stats["context"]["estimate_context_tokens"]["usage_tokens"] == 10500
    assert stats["usage"]["active_path"]["assistant_calls"] == 2 == stats["usage"]["all_entries"]["assistant_calls"]


def test_a_snapshot_of_the_index_never_restores_stale_usage(tmp_path, monkeypatch):
    lines = claude_lines()
    source = write(tmp_path / "live.jsonl", lines[:2])  # m1's first line: its usage on line 2
    mirror = sync_foreign(source, "claude-code")
    session = index_cache.open_cached(mirror.path)
    figures(session)
    assert index_cache.save_opened() == 1
    for step, line in enumerate(lines[2:6], 1):  # m1 grows: each line moves the usage off a row the snapshot holds
        with source.open("a") as f:
            f.write(json.dumps(line) + "\n")
        mirror = sync_foreign(source, "claude-code", mirror)
        restored = index_cache.restore(mirror.path)
        assert restored is not None and restored.entries.ids_packed is not None, step  # restored, then extended
        assert figures(restored) == cold_figures(mirror.path, monkeypatch), step
        assert index_cache.save_indexed(restored, FileStat.of(os.stat(mirror.path)))  # the next step restores this one
        again = index_cache.restore(mirror.path)
        assert again is not None and figures(again) == figures(restored), step  # unchanged: the voided slots kept
    with_usage = [e.line for e in index_cache.restore(mirror.path).entries if e.usage is not None]
    assert with_usage == [5]
