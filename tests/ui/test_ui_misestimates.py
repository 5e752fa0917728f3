"""Issue 25 in the app: the transcript flags the messages the estimator gets far wrong (the timeline's mis-estimated
list, one engine function), the detail pane says it in words, and the estimator key drives the timeline's split with
the same numbers as `session-inspector timeline --estimator NAME --json`."""

from __future__ import annotations

import pytest
from test_ui_diagnosis import demo_copy, inspector, open_timeline, timeline_json
from test_ui_support import settle

from inspector.figures.diagnosis.misestimates import row_misestimates
from inspector.session.session import open_session
from widgets.detail.detail import MessageDetail

CJK_PAGE = "606f54e6"
"""The demo's Chinese web_fetch page: pi chars/4 says 5,604 tokens, tiktoken 18,110."""
SCREENSHOT = "f62bcbc8"
"""The demo's browser screenshot: pi counts its image 1,200 tokens, the tokenizer side the same."""


def row_text(transcript, position: int) -> str:
    transcript.move_to(position)
    return transcript.render_line(position - round(transcript.scroll_y)).text


def position_of(transcript, entry_id: str) -> int:
    model = transcript.model
    return next(vi for vi, row in enumerate(model.view) if model.entry(row).id == entry_id)


@pytest.mark.anyio
async def test_the_chinese_page_row_carries_the_flag_and_its_ratio(tmp_path, ui):
    path = demo_copy(tmp_path)
    flagged = {x["entry_id"]: x for x in timeline_json(path)["attribution"]["misestimated"]}
    assert flagged[CJK_PAGE]["ratio"] == 3.23 and SCREENSHOT not in flagged
    pilot = await ui(path)
    t = inspector(pilot.app).transcript
    page = position_of(t, CJK_PAGE)
    row_text(t, page)
    await settle(pilot)
    assert "⚑×3.23" in row_text(t, page)
    shot = position_of(t, SCREENSHOT)
    row_text(t, shot)
    await settle(pilot)
    assert "⚑" not in row_text(t, shot)
    unflagged = next(vi for vi in range(len(t.model)) if t.model.flag_known(t.model.view[vi]) and t.model.flag(t.model.view[vi]) is None)
    assert "⚑" not in row_text(t, unflagged)
    t.move_to(page)
    await pilot.press("enter")
    await settle(pilot)
    detail = inspector(pilot.app).query_one(MessageDetail)
    assert detail.data is not None and detail.data.misestimate is not None
    assert "5,604 tok vs tiktoken 18,110 tok: ×3.23" in detail.data.misestimate and "too low" in detail.data.misestimate


def test_the_transcript_flag_is_the_timelines_figure(tmp_path):
    path = demo_copy(tmp_path)
    listed = {x["entry_id"]: x for x in timeline_json(path)["attribution"]["misestimated"]}
    s = open_session(path)
    ctx = s.context()
    judged = row_misestimates(s, ctx.messages, "pi")
    found = {x.entry_id: x.to_json() for x in judged.values() if x is not None}
    in_context = {r.entry_id for r in ctx.messages}
    assert CJK_PAGE in found and set(found) == set(listed) & in_context  # the rest was compacted away
    for entry_id, item in found.items():
        assert item == listed[entry_id]


@pytest.mark.anyio
async def test_the_estimator_key_drives_the_timeline_with_the_clis_numbers(tmp_path, ui):
    path = demo_copy(tmp_path)
    pilot = await ui(path)
    screen = await open_timeline(pilot)
    pi = screen.timeline
    assert pi is not None and pi.attribution.estimator == "pi"
    await pilot.press("escape")
    await settle(pilot)
    await pilot.press("e")  # pi chars/4 -> OpenClaw pruning chars
    await settle(pilot)
    screen = await open_timeline(pilot)
    prune = screen.timeline
    assert prune is not None and prune.attribution.estimator == "openclaw_prune"
    cli = timeline_json(path, "--estimator", "openclaw_prune")
    for field in ("transcript_estimate", "estimator_error_tokens", "overhead_tokens"):
        assert [getattr(c, field) for c in prune.calls] == [c[field] for c in cli["calls"]], field
    assert [c.transcript_estimate for c in prune.calls] != [c.transcript_estimate for c in pi.calls]
    assert [c.estimator_error_tokens for c in prune.calls] != [c.estimator_error_tokens for c in pi.calls]
