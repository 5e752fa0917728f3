"""The UI shows the engine's figures: the same objects `stats --json` and `ls --json --figures` print (real CLI
processes), row marks drawn from the overlay, and worker results arriving as messages."""

from __future__ import annotations

import json
import os
import threading

import pytest
from conftest import ROOT
from inprocess import run_cli
from test_ui_support import SIZE, basic_builder, compaction_builder, settle, write_session

from inspector.figures.marks import MarkKind, RowMark
from inspector.session.session import Session, open_session
from widgets.breakdown import ContextBreakdown
from widgets.browser.screen import BrowserScreen, Summarized
from widgets.gauge import ContextGauge
from widgets.screens.inspector import InspectorScreen
from widgets.screens.live_follow import LiveFollower
from widgets.screens.opening import SessionOpener
from widgets.session_header import SessionHeader
from widgets.transcript.marks import MARK_GLYPHS
from widgets.transcript.transcript import Transcript


def cli_json(*args, home) -> dict:
    """A `session-inspector ... --json` run (in this process: `inprocess.run_cli`) with an empty home (no OpenClaw
    config, like the app's options)."""
    env = dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / "no-state"), PYTHONPATH=str(ROOT))
    done = run_cli([*args, "--json"], env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def rendered(widget) -> str:
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


@pytest.mark.anyio
@pytest.mark.parametrize("window", [None, 20_000])
async def test_header_gauge_and_breakdown_show_what_stats_json_prints(tmp_path, ui, window):
    path = write_session(tmp_path, "s.jsonl", compaction_builder())
    stats = cli_json("stats", path, "--no-tiktoken", *(["--context-window", window] if window else []), home=tmp_path)
    pilot = await ui(path, context_window=window)
    screen = pilot.app.screen
    assert isinstance(screen, InspectorScreen)
    overview = screen.query_one(ContextGauge).data
    assert overview is screen.query_one(SessionHeader).data.overview is screen.figures.overview
    shown = overview.to_json()
    for key in ("file", "format", "version", "valid", "size_bytes", "session_name", "leaf_id", "model", "thinking_level",
                "context_window", "guard", "context_fill"):
        assert shown[key] == stats[key], key
    assert shown["estimate_context_tokens"] == stats["context"]["estimate_context_tokens"]
    assert screen.query_one(ContextBreakdown).data.to_json() == stats["context"]["breakdown"]
    gauge = rendered(screen.query_one(ContextGauge))
    assert f"{stats['context']['estimate_context_tokens']['tokens']:,} / {stats['context_window']['tokens']:,} tok" in gauge
    assert f"{stats['context_fill'] * 100:.1f}%" in gauge
    assert f"window-size guard {stats['guard']['level'].upper()}" in gauge
    model_line = rendered(screen.query_one(SessionHeader)).splitlines()[1]
    window = f"window {stats['context_window']['tokens']:,} ({stats['context_window']['source']})"
    assert f"{window} · size guard {stats['guard']['level'].upper()}" in model_line


@pytest.mark.anyio
async def test_browser_figures_are_ls_figures(tmp_path, ui):
    root = tmp_path / "sessions"
    root.mkdir()
    write_session(root, "a.jsonl", basic_builder())
    write_session(root, "b.jsonl", compaction_builder())
    listed = cli_json("ls", root, "--figures", home=tmp_path)
    pilot = await ui(root)
    screen = pilot.app.screen
    assert isinstance(screen, BrowserScreen)
    for row in listed["sessions"]:
        summary = screen.summaries.get(root / row["path"].rsplit("/", 1)[-1])
        assert summary is not None and summary.to_json() == row["figures"]


@pytest.mark.anyio
async def test_forecast_marks_are_drawn_as_flags_dimmed_rows_and_rules(tmp_path, ui):
    """The kinds the compaction forecast will add: a cut point draws a rule under the row before it, a dropped row is
    dimmed, flags take the marker column; the expiry mark keeps `~` and its age."""
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path, size=(160, 40))
    screen = pilot.app.screen
    t = screen.query_one(Transcript)
    model = t.model
    entry = [model.entry(model.view[p]).index for p in range(len(model))]
    plain = [t.render_line(y).text for y in range(len(model))]
    expired_before = model.marks.entries(MarkKind.CACHE_EXPIRED)
    assert [i in expired_before for i in entry[:7]] == [False, False, True, False, True, False, False]
    model.set_marks(MarkKind.DROPPED_BY_HISTORY_SHARE, [RowMark(MarkKind.DROPPED_BY_HISTORY_SHARE, entry[1])])
    model.set_marks(MarkKind.CUT_POINT, [RowMark(MarkKind.CUT_POINT, entry[5])])
    model.set_marks(MarkKind.KEPT_TAIL, [RowMark(MarkKind.KEPT_TAIL, i) for i in entry[5:]])
    model.set_marks(MarkKind.OVERSIZED, [RowMark(MarkKind.OVERSIZED, entry[3]), RowMark(MarkKind.OVERSIZED, entry[2])])
    t.invalidate()
    t.move_to(0)
    await pilot.pause()
    assert model.marks.entries(MarkKind.CACHE_EXPIRED) == expired_before  # other kinds leave expiry alone

    def strip(p):
        return t.render_line(p - round(t.scroll_y))

    assert strip(3).text.startswith(MARK_GLYPHS[MarkKind.OVERSIZED] + " ")
    assert strip(2).text.startswith("~ ") and " old · " not in strip(2).text  # expiry (first kind) keeps its marker; its age is in the detail
    assert strip(2).text == plain[2]
    assert strip(5).text.startswith(MARK_GLYPHS[MarkKind.CUT_POINT] + " ")  # the cut point wins over the kept tail
    assert strip(6).text.startswith(MARK_GLYPHS[MarkKind.KEPT_TAIL] + " ")
    assert strip(1).text.startswith(MARK_GLYPHS[MarkKind.DROPPED_BY_HISTORY_SHARE] + " ")
    assert strip(1).text[2:] == plain[1][2:]  # same text, drawn differently
    # the rule between rows 4 and 5: every cell of row 4 underlined, no other row
    assert all(seg.style and seg.style.underline for seg in strip(4) if seg.text.strip())
    assert not any(seg.style and seg.style.underline for p in (3, 5) for seg in strip(p))
    # dimmed: the dropped row is drawn in the dim style, its neighbour is not
    dim = t.get_component_rich_style("transcript--dim")
    assert all(seg.style.color == dim.color for seg in list(strip(1))[1:3])
    assert strip(0).text == plain[0]


