"""`inspector.host.listing`: a file's glance (header and tail) gives what `stats --json` gives, for every figure it decides.

Every figure a glance does not list in `unknown` must equal the full read's (`session_stats`, what `stats --json`
prints); odd files (empty, no header, a line cut by a writer, a huge line, a FIFO, an unreadable file) never raise.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
from conftest import corpus_file

from inspector.figures.session_figures import WindowOptions, session_stats
from inspector.host.listing import glance_session
from inspector.host.listing.file_memo import FileMemo
from inspector.host.listing.glance import SCAN_BYTES
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.many_sessions import generate_dir


def full_figures(path: Path) -> dict:
    """What `stats --json` says about the figures a glance gives (the whole file indexed)."""
    stats = session_stats(open_session(path), WindowOptions(), None)
    return {
        "header": stats["header"],
        "leaf_id": stats["leaf_id"],
        "model": stats["model"],
        "context_tokens": stats["context"]["estimate_context_tokens"]["tokens"],
        "session_name": stats["session_name"],
        "compactions": len(stats["compactions"]),
        "entries": stats["entries"]["total"],
    }


def assert_glance_matches(path: Path) -> dict:
    """Every decided figure of the glance equals the full read's; returns the glance's JSON."""
    glance = glance_session(path)
    assert glance.error is None, glance.error
    got = glance.to_json()
    want = full_figures(path)
    for figure in ("header", "leaf_id", "model", "context_tokens", "session_name", "compactions"):
        if figure not in glance.unknown:
            assert got[figure] == want[figure], (path.name, figure)
        else:
            assert got[figure] is None
    return got


def chat(seed: int, turns: int, *, name_at: int | None = None, big: int = 0) -> SessionBuilder:
    b = SessionBuilder(seed=seed)
    b.header(cwd="/w")
    b.model_change("anthropic", "claude-sonnet-4-5")
    for turn in range(turns):
        b.user(f"question {turn}")
        call = b.tool_call("exec", {"command": "ls"})
        b.assistant([call])
        b.tool_result(call["id"], "exec", "x" * (big or 200))
        b.assistant(f"answer {turn}")
        if turn == name_at:
            b.session_info(f"named at {turn}")
    return b


def test_glance_equals_stats_on_a_generated_directory(tmp_path):
    """A slice of `bench/many_sessions.py`'s year: small and mid-size sessions, compactions, names, archives."""
    generate_dir(tmp_path, 40, big=0, big_size=0, seed=3)
    files = sorted(p for p in tmp_path.iterdir() if p.name != "sessions.json")
    assert len(files) == 40
    decided = 0
    for path in files:
        got = assert_glance_matches(path)
        decided += got["context_tokens"] is not None
        if path.stat().st_size <= SCAN_BYTES:
            assert got["unknown"] == [] and got["estimated"] == []
            assert got["lines"] == full_figures(path)["entries"] + 1
    assert decided == len(files)  # the last usage is always in the tail here


def test_what_the_tail_decides_on_a_big_file(tmp_path):
    """Past `SCAN_BYTES` only the head and the tail are read: the path's figures stay exact, the rest says so."""
    b = chat(1, 60, name_at=2, big=4000)
    b.user("a question still waiting for its answer")  # trailing: usage of the last answer + chars/4 of this
    path = b.write(tmp_path / "big.jsonl")
    assert path.stat().st_size > 2 * SCAN_BYTES
    got = assert_glance_matches(path)
    assert got["context_tokens"] is not None and got["model"] == {"provider": "anthropic", "modelId": "claude-sonnet-4-5"}
    assert set(got["unknown"]) == {"compactions", "session_name"}  # the name was set early: not in the tail
    assert got["estimated"] == ["lines"] and got["lines"] > 100
    assert got["bytes_read"] < path.stat().st_size / 2
    assert got["last_activity"] == b.entries[-1]["timestamp"]


def test_name_set_late_is_seen_in_the_tail(tmp_path):
    path = chat(2, 60, name_at=59, big=4000).write(tmp_path / "s.jsonl")
    got = assert_glance_matches(path)
    assert got["session_name"] == "named at 59" and "session_name" not in got["unknown"]


