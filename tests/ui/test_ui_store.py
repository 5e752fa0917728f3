"""The app on a session of an OpenClaw SQLite store: opened through its mirror with the store's rules, new events
shown within a poll, a rewrite re-read with a notice, diagnostics by seq, `--session`, a bad one on the error screen."""

from __future__ import annotations

import pytest
from conftest import assistant, jline, msg
from store_support import add_session, append_events, build_store, create_store, rewrite_session, store_path, writer
from test_store import KEY, damaged_store, lines_of
from test_ui_support import NOW, SIZE, basic_builder, settle, write_session

from widgets.browser.screen import BrowserScreen
from widgets.browser.table import SessionTable
from widgets.notice_bar import NoticeBar
from widgets.screens.diagnostics import DiagnosticsScreen
from widgets.screens.error import ErrorScreen
from widgets.screens.inspector import InspectorScreen
from widgets.session_header import SessionHeader
from widgets.transcript.columns import TranscriptColumns

NOW_MS = int(NOW.timestamp() * 1000)


@pytest.mark.anyio
async def test_a_store_session_opens_and_follows_appends_and_rewrites(tmp_path, ui):
    store, ids = build_store(tmp_path, {"agent:main:old": lines_of(4, sid="old"), KEY: lines_of(10)})
    pilot = await ui(store, size=SIZE)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen) and screen.session is not None
    assert screen.opener.mirror is not None and screen.opener.mirror.session_key == KEY  # the newest by default
    assert screen.opener.rule_choice.id == "openclaw-2026.9.6" and screen.opener.rule_choice.source == "session"
    assert len(screen.session.entries) == 10
    header = screen.query_one("#header", SessionHeader).render().plain
    assert header.startswith(KEY) and "agents/main/agent/openclaw-agent.sqlite" in header and "mirror-" not in header  # the store's session, not the mirror
    assert "rules openclaw-2026.9.6 (session)" in header
    columns = screen.query_one(TranscriptColumns).render().plain
    assert "agent-core tokens" in columns  # the rule set's estimator label, not 2026.4.12's "pi chars/4"
    w = writer(store)
    append_events(w, ids[KEY], [jline(msg("n1", "e9", assistant("fresh from the gateway"))).encode()])
    screen.check_for_updates()
    await settle(pilot)
    assert screen.session.entry_by_id("n1") is not None and len(screen.session.entries) == 11
    rewrite_session(w, ids[KEY], lines_of(3))
    screen.check_for_updates()
    await settle(pilot)
    assert len(screen.session.entries) == 3
    notice = screen.query_one("#notice", NoticeBar)
    assert "the store rewrote session agent:main:main" in str(notice.message)
    w.close()


@pytest.mark.anyio
async def test_session_option_and_diagnostics_by_seq(tmp_path, ui):
    store, _ = damaged_store(tmp_path)
    pilot = await ui(store.parent.parent, size=SIZE, session=KEY)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen) and screen.session is not None
    notice = screen.query_one("#notice", NoticeBar)
    assert "damaged event(s) skipped: seq 9, 10, 11" in str(notice.message)
    await pilot.press("d")
    await settle(pilot)
    diag = pilot.app.screen
    assert isinstance(diag, DiagnosticsScreen) and diag.seq_of is not None
    shown = {(diag.seq_of(d.line), d.kind) for d in diag.diagnostics}
    assert {(9, "store_event_zstd"), (10, "store_event_size"), (11, "unparseable"), (12, "store_event_size")} <= shown


@pytest.mark.anyio
async def test_an_unknown_session_is_an_error_screen(tmp_path, ui):
    store, _ = build_store(tmp_path, {KEY: lines_of(2)})
    pilot = await ui(store, size=SIZE, session="agent:main:nope")
    assert isinstance(pilot.app.screen, ErrorScreen)


@pytest.mark.anyio
async def test_the_browser_lists_store_sessions_beside_files_and_opens_one(tmp_path, ui):
    path = store_path(tmp_path)
    conn = create_store(path)
    add_session(conn, KEY, lines_of(6), label="Main work", updated_at=NOW_MS,
                entry={"contextTokens": 4321, "compactionCount": 2})
    add_session(conn, "agent:main:cron", lines_of(2, sid="cron"), updated_at=NOW_MS - 1000, archived_at=NOW_MS - 500)
    conn.close()
    sessions = tmp_path / ".openclaw" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    write_session(sessions, "0b7e1c9a-1111-4222-8333-944445555666.jsonl", basic_builder(5))
    pilot = await ui(None, home=tmp_path, env={"HOME": str(tmp_path)})
    screen = pilot.app.screen
    assert isinstance(screen, BrowserScreen)
    rows = {r.file.session_key or r.file.session_id: r for r in screen.query_one(SessionTable).rows_shown}
    assert set(rows) == {KEY, "agent:main:cron", "0b7e1c9a-1111-4222-8333-944445555666"}
    main = rows[KEY]
    assert (main.name, main.context_tokens, main.compactions, main.summary.messages, main.kind) == ("Main work", 4321, 2, 7, "live")
    assert rows["agent:main:cron"].kind == "archive:archived" and rows["agent:main:cron"].file.format == "sqlite"
    table = screen.query_one(SessionTable)
    table.cursor_row = table.rows_shown.index(main)
    screen.action_open()
    await settle(pilot)
    opened = pilot.app.screen
    assert isinstance(opened, InspectorScreen) and opened.session is not None
    assert opened.opener.mirror is not None and opened.opener.mirror.session_key == KEY and len(opened.session.entries) == 6