@pytest.mark.anyio
async def test_indexing_progress_arrives_as_messages(tmp_path, ui, monkeypatch):
    import widgets.screens.opening as opening

    path = write_session(tmp_path, "s.jsonl", basic_builder())
    release = threading.Event()

    class SlowSession(Session):
        def load(self):
            assert release.wait(20)
            return super().load()

    monkeypatch.setattr(opening, "Session", SlowSession)
    pilot = await ui(path, settle=False)
    header = pilot.app.screen.query_one(SessionHeader)
    for _ in range(200):
        await pilot.pause(0.02)
        if header.loading_text.startswith("indexing"):
            break
    assert header.loading_text.startswith("indexing s.jsonl: 0% of") and "0 entries" in header.loading_text
    release.set()
    await settle(pilot)
    assert header.data is not None and header.data.overview.entries == len(open_session(path).entries)


def test_progress_messages_replace_only_their_own_kind(tmp_path):
    session = open_session(write_session(tmp_path, "s.jsonl", basic_builder()))
    ctx = session.context()
    progress = SessionOpener.Progress(1, 10, 1)
    assert progress.can_replace(SessionOpener.Progress(2, 10, 2))
    assert not progress.can_replace(SessionOpener.Failed(None))
    idle = LiveFollower.Idle(None, "live")
    assert idle.can_replace(LiveFollower.Idle("x", "live"))
    assert not idle.can_replace(LiveFollower.Failed("gone"))
    assert not LiveFollower.Failed("gone").can_replace(LiveFollower.Failed("again"))
    assert not LiveFollower.FiguresReady(ctx, None).can_replace(LiveFollower.FiguresReady(ctx, None))
    # a batch of the browser's figures names its files: a later batch never replaces it (its rows would stay `…`)
    assert not Summarized([tmp_path]).can_replace(Summarized([tmp_path / "x"]))


@pytest.mark.anyio
async def test_live_append_posts_refreshed_then_idle(tmp_path, ui):
    """The follower's results come back as messages the screen handles (no callback into the screen)."""
    b = basic_builder()
    path = write_session(tmp_path, "s.jsonl", b)
    pilot = await ui(path, size=SIZE)
    screen = pilot.app.screen
    seen: list[str] = []
    original = screen.post_message

    def spy(message):
        if isinstance(message, (LiveFollower.Refreshed, LiveFollower.Idle, LiveFollower.Failed)):
            seen.append(type(message).__qualname__)
        return original(message)

    screen.post_message = spy
    n = len(screen.model)
    b.user("one more")
    b.write(path)
    screen.check_for_updates()
    await settle(pilot)
    screen.check_for_updates()
    await settle(pilot)
    assert seen == ["LiveFollower.Refreshed", "LiveFollower.Idle"]
    assert len(screen.model) == n + 1 and not screen.follower.refreshing
