"""Issue 14, hostile surroundings in the terminal: names that try to drive the terminal, and things outside the open
file that must not end the app (a file name that is not UTF-8, an unreadable subdirectory, keys faster than a
preview, a usage number past 2^63, a deleted file, a FIFO or a device as the session path).

Every test runs the real app with Textual's pilot on real files; what is checked is what reaches the terminal (the
compositor's strips) or that the app is still running and says what happened.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest
from test_ui_support import basic_builder, settle, write_session
from textual.widgets import Static

from inspector.samples.fixtures import SessionBuilder
from inspector.samples.usage import make_usage
from inspector.session.session import open_session
from widgets.browser.screen import BrowserScreen
from widgets.browser.table import SessionTable
from widgets.pruning.gate import PruningGate
from widgets.pruning.screen import PreviewFailed, PreviewReady, PruningScreen
from widgets.screens.error import ErrorScreen
from widgets.screens.inspector import InspectorScreen

TITLE_AND_CLEAR = "\x1b]0;pwned\x07\x1b[2J"
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
EVIL = f"{TITLE_AND_CLEAR}tool{CLIPBOARD}\x9b2J"
"""Sets the terminal title and clears the screen, writes the clipboard (OSC 52), and a C1 CSI."""

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def on_screen(app) -> list[str]:
    """Every line on screen, as the terminal gets it (the text of every segment)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def assert_inert(app, where: str) -> str:
    """No ESC, BEL, other C0 or C1 character in anything on screen; returns the screen's text."""
    lines = on_screen(app)
    for n, line in enumerate(lines):
        bad = CONTROL.search(line)
        assert bad is None, f"{where}: control {bad.group()!r} on screen line {n}: {line!r}"
    return "\n".join(lines)


def hostile_session(directory: Path) -> Path:
    """A session whose every name is hostile: file name, session name, model, tool names, ids, role, labels."""
    b = SessionBuilder(seed=3)
    b.header(cwd=f"/home/{EVIL}")
    b.model_change(EVIL, EVIL)
    b.session_info(f"name {EVIL}")
    first = b.user("run it")
    b.label(first, f"label {EVIL}")
    b.assistant([b.tool_call(EVIL, {"cmd": EVIL}, call_id=f"call-{EVIL}")])
    b.tool_result(b.last_tool_call_ids[0], EVIL, f"output {EVIL}")
    b.custom_message(f"custom-{EVIL}", f"note {EVIL}")
    b.assistant([b.tool_call("read", {"path": "a"}), b.tool_call(f"second-{EVIL}", {})])
    b.tool_result(b.last_tool_call_ids[0], "read", "x" * 400)
    b.tool_result(b.last_tool_call_ids[1], f"second-{EVIL}", "y" * 300)
    line = {
        "type": "message", "id": f"id-{EVIL}", "parentId": b.leaf_id, "timestamp": "2026-01-02T11:00:00.000Z",
        "message": {"role": f"role-{EVIL}", "content": f"odd role {EVIL}", "timestamp": 1767351600000},
    }
    b.raw_line(json.dumps(line))
    b.raw_line('{"type":"message","id":"d1","parentId":"nope",' + EVIL + "}")  # a damaged line for `d`
    path = directory / f"evil{TITLE_AND_CLEAR}.jsonl"
    path.write_text(b.text(), encoding="utf-8")
    return path


