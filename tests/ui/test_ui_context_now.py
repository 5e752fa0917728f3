"""The app's header and gauge after a compaction (issue 24, part 3): the context now is the estimate of what the next
request carries, never the usage recorded before the compaction, and the header names the basis of its fill."""

from __future__ import annotations

import shutil

import pytest
from conftest import ROOT
from inprocess import run_cli
from test_ui_support import settle

from inspector.figures.sizes import estimate_sizes
from inspector.session.session import open_session
from widgets.gauge import ContextGauge
from widgets.screens.inspector import InspectorScreen
from widgets.session_header import SessionHeader

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
PRE_USAGE = 122_237
WINDOW = 130_000
"""A window under which the demo's 122,237 tokens are past the compaction threshold (130,000 - 20,000)."""


def _texts(app) -> tuple[str, str]:
    screen = app.screen
    assert isinstance(screen, InspectorScreen), type(screen)
    header = screen.query_one(SessionHeader).render().plain
    gauge = screen.query_one(ContextGauge)
    rendered = app.console.render_lines(gauge.render(), app.console.options.update_width(200))
    return header, "\n".join("".join(seg.text for seg in line) for line in rendered)


@pytest.mark.anyio
async def test_header_and_gauge_after_a_compaction(tmp_path, ui):
    path = tmp_path / "demo.jsonl"
    shutil.copyfile(DEMO, path)

    pilot = await ui(path, context_window=WINDOW)
    await settle(pilot)
    header, gauge = _texts(pilot.app)
    assert "compaction due" in header and "(recorded)" in header
    assert f"Context now {PRE_USAGE:,} / {WINDOW:,} tok" in gauge and f"last recorded usage {PRE_USAGE:,} + 0 estimated" in gauge
    await pilot.app.action_quit()

    res = run_cli(["compact", path, "--summarizer", "rules", "--yes"], env={"HOME": str(tmp_path), "COLUMNS": "200"})
    assert res.returncode == 0, res.stderr
    estimate = sum(estimate_sizes(open_session(path).context().messages, "pi"))

    pilot = await ui(path, context_window=WINDOW)
    await settle(pilot)
    screen = pilot.app.screen
    usage = screen.query_one(ContextGauge).data.usage
    assert (usage.tokens, usage.basis, usage.stale_usage_tokens) == (estimate, "estimate", PRE_USAGE)
    header, gauge = _texts(pilot.app)
    assert "compaction due" not in header and "⚠" not in header  # ~15% of the window: nothing to warn about
    assert f"Context now {estimate:,} / {WINDOW:,} tok" in gauge
    assert f"estimate: no usage recorded since the latest compaction; the last, {PRE_USAGE:,}, predates it" in gauge
    assert f"{PRE_USAGE:,} /" not in gauge
