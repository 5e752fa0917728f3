"""The app on Claude Code and Codex transcripts: opened through their pi-format mirror, named as themselves, lines
appended while open followed, OpenClaw's pruning and compaction said not to apply (the file is never written)."""

from __future__ import annotations

import json

import pytest
from test_ui_support import SIZE, settle

from widgets.screens.inspector import InspectorScreen
from widgets.session_header import SessionHeader


def _cc(uuid: str, parent: str | None, kind: str, content, **extra) -> str:
    line = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "isSidechain": False,
            "timestamp": "2026-01-01T00:00:00.000Z", "message": {"role": kind, "content": content}, **extra}
    return json.dumps(line) + "\n"


def _assistant(uuid: str, parent: str, text: str, mid: str) -> str:
    usage = {"input_tokens": 5, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 1000, "output_tokens": 7}
    return _cc(uuid, parent, "assistant", [{"type": "text", "text": text}], requestId=f"r-{mid}") .replace(
        '"content": [', f'"id": "{mid}", "model": "claude-opus-4-6", "usage": {json.dumps(usage)}, "content": [', 1)


@pytest.mark.anyio
async def test_a_claude_code_file_opens_follows_appends_and_refuses_openclaw_features(tmp_path, ui):
    path = tmp_path / "proj" / "11111111-2222.jsonl"
    path.parent.mkdir()
    path.write_text(_cc("u1", None, "user", "hello") + _assistant("a1", "u1", "hi there", "m1"))
    before = path.read_bytes()
    pilot = await ui(path, size=SIZE)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen) and screen.session is not None
    assert screen.opener.foreign is not None and screen.opener.foreign.format == "claude-code"
    assert [e.line for e in screen.session.entries] == [1, 2]
    header = screen.query_one("#header", SessionHeader).render().plain
    assert "11111111-2222.jsonl" in header and "Claude Code" in header and "mirror-" not in header and "INVALID" not in header
    with path.open("a") as f:
        f.write(_cc("u2", "a1", "user", "more please") + _assistant("a2", "u2", "sure", "m2"))
    screen.check_for_updates()
    await settle(pilot)
    assert [e.line for e in screen.session.entries] == [1, 2, 3, 4]
    assert screen.session.entry_by_id("a2") is not None
    notices: list[str] = []
    screen.notify = lambda message, **kw: notices.append(str(message))  # type: ignore[method-assign]
    screen.action_pruning()
    screen.action_compact()
    screen.action_compaction_forecast()
    assert len(notices) == 3 and all("does not apply to Claude Code sessions" in n for n in notices)
    assert isinstance(pilot.app.screen, InspectorScreen)  # no pruning / compaction screen opened
    assert path.read_bytes()[: len(before)] == before and path.read_bytes().count(b"\n") == 4  # never written


@pytest.mark.anyio
async def test_a_codex_rollout_opens_with_its_recorded_window(tmp_path, ui):
    lines = [
        {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta", "payload": {"id": "x", "model_provider": "openai"}},
        {"timestamp": "2026-01-01T00:00:01Z", "type": "turn_context", "payload": {"model": "gpt-5.1"}},
        {"timestamp": "2026-01-01T00:00:02Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"timestamp": "2026-01-01T00:00:03Z", "type": "event_msg", "payload": {"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": 900, "cached_input_tokens": 800, "output_tokens": 3, "total_tokens": 903},
            "model_context_window": 258400}}},
    ]
    path = tmp_path / "rollout-2026-01-01T00-00-00-x.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    pilot = await ui(path, size=SIZE)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen) and screen.session is not None and screen.figures is not None
    assert screen.figures.overview.window.tokens == 258400
    assert "Codex" in screen.query_one("#header", SessionHeader).render().plain


