"""Quitting does not wait for background work: `q` while the timeline (the diagnosis worker the inspector starts on
its own after opening) is being computed ends that thread within a step of the engine's loops, so the process does
not stay alive, computing, after the terminal is given back."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import bench_generator
from test_ui_responsive import threads_in, wait_until

from inspector.figures.diagnosis import calls


@pytest.fixture
def session_3000(tmp_path: Path) -> Path:
    path = tmp_path / "thinking.jsonl"
    bench_generator().generate(path, entries=3_000, seed=7, shape="thinking")
    return path


def _slow_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each message the call walk adds takes 5 ms more: the timeline takes many seconds unless cancelled."""
    real = calls._sent

    def slow(entries, row):
        time.sleep(0.005)
        return real(entries, row)

    monkeypatch.setattr(calls, "_sent", slow)


@pytest.mark.anyio
async def test_quitting_cancels_the_timeline_thread(session_3000, ui, monkeypatch):
    _slow_walk(monkeypatch)
    pilot = await ui(session_3000, settle=False)
    assert await wait_until(lambda: threads_in("walk_calls", "diagnosis/calls.py"), 30), "the timeline started"
    await pilot.press("q")
    assert await wait_until(lambda: not threads_in("walk_calls", "diagnosis/calls.py"), 0.6), "q left the timeline thread running"