@pytest.mark.anyio
async def test_hostile_names_never_reach_the_terminal(tmp_path, ui):
    """A toolName of ESC ] 0 ; … BEL ESC [ 2 J and OSC 52 everywhere a name shows: transcript (both orders), every
    message's detail, filter, breakdown, diagnostics, pruning overlay, help. The names show as visible escapes."""
    path = hostile_session(tmp_path)
    pilot = await ui(path, size=(160, 50))
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, InspectorScreen), screen
    text = assert_inert(app, "transcript")
    assert "\\x1b]0;pwned\\x07" in text and "\\x1b]52;c;" in text  # shown, as the characters they are
    model = screen.model
    tools = {model.entry(r).tool_name for r in range(model.row_count)}
    assert any(t and TITLE_AND_CLEAR in t for t in tools)
    for position in range(len(model)):
        screen.transcript.move_to(position)
        await pilot.press("enter")
        await settle(pilot)
        assert_inert(app, f"detail of row {position}")
    await pilot.press("r")
    await settle(pilot)
    assert_inert(app, "raw JSON")
    await pilot.press("o")
    await settle(pilot)
    assert_inert(app, "every entry in file order")
    await pilot.press("w")
    await settle(pilot)
    assert_inert(app, "where it goes")
    await pilot.press("escape", "f")
    await settle(pilot)
    assert_inert(app, "filter")
    await pilot.press("space", "enter")
    await settle(pilot)
    assert_inert(app, "filtered")
    await pilot.press("d")
    await settle(pilot)
    assert_inert(app, "diagnostics")
    await pilot.press("escape", "question_mark")
    await settle(pilot)
    assert_inert(app, "help")
    await pilot.press("escape", "p")
    for _ in range(100):
        await pilot.pause(0.05)
        if isinstance(app.screen, PruningScreen) and app.screen.up_to_date:
            break
    assert isinstance(app.screen, PruningScreen) and app.screen.up_to_date
    await settle(pilot)
    assert_inert(app, "pruning overlay")
    await pilot.press("f")
    await settle(pilot)
    assert_inert(app, "pruning overlay, forced")


@pytest.mark.anyio
async def test_hostile_names_in_the_browser(tmp_path, ui):
    root = tmp_path / "sessions"
    root.mkdir()
    hostile_session(root)
    pilot = await ui(root)
    assert isinstance(pilot.app.screen, BrowserScreen)
    table = pilot.app.screen.query_one(SessionTable)
    assert len(table.rows_shown) == 1
    text = assert_inert(pilot.app, "browser")
    assert "name \\x1b]0;pwned" in text


def test_row_label_is_inert(tmp_path):
    """`row_label` (the transcript's role column) never returns a control character, for tools and roles alike."""
    from widgets.transcript.previews import row_label

    session = open_session(hostile_session(tmp_path))
    ctx = session.context()
    labels = [row_label(session.entries[r.entry_index], r.role) for r in ctx.messages]
    assert labels and not any(CONTROL.search(label) for label in labels)
    assert sum("\\x1b]0;pwned" in label for label in labels) >= 3  # tool call, tool result, the odd role


# ------------------------------------------------------------------------------------------------- outside the file


@pytest.mark.anyio
async def test_a_file_name_that_is_not_utf8_does_not_end_the_browser(tmp_path, ui):
    """watchfiles cannot decode such a name: the browser says live updates stopped, rescans on a timer, and lists the
    file with its name escaped."""
    root = tmp_path / "sessions"
    root.mkdir()
    write_session(root, "ok.jsonl", basic_builder())
    raw = os.fsencode(root) + b"/bad-\xff\xfe.jsonl"
    with open(raw, "wb") as f:
        f.write(basic_builder(2).text().encode())
    pilot = await ui(root, watcher_factory=None)  # the real watchfiles watcher
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, BrowserScreen)
    for _ in range(100):
        await pilot.pause(0.05)
        if screen.watch_error:
            break
    assert screen.watch_error and "rescanning every" in screen.watch_error
    await settle(pilot)
    assert app.is_running and app.screen is screen
    text = assert_inert(app, "browser with a non-UTF-8 name")
    assert "live updates: watching stopped" in text
    assert len(screen.query_one(SessionTable).rows_shown) == 2
    (root / "new.jsonl").write_text(basic_builder(3).text(), encoding="utf-8")
    screen.rescan()  # the timer's job, without waiting for it
    await settle(pilot)
    assert len(screen.query_one(SessionTable).rows_shown) == 3


@pytest.mark.anyio
@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root can read a mode-000 directory")
async def test_an_unreadable_subdirectory_does_not_end_the_browser(tmp_path, ui):
    root = tmp_path / "sessions"
    (root / "locked").mkdir(parents=True)
    write_session(root, "ok.jsonl", basic_builder())
    (root / "locked").chmod(0)
    try:
        pilot = await ui(root, watcher_factory=None)
        for _ in range(40):
            await pilot.pause(0.05)
        await settle(pilot)
        assert pilot.app.is_running and isinstance(pilot.app.screen, BrowserScreen)
        assert len(pilot.app.screen.query_one(SessionTable).rows_shown) == 1
    finally:
        (root / "locked").chmod(0o755)


