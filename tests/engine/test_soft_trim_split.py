"""`soft_trim_split` (what the pruning screen's diff draws) is the cut each release's own soft trim makes: head +
dropped + tail is the joined text, and head + `\\n...\\n` + tail + note is the trimmed text the pruner writes."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.js.jsjson import js_len
from inspector.rules.openclaw_2026_4_12.pruning import pruner as april
from inspector.rules.openclaw_2026_4_12.pruning.settings import resolve_settings
from inspector.rules.openclaw_2026_9_6.pruning import pruner as september

SETTINGS = resolve_settings({}).settings
TEXT = st.text(alphabet=st.sampled_from("ab\n字😀\ud83d"), min_size=0, max_size=9000)
BLOCK = st.one_of(
    TEXT.map(lambda t: {"type": "text", "text": t}),
    st.just({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
)
MESSAGE = st.lists(BLOCK, min_size=1, max_size=4).map(
    lambda content: {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": content}
)


def _check(pruner, message, trimmed) -> None:
    split = pruner.soft_trim_split(message, SETTINGS)
    text = trimmed["content"][0]["text"] if trimmed is not None else None
    if split is None:
        # Kept whole: nothing changes, or only the images (one text block of the joined parts, no note).
        assert text is None or "[Tool result trimmed:" not in text[-120:]
        return
    assert text == f"{split.head}\n...\n{split.tail}{split.note}"
    assert split.total == js_len(split.head + split.dropped + split.tail)
    assert split.dropped


@settings(max_examples=300, deadline=None)
@given(MESSAGE)
def test_the_split_is_the_2026_4_12_soft_trim(message):
    _check(april, message, april.soft_trim_tool_result(message, SETTINGS))


@settings(max_examples=300, deadline=None)
@given(MESSAGE)
def test_the_split_is_the_2026_9_6_soft_trim(message):
    _check(september, message, september.soft_trim_tool_result(message, SETTINGS))


def test_a_long_result_is_split_under_both_releases():
    message = {"role": "toolResult", "content": [{"type": "text", "text": "x" * 10_000}]}
    a, s = april.soft_trim_split(message, SETTINGS), september.soft_trim_split(message, SETTINGS)
    assert a is not None and s is not None
    assert (len(a.head), len(a.tail), a.total) == (SETTINGS.soft_trim.head_chars, SETTINGS.soft_trim.tail_chars, 10_000)
    assert (len(s.head), len(s.tail), s.total) == (september.SOFT_TRIM_HEAD_CHARS, september.SOFT_TRIM_TAIL_CHARS, 10_000)
