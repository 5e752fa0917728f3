"""`widgets.heap.IdleCollector` (full collections only when the user is idle) and the chart's decimation."""

from __future__ import annotations

import gc

import numpy as np

from widgets.diagnosis.chart import decimated
from widgets.heap import DEFERRED_THRESHOLD, IdleCollector


def test_full_collections_wait_for_an_idle_user_and_no_busy_worker():
    before = gc.get_threshold()
    collector = IdleCollector(idle_seconds=0.0)
    collector.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], DEFERRED_THRESHOLD)
        for _ in range(before[2]):
            gc.collect(1)  # each young collection counts towards generation 2
        assert not collector.tick(busy=True)
        collector.idle_seconds = 3600
        collector.note_input()
        assert not collector.tick()
        collector.idle_seconds = 0.0
        assert collector.tick() and collector.collections == 1
        assert gc.get_count()[2] == 0 and not collector.tick(), "nothing promoted since"
    finally:
        collector.stop()
    assert gc.get_threshold() == before


def test_decimation_keeps_each_dot_columns_lowest_and_highest_point():
    xs = np.arange(10_000, dtype=float)
    ys = np.sin(xs / 50.0) * 1000 + (xs % 97 == 0) * 5000  # spikes every 97 calls
    dx, dy = decimated(xs, ys, -0.5, 9999.5, 200)
    assert len(dx) <= 2 * 202 and np.all(np.diff(dx) >= 0)
    assert dy.max() == ys.max() and dy.min() == ys.min()
    for column in range(200):
        lo, hi = column * 50, column * 50 + 50
        seg = ys[lo:hi]
        kept = dy[(dx >= lo) & (dx < hi)]
        assert seg.max() in kept and seg.min() in kept
    small = decimated(xs[:300], ys[:300], -0.5, 299.5, 200)
    assert len(small[0]) == 300, "few points: drawn as they are"
    zoomed = decimated(xs, ys, 1000, 1100, 200)
    assert len(zoomed[0]) == len(xs), "a zoomed view has few points in view: drawn as they are"
