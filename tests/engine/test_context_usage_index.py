"""What the index keeps of a recorded usage's `contextUsage` and of `api: "cli"` (OpenClaw 2026.9), and 2026.9.6's
`estimateContextTokens` read from it (`last_context_usage`) equal to the one over the loaded messages.

The real OpenClaw function is compared in tests/integration/test_context_usage_2026_9_oracle.py.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from conftest import assistant, header, msg, user, write_lines
from oracle.token_cases_2026_9 import random_context

from inspector.model import entries as m
from inspector.read.records import message_record_reference
from inspector.rules.ruleset import rule_set
from inspector.session.session import open_session

RULES = "openclaw-2026.9.6"
rules = rule_set(RULES)
STANDARD = {"input": 3, "output": 4, "cacheRead": 5, "cacheWrite": 6, "totalTokens": 18,
            "cost": {"input": 0.5, "output": 0.25, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.75}}


@pytest.mark.parametrize(
    ("context_usage", "state", "figure"),
    [
        (None, 0, None),
        ({"state": "available", "totalTokens": 90_000}, m.CONTEXT_USAGE_AVAILABLE, 90_000),
        ({"state": "available", "totalTokens": 12.5}, m.CONTEXT_USAGE_AVAILABLE, 12.5),
        ({"state": "available"}, m.CONTEXT_USAGE_AVAILABLE, None),
        ({"state": "available", "totalTokens": "7"}, m.CONTEXT_USAGE_AVAILABLE, None),
        ({"state": "unavailable", "totalTokens": 0}, m.CONTEXT_USAGE_UNAVAILABLE, None),
        ({"state": "unknown", "totalTokens": 5}, m.CONTEXT_USAGE_OTHER, None),
        ("not an object", m.CONTEXT_USAGE_OTHER, None),
    ],
)
def test_packed_usage_keeps_the_context_figure_apart_from_the_standard_fields(context_usage: Any, state: int, figure: Any) -> None:
    usage = dict(STANDARD) if context_usage is None else {**STANDARD, "contextUsage": context_usage}
    packed = m.pack_usage(usage)
    assert packed is not None and len(packed) == m.USAGE_SIZE == 88
    assert m.unpack_usage(packed) == STANDARD  # the standard fields only, as before
    assert m.unpack_context_tokens(packed) == figure
    assert m.usage_flags(usage) == state
    assert m.sum_packed_usage([packed, packed]) == m.sum_packed_usage([m.pack_usage(STANDARD)] * 2)


def test_a_usage_of_only_a_context_figure_is_no_call() -> None:
    packed = m.pack_usage({"contextUsage": {"state": "available", "totalTokens": 5}})
    assert m.unpack_usage(packed) == {} and m.unpack_context_tokens(packed) == 5
    assert m.sum_packed_usage([packed, m.pack_usage({"output": 3})])[2] == 1


def test_usage_flags_of_values_that_are_not_objects() -> None:
    assert [m.usage_flags(v) for v in (None, 0, "", False, "x", 5, [], True)] == [0] * 4 + [m.FLAG_NON_OBJECT_USAGE] * 4


@pytest.mark.parametrize("release", ["openclaw-2026.4.12", RULES])
def test_fused_records_keep_api_cli_and_context_usage_as_the_general_path_does(release: str) -> None:
    est = rule_set(release).reader_estimates
    for api in ("cli", "openai-responses", None):
        for context_usage in (None, {"state": "available", "totalTokens": 9}, {"state": "unavailable"}, {}):
            message = assistant("hi", usage=dict(STANDARD))
            message["api"] = api
            if context_usage is not None:
                message["usage"]["contextUsage"] = context_usage
            obj = msg("a1", None, message)
            fused = est.fused["assistant"](obj, message, None)
            assert fused == message_record_reference(obj, 3, None, est.estimate_all)
            assert bool(fused.flags & m.FLAG_API_CLI) == (api == "cli")
            assert fused.flags & m.CONTEXT_USAGE_MASK == m.usage_flags(message["usage"])


def test_context_now_from_the_index_equals_the_loaded_messages(tmp_path: Path) -> None:
    """On generated contexts (barriers, measured and unavailable usages), the index's rows give what the full
    messages give."""
    rng = random.Random(9)
    with_usage = barred = 0
    for k in range(150):
        lines: list[Any] = [header(sid=f"s{k}"), msg("u0", None, user("hello"))]
        parent = "u0"
        for i, message in enumerate(random_context(rng, rng.randint(1, 10))):
            lines.append(msg(f"e{i}", parent, message))
            parent = f"e{i}"
        session = open_session(write_lines(tmp_path / f"s{k}.jsonl", lines), RULES)
        ctx = session.context()
        ours = rules.context_usage.last_context_usage(session, ctx)
        messages = session.context_messages(ctx)
        assert ours == rules.tokens.estimate_context_tokens(messages), lines
        with_usage += ours["last_usage_index"] is not None
        barred += ours["last_usage_index"] is None and any(mm.get("api") == "cli" for mm in messages)
    assert with_usage > 30 and barred > 10
