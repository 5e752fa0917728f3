"""The pruning preview overlay (issue 4, UI): pilot tests of its behaviour, then one snapshot per visual state.

A small test app pushes `PruningScreen` on a fixture session (large tool results, an image result, hostile text, an
`openclaw.cache-ttl` entry) with a fixed `now_ms` and a 30,000-token window (120,000-char window), so the default
settings soft-trim five results and stop under hardClearRatio. Expected figures come from `build_preview` called
directly with the same config, never from the widgets. Snapshot docstrings say what a reviewer should see; update
with `pytest tests/test_ui_pruning.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import json5
import pytest
from hypothesis import given, settings
from test_pruning_snippet import effective_settings
from textual.app import App
from textual.widgets import Checkbox, Input, Static, TextArea

from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.rules.openclaw_2026_4_12.pruning.pruner import ACTION_HARD_CLEAR, ACTION_KEEP, ACTION_SOFT_TRIM
from inspector.rules.openclaw_2026_4_12.pruning.settings import resolve_settings
from inspector.rules.openclaw_2026_4_12.pruning.snippet import settings_snippet, with_context_pruning_edits
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session
from widgets.pruning.diff import PruningDiff
from widgets.pruning.gate import PruningGate
from widgets.pruning.messages import PruningMessageList
from widgets.pruning.screen import PruningScreen
from widgets.pruning.settings import FIELDS_BY_KEY, SETTING_FIELDS, PruningSettingsPanel, format_setting, parse_setting
from widgets.pruning.snippet import PruningSnippetDialog
from widgets.pruning.totals import PruningTotals

START = "2026-03-01T10:00:00.000Z"
CONFIG = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}}
WINDOW = 30_000
SIZE = (120, 36)
HOSTILE = "literal [bold]markup[/bold] [link=http://evil.example]link[/link] \x1b[31mred\x1b[0m \x1b]0;title\x07 end"


def pruning_builder() -> tuple[SessionBuilder, int]:
    """Five large-ish tool results (one with an image, one with hostile text), three final turns, a cache touch."""
    b = SessionBuilder(seed=5, start=START)
    b.header(cwd="/home/mara/project")
    b.user("Audit the rate limiter")
    b.assistant([b.tool_call("read", {"path": "src/limiter.py"})])
    b.tool_result(b.last_tool_call_ids[0], "read", "".join(f"{i:05d}: def limit(key): return bucket[key].take()\n" for i in range(480)),
                  details={"path": "src/limiter.py"})
    b.assistant([b.tool_call("exec", {"command": "pytest -q"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "".join(f"tests/test_{i:03d}.py ....F.. [{i}%]\n" for i in range(500)))
    b.assistant([b.tool_call("browser", {"action": "screenshot"})])
    b.tool_result(b.last_tool_call_ids[0], "browser", [b.text_block("dashboard: 429 errors rising"), b.image()])
    b.assistant([b.tool_call("read", {"path": "notes.txt"})])
    b.tool_result(b.last_tool_call_ids[0], "read", HOSTILE + "\n" + "note " * 1200)
    b.assistant([b.tool_call("grep", {"pattern": "bucket"})])
    b.tool_result(b.last_tool_call_ids[0], "grep", "src/limiter.py:12: bucket = {}\n" * 290)
    b.assistant("The limiter takes from a shared bucket without a lock.")
    b.user("Fix it")
    b.assistant("Added a lock around take().")
    b.user("Thanks")
    b.assistant("You're welcome.")
    touch = b.now_ms
    b.cache_ttl()
    return b, touch


@pytest.fixture
def fixture(tmp_path, monkeypatch):
    """(session, touch_ms): the session written under tmp_path and opened by a relative path."""
    monkeypatch.chdir(tmp_path)
    b, touch = pruning_builder()
    b.write(tmp_path / "pruning.jsonl")
    return open_session(Path("pruning.jsonl")), touch


class PruningTestApp(App[None]):
    """Pushes one `PruningScreen` on start; animations off."""

    def __init__(self, session, **kwargs) -> None:
        super().__init__()
        self.animation_level = "none"
        self.session = session
        kwargs.setdefault("config", CONFIG)
        kwargs.setdefault("context_window", WINDOW)
        kwargs.setdefault("debounce", 0.15)
        self.kwargs = kwargs

    def on_mount(self) -> None:
        self.push_screen(PruningScreen(self.session, **self.kwargs))


def make_app(session, touch: int, **kwargs) -> PruningTestApp:
    kwargs.setdefault("now_ms", touch + 3_600_000)
    return PruningTestApp(session, **kwargs)


def expected(session, touch: int, *, edits=None, force=False, now_ms=None):
    """The preview computed directly by the engine for the same inputs."""
    return build_preview(session, PreviewOptions(
        now_ms=now_ms if now_ms is not None else touch + 3_600_000, force=force,
        config=with_context_pruning_edits(CONFIG, edits or {}), context_window=WINDOW,
    ))


async def settle(pilot, timeout: float = 15.0) -> PruningScreen:
    """Wait until the debounce has fired, the newest preview is on screen and no worker runs."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await pilot.pause()
        screen = next((s for s in app.screen_stack if isinstance(s, PruningScreen)), None)
        panel = screen.query_one(PruningSettingsPanel) if screen is not None and screen.is_mounted else None
        busy = any(w.is_running for w in app.workers)
        if screen is not None and panel is not None and screen.up_to_date and not busy and panel._timer is None:
            await pilot.pause(0.05)
            return screen
        await asyncio.sleep(0.02)
    raise AssertionError("the pruning preview did not settle")


