"""One snapshot per visual state (pytest-textual-snapshot). Each docstring says what a reviewer should see.

Fixture files are written under tmp_path and opened by a relative path (the test chdirs there), so the SVGs do not
depend on the temporary directory; the clock is fixed, the poll timer off, animations and cursor blink off.
Update after an intended change with `pytest tests/test_ui_snapshots.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_ui_support import SIZE, basic_builder, compaction_builder, make_app, settle, write_session

from widgets.screens.error import ErrorInfo, ErrorScreen


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def basic(here: Path) -> Path:
    write_session(here, "basic.jsonl", basic_builder())
    return Path("basic.jsonl")


def keys(*presses: str):
    """A run_before that waits for the session, presses `presses` and waits again."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        if presses:
            await pilot.press(*presses)
            await settle(pilot)

    return run_before


def move_to(predicate, *presses: str):
    """A run_before that puts the cursor on the first row matching `predicate(model, row)`, then presses keys."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        model = screen.model
        position = next(i for i, row in enumerate(model.view) if predicate(model, row))
        screen.transcript.move_to(position)
        await settle(pilot)
        if presses:
            await pilot.press(*presses)
            await settle(pilot)

    return run_before


def test_browser(here, snap_compare):
    """Session browser on a directory of three files, newest first: agent, session id, "updated" relative to the
    fixed clock, size, messages, context tokens, compactions (1 for bbb), kind `live`; sort arrow on "updated"."""
    root = here / "sessions"
    root.mkdir()
    write_session(root, "aaa.jsonl", basic_builder(1))
    write_session(root, "bbb.jsonl", compaction_builder(2))
    write_session(root, "ccc.jsonl", basic_builder(3))
    for i, name in enumerate(("aaa.jsonl", "bbb.jsonl", "ccc.jsonl")):
        os.utime(root / name, (1_767_340_000 + i * 3600, 1_767_340_000 + i * 3600))
    assert snap_compare(make_app(Path("sessions")), terminal_size=SIZE, run_before=keys())


def test_transcript_pi(here, snap_compare):
    """Transcript under pi chars/4 (the default): header names basic.jsonl, openclaw v3, anthropic/claude-sonnet-4-5,
    window 200,000 (model catalog), guard OK. Rows: icons and tool names, one-line inert previews, bars, sizes, context so
    far; ├ on the assistant whose delivery mirror branched; the cursor on the last row. Right: gauge and breakdown."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys())


def test_transcript_prune_chars(here, snap_compare):
    """Same transcript after `e`: the column title says OpenClaw pruning chars, unit chars, numbers about 4x the pi
    ones; the breakdown is in chars too."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys("e"))


def test_transcript_tiktoken(here, snap_compare):
    """After `e e`: tiktoken (cl100k_base, offline) counts for every row and a running context column; the breakdown
    falls back to pi chars/4 and says so."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys("e", "e"))


def test_transcript_recorded_usage(here, snap_compare):
    """After `e e e`: recorded usage. Only assistant rows have a size (their output tokens); the context column carries
    the provider's recorded context forward; user and tool rows show an en dash."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys("e", "e", "e"))


def test_transcript_off_path(here, snap_compare):
    """After `o`: every entry in file order: model_change and thinking entries without sizes, the delivery-mirror
    assistant marked ○ (off the active path) and its parent marked ├."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys("o", "home"))


def test_transcript_compaction_and_branch_summary(here, snap_compare):
    """A compacted session: row 0 is the compaction summary (≡ compaction, "replaces 41,000 tok of history · …", ├
    because the abandoned branch forks there), then the kept messages, the branch summary row (↩ branch sum.) and the
    rest; the cursor is on the compaction row after `c`."""
    write_session(here, "c.jsonl", compaction_builder())
    assert snap_compare(make_app(Path("c.jsonl")), terminal_size=SIZE, run_before=keys("c"))


def test_transcript_filtered_to_tool_results(here, snap_compare):
    """After filtering to role toolResult: only ↳ rows, the column title says `filter: toolResult (3 of 14)`."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        screen = pilot.app.screen
        screen.model.set_filters(["toolResult"], None)
        screen.transcript.invalidate()
        screen._update_columns()
        await settle(pilot)

    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=run_before)


def test_detail_user_text_and_image(here, snap_compare):
    """Detail of the user message with a screenshot: the text block, then `[image image/png · 7x B · 2×2]`."""
    pred = lambda m, r: m.role_of(r) == "user" and "image" in m.entry(r).block_kinds
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=move_to(pred, "enter"))


def test_detail_thinking_and_tool_call(here, snap_compare):
    """Detail of the first assistant: model, stop reason toolUse, every estimator incl. tiktoken and recorded usage,
    a thinking block (italic, muted), the text, and the exec tool call's arguments as pretty JSON."""
    pred = lambda m, r: m.role_of(r) == "assistant" and "thinking" in m.entry(r).block_kinds
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=move_to(pred, "enter"))


def test_detail_tool_result_cut(here, snap_compare):
    """Detail of the long `read` result zoomed full screen (`z`) and scrolled to its end: the text block stops at
    4,000 characters with "… 853 more characters hidden (press a to show all)"."""
    pred = lambda m, r: m.role_of(r) == "toolResult" and m.entry(r).tool_name == "read"
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=move_to(pred, "enter", "z", "end"))


def test_detail_raw_json(here, snap_compare):
    """After `r` on the redacted-thinking assistant: the raw JSON line as stored, wrapped, with its line number."""
    pred = lambda m, r: m.role_of(r) == "assistant" and m.entry(r).tool_name == "browser"
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=move_to(pred, "enter", "r"))


