"""`X` on a session of an OpenClaw SQLite store: the Gateway compacts (`sessions.compact`), the app never writes the
store. Against the Python Gateway replaying the exchange recorded from the real 2026.9.6 one (`gateway_replay`):
the result at the top and the store re-read into the transcript; no Gateway (the command to start it, nothing
sent, the store untouched); a wrong token (the refusal shown, the token never); Esc stopping the wait; a snapshot
of the result at 80x24."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from gateway_replay import COMPACTED, DEMO, KEY, TOKEN, RecordedGateway, recorded_setup, sha, write_config
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401
from oracle.openclaw_gateway import free_port
from store_support import build_store
from test_ui_support import SIZE, make_app, settle

from widgets.compaction.gateway_screen import GatewayCompactScreen
from widgets.screens.inspector import InspectorScreen

SNAPSHOT_PORT = 39217
"""The replay Gateway's port in the snapshot (the URL is on screen)."""


def _screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def _env(home: Path) -> dict[str, str]:
    """The app's environment: OpenClaw's state dir (the store's, and the openclaw.json naming the Gateway) under `home`."""
    return {"HOME": str(home), "OPENCLAW_STATE_DIR": str(home / ".openclaw")}


async def _open(ui, home: Path, store: Path, size=SIZE):
    pilot = await ui(store, env=_env(home), home=home, size=size)
    inspector = pilot.app.screen
    assert isinstance(inspector, InspectorScreen) and inspector.opener.mirror is not None
    await pilot.press("X")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, GatewayCompactScreen) and screen.plan is not None
    return pilot, inspector, screen


@pytest.mark.anyio
async def test_x_on_a_store_session_compacts_through_the_gateway_and_the_transcript_rereads_the_store(tmp_path: Path, ui) -> None:
    with recorded_setup(tmp_path) as (store, gw):
        pilot, inspector, screen = await _open(ui, tmp_path, store)
        assert inspector.session.entry_by_id("gw-compaction-1") is None
        shown = _screen_text(pilot.app)
        assert shown.splitlines()[0].startswith(f" Compact {KEY} through the Gateway? enter: confirm")
        assert f"ws://127.0.0.1:{gw.port} (local loopback)" in shown and "token (sent, never shown)" in shown
        assert "reachable · OpenClaw 2026.9.6" in shown and 'sessions.compact {"key": "agent:main:main"}' in shown
        assert "Forecast under the rules openclaw-2026.9.6" in shown and "summarized  " in shown
        assert [m["method"] for m in gw.received] == ["connect"], "the probe only connects"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "confirm" and [m["method"] for m in gw.received] == ["connect"], "Enter once sends nothing"
        assert f"Send sessions.compact {{\"key\": \"{KEY}\"}} to ws://127.0.0.1:{gw.port}?" in _screen_text(pilot.app)
        await pilot.press("enter")
        await settle(pilot)
        assert [m["method"] for m in gw.received] == ["connect", "connect", "sessions.compact"]
        assert gw.received[2]["params"] == {"key": KEY} and gw.received[1]["params"]["auth"] == {"token": TOKEN}
    assert screen.phase == "done" and screen.run is not None and screen.run.status == "committed"
    result = COMPACTED["payload"]["result"]
    lines = _screen_text(pilot.app).splitlines()
    assert lines[0].startswith(" Compacted through the Gateway: tokens before 122,237 → after ~11,978"), lines[:3]
    assert lines[1].startswith(f" entry gw-compaction-1 · first kept entry 2a3ebfa8 · summary {len(result['summary']):,} characters")
    assert lines[2].startswith(" OpenClaw 2026.9.6 · the transcript re-reads the store")
    assert TOKEN not in "\n".join(lines)
    entry = inspector.session.entry_by_id("gw-compaction-1")
    assert entry is not None and entry.type == "compaction", "the live follow re-read the store: the new entry is in the transcript"
    assert inspector.model.ctx.messages[0].role == "compactionSummary"
    await pilot.press("escape")
    await settle(pilot)
    assert pilot.app.screen is inspector


