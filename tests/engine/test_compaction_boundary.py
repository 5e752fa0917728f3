"""OpenClaw's "nothing real to summarize" rule and the structured fallback summary of a boundary compaction."""

from __future__ import annotations

import pytest

from inspector.rules.openclaw_2026_4_12.compaction.boundary import (
    any_real_conversation,
    build_structured_fallback_summary,
    has_meaningful_conversation_content,
    has_meaningful_text,
    has_required_summary_sections,
)
from inspector.rules.openclaw_2026_4_12.heartbeat import strip_heartbeat_token

# (text, hasMeaningfulText, stripHeartbeatToken(text, {mode: "message"}) as (text, didStrip)): every row was
# checked against OpenClaw 2026.4's compiled functions run with node (heartbeat-*.js, tokens-*.js).
CASES = [
    ("", False, ("", False)),
    ("  \n\t\u3000", False, ("", False)),
    ("NO_REPLY", False, ("NO_REPLY", False)),
    ("  no_reply \n", False, ("no_reply", False)),
    ("NO_REPLY please", True, ("NO_REPLY please", False)),
    ("HEARTBEAT_OK", False, ("", True)),
    ("**HEARTBEAT_OK**", True, ("****", True)),
    ("HEARTBEAT_OK.", True, (".", True)),
    ("<b>HEARTBEAT_OK</b>", False, ("", True)),
    ("HEARTBEAT_OK all good here", True, ("all good here", True)),
    ("done HEARTBEAT_OK", True, ("done", True)),
    ("hello", True, ("hello", False)),
    ("\ufeff", False, ("", False)),
    ("  HEARTBEAT_OK   then   more ", True, ("then more", True)),
    ("fine HEARTBEAT_OK!!", True, ("fine!!", True)),
    ("a HEARTBEAT_OK b", True, ("a HEARTBEAT_OK b", False)),
    ("HEARTBEAT_OK HEARTBEAT_OK", False, ("", True)),
    ("x\u00a0HEARTBEAT_OK_", True, ("x", True)),
    ("HEARTBEAT_OK\n", False, ("", True)),
]


@pytest.mark.parametrize(("text", "meaningful", "stripped"), CASES)
def test_meaningful_text_and_heartbeat_strip(text, meaningful, stripped):
    assert has_meaningful_text(text) is meaningful
    result = strip_heartbeat_token(text)
    assert (result.text, result.did_strip) == stripped


def test_meaningful_conversation_content():
    assert has_meaningful_conversation_content({"content": [{"type": "toolCall", "id": "x"}, {"type": "thinking", "thinking": "t"}]}) is False
    assert has_meaningful_conversation_content({"content": [{"type": "image", "data": "..."}]}) is True
    assert has_meaningful_conversation_content({"content": [{"type": "text", "text": "NO_REPLY"}, {"type": "text", "text": "yes"}]}) is True
    assert has_meaningful_conversation_content({"content": "HEARTBEAT_OK"}) is False
    assert has_meaningful_conversation_content({"content": 7}) is False


def test_any_real_conversation():
    msgs = [
        {"role": "custom", "content": "note"},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "a"}]},
        {"role": "toolResult", "content": [{"type": "text", "text": "x"}]},
        {"role": "user", "content": "HEARTBEAT_OK"},
    ]
    loaded = []

    def load(i):
        loaded.append(i)
        return msgs[i]

    roles = [m["role"] for m in msgs]
    kinds = [("string",), ("toolCall",), ("text",), ("string",)]
    assert any_real_conversation(roles, load, kinds) is None
    assert 1 not in loaded  # decided from the block kinds, not read
    # a tool result counts when a meaningful user message is within the 20 before it
    msgs2 = [{"role": "user", "content": "please run it"}] + [{"role": "custom", "content": ""}] * 19 + [{"role": "toolResult", "content": []}]
    assert any_real_conversation([m["role"] for m in msgs2], lambda i: msgs2[i]) == 0
    msgs3 = [{"role": "user", "content": "NO_REPLY"}, {"role": "toolResult", "content": []}]
    assert any_real_conversation([m["role"] for m in msgs3], lambda i: msgs3[i]) is None


FALLBACK = (
    "## Decisions\nNo prior history.\n\n## Open TODOs\nNone.\n\n## Constraints/Rules\nNone.\n\n"
    "## Pending user asks\nNone.\n\n## Exact identifiers\nNone captured."
)


def test_structured_fallback_summary():
    assert build_structured_fallback_summary(None) == FALLBACK
    assert build_structured_fallback_summary("  old goal  ") == FALLBACK.replace("No prior history.", "old goal")
    full = "## Decisions\nx\n## Open TODOs\n## Constraints/Rules\n  ## Pending user asks\n## Exact identifiers\nid-1"
    assert has_required_summary_sections(full)
    assert build_structured_fallback_summary("\n" + full + "\n") == full
    out_of_order = "## Open TODOs\n## Decisions\n## Constraints/Rules\n## Pending user asks\n## Exact identifiers"
    assert not has_required_summary_sections(out_of_order)