def test_detail_hostile_text_is_inert(here, snap_compare):
    """The user message full of markup and escapes: `[bold]markup[/bold]`, `[link=…]` and `\\x1b[31m` appear as
    literal characters; nothing is bold, red or a link."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys("up", "enter"))


def test_gauge_warn(here, snap_compare):
    """`--context-window 20000`: header and gauge say (window-)size guard WARN (yellow), with OpenClaw's
    low-context-window message; apart from it, the fill: "⚠ compaction due 88.1%" in the header and the gauge; the
    bar is past 80 % (warning fill), its first part ▓ not in the transcript."""
    assert snap_compare(make_app(basic(here), context_window=20_000), terminal_size=SIZE, run_before=keys())


def test_gauge_block(here, snap_compare):
    """`--context-window 8000`: size guard BLOCK (red): "Model context window too small (8000 tokens). Minimum is
    16000."; apart from it, the fill: "⚠ OVER THE WINDOW 220.1%" in the header and the engine's warning in the gauge."""
    assert snap_compare(make_app(basic(here), context_window=8_000), terminal_size=SIZE, run_before=keys())


def test_new_entries_indicator(here, snap_compare):
    """Scrolled to the top while three turns were appended: the cursor stays on row 0 and a "▼ 6 new entries · End to
    follow" badge sits at the bottom of the transcript."""
    b = basic_builder()
    base = b.text()
    for i in range(3):
        b.user(f"follow-up {i}")
        b.assistant(f"answer {i}")
    (here / "live.jsonl").write_text(base, encoding="utf-8")
    extra = b.text()[len(base):]

    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("home")
        with open(here / "live.jsonl", "a", encoding="utf-8") as f:
            f.write(extra)
        pilot.app.screen.check_for_updates()
        await settle(pilot)

    assert snap_compare(make_app(Path("live.jsonl")), terminal_size=SIZE, run_before=run_before)


def test_error_missing_file(here, snap_compare):
    """Error screen "File not found" for missing.jsonl, with hints (browse without a path, --demo)."""
    assert snap_compare(make_app(Path("missing.jsonl")), terminal_size=SIZE, run_before=keys())


def test_error_permission_denied(here, snap_compare):
    """Error screen "Permission denied" for locked.jsonl (OpenClaw writes transcripts 0600), with what to do."""
    (here / "locked.jsonl").write_text("", encoding="utf-8")

    async def run_before(pilot) -> None:
        await settle(pilot)
        info = ErrorInfo.from_open_error(Path("locked.jsonl"), "locked.jsonl: permission denied")
        await pilot.app.switch_screen(ErrorScreen(info))
        await settle(pilot)

    assert snap_compare(make_app(Path("locked.jsonl")), terminal_size=SIZE, run_before=run_before)


def test_error_unsupported_format(here, snap_compare):
    """Error screen "Not an OpenClaw / pi session (unsupported format)" for a file of no known format (Claude Code
    and Codex files open: issue 26), listing the reader's diagnostics for its first lines."""
    (here / "other.jsonl").write_text('{"kind":"note","text":"hi"}\n{"kind":"note","text":"there"}\n', encoding="utf-8")
    assert snap_compare(make_app(Path("other.jsonl")), terminal_size=SIZE, run_before=keys())


def test_damaged_lines(here, snap_compare):
    """Two damaged lines: the red notice bar lists lines 5 and 10 while the transcript shows everything else; the
    diagnostics list (`d`) is open on top with both `unparseable` errors first, with line numbers."""
    lines = basic_builder().text().splitlines()
    lines.insert(4, '{"type":"message","id":"broken"')
    lines.insert(9, "not json at all")
    (here / "damaged.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert snap_compare(make_app(Path("damaged.jsonl")), terminal_size=SIZE, run_before=keys("d"))


def test_help(here, snap_compare):
    """Help (`?`): what a row is, the four estimators, and every key of the inspector with its description."""
    assert snap_compare(make_app(basic(here)), terminal_size=SIZE, run_before=keys("question_mark"))


def demo_copy(here: Path) -> Path:
    """The bundled demo session copied next to the test, opened by a relative name (no machine path in the header)."""
    from inspector.samples.demo import demo_session_path

    (here / "demo-session.jsonl").write_bytes(Path(demo_session_path()).read_bytes())
    return Path("demo-session.jsonl")


def test_small_terminal_80x24(here, snap_compare):
    """The demo at 80×24: the transcript takes the whole width with every row's size (tok) and the context so far (the
    share bar is dropped first); `ctx` heads the index column; expired results start with `~` and their preview (no
    age); under the transcript the gauge's first lines: Context now 122,237 / 200,000 tok 61.1%, the bar, the window
    and guard OK. The footer is compact."""
    assert snap_compare(make_app(demo_copy(here)), terminal_size=(80, 24), run_before=keys())


def test_small_terminal_80x24_message(here, snap_compare):
    """The demo at 80×24 after `↑ Enter`: the transcript shrinks above (the cursor row in sight), and under it the gauge
    and the tabs with the message in full (the `Message` tab active): the last assistant's text and its sizes."""
    assert snap_compare(make_app(demo_copy(here)), terminal_size=(80, 24), run_before=keys("up", "enter"))


def test_small_terminal_100x30(here, snap_compare):
    """The demo at 100×30: still below 110 columns, so the side panel is under the transcript; with the room the share
    bar is back (`share` column), sizes and context as at 80×24, the gauge below."""
    assert snap_compare(make_app(demo_copy(here)), terminal_size=(100, 30), run_before=keys())
