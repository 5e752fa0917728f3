"""The UI's glue without a running app: transcript rows and running totals, previews, detail rendering, search."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

from rich.console import Console
from test_ui_support import HOSTILE, NOW, basic_builder, compaction_builder, write_session

from inspector.figures.session_figures import WindowOptions, context_report
from inspector.rules.openclaw_2026_4_12.tokens import calculate_context_tokens
from inspector.rules.ruleset import Estimator
from inspector.samples.fixtures import SessionBuilder
from inspector.samples.png import png_base64
from inspector.session.session import open_session
from inspector.storage.estimate_layout import estimate_layout
from widgets.browser.table import relative_time
from widgets.detail.render import DetailData, DetailStyles, estimator_rows, image_summary, render_detail
from widgets.transcript.layout import token_bar
from widgets.transcript.model import TranscriptModel
from widgets.transcript.previews import compact_number, message_preview_text, preview
from widgets.transcript.search import find_match


def model_of(tmp_path, builder, **kw) -> TranscriptModel:
    session = open_session(write_session(tmp_path, "s.jsonl", builder))
    return TranscriptModel(session, session.context(), **kw)


def test_cumulative_pi_matches_the_context_report(tmp_path):
    model = model_of(tmp_path, basic_builder())
    report = context_report(model.session, model.ctx, WindowOptions(), encoding=None)
    assert model.cumulative("pi") == [r["cumulative_pi_tokens"] for r in report["messages"]]
    assert model.sizes("prune") == [r["estimates"]["openclaw_prune_chars"] for r in report["messages"]]


def test_usage_estimator_carries_the_recorded_context_forward(tmp_path):
    model = model_of(tmp_path, basic_builder())
    cumulative = model.cumulative("usage")
    sizes = model.sizes("usage")
    last = None
    for pos, row in enumerate(model.ctx.messages):
        if row.role == "assistant" and row.usage and calculate_context_tokens(row.usage):
            last = calculate_context_tokens(row.usage)
            assert sizes[pos] == row.usage["output"]
        elif row.role != "assistant":
            assert sizes[pos] is None
        assert cumulative[pos] == last


def test_tiktoken_cumulative_stops_at_the_first_uncounted_message(tmp_path):
    model = model_of(tmp_path, basic_builder())
    model.set_tiktoken({0: 5, 1: 7, 3: 11})
    assert model.cumulative("tiktoken")[:4] == [5, 12, None, None]


def test_filters_and_jumps(tmp_path):
    model = model_of(tmp_path, compaction_builder())
    model.set_filters(["user"], None)
    assert model.view and all(model.role_of(r) == "user" for r in model.view)
    model.set_filters(None, ["write"])
    assert [model.tools_of(r) for r in model.view] == [("write",), ("write",)]
    model.set_filters(None, None)
    assert len(model) == model.row_count
    assert model.find_next(-1, model.is_compaction) == 0
    biggest = model.biggest("pi")
    sizes = model.sizes("pi")
    assert [sizes[model.view[v]] for v in biggest] == sorted((s for s in sizes if s), reverse=True)


def test_off_path_rows_mark_branches_and_dropped_entries(tmp_path):
    model = model_of(tmp_path, compaction_builder(), show_off_path=True)
    assert model.row_count == len(model.session.entries)
    dropped = [r for r in range(model.row_count) if model.info(r).dropped_by_compaction]
    off = [r for r in range(model.row_count) if not model.info(r).on_path]
    assert dropped, "messages before firstKeptEntryId are shown as dropped"
    assert off, "the abandoned branch is off the path"
    assert any(model.info(r).children > 1 for r in range(model.row_count))


def test_extends_only_for_appends_on_the_same_path(tmp_path):
    b = basic_builder()
    path = write_session(tmp_path, "s.jsonl", b)
    session = open_session(path)
    model = TranscriptModel(session, session.context())
    before = b.text()
    b.user("one more")
    with open(path, "a", encoding="utf-8") as f:
        f.write(b.text()[len(before):])
    session.refresh()
    assert model.extends(session.context())
    c = compaction_builder()
    other = open_session(write_session(tmp_path, "c.jsonl", c))
    assert not model.extends(other.context())


def test_previews_are_one_inert_line():
    msg = {"role": "user", "content": HOSTILE + "\nsecond line"}
    text = preview(message_preview_text(msg))
    assert "\n" not in text and "\x1b" not in text and "\\x1b[31m" in text and "[bold]" in text
    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "t", "name": "exec", "arguments": {"command": "ls"}}]}
    assert message_preview_text(call) == '→ exec({"command":"ls"})'
    thinking = {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm"}]}
    assert message_preview_text(thinking) == "(thinking) hmm"
    assert compact_number(None) == "–" and compact_number(1234) == "1,234" and compact_number(123_456) == "123.5k"


def test_image_placeholder_names_type_size_and_dimensions():
    data = png_base64(3, 2, [[0, 1, 0], [1, 0, 1]], [(255, 255, 255), (0, 0, 0)])
    summary = image_summary({"type": "image", "data": data, "mimeType": "image/png"})
    assert summary.startswith("image/png · ") and summary.endswith("3×2")
    assert "B" in summary.split(" · ")[1]


def test_detail_render_cuts_long_blocks_and_shows_every_estimator(tmp_path):
    model = model_of(tmp_path, basic_builder())
    row = next(r for r in range(model.row_count) if model.entry(r).tool_name == "read" and model.role_of(r) == "toolResult")
    entry = model.entry(row)
    data = DetailData(entry, model.message(row), model.session.load_message(entry), model.session.raw_line(entry), tiktoken=123)
    console = Console(width=100, record=True, color_system=None)
    console.print(render_detail(data, DetailStyles()))
    cut = console.export_text()
    assert "more characters hidden" in cut
    for name in ("pi chars/4", "OpenClaw compaction", "OpenClaw pruning", "tool-result guard", "tiktoken"):
        assert name in cut
    console = Console(width=100, record=True, color_system=None)
    console.print(render_detail(data, DetailStyles(), show_all=True))
    assert "more characters hidden" not in console.export_text()
    console = Console(width=100, record=True, color_system=None)
    console.print(render_detail(data, DetailStyles(), raw=True))
    raw = console.export_text()
    assert "raw JSON line" in raw and '"role":"toolResult"' in raw


def test_detail_shows_the_estimators_its_entry_was_estimated_with(tmp_path):
    """A rule set with other estimators needs no change to the pane: it lists the entry's layout's, tokens first."""
    model = model_of(tmp_path, basic_builder())
    row = next(r for r in range(model.row_count) if model.entry(r).tool_name == "read" and model.role_of(r) == "toolResult")
    entry = model.entry(row)
    pi = Estimator("pi", "pi_tokens", "tok", "pi chars/4", "")
    words = Estimator("words", "word_chars", "chars", "word chars", "")
    layout = estimate_layout((words, pi))
    nums = layout.pack_nums(entry.line, entry.offset, entry.length, (4321, 1234), None)
    two = DetailData(dataclasses.replace(entry, nums=nums, layout=layout), None, None, None)
    assert estimator_rows(two) == [("pi chars/4", "1,234 tok"), ("word", "4,321 chars")]


def test_search_finds_text_in_visible_content_only(tmp_path):
    b = SessionBuilder(seed=3)
    b.header()
    b.user("alpha")
    b.assistant([b.tool_call("exec", {"command": "echo haystack"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "beta", details={"secret": "only-in-details"})
    b.user("Gamma with a \"quote\"")
    model = model_of(tmp_path, b)
    assert model.entry(model.view[find_match(model, -1, "HAYSTACK")]).role == "assistant"
    assert find_match(model, -1, "only-in-details") is None, "details never reach the model"
    assert model.entry(model.view[find_match(model, -1, 'a "quote"')]).role == "user"
    last = len(model) - 1
    assert find_match(model, last, "alpha") == 0, "wraps around"
    assert find_match(model, 0, "alpha", backwards=True) == 0


def test_small_formatters():
    assert token_bar(0.0) == " " * 10 and token_bar(1.0) == "█" * 10
    assert token_bar(0.001).startswith("▏")
    assert relative_time(NOW - timedelta(minutes=5), NOW) == "5m ago"
    assert relative_time(NOW - timedelta(days=3), NOW) == "3d ago"



def test_command_line_of_the_interactive_inspector(tmp_path):
    from pathlib import Path

    import pytest

    from widgets.launch import parse_args

    o = parse_args([str(tmp_path), "--context-window", "64000", "--config", "oc.json"])
    assert o.path == tmp_path and o.context_window == 64000 and o.config_path == Path("oc.json") and not o.demo
    assert parse_args(["--demo"]).demo
    with pytest.raises(SystemExit):
        parse_args(["--context-window", "0"])