@pytest.mark.anyio
async def test_a_claude_code_session_opens_from_the_session_browser(tmp_path, ui):
    from widgets.browser.screen import BrowserScreen
    from widgets.browser.table import SessionTable

    config = tmp_path / "claude-config"
    project = config / "projects" / "-w-proj"
    project.mkdir(parents=True)
    path = project / "0b7e1c9a-1111-4222-8333-944445555666.jsonl"
    path.write_text(_cc("u1", None, "user", "hello") + _assistant("a1", "u1", "hi there", "m1"))
    before = path.read_bytes()
    pilot = await ui(None, home=tmp_path, env={"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(config)})
    screen = pilot.app.screen
    assert isinstance(screen, BrowserScreen)
    rows = screen.query_one(SessionTable).rows_shown
    assert [r.file.path for r in rows] == [path]
    await pilot.press("enter")
    await settle(pilot)
    opened = pilot.app.screen
    assert isinstance(opened, InspectorScreen) and opened.session is not None
    assert opened.opener.foreign is not None and opened.opener.foreign.source == path
    assert [e.line for e in opened.session.entries] == [1, 2]
    header = opened.query_one("#header", SessionHeader).render().plain
    assert "Claude Code" in header and path.name in header and "mirror-" not in header
    assert path.read_bytes() == before


def _growing(tmp_path):
    """A Claude Code file whose last API message (m2) is on one line, its mirror and the session followed."""
    from inspector.read.formats.mirror import sync_foreign
    from inspector.session.session import open_session

    path = tmp_path / "s.jsonl"
    path.write_text(_cc("u1", None, "user", "hello") + _assistant("a1", "u1", "hi " * 50, "m1") + _cc("u2", "a1", "user", "more")
                    + _assistant("a2", "u2", "sure " * 80, "m2"))
    mirror = sync_foreign(path, "claude-code")
    return path, mirror, open_session(mirror.path)


def test_a_transcript_model_following_a_usage_revision_takes_the_revised_rows_numbers_again(tmp_path):
    from inspector.read.formats.mirror import sync_foreign
    from widgets.transcript.model import TranscriptModel

    path, mirror, session = _growing(tmp_path)
    before = TranscriptModel(session, session.context())
    for estimator in ("usage", "pi"):
        before.prepare(estimator)
    assert before.sizes("usage")[3] is not None  # the usage of m2 is on its first line so far
    with path.open("a") as f:
        f.write(_assistant("a3", "a2", "more of the same message " * 10, "m2"))
    sync_foreign(path, "claude-code", mirror)
    result = session.refresh()
    assert not result.reset and result.revised == (3,)  # the row of line 4 lost its usage to line 5
    ctx = session.context()
    assert ctx.continues(before.ctx, result.revised) and not ctx.continues(before.ctx)
    followed = TranscriptModel(session, ctx, previous=before, revised=result.revised)
    stale = TranscriptModel(session, ctx, previous=before)
    fresh = TranscriptModel(session, ctx)
    for model in (followed, stale, fresh):
        for estimator in ("usage", "pi"):
            model.prepare(estimator)
    assert followed.revised_from == 3 and followed.row_entries == fresh.row_entries
    for estimator in ("usage", "pi"):
        assert followed.sizes(estimator) == fresh.sizes(estimator) and followed.cumulative(estimator) == fresh.cumulative(estimator)
        assert followed.max_size(estimator) == fresh.max_size(estimator)
    assert fresh.sizes("usage")[3] is None and stale.sizes("usage")[3] is not None  # told nothing, the row keeps its old usage


@pytest.mark.anyio
async def test_the_app_follows_an_api_message_growing_line_by_line_without_reindexing(tmp_path, ui):
    path = tmp_path / "proj" / "22222222-3333.jsonl"
    path.parent.mkdir()
    path.write_text(_cc("u1", None, "user", "hello") + _assistant("a1", "u1", "hi", "m1"))
    pilot = await ui(path, size=SIZE)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen) and screen.session is not None
    session = screen.session
    for k in range(3):
        with path.open("a") as f:
            f.write(_assistant(f"a{k + 2}", f"a{k + 1}", f"part {k}", "m1"))
        screen.check_for_updates()
        await settle(pilot)
        assert screen.session is session and screen.opener.foreign is not None and screen.opener.foreign.change == "appended"
        assert [e.line for e in session.entries if e.usage is not None] == [k + 3]  # one call, on the newest line
        assert screen.model is not None and screen.model.ctx is session.context()
        assert screen.model.sizes("usage") == [None] * (k + 2) + [7]