@pytest.mark.anyio
async def test_without_a_gateway_the_screen_says_what_to_run_and_nothing_is_sent(tmp_path: Path, ui) -> None:
    store, _ = build_store(tmp_path, {KEY: DEMO})
    port = free_port()
    write_config(tmp_path, port)
    before = sha(store)
    pilot, _inspector, screen = await _open(ui, tmp_path, store)
    expected = f"no Gateway is running at ws://127.0.0.1:{port}: start it with `openclaw gateway run`"
    lines = _screen_text(pilot.app).splitlines()
    assert lines[0].strip() == expected and "nothing is sent · enter: check again" in lines[1]
    assert "not reachable" in _screen_text(pilot.app)
    for _ in range(2):  # Enter checks again: it never confirms nor sends
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "setup" and screen.run is None and _screen_text(pilot.app).splitlines()[0].strip() == expected
    assert sha(store) == before and TOKEN not in _screen_text(pilot.app)


@pytest.mark.anyio
async def test_a_wrong_token_is_shown_refused_and_the_token_never_is(tmp_path: Path, ui) -> None:
    with recorded_setup(tmp_path, token="the-gateway-token") as (store, gw):
        before = sha(store)
        pilot, _inspector, screen = await _open(ui, tmp_path, store)
        shown = _screen_text(pilot.app)
        assert f"the Gateway at ws://127.0.0.1:{gw.port} refused: unauthorized: gateway token mismatch" in shown.splitlines()[0]
        assert "refused" in shown and TOKEN not in shown and "the-gateway-token" not in shown
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "setup" and screen.run is None
        assert [m["method"] for m in gw.received] == ["connect", "connect"], "checked twice, never sent"
        assert TOKEN not in _screen_text(pilot.app)
    assert sha(store) == before


@pytest.mark.anyio
async def test_escape_stops_waiting_for_the_gateway(tmp_path: Path, ui) -> None:
    with recorded_setup(tmp_path, hold=True) as (store, gw):
        before = sha(store)
        pilot, _inspector, screen = await _open(ui, tmp_path, store)
        await pilot.press("enter", "enter")
        for _ in range(250):
            await pilot.pause(0.02)
            if any(m.get("method") == "sessions.compact" for m in gw.received):
                break
        assert screen.phase == "running" and _screen_text(pilot.app).splitlines()[0].startswith(" Waiting for the Gateway to compact…")
        await pilot.press("escape")
        await settle(pilot)
        assert screen.phase == "cancelled" and screen.run is not None and screen.run.error == {"kind": "cancelled"}
        assert _screen_text(pilot.app).splitlines()[0].startswith(" cancelled: stopped waiting for the Gateway")
        assert isinstance(pilot.app.screen, GatewayCompactScreen)
    assert sha(store) == before


def test_snapshot_result_at_top_80x24(snap_compare, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """80x24 after the Gateway compacted: the result first (entry, tokens before → after, first kept entry, summary
    length), the Gateway (URL, where it came from, `token (sent, never shown)`), then the summary it wrote."""
    monkeypatch.chdir(tmp_path)
    store, ids = build_store(Path("."), {KEY: DEMO})
    try:
        gw = RecordedGateway(store, ids[KEY], port=SNAPSHOT_PORT)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            pytest.skip(f"port {SNAPSHOT_PORT} is taken: the snapshot shows the Gateway's URL")
        raise
    write_config(Path("."), gw.port)

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("X")
        await settle(pilot)
        await pilot.press("enter", "enter")
        await settle(pilot)

    app = make_app(store, env={"HOME": ".", "OPENCLAW_STATE_DIR": ".openclaw"}, home=Path("."))
    with gw:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
    assert [m["method"] for m in gw.received] == ["connect", "connect", "sessions.compact"]
