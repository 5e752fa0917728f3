"""Snapshots of the diagnosis views (pytest-textual-snapshot); each docstring says what a reviewer should see.

Files are written under tmp_path and opened by a relative path (the test chdirs there); fixed clock, no poll timer,
no animations. Update after an intended change with
`pytest tests/test_ui_diagnosis_snapshots.py --snapshot-update` and review the SVGs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from test_diagnosis_fixtures import build_over_window, build_runaway
from test_ui_support import SIZE, make_app, settle

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def demo(here: Path) -> Path:
    shutil.copyfile(DEMO, here / "demo-session.jsonl")
    return Path("demo-session.jsonl")


def keys(*presses: str):
    """A run_before that waits for the session (and its timeline), presses `presses` and waits again."""

    async def run_before(pilot) -> None:
        await settle(pilot)
        for key in presses:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def test_timeline_chart_demo(here, snap_compare):
    """`l` on the demo: summary (54 calls, cost $3.8579 recorded, cache hit 78.1%, 10 TTL-expiry writes $2.2521, not in
    the transcript 54,006 tok · 44.2% rising, early warning 61.1% and guard OK apart, first above early_0.5 at call 44,
    largest jump +16,343 at call 38 from a web_fetch result); the chart: prompt, transcript and not-in-transcript lines
    rising, threshold ticks win 200k / cmp 180k / 70% 140k / 50% 100k with their lines, a compaction line before
    call 30 where the prompt drops, jump ranks 1-9 and ▲, the cursor ◆ on call 38 (▼ above it); its figures and jump causes on
    the right; the one repeat (same command ×2, 4,283 tok) below."""
    assert snap_compare(make_app(demo(here)), terminal_size=SIZE, run_before=keys("l"))


def test_timeline_selected_point(here, snap_compare):
    """After `l`, `home`, `right`: the cursor ◆ on call 1 (both lines), its figures (prompt 23,753, transcript 543,
    cache hit 97%) and no jump section."""
    assert snap_compare(make_app(demo(here)), terminal_size=SIZE, run_before=keys("l", "home", "right"))


def test_timeline_compact_80x24(here, snap_compare):
    """The timeline at 80×24: three summary lines, a one-line legend, the chart with its threshold ticks, the call's
    figures without notes beside it, the repeats below."""
    assert snap_compare(make_app(demo(here)), terminal_size=(80, 24), run_before=keys("l"))


def test_timeline_table_fallback(here, snap_compare):
    """At 64×18 the chart gives way to a table of the calls (#, line, prompt, transcript, not in transcript, cost,
    marks │ and Jn), the cursor on call 38."""
    assert snap_compare(make_app(demo(here)), terminal_size=(64, 18), run_before=keys("l"))


def test_repeats_panel(here, snap_compare):
    """`R` on the runaway fixture: the repeats panel focused, four repeats ranked by tokens: file re-read ×2 2,000 tok
    (read /home/user/.openclaw/workspace/src/app.py), then the 8-token ties: retry after fail, same command, same
    error (exec); the chart above shows the compaction before call 6 and jump 1 at call 5."""
    build_runaway(here / "runaway.jsonl")
    assert snap_compare(make_app(Path("runaway.jsonl")), terminal_size=SIZE, run_before=keys("R"))


def test_over_the_window_inspector(here, snap_compare):
    """A 130,020-token context in a 100,000-token window: the header starts with a red "⚠ OVER THE WINDOW 130.0%
    (30,020 over)" and still says "size guard OK"; the gauge's bar is full and red, with the engine's over-the-window
    warning in red above "window-size guard OK"; not in the transcript 129,998 tok (100%)."""
    build_over_window(here / "over.jsonl")
    assert snap_compare(make_app(Path("over.jsonl"), context_window=100_000), terminal_size=SIZE, run_before=keys())


def test_over_the_window_timeline(here, snap_compare):
    """The same session's timeline: "Context now OVER THE WINDOW: …" in red with the guard OK beside it, every
    threshold first crossed at call 0, the one point above the window line."""
    build_over_window(here / "over.jsonl")
    assert snap_compare(make_app(Path("over.jsonl"), context_window=100_000), terminal_size=SIZE, run_before=keys("l"))
