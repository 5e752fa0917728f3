"""Every pi/OpenClaw file of the shared corpus, read by the engine and by a literal port of pi's loader."""

from __future__ import annotations

import os

import pytest
from conftest import corpus_file
from pi_reference import build_session_context, load_entries, migrate

from inspector.figures.session_figures import WindowOptions, context_report, session_stats
from inspector.rules.openclaw_2026_4_12.tokens import estimate_all
from inspector.session.session import open_session

PI_FILES = ["large-session.v1.jsonl", "before-compaction.v1.jsonl", "pi-session-info.v3.jsonl"]


@pytest.mark.parametrize("name", PI_FILES)
def test_context_matches_literal_port_of_pi(name):
    path = corpus_file("pi", name)
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    session = open_session(path)
    ref_entries = load_entries(path)
    migrate(ref_entries)
    expected = build_session_context(ref_entries)
    ctx = session.context()
    assert [(r.line, r.role) for r in ctx.messages] == [(n, m["role"]) for n, m in expected]
    for row, (_, ref_msg) in zip(ctx.messages, expected):
        loaded = session.load_message(session.entries[row.entry_index])
        assert row.estimates.to_json() == dict(
            zip(("pi_tokens", "openclaw_prune_chars", "openclaw_compaction_tokens", "tool_guard_chars"), estimate_all(loaded))
        )
        if ref_msg["role"] not in ("custom", "branchSummary", "compactionSummary"):
            assert loaded == ref_msg
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_v1_compactions_resolve_first_kept_index():
    path = corpus_file("pi", "before-compaction.v1.jsonl")
    session = open_session(path)
    comps = [e for e in session.entries if e.type == "compaction"]
    assert len(comps) == 2
    for c in comps:
        assert c.data["firstKeptEntryId"].startswith("v1-L")
        assert "firstKeptEntryIndex" not in c.data
    stats = session_stats(session, WindowOptions(), encoding=None)
    assert stats["version"] == 1 and stats["valid"]
    assert sum(1 for c in stats["compactions"] if c["in_force"]) == 1


def test_session_info_v3_stats():
    path = corpus_file("pi", "pi-session-info.v3.jsonl")
    session = open_session(path)
    stats = session_stats(session, WindowOptions(), encoding="cl100k_base")
    assert stats["session_name"] == "agent-history pi smoke"
    assert stats["model"] == {"provider": "openai-codex", "modelId": "gpt-5.5"}
    assert stats["entries"]["by_type"]["session_info"] == 1
    report = context_report(session, session.context(), WindowOptions(), encoding="cl100k_base")
    assert [m["role"] for m in report["messages"]] == ["user", "assistant"]
    assert report["messages"][1]["usage"]["totalTokens"] == 442
    assert all(m["estimates"]["tiktoken"] > 0 for m in report["messages"])


@pytest.mark.parametrize("name", PI_FILES)
def test_context_now_equals_pi_estimate_context_tokens(name):
    """The metadata-only "context now" figure equals pi's estimateContextTokens on the loaded messages."""
    from inspector.rules.openclaw_2026_4_12.tokens import estimate_context_tokens
    from inspector.rules.openclaw_2026_4_12.tokens.context_usage import last_context_usage

    session = open_session(corpus_file("pi", name))
    ctx = session.context()
    ours = last_context_usage(session, ctx)
    ref = estimate_context_tokens(session.context_messages(ctx))
    assert (ours["tokens"], ours["usage_tokens"], ours["trailing_tokens"]) == (ref["tokens"], ref["usage_tokens"], ref["trailing_tokens"])