@pytest.mark.anyio
async def test_p_f_escape_faster_than_the_preview(tmp_path, ui):
    """`p`, `f`, `Esc` at once, and a preview that arrives after the overlay closed: no `NoMatches`, no crash."""
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    for _ in range(3):
        await pilot.press("p", "f", "escape")
    await settle(pilot)
    assert isinstance(app.screen, InspectorScreen) and app.is_running
    await pilot.press("p")
    await settle(pilot)
    overlay = app.screen
    assert isinstance(overlay, PruningScreen) and overlay.preview is not None
    # Esc removes the overlay's widgets before the overlay itself: a preview (or a failure) handled in between finds
    # no `#pruning-title`. Remove them as Esc does, then deliver both.
    await overlay.query_one("#pruning-box").remove()
    assert overlay.is_attached
    overlay._ready(PreviewReady(overlay._generation, overlay.preview, True))
    overlay._failed(PreviewFailed(overlay._generation, "late"))
    overlay.force = not overlay.force
    await pilot.press("escape")
    await settle(pilot)
    assert isinstance(app.screen, InspectorScreen) and app.is_running


@pytest.mark.anyio
async def test_usage_past_two_to_the_63_on_e(tmp_path, ui):
    """A recorded `usage.totalTokens` (and output) of 2^63 and more: every estimator shows, the numbers stay in their
    columns, the app goes on."""
    b = SessionBuilder(seed=1)
    b.header(cwd="/w")
    b.user("hi")
    usage = make_usage(10, 2**63 + 5)
    usage["totalTokens"] = 2**64
    b.assistant("hello", usage=usage)
    b.user("again")
    b.assistant("ok")
    pilot = await ui(write_session(tmp_path, "big.jsonl", b))
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, InspectorScreen)
    for estimator in ("prune", "tiktoken", "usage", "pi", "prune", "tiktoken", "usage"):
        await pilot.press("e")
        await settle(pilot)
        assert screen.estimator == estimator and app.is_running
    rows = [screen.transcript.render_line(y).text for y in range(len(screen.model))]
    assert rows[1].rstrip().endswith(" ≥9.2e+18")  # the recorded context, held at the top of the 64-bit arrays
    await pilot.press("enter")
    await settle(pilot)
    assert app.is_running


@pytest.mark.anyio
async def test_deleted_file_gives_the_pruning_preview_an_error_state(tmp_path, ui):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    path.unlink()
    await pilot.press("p")
    await settle(pilot)
    overlay = app.screen
    assert isinstance(overlay, PruningScreen)
    for _ in range(100):
        if overlay.failure:
            break
        await pilot.pause(0.05)
    await settle(pilot)
    assert overlay.failure and "session file is gone" in overlay.failure and overlay.has_class("-failed")
    status = str(overlay.query_one("#pruning-status", Static).render())
    assert status.startswith("Preview failed: the session file is gone")
    text = assert_inert(app, "failed preview")
    assert "computing" not in text and "gate: unavailable" in text and "PREVIEW UNAVAILABLE" in text
    assert "computing" not in " ".join(str(w.render()) for w in overlay.query(PruningGate))
    await pilot.press("escape")
    await settle(pilot)
    assert isinstance(app.screen, InspectorScreen) and app.is_running


@pytest.mark.anyio
@pytest.mark.parametrize("kind", ["fifo", "urandom"])
async def test_fifo_or_device_is_an_error_screen_and_q_quits(tmp_path, ui, kind):
    if kind == "fifo":
        path = tmp_path / "pipe.jsonl"
        os.mkfifo(path)
        what = "FIFO"
    else:
        path = Path("/dev/urandom")
        if not path.exists():
            pytest.skip("no /dev/urandom")
        what = "character device"
    pilot = await ui(path)
    app = pilot.app
    assert isinstance(app.screen, ErrorScreen) and app.screen.info.kind == "special"
    assert what in app.screen.info.reason
    assert "Not a regular file" in assert_inert(app, "error screen")
    await pilot.press("q")
    for _ in range(40):
        if not app.is_running:
            break
        await asyncio.sleep(0.05)
    assert app.return_code == 0 and not app.is_running


@pytest.mark.anyio
async def test_config_that_is_a_fifo_is_not_read(tmp_path, ui):
    fifo = tmp_path / "openclaw.json"
    os.mkfifo(fifo)
    pilot = await ui(write_session(tmp_path, "s.jsonl", basic_builder()), config_path=fifo)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen) and screen.figures is not None
    assert screen.opener.config_error and "FIFO" in screen.opener.config_error

