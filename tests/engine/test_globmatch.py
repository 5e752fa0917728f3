"""The linear-time glob matcher agrees with OpenClaw's regex and never backtracks."""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.js.globmatch import GlobMatcher
from inspector.rules.openclaw_2026_4_12.pruning.tools import compile_glob_pattern, make_tool_prunable_predicate

_JS_DOT_STAR = "[^\\n\\r\\u2028\\u2029]*"


def reference(pattern: str, name: str) -> bool:
    """OpenClaw's `compileGlobPattern` regex, as the code had it before."""
    body = _JS_DOT_STAR.join(re.escape(piece) for piece in pattern.split("*"))
    return re.fullmatch(body, name) is not None


ALPHABET = st.sampled_from(list("abx*t\n\u2028.?[\\"))


@settings(max_examples=600, deadline=None)
@given(st.text(ALPHABET, max_size=8), st.text(st.sampled_from(list("abxt\n\u2028.?[\\*")), max_size=12))
def test_same_result_as_the_regex(pattern, name):
    assert GlobMatcher(pattern).matches(name) == reference(pattern, name)


def test_examples():
    assert GlobMatcher("read*").matches("read_file")
    assert not GlobMatcher("read*").matches("xread")
    assert GlobMatcher("*t*x*").matches("text")
    assert not GlobMatcher("a*b").matches("a\nb")
    assert GlobMatcher("a**b").matches("ab")


def test_hostile_name_is_linear():
    name = "t" * 200_000
    start = time.monotonic()
    assert compile_glob_pattern("*t*x*").matches(name) is False
    assert make_tool_prunable_predicate({"deny": ["*t*x*", "*a*b*c*d*"]})(name) is True
    assert time.monotonic() - start < 5