def text_of(widget) -> str:
    """What a widget draws, line by line (as plain text)."""
    return "\n".join(widget.render_line(y).text for y in range(widget.size.height))


def changed(preview) -> list[int]:
    return [i for i, a in enumerate(preview.actions) if a != ACTION_KEEP]


async def type_into(pilot, key: str, text: str) -> None:
    """Focus the field of setting `key`, clear it and type `text` key by key."""
    screen = pilot.app.screen
    field = screen.query_one(f"#{FIELDS_BY_KEY[key].widget_id}", Input)
    field.focus()
    await pilot.pause()
    await pilot.press("end", "ctrl+u", *[c if c != "." else "full_stop" for c in text])


async def paste(pilot, key: str, value) -> None:
    """Focus the field of setting `key` and replace its value at once (like a paste; fewer key presses to wait for)."""
    screen = pilot.app.screen
    field = screen.query_one(f"#{FIELDS_BY_KEY[key].widget_id}")
    field.focus()
    screen.query_one(PruningSettingsPanel).set_value(key, value)
    await pilot.pause()


# ---------------------------------------------------------------------------------------------------------- the form


@settings(max_examples=100, deadline=None)
@given(effective_settings())
def test_the_form_can_express_any_effective_settings(s):
    """Every field's starting text parses, and all fields applied as edits resolve to the same settings."""
    edits = {}
    for field in SETTING_FIELDS:
        text = format_setting(field, s)
        edits[field.key] = text if field.kind == "bool" else parse_setting(field, text)
    assert resolve_settings(with_context_pruning_edits(CONFIG, edits)).settings.to_json() == s.to_json()


def test_parse_setting_rejects_what_openclaw_would_silently_change():
    bad = {"ttl": ["", "5 minutes", "-1m", "1w"], "softTrimRatio": ["1.5", "-0.1", "nan", "inf", "abc", "1e400"],
           "keepLastAssistants": ["-1", "2.5", "three", ""]}
    for key, texts in bad.items():
        for text in texts:
            with pytest.raises(ValueError):
                parse_setting(FIELDS_BY_KEY[key], text)
    assert parse_setting(FIELDS_BY_KEY["ttl"], " 90s ") == "90s"
    assert parse_setting(FIELDS_BY_KEY["softTrimRatio"], ".25") == 0.25
    assert parse_setting(FIELDS_BY_KEY["tools.deny"], " exec , , gr* ") == ["exec", "gr*"]


# ---------------------------------------------------------------------------------------------------------- behaviour


