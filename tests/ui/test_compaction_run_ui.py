"""The compaction run in the app: a pilot run of `rules` on a copy of the demo (previewed, committed, then undone), the demo
copied before compaction, and text snapshots of the progress view and the breaker panel in each state (fixed clock)."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import ROOT
from rich.console import Console
from test_ui_support import SIZE, make_app, settle

from inspector.base.clock import FixedClock
from inspector.write.breaker import CircuitBreaker
from inspector.write.events import (
    BreakerChanged,
    Committed,
    Failed,
    FallbackUsed,
    NothingWritten,
    RetryScheduled,
    StageFinished,
    StageProgress,
    StageStarted,
    TextStreamed,
)
from widgets.compaction.progress_state import RunProgress, render_breaker, render_progress
from widgets.compaction.run_screen import CompactRunScreen, writable_target

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
NOW = datetime(2026, 1, 2, 10, 0, tzinfo=UTC)


def text_of(renderable) -> str:
    console = Console(width=110, record=True, color_system=None, force_terminal=False)
    console.print(renderable)
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def _running() -> RunProgress:
    p = RunProgress()
    p.apply(StageStarted(at_ms=1, stage="parts", index=1, total=4, label="2 parts", calls=4, tokens_in=52_000))
    p.apply(StageProgress(at_ms=2, stage="parts", done=1, total=4, tokens_in=13_000, tokens_out=900, elapsed_ms=2_000, eta_ms=6_000))
    p.apply(TextStreamed(at_ms=3, stage="parts", text="## Decisions\n- keep the API"))
    return p


def _states() -> dict[str, RunProgress]:
    running = _running()
    retrying = _running()
    retrying.apply(RetryScheduled(at_ms=4, stage="parts", attempt=1, max_attempts=3, delay_ms=512, error="429 rate limited", status=429))
    fallback = _running()
    fallback.apply(FallbackUsed(at_ms=4, stage="parts", fallback="summary_unavailable", reason="summarization failed: 500"))
    fallback.apply(StageFinished(at_ms=5, stage="parts", status="fallback", tokens_in=13_000, tokens_out=900, elapsed_ms=9_000))
    fallback.apply(NothingWritten(at_ms=6, reason="the summary is the fallback; not written"))
    committed = _running()
    committed.apply(StageFinished(at_ms=5, stage="parts", status="done", tokens_in=52_000, tokens_out=3_600, elapsed_ms=8_000))
    committed.apply(Committed(at_ms=6, path="/s.jsonl", entry_id="abcd1234", mode="append", tokens_before=122_237, summary_chars=9_000))
    failed = _running()
    failed.apply(BreakerChanged(at_ms=4, session="/s.jsonl", provider="openai", old="closed", new="open", failures=3))
    failed.apply(StageFinished(at_ms=5, stage="parts", status="failed", elapsed_ms=3_000))
    failed.apply(Failed(at_ms=6, stage="summarize", message="circuit open; nothing written"))
    cancelled = _running()
    cancelled.apply(StageFinished(at_ms=5, stage="parts", status="cancelled", elapsed_ms=3_000))
    cancelled.apply(NothingWritten(at_ms=6, reason="cancelled: nothing written"))
    return {"running": running, "retrying": retrying, "fallback": fallback, "committed": committed, "failed": failed, "cancelled": cancelled}


@pytest.mark.parametrize("state", ["running", "retrying", "fallback", "committed", "failed", "cancelled"])
def test_progress_view_snapshots(state: str, snapshot) -> None:
    assert text_of(render_progress(_states()[state])) == snapshot


@pytest.mark.parametrize("state", ["none", "closed", "open", "half_open"])
def test_breaker_panel_snapshots(state: str, tmp_path: Path, snapshot) -> None:
    clock = FixedClock(NOW)
    b = CircuitBreaker(state_file=tmp_path / "breaker.json", clock=clock, cooldown_ms=300_000)
    if state == "none":
        assert text_of(render_breaker(None, "rules")) == snapshot
        return
    if state in ("open", "half_open"):
        for _ in range(3):
            b.record_failure("/s.jsonl", "openai", "HTTP 500: server error")
    if state == "half_open":
        b = CircuitBreaker(state_file=tmp_path / "breaker.json", clock=FixedClock(NOW.replace(minute=6)), cooldown_ms=300_000)
    assert text_of(render_breaker(b.status("/s.jsonl", "openai"), "openai")) == snapshot


def test_the_bundled_demo_is_compacted_as_a_copy(tmp_path: Path) -> None:
    target, note = writable_target(DEMO, DEMO)
    assert target != DEMO and target.read_bytes() == DEMO.read_bytes() and note and "copy" in note
    shutil.rmtree(target.parent)
    own = tmp_path / "s.jsonl"
    shutil.copy(DEMO, own)
    assert writable_target(own, DEMO) == (own, None)


@pytest.mark.anyio
async def test_pilot_rules_on_a_demo_copy_commits_and_undoes(tmp_path: Path, ui, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "state"))
    path = tmp_path / "demo.jsonl"
    shutil.copy(DEMO, path)
    before = path.read_bytes()
    pilot = await ui.run(make_app(path), SIZE, settle=True)
    await pilot.press("X")
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, CompactRunScreen) and screen.target == path
    await pilot.press("enter")  # the preview: summarized, nothing written
    await settle(pilot)
    assert screen.outcome == "dry_run" and path.read_bytes() == before
    await pilot.press("enter")  # write what the preview showed
    await settle(pilot)
    assert screen.outcome == "committed" and screen.result is not None and screen.result.status == "committed"
    assert path.read_bytes().startswith(before) and len(path.read_bytes()) > len(before)
    await pilot.press("u")
    await pilot.pause()
    assert path.read_bytes() == before
