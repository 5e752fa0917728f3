"""Expired tool results for the transcript marker: same reference time and expiry as the pruning preview."""

from __future__ import annotations

from datetime import UTC

from inspector.figures.pruning.expiry import cache_ttl_gate, expired_tool_results
from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings, resolve_settings
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

START = "2026-03-01T10:00:00.000Z"
CONFIG = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m"}}}}
TTL = 300_000


def build(tmp_path, *, touch=True, late_result=False):
    """Two tool results, a final answer, a cache touch; optionally a result written 10 min after the touch."""
    b = SessionBuilder(seed=21, start=START)
    b.header()
    b.user("look around")
    for name in ("read", "exec"):
        b.assistant([b.tool_call(name, {"x": 1})])
        b.tool_result(b.last_tool_call_ids[0], name, name * 100)
    b.assistant("done")
    touch_ms = b.now_ms
    if touch:
        b.cache_ttl()
    late_ms = None
    if late_result:
        b.wait(600_000)
        b.user("once more")
        b.assistant([b.tool_call("grep", {"p": "x"})])
        b.tool_result(b.last_tool_call_ids[0], "grep", "hit\n" * 10)
        late_ms = b.now_ms
    return open_session(b.write(tmp_path / "s.jsonl")), touch_ms, late_ms


def settings() -> ContextPruningSettings:
    return resolve_settings(CONFIG).settings


def tool_result_rows(session):
    return [r for r in session.context().messages if r.role == "toolResult"]


def test_all_results_expire_ttl_after_the_touch(tmp_path):
    session, touch_ms, _ = build(tmp_path)
    ctx = session.context()
    rows = tool_result_rows(session)
    assert expired_tool_results(session, ctx, settings(), touch_ms + TTL - 1) == {}
    now = touch_ms + TTL + 42_000
    found = expired_tool_results(session, ctx, settings(), now)
    assert sorted(found) == [r.entry_index for r in rows]
    for row in rows:
        info = found[row.entry_index]
        assert info.context_index == row.index and info.tool_name == row.tool_name
        assert info.expired_at_ms == touch_ms + TTL
        assert info.expired_for_ms == 42_000
        assert info.timestamp_ms == row.message_timestamp and info.age_ms == now - row.message_timestamp
    assert found[rows[0].entry_index].label.startswith("expired 42s ago · age 5m ")


def test_agrees_with_the_preview_json(tmp_path):
    session, touch_ms, late_ms = build(tmp_path, late_result=True)
    ctx = session.context()
    for now in (touch_ms + TTL - 1, touch_ms + TTL, late_ms + TTL - 1, late_ms + TTL, late_ms + 10 * TTL):
        preview = build_preview(session, PreviewOptions(now_ms=now, config=CONFIG, encoding=None))
        found = expired_tool_results(session, ctx, settings(), now)
        for row in tool_result_rows(session):
            expired, since = preview.tool_result_expiry(row.index)
            assert (row.entry_index in found) == expired, (now, row.index)
            if expired:
                assert found[row.entry_index].expired_at_ms == since
        assert cache_ttl_gate(session, ctx, settings(), now).to_json() == preview.gate.to_json()


def test_a_result_newer_than_the_touch_expires_on_its_own_clock(tmp_path):
    session, touch_ms, late_ms = build(tmp_path, late_result=True)
    ctx = session.context()
    late = tool_result_rows(session)[-1]
    late_ms = late.message_timestamp
    assert late_ms > touch_ms + TTL
    found = expired_tool_results(session, ctx, settings(), late_ms + TTL - 1)
    assert late.entry_index not in found and len(found) == 2
    found = expired_tool_results(session, ctx, settings(), late_ms + TTL)
    assert found[late.entry_index].expired_at_ms == late_ms + TTL and found[late.entry_index].expired_for_ms == 0


def test_without_a_touch_the_gate_is_closed_but_results_age_from_the_last_assistant(tmp_path):
    """OpenClaw's gate has no reference (closed); the prompt cache still expires, counted as in `if_enabled`."""
    session, _, _ = build(tmp_path, touch=False)
    ctx = session.context()
    gate = cache_ttl_gate(session, ctx, settings(), 0)
    assert gate.source == "none" and not gate.open and gate.last_cache_touch_at is None
    preview = build_preview(session, PreviewOptions(now_ms=0, config=CONFIG, encoding=None))
    projected = preview.if_enabled
    assert projected is not None and projected.gate.source == "last_assistant_message"
    ref = projected.gate.last_cache_touch_at
    found = expired_tool_results(session, ctx, settings(), ref + TTL)
    assert len(found) == 2 and all(i.expired_at_ms == ref + TTL for i in found.values())
    assert {i.reference_source for i in found.values()} == {"last_assistant_message"}
    for row in tool_result_rows(session):  # the same answer as the projection's per-result expiry
        expired, since = build_preview(session, PreviewOptions(now_ms=ref + TTL, config=CONFIG, encoding=None)).if_enabled.tool_result_expiry(row.index)
        assert expired and found[row.entry_index].expired_at_ms == since
    assert expired_tool_results(session, ctx, settings(), ref + TTL - 1) == {}


def test_ttl_zero_marks_nothing_in_the_transcript_or_the_preview(tmp_path):
    """One rule (`ttl_expired`): with ttl 0 OpenClaw never prunes, so nothing is expired anywhere."""
    session, touch_ms, _ = build(tmp_path)
    s = settings()
    s.ttl_ms = 0
    assert expired_tool_results(session, session.context(), s, touch_ms + 10 * TTL) == {}
    config = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "0m"}}}}
    data = build_preview(session, PreviewOptions(now_ms=touch_ms + 10 * TTL, config=config, encoding=None)).to_json()
    assert not data["gate"]["open"]
    assert {r["cache_expired"] for r in data["messages"] if r["role"] == "toolResult"} == {False}


def test_a_fixed_clock_gives_the_same_answer_as_now_ms(tmp_path):
    from datetime import datetime, timedelta

    from inspector.base.clock import FixedClock

    session, touch_ms, _ = build(tmp_path)
    now = touch_ms + TTL + 7  # not a whole second: clock_ms must not round
    clock = FixedClock(datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=now))
    by_clock = build_preview(session, PreviewOptions(clock=clock, config=CONFIG, encoding=None)).to_json()
    by_ms = build_preview(session, PreviewOptions(now_ms=now, config=CONFIG, encoding=None)).to_json()
    assert by_clock == by_ms and by_clock["gate"]["now_ms"] == now