@pytest.mark.anyio
async def test_overlay_shows_gate_actions_and_totals(fixture, ui):
    session, touch = fixture
    want = expected(session, touch)
    assert want.gate.open and changed(want) == [2, 4, 6, 8, 10]
    pilot = await ui.run(make_app(session, touch), SIZE)
    screen = await settle(pilot)
    assert screen.preview.to_json() == want.to_json()
    listed = screen.query_one(PruningMessageList)
    assert listed.indexes == [2, 4, 6, 8, 10]
    rows = [listed.get_option_at_index(k).prompt.plain for k in range(listed.option_count)]
    assert rows[0].startswith("#2   read       soft trim") and "23,520 →   3,087" in rows[0]
    assert all("expired 55m 00s ago" in r for r in rows)
    gate = text_of(screen.query_one(PruningGate))
    assert "Gate OPEN" in gate and "ttl 5m 00s (default)" in gate and "would prune on the next request: yes" in gate
    totals = text_of(screen.query_one(PruningTotals))
    t = want.totals_json()
    assert f"{t['chars_before']:,}" in totals and f"{t['chars_after']:,}" in totals and f"{t['chars_saved']:,}" in totals
    assert f"${t['cache_write_avoided']['usd']['chars_div_4']:,.4f}" in totals
    diff = screen.query_one(PruningDiff)
    after = str(diff.query_one("#diff-after-body", Static).render())
    assert after.endswith("[Tool result trimmed: kept first 1500 chars and last 1500 chars of 23520 chars.]")
    assert str(diff.query_one("#diff-after", Static.__mro__[1]).border_title) == "after · soft trim · 3,087 chars"
    await pilot.press("down")
    await pilot.pause()
    assert screen.selected == 4 and diff.index == 4
    await pilot.press("down")  # #6: a short result with an image: only the image changes
    await pilot.pause()
    before = str(diff.query_one("#diff-before-body", Static).render())
    after = str(diff.query_one("#diff-after-body", Static).render())
    assert before.count("dashboard: 429 errors rising") == 1 and "[image image/png · " in before
    assert after == "dashboard: 429 errors rising\n[image removed during context pruning]"


@pytest.mark.anyio
async def test_editing_soft_trim_max_chars_changes_actions_and_totals(fixture, ui):
    session, touch = fixture
    want = expected(session, touch, edits={"softTrim.maxChars": 10_000})
    assert changed(want) == [2, 4, 6]  # read 23,520 and exec 16,390 raw chars; the image result always changes
    pilot = await ui.run(make_app(session, touch), SIZE)
    screen = await settle(pilot)
    before_totals = text_of(screen.query_one(PruningTotals))
    await type_into(pilot, "softTrim.maxChars", "10000")
    screen = await settle(pilot)
    assert screen.edits == {"softTrim.maxChars": 10_000}
    assert screen.preview.to_json() == want.to_json()
    assert screen.query_one(PruningMessageList).indexes == [2, 4, 6]
    totals = text_of(screen.query_one(PruningTotals))
    assert totals != before_totals and f"{want.totals_json()['chars_after']:,}" in totals
    assert screen.query_one("#row-setting-softTrim-maxChars").has_class("-edited")


@pytest.mark.anyio
async def test_typing_is_debounced_into_one_preview(fixture, ui):
    session, touch = fixture
    pilot = await ui.run(make_app(session, touch, debounce=1.0), SIZE)
    screen = await settle(pilot)
    generation = screen._generation
    panel = screen.query_one(PruningSettingsPanel)
    for text in ("1", "10", "100", "1000", "10000"):
        panel.set_value("softTrim.maxChars", text)
        await pilot.pause()
    assert screen._generation == generation  # still waiting for a quiet moment
    screen = await settle(pilot)
    assert screen._generation == generation + 1 and screen.edits == {"softTrim.maxChars": 10_000}


@pytest.mark.anyio
async def test_invalid_ratio_shows_an_error_and_keeps_the_preview(fixture, ui):
    session, touch = fixture
    pilot = await ui.run(make_app(session, touch), SIZE)
    screen = await settle(pilot)
    shown = screen.preview
    generation = screen._generation
    field = screen.query_one("#setting-softTrimRatio", Input)
    field.focus()
    screen.query_one(PruningSettingsPanel).set_value("softTrimRatio", "1.5")  # as if pasted
    await pilot.pause(0.1)
    screen = await settle(pilot)
    error = screen.query_one("#error-setting-softTrimRatio", Static)
    assert error.has_class("-shown") and "a number from 0 to 1" in str(error.render())
    assert screen.query_one("#setting-softTrimRatio", Input).has_class("-invalid")
    assert screen.has_class("-invalid") and "Invalid setting (softTrimRatio" in str(screen.query_one("#pruning-status", Static).render())
    assert screen.preview is shown and screen._generation == generation
    assert screen.query_one(PruningMessageList).indexes == [2, 4, 6, 8, 10]
    await pilot.press("end", "backspace", "backspace")  # "1": valid again (soft trim needs 100% of the window)
    screen = await settle(pilot)
    assert not error.has_class("-shown") and not screen.has_class("-invalid")
    assert screen.preview is not shown and screen.preview.result.stage == "below_soft_trim_ratio"
    assert screen.query_one(PruningMessageList).indexes == []