def test_branches_aborted_replies_and_a_compaction_first(tmp_path):
    """The leaf's path skips an abandoned branch; an aborted reply's usage does not count; a compaction met before
    any usage: the kept messages (from its firstKeptEntryId) and its summary are in the context, in a small file
    and in a big one alike."""
    b = chat(3, 3)
    fork = b.leaf_id
    b.user("a branch that is abandoned")
    b.assistant("abandoned answer")
    b.branch(fork)
    b.user("back on the main line")
    b.assistant("cut short", stop_reason="aborted")
    assert_glance_matches(b.write(tmp_path / "branch.jsonl"))

    for name, size, keep in (("small.jsonl", 200, True), ("big.jsonl", 5000, True), ("none-kept.jsonl", 5000, False)):
        c = chat(4, 30, big=size)
        kept = c.user("keep from here")
        c.assistant("kept answer")
        c.user("no answer to this one")
        c.compaction("summary of the start", kept if keep else "not-on-the-path", 50_000)
        c.user("after the compaction, no answer yet")
        got = assert_glance_matches(c.write(tmp_path / name))
        assert "context_tokens" not in got["unknown"], name


def test_v1_files_from_the_corpus():
    for name in ("large-session.v1.jsonl", "before-compaction.v1.jsonl", "pi-session-info.v3.jsonl"):
        assert_glance_matches(corpus_file("pi", name))


def test_odd_files_never_raise(tmp_path):
    header = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
    body = chat(5, 2).text().split("\n", 1)[1]
    last = body.rstrip("\n").rsplit("\n", 1)[1]
    cases = {
        "empty.jsonl": "",
        "header-only.jsonl": header,
        "no-header.jsonl": body,
        "cut-last-line.jsonl": body + last[: len(last) // 2],  # a writer mid-line: not an entry yet
        "unterminated.jsonl": body.rstrip("\n"),  # a last line without its newline that parses: an entry
        "blank-lines.jsonl": header + "\n\n" + body + "\n   \n",
        "crlf.jsonl": (header + body).replace("\n", "\r\n"),
        "bom.jsonl": "\ufeff" + header + body,
        "not-json.jsonl": "this is not json\n{also not}\n",
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_bytes(text.encode("utf-8"))
        got = assert_glance_matches(path)
        assert got["lines"] == len(text.encode().split(b"\n")) - (1 if text.endswith("\n") or not text else 0), name
    huge = chat(6, 2)
    call = huge.tool_call("read", {"path": "big"})
    huge.assistant([call])
    huge.tool_result(call["id"], "read", "y" * (3 * 1024 * 1024))  # one 3 MB line, trailing the last usage
    got = assert_glance_matches(huge.write(tmp_path / "huge-line.jsonl"))
    assert got["context_tokens"] is not None


def test_a_fifo_and_an_unreadable_file_are_errors_not_hangs(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result: list = []
    reader = threading.Thread(target=lambda: result.append(glance_session(fifo)), daemon=True)
    reader.start()
    reader.join(5)
    assert result and result[0].error and "not a regular file" in result[0].error and result[0].format == "unknown"
    missing = glance_session(tmp_path / "gone.jsonl")
    assert missing.error and missing.to_json()["error"] == missing.error
    locked = chat(7, 1).write(tmp_path / "locked.jsonl")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as root: a mode-000 file is still readable")
        assert "Permission denied" in (glance_session(locked).error or "")
    finally:
        locked.chmod(0o644)


def test_other_tools_transcripts_are_glanced_through_their_mirror():
    """A Claude Code file is listed with figures (read through its pi-format mirror), not refused."""
    claude = glance_session(corpus_file("claude-code", next(p.name for p in corpus_file("claude-code").iterdir())))
    assert claude.format == "claude-code" and claude.error is None
    assert isinstance(claude.context_tokens, int) and claude.context_tokens > 0 and claude.leaf_id


def test_file_memo_follows_the_file(tmp_path):
    path = chat(8, 1).write(tmp_path / "s.jsonl")
    reads: list[Path] = []

    def read(p: Path) -> int:
        reads.append(p)
        return len(p.read_bytes())

    memo: FileMemo[int] = FileMemo(read)
    assert memo.get(path) is None and memo.peek(path) is None
    first = memo.get_or_compute(path)
    assert memo.get(path) == first and memo.get_or_compute(path) == first and len(reads) == 1
    with path.open("a") as f:
        f.write("\n")
    assert memo.get(path) is None and memo.peek(path) == first  # changed: `get` says so, `peek` does not look
    assert memo.get_or_compute(path) == first + 1 and len(reads) == 2
