"""Property tests of the pruner and the preview (hypothesis), and a JavaScript oracle for UTF-16 slicing."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.figures.pruning.preview import PreviewOptions, build_preview
from inspector.js.utf16 import js_last_index_of, js_slice
from inspector.rules.openclaw_2026_4_12.pruning.pruner import prune_context_messages
from inspector.rules.openclaw_2026_4_12.pruning.settings import (
    ContextPruningSettings,
    HardClearSettings,
    SettingsOverrides,
    SoftTrimSettings,
)
from inspector.rules.openclaw_2026_4_12.tokens import openclaw_prune_chars
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session

ALPHABET = st.sampled_from(list("ab \n中文한😀\u2028") + ["\ud83d", "\udca9"])
TEXT = st.text(ALPHABET, max_size=120)
TOOL_NAMES = st.sampled_from(["read", "Read_File", "exec", "web_fetch", "grep"])


def text_block(t):
    return {"type": "text", "text": t}


image_block = st.just({"type": "image", "data": "aGk=", "mimeType": "image/png"})

user_msg = st.one_of(
    TEXT.map(lambda t: {"role": "user", "content": t, "timestamp": 1}),
    st.lists(st.one_of(TEXT.map(text_block), image_block), max_size=3).map(
        lambda c: {"role": "user", "content": c, "timestamp": 1}
    ),
)
assistant_msg = st.lists(
    st.one_of(
        TEXT.map(text_block),
        TEXT.map(lambda t: {"type": "thinking", "thinking": t, "thinkingSignature": "sig"}),
        st.dictionaries(st.sampled_from(["path", "n"]), st.one_of(TEXT, st.integers(-5, 5)), max_size=2).map(
            lambda a: {"type": "toolCall", "id": "c", "name": "read", "arguments": a}
        ),
    ),
    max_size=3,
).map(lambda c: {"role": "assistant", "content": c, "timestamp": 2})


@st.composite
def tool_result_msg(draw):
    msg = {
        "role": "toolResult",
        "toolCallId": draw(st.sampled_from(["c1", "c2"])),
        "toolName": draw(TOOL_NAMES),
        "content": draw(st.lists(st.one_of(TEXT.map(text_block), image_block), max_size=4)),
    }
    if draw(st.booleans()):
        msg["details"] = {"exitCode": draw(st.integers(0, 2)), "note": draw(TEXT)}
    msg["isError"] = draw(st.booleans())
    msg["timestamp"] = 3
    return msg


other_msg = st.just({"role": "custom", "customType": "x", "content": "hello", "display": True, "timestamp": 4})
MESSAGES = st.lists(st.one_of(user_msg, assistant_msg, tool_result_msg(), tool_result_msg(), other_msg), max_size=14)


@st.composite
def pruning_settings(draw):
    return ContextPruningSettings(
        keep_last_assistants=draw(st.integers(0, 4)),
        soft_trim_ratio=draw(st.sampled_from([0, 0.1, 0.3, 0.5, 1])),
        hard_clear_ratio=draw(st.sampled_from([0, 0.2, 0.5, 1])),
        min_prunable_tool_chars=draw(st.sampled_from([0, 10, 100, 50_000])),
        tools=draw(
            st.sampled_from([{}, {"deny": ["exec"]}, {"allow": ["read*"]}, {"allow": ["*"], "deny": ["*file"]}])
        ),
        soft_trim=SoftTrimSettings(draw(st.integers(0, 80)), draw(st.integers(0, 40)), draw(st.integers(0, 40))),
        hard_clear=HardClearSettings(enabled=draw(st.booleans())),
    )


@settings(max_examples=300, deadline=None)
@given(MESSAGES, pruning_settings(), st.integers(1, 200), st.booleans())
def test_pruner_invariants(messages, s, window, drop_thinking):
    original = copy.deepcopy(messages)
    r = prune_context_messages(messages, s, context_window_tokens=window, drop_thinking_blocks_for_estimate=drop_thinking)
    assert messages == original, "input mutated"
    assert len(r.messages) == len(messages)
    assert r.changed == any(a != "keep" for a in r.actions)
    for i, (before, after, action) in enumerate(zip(messages, r.messages, r.actions)):
        if action == "keep":
            assert after is before
            continue
        # only tool results in [first user, cutoff) ever change
        assert before["role"] == "toolResult"
        assert r.prune_start_index is not None and r.prune_start_index <= i < r.cutoff_index
        assert list(after) == list(before)
        assert {k: v for k, v in after.items() if k != "content"} == {k: v for k, v in before.items() if k != "content"}
        assert len(after["content"]) == 1 and after["content"][0]["type"] == "text"
        if action == "hard_clear":
            assert after["content"][0]["text"] == s.hard_clear.placeholder
        assert r.chars_after[i] == openclaw_prune_chars(after)
    for i in range(r.cutoff_index if r.cutoff_index is not None else 0, len(messages)):
        assert r.messages[i] is messages[i]
    if not drop_thinking:
        assert r.total_chars_after == sum(openclaw_prune_chars(m) for m in r.messages)
    assert r.total_chars_after == sum(r.chars_after)


@pytest.fixture(scope="module")
def session_file(tmp_path_factory):
    b = SessionBuilder(seed=21, start="2026-03-01T10:00:00.000Z")
    b.header()
    b.user("go")
    for i in range(5):
        b.assistant([b.tool_call("read" if i % 2 else "exec", {"i": i})])
        b.tool_result(b.last_tool_call_ids[0], "read" if i % 2 else "exec", "中文 😀 line\n" * (400 * (i + 1)), details={"i": i})
    b.assistant("done")
    b.cache_ttl()
    path = b.write(tmp_path_factory.mktemp("prop") / "s.jsonl")
    os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    return path, b.now_ms


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    offset=st.integers(-3_600_000, 7_200_000),
    force=st.booleans(),
    keep=st.integers(0, 6),
    window=st.integers(1, 50_000),
    ratio=st.sampled_from([0.0, 0.3, 0.9]),
    deny=st.sampled_from([None, ["exec"], ["*"]]),
)
def test_preview_never_touches_the_file(session_file, offset, force, keep, window, ratio, deny):
    path, touch_ms = session_file
    data_before = path.read_bytes()
    st_before = os.stat(path)
    p = build_preview(
        open_session(path),
        PreviewOptions(
            now_ms=touch_ms + offset,
            force=force,
            config={"agents": {"defaults": {"contextPruning": {"mode": "cache-ttl"}}}},
            overrides=SettingsOverrides(keep_last_assistants=keep, soft_trim_ratio=ratio, tools_deny=deny),
            context_window=window,
            encoding=None,
        ),
    )
    p.to_json()
    assert path.read_bytes() == data_before
    st_after = os.stat(path)
    assert (st_after.st_mtime_ns, st_after.st_size) == (st_before.st_mtime_ns, st_before.st_size)


# ------------------------------------------------------------------------------ JavaScript as the oracle


@pytest.mark.skipif(shutil.which("node") is None, reason="node not installed")
def test_utf16_helpers_match_javascript():
    cases = []
    samples = ["", "abc", "a😀b", "中文😀\n😀x", "\ud83d", "x\udca9y", "😀" * 5 + "\n" * 3, "a\nb\nc😀\n"]
    for s in samples:
        n = len(s.encode("utf-16-le", "surrogatepass")) // 2
        for a in range(n + 2):
            for b in range(a, n + 2):
                cases.append((s, a, b))
    script = (
        "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map(([s, a, b]) => [s.slice(a, b), s.slice(a), s.lastIndexOf('\\n', a), s.length])));"
    )
    payload = json.dumps(cases, ensure_ascii=True)
    out = subprocess.run(["node", "-e", script], input=payload, capture_output=True, text=True, check=True, timeout=60).stdout
    expected = json.loads(out)
    for (s, a, b), (sl, tail, nl, length) in zip(cases, expected):
        assert js_slice(s, a, b) == sl, (s, a, b)
        assert js_slice(s, a) == tail, (s, a)
        assert js_last_index_of(s, "\n", a) == nl, (s, a)
        assert len(s.encode("utf-16-le", "surrogatepass")) // 2 == length