@pytest.mark.anyio
async def test_force_toggles_the_gate(fixture, ui):
    session, touch = fixture
    now = touch + 60_000  # one minute after the touch: the 5m cache is still warm
    want = expected(session, touch, now_ms=now, force=True)
    pilot = await ui.run(make_app(session, touch, now_ms=now), SIZE)
    screen = await settle(pilot)
    assert not screen.preview.gate.open and not screen.preview.applied
    assert screen.query_one(PruningMessageList).indexes == []
    assert "Gate closed" in str(screen.query_one("#pruning-status", Static).render())
    assert "Gate closed" in text_of(screen.query_one(PruningGate))
    await pilot.press("f")
    screen = await settle(pilot)
    assert screen.force and screen.query_one("#pruning-force", Checkbox).value
    assert screen.preview.applied and screen.preview.gate.forced
    assert screen.preview.to_json() == want.to_json()
    assert screen.query_one(PruningMessageList).indexes == [2, 4, 6, 8, 10]
    assert "FORCED" in text_of(screen.query_one(PruningGate))
    await pilot.click("#pruning-force")
    screen = await settle(pilot)
    assert not screen.force and not screen.preview.applied


@pytest.mark.anyio
async def test_hard_clear_and_hard_clear_off(fixture, ui):
    session, touch = fixture
    big = {"softTrim.maxChars": 100_000, "hardClearRatio": 0.4}
    cleared = expected(session, touch, edits=big)
    # Only the image result is soft-trimmed (46% left, over 0.4); hard clear takes #2, oldest first, and stops.
    assert [(i, cleared.actions[i]) for i in changed(cleared)] == [(2, ACTION_HARD_CLEAR), (6, ACTION_SOFT_TRIM)]
    disabled = expected(session, touch, edits=big | {"hardClear.enabled": False})
    assert disabled.result.stage == "hard_clear_disabled" and changed(disabled) == [6]
    pilot = await ui.run(make_app(session, touch), SIZE)
    screen = await settle(pilot)
    await paste(pilot, "softTrim.maxChars", "100000")
    await paste(pilot, "hardClearRatio", "0.4")
    screen = await settle(pilot)
    assert screen.preview.to_json() == cleared.to_json()
    listed = screen.query_one(PruningMessageList)
    assert listed.indexes == [2, 6]
    listed.highlighted = 0
    await pilot.pause()
    diff = screen.query_one(PruningDiff)
    assert str(diff.query_one("#diff-after-body", Static).render()) == "[Old tool result content cleared]"
    await paste(pilot, "hardClear.placeholder", "  [gone] ")
    screen = await settle(pilot)
    assert str(diff.query_one("#diff-after-body", Static).render()) == "[gone]"
    screen.query_one(PruningSettingsPanel).set_value("hardClear.enabled", False)
    screen = await settle(pilot)
    assert screen.preview.result.stage == "hard_clear_disabled"
    assert screen.query_one(PruningMessageList).indexes == [6]
    assert "hardClear.enabled is false" in str(screen.query_one("#pruning-status", Static).render())


@pytest.mark.anyio
async def test_copy_snippet_is_exactly_the_settings_previewed(fixture, ui):
    session, touch = fixture
    pilot = await ui.run(make_app(session, touch), SIZE)
    app = pilot.app
    await settle(pilot)
    await paste(pilot, "softTrim.maxChars", "10000")
    await paste(pilot, "tools.deny", "exec, gr*")
    screen = await settle(pilot)
    await pilot.click("#pruning-copy")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, PruningSnippetDialog)
    settings = screen.preview.resolved.settings
    assert app.clipboard == settings_snippet(settings) == dialog.query_one(TextArea).text
    resolved = resolve_settings(json5.loads(app.clipboard)).settings
    assert resolved.to_json() == settings.to_json()
    assert resolved.soft_trim.max_chars == 10_000 and resolved.tools == {"deny": ["exec", "gr*"]}
    await pilot.press("n")
    await pilot.pause()
    minimal = json.loads(app.clipboard)["agents"]["defaults"]["contextPruning"]
    assert minimal == {"mode": "cache-ttl", "softTrim": {"maxChars": 10000}, "tools": {"deny": ["exec", "gr*"]}}
    assert dialog.query_one(TextArea).text == app.clipboard
    await pilot.press("escape")
    await pilot.pause()
    assert app.screen is screen


