"""Cooperative cancellation (`inspector.base.cancel`): checkpoints raise only inside a cancelled block, `checked`
checks as it goes, `progress` reports each stage and checks too; the forecast's planning stops at its checkpoints."""

from __future__ import annotations

import pytest

from inspector.base.cancel import Cancelled, cancellable, checked, checkpoint, progress
from inspector.figures.forecast.plan import plan_compaction
from inspector.session.session import open_session


def test_a_checkpoint_raises_only_inside_a_cancelled_block():
    checkpoint()  # outside any block: nothing
    flag = [False]
    with cancellable(lambda: flag[0]):
        checkpoint()
        flag[0] = True
        with pytest.raises(Cancelled):
            checkpoint()
    checkpoint()  # the block is over


def test_checked_stops_within_its_step():
    seen = []
    flag = [False]
    with cancellable(lambda: flag[0]), pytest.raises(Cancelled):
        for i in checked(range(1000), every=4):
            seen.append(i)
            flag[0] = i >= 10
    assert 10 < len(seen) <= 16
    assert list(checked(range(5))) == [0, 1, 2, 3, 4]


def test_progress_reports_each_stage_once_per_interval():
    reports = []
    with cancellable(lambda: False, lambda stage, done, total: reports.append((stage, done, total))):
        for i in range(100):
            progress("rows", i, 100)
        progress("stages")
    assert reports[0] == ("rows", 0, 100), "a stage's first report goes through"
    assert reports[-1] == ("stages", 0, 0), "and so does a new stage's"
    assert 2 <= len(reports) < 10, "the other reports of a stage are throttled"


def test_the_forecast_stops_at_its_first_checkpoint(bench_session):
    session = open_session(bench_session)
    ctx = session.context()
    assert plan_compaction(session, ctx).rows, "it plans when not cancelled"
    stages = []
    with cancellable(lambda: bool(stages), lambda stage, done, total: stages.append(stage)), pytest.raises(Cancelled):
        plan_compaction(session, ctx)
    assert stages == ["settings and triggers"]