@pytest.mark.anyio
async def test_untrusted_text_is_inert_and_more_shows_more(fixture, ui):
    session, touch = fixture
    pilot = await ui.run(make_app(session, touch), SIZE)
    screen = await settle(pilot)
    diff = screen.query_one(PruningDiff)
    before = diff.query_one("#diff-before-body", Static)
    text = str(before.render())
    assert text.count(" more chars (m: show more)") == 2  # the 1,500-char head and tail are clipped
    await pilot.press("m")
    await pilot.pause()
    assert "more chars (m: show more)" not in str(before.render()) and "dropped chars (m: show more)" in str(before.render())
    screen.query_one(PruningMessageList).highlighted = 3  # #8: the hostile read result
    await pilot.pause()
    assert diff.index == 8
    for pane in ("#diff-before-body", "#diff-after-body"):
        shown = str(diff.query_one(pane, Static).render())
        assert "[bold]markup[/bold] [link=http://evil.example]link[/link] \\x1b[31mred\\x1b[0m \\x1b]0;title\\x07 end" in shown
        assert "\x1b" not in shown and "\x07" not in shown
    assert "\x1b" not in text_of(diff)


@pytest.mark.anyio
async def test_closing_while_the_preview_runs_is_safe(fixture, ui):
    session, touch = fixture
    pilot = await ui.run(make_app(session, touch), SIZE)
    app = pilot.app
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, PruningScreen)
    screen.request_preview()
    await pilot.press("escape")
    for _ in range(20):
        await pilot.pause(0.05)
    assert not isinstance(app.screen, PruningScreen)
    assert not any(w.is_running for w in app.workers)


@pytest.mark.anyio
async def test_a_cut_inside_a_surrogate_pair_is_shown_escaped(tmp_path, ui):
    """headChars 1501 cuts an emoji in half, as OpenClaw does; the overlay shows `\\ud83d` instead of crashing."""
    b = SessionBuilder(seed=9, start=START)
    b.header()
    b.user("emoji please")
    b.assistant([b.tool_call("read", {"path": "e.txt"})])
    b.tool_result(b.last_tool_call_ids[0], "read", "😀" * 3000)
    for text in ("one", "two", "three"):
        b.assistant(text)
        b.user("more")
    touch = b.now_ms
    b.cache_ttl()
    session = open_session(b.write(tmp_path / "emoji.jsonl"))
    config = {"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "softTrim": {"headChars": 1501}}}}}
    pilot = await ui.run(PruningTestApp(session, config=config, now_ms=touch + 3_600_000, context_window=5_000), SIZE)
    app = pilot.app
    screen = await settle(pilot)
    assert screen.preview.actions[2] == ACTION_SOFT_TRIM
    assert "\ud83d" in screen.preview.messages_after[2]["content"][0]["text"]
    await pilot.press("m", "m")
    await pilot.pause()
    after = str(screen.query_one("#diff-after-body", Static).render())
    assert "😀\\ud83d\n...\n" in after
    assert "\\ud83d" in text_of(screen.query_one(PruningDiff)) or "ud83d" in after
    app.export_screenshot()  # renders without an encoding error


# ---------------------------------------------------------------------------------------------------------- NOW / IF ENABLED


def no_touch_builder() -> SessionBuilder:
    """The same turns as `pruning_builder` without the `openclaw.cache-ttl` entry: pruning never touched the cache."""
    b = SessionBuilder(seed=5, start=START)
    b.header(cwd="/home/mara/project")
    b.user("Audit the rate limiter")
    b.assistant([b.tool_call("read", {"path": "src/limiter.py"})])
    b.tool_result(b.last_tool_call_ids[0], "read", "".join(f"{i:05d}: def limit(key): return bucket[key].take()\n" for i in range(480)))
    b.assistant([b.tool_call("exec", {"command": "pytest -q"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "".join(f"tests/test_{i:03d}.py ....F.. [{i}%]\n" for i in range(500)))
    b.assistant("The limiter takes from a shared bucket without a lock.")
    b.user("Fix it")
    b.assistant("Added a lock around take().")
    b.user("Thanks")
    b.assistant("You're welcome.")
    return b


@pytest.fixture
def no_touch(tmp_path, monkeypatch):
    """(session, last_ms): a session without a cache touch, opened by a relative path; last_ms is its last write."""
    monkeypatch.chdir(tmp_path)
    b = no_touch_builder()
    b.write(tmp_path / "never-touched.jsonl")
    return open_session(Path("never-touched.jsonl")), b.now_ms


def no_touch_app(session, last_ms: int, **kwargs) -> PruningTestApp:
    kwargs.setdefault("now_ms", last_ms + 3_600_000)
    kwargs.setdefault("context_window", 10_000)
    return PruningTestApp(session, **kwargs)


@pytest.mark.anyio
async def test_now_and_if_enabled_are_shown_apart(no_touch, ui):
    """Without a cache touch the overlay opens on NOW (OpenClaw prunes nothing, said in the banner, the gate and the
    status); `i` shows IF ENABLED, titled as a projection, with its own gate, totals, gauge and rows; `i` goes back."""
    from widgets.pruning.gauge import PruningGauge
    from widgets.pruning.scenario import PruningScenarioBanner

    session, last = no_touch
    want = build_preview(session, PreviewOptions(now_ms=last + 3_600_000, config=CONFIG, context_window=10_000))
    assert not want.gate.open and want.gate.last_cache_touch_at is None and want.if_enabled is not None
    projected = want.if_enabled
    assert projected.gate.open and changed(projected) == [2, 4]
    pilot = await ui.run(no_touch_app(session, last), SIZE)
    screen = await settle(pilot)
    assert screen.scenario == "now" and screen.shown is screen.preview and not screen.has_class("-projection")
    assert screen.preview.to_json() == want.to_json()
    banner = text_of(screen.query_one(PruningScenarioBanner))
    assert "NOW: OpenClaw prunes nothing — no cache-ttl touch" in banner and "i: show IF ENABLED" in banner
    assert "2 tool results would be cut" in banner
    gate = text_of(screen.query_one(PruningGate))
    assert gate.startswith("NOW · Gate closed") and "lastCacheTouchAt is null" in gate
    assert "would prune on the next request: no" in gate
    assert screen.query_one(PruningMessageList).indexes == []
    assert f"{want.totals_json()['chars_before']:,}" in text_of(screen.query_one(PruningTotals))
    assert "or i for the IF ENABLED projection" in str(screen.query_one("#pruning-status", Static).render())
    assert str(screen.query_one("#pruning-box").border_title) == "NOW"

    await pilot.press("i")
    screen = await settle(pilot)
    assert screen.scenario == "if_enabled" and screen.shown is screen.preview.if_enabled and screen.has_class("-projection")
    assert screen.shown.to_json() == projected.to_json()
    assert str(screen.query_one("#pruning-box").border_title) == "IF ENABLED (projection)"
    banner = " ".join(text_of(screen.query_one(PruningScenarioBanner)).split())
    assert "IF ENABLED (projection, not what happens now): 2 tool results would be cut" in banner
    assert f"last assistant message ({projected.gate.reference_entry_id})" in banner and "i: back to NOW" in banner
    gate = " ".join(text_of(screen.query_one(PruningGate)).split())
    assert gate.startswith("IF ENABLED · Gate OPEN") and "projected touch at the last assistant" in gate
    assert "a projection: OpenClaw has no cache touch to go by today" in gate
    assert screen.query_one(PruningMessageList).indexes == [2, 4]
    t = projected.totals_json()
    assert f"{t['chars_after']:,}" in text_of(screen.query_one(PruningTotals))
    assert screen.query_one(PruningGauge).data.ratio_after == t["ratio_after"] != want.totals_json()["ratio_after"]

    await pilot.press("i")
    screen = await settle(pilot)
    assert screen.scenario == "now" and screen.query_one(PruningMessageList).indexes == []
    assert "NOW: OpenClaw prunes nothing" in text_of(screen.query_one(PruningScenarioBanner))


@pytest.mark.anyio
async def test_a_touched_session_has_no_projection(fixture, ui):
    from widgets.pruning.scenario import PruningScenarioBanner

    session, touch = fixture
    pilot = await ui.run(make_app(session, touch), SIZE)
    screen = await settle(pilot)
    assert screen.preview.if_enabled is None
    assert "NOW: OpenClaw prunes 5 tool results on the next request" in text_of(screen.query_one(PruningScenarioBanner))
    await pilot.press("i")
    screen = await settle(pilot)
    assert screen.scenario == "now" and screen.shown is screen.preview and not screen.has_class("-projection")


@pytest.mark.anyio
async def test_rows_take_their_expiry_from_the_engine(no_touch, ui):
    """Each row's "expired … ago" is the engine's `ExpiryInfo` (`expired_tool_results`), marked projected when counted
    from the last assistant message, as the transcript's `~`."""
    from inspector.figures.pruning.expiry import expired_tool_results
    from widgets.pruning.messages import expiry_label

    session, last = no_touch
    pilot = await ui.run(no_touch_app(session, last), SIZE)
    await settle(pilot)
    await pilot.press("i")
    screen = await settle(pilot)
    p = screen.shown
    expiry = expired_tool_results(session, p.context, p.resolved.settings, p.gate.now)
    listed = screen.query_one(PruningMessageList)
    for k, i in enumerate(listed.indexes):
        info = expiry[p.context.messages[i].entry_index]
        assert info.reference_source == "last_assistant_message"
        label = expiry_label(info)
        assert label.endswith("· projected") and label in listed.get_option_at_index(k).prompt.plain


@pytest.mark.anyio
async def test_times_outside_javascript_date_range_are_said_not_fatal(tmp_path, ui):
    """A cache touch at 9e15 ms (past JavaScript's Date range): the gate panel says so instead of crashing."""
    b = no_touch_builder()
    b.cache_ttl(timestamp_ms=9_000_000_000_000_000)
    session = open_session(b.write(tmp_path / "far.jsonl"))
    pilot = await ui.run(PruningTestApp(session, now_ms=b.now_ms + 60_000, context_window=10_000), SIZE)
    screen = await settle(pilot)
    gate = text_of(screen.query_one(PruningGate))
    assert "outside JavaScript's Date range" in gate and "touch 9e+15 ms" in gate


# ---------------------------------------------------------------------------------------------------------- snapshots


def test_snapshot_overlay(fixture, snap_compare):
    """The overlay with default settings, gate OPEN 1h after the cache touch. Top left: gate OPEN, the reason (touch
    entry 01454a24, 1h 00m ago >= ttl 5m), ttl 5m (default) and expiry time, touch and now times, mode cache-ttl
    enabled, provider eligible, "would prune: yes", force unchecked. Top right: before bar 52.7% in the error colour
    (over H), after bar 10.5% in the success colour, ▲S 30% and ▲H 50% marks; the totals table (chars 63,214 ->
    12,654, four token estimators, $ avoided) and the $3.75/M price from recorded usage. Bottom: the settings panel
    with OpenClaw's names and defaults; the status line (5 results changed, no hard clear); five soft-trim rows, each
    "expired 55m 00s ago"; #2 read before/after side by side (kept head, struck-through dropped middle, clipped with
    "⋯ N more chars (m: show more) ⋯"; after: head, ..., tail, the exact note in the accent colour); the guard line."""
    session, touch = fixture

    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(make_app(session, touch), terminal_size=SIZE, run_before=run_before)


def test_snapshot_settings_edited_and_invalid(fixture, snap_compare):
    """The settings panel after editing: softTrim.maxChars 10000 (its name in bold accent: edited) and tools.deny
    `gr*`, then softTrimRatio typed as 1.5: that input shows the invalid look, an error line below it ("↑ a number
    from 0 to 1"), the status line in the error colour says the last valid preview is kept. The preview on screen is
    the valid one: three rows (#2 read, #4 exec, #6 browser), grep no longer listed."""
    session, touch = fixture

    async def run_before(pilot) -> None:
        await settle(pilot)
        await paste(pilot, "softTrim.maxChars", "10000")
        await paste(pilot, "tools.deny", "gr*")
        await settle(pilot)
        await paste(pilot, "softTrimRatio", "1.5")
        await settle(pilot)

    assert snap_compare(make_app(session, touch), terminal_size=SIZE, run_before=run_before)


def test_snapshot_hard_clear_before_after(fixture, snap_compare):
    """softTrim.maxChars 100000 and hardClearRatio 0.4: only the image result is soft-trimmed (46% left), so hard clear
    runs oldest first: rows `#2 read hard clear 23,520 -> 33` and `#6 browser soft trim`. Left pane: the whole old
    text of #2 struck through (dropped), clipped in the middle; right pane: only the placeholder `[Old tool result
    content cleared]` in the accent colour. The gauge marks ▲H at 40%; the status says hard clear stopped under 0.4."""
    session, touch = fixture

    async def run_before(pilot) -> None:
        await settle(pilot)
        await paste(pilot, "softTrim.maxChars", "100000")
        await paste(pilot, "hardClearRatio", "0.4")
        await settle(pilot)
        listed = pilot.app.screen.query_one(PruningMessageList)
        listed.focus()
        listed.highlighted = 0
        await settle(pilot)

    assert snap_compare(make_app(session, touch), terminal_size=SIZE, run_before=run_before)


def test_snapshot_gate_closed(fixture, snap_compare):
    """One minute after the touch: gate "closed" in the warning colour with "nothing is pruned now (f: force)", the
    reason says 1m 00s ago < ttl 5m, "would prune: no"; both bars at 52.7% (nothing changes), saved 0; the status
    line says the gate is closed and to press f; no rows; the before/after panes say nothing is changed."""
    session, touch = fixture

    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(make_app(session, touch, now_ms=touch + 60_000), terminal_size=SIZE, run_before=run_before)


def test_snapshot_snippet_dialog(fixture, snap_compare):
    """`y` after editing softTrim.maxChars to 10000: the snippet dialog over the overlay: the help text (copied via
    OSC 52, or select below), the "only non-default values" checkbox unchecked, and the full JSON
    `{"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl", "ttl": "5m", ... "maxChars": 10000 ...}}}}`."""
    session, touch = fixture

    async def run_before(pilot) -> None:
        await settle(pilot)
        await paste(pilot, "softTrim.maxChars", "10000")
        await settle(pilot)
        pilot.app.screen.query_one(PruningMessageList).focus()
        await pilot.press("y")
        await pilot.pause(0.1)

    assert snap_compare(make_app(session, touch), terminal_size=SIZE, run_before=run_before)


def test_snapshot_now_without_a_cache_touch(no_touch, snap_compare):
    """A session pruning never touched, 1h after its last message, 10,000-token window: box titled NOW; the banner in the
    primary colour says "NOW: OpenClaw prunes nothing — no cache-ttl touch" and that `i` shows IF ENABLED (2 tool
    results would be cut); gate closed with "no cache touch: lastCacheTouchAt is null", "would prune: no"; both bars at
    100.2%, saved 0; no rows; the status names f and i."""
    session, last = no_touch

    async def run_before(pilot) -> None:
        await settle(pilot)

    assert snap_compare(no_touch_app(session, last), terminal_size=SIZE, run_before=run_before)


def test_snapshot_if_enabled_projection(no_touch, snap_compare):
    """The same after `i`: box border in the warning colour titled "IF ENABLED (projection)"; the banner in the warning
    colour: "IF ENABLED (projection, not what happens now): 2 tool results would be cut", first cache touch at the last
    assistant (its id), "i: back to NOW"; gate "IF ENABLED · Gate OPEN", projected touch time, "a projection: OpenClaw
    has no cache touch to go by today"; after bar 15.9%; rows #2 read and #4 exec soft trim, "expired 55m 00s ago ·
    projected"; #2's before/after."""
    session, last = no_touch

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("i")
        await settle(pilot)

    assert snap_compare(no_touch_app(session, last), terminal_size=SIZE, run_before=run_before)


@pytest.mark.anyio
async def test_the_diff_follows_the_session_release(tmp_path, monkeypatch, ui):
    """A 2026.9.6 session's soft trim is drawn with that release's cut and note (its sizes are built in), not
    2026.4.12's helpers (which its pruner does not have: the overlay crashed on `p`)."""
    from inspector.rules.ruleset import rule_set

    monkeypatch.chdir(tmp_path)
    b, touch = pruning_builder()
    b.write(tmp_path / "pruning.jsonl")
    session = open_session(Path("pruning.jsonl"), "openclaw-2026.9.6")
    pilot = await ui.run(make_app(session, touch, rules=rule_set("openclaw-2026.9.6")), SIZE)
    screen = await settle(pilot)
    listed = screen.query_one(PruningMessageList)
    assert 2 in listed.indexes and screen.preview.actions[2] == ACTION_SOFT_TRIM
    diff = screen.query_one(PruningDiff)
    before = str(diff.query_one("#diff-before-body", Static).render())
    after = str(diff.query_one("#diff-after-body", Static).render())
    assert after.endswith("[Tool result trimmed: kept first 1500 chars and last 1500 chars of 23520 chars.]")
    assert "kept: first 1,500 + last 1,500 · dropped: 20,520 of 23,520 chars" in before
