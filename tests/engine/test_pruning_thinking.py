"""`dropThinkingBlocks` (pinned thinking.ts) and the transcript policy that sets it, per bundled provider plugin.

The generic rules (`shouldPreserveThinkingBlocks`, the unowned-provider fallback, the replay-policy families) are
also checked against OpenClaw's own code in test_pruning_oracle; this file pins which plugin owns which provider
id in 2026.4.12 (read from the bundled plugins' `buildReplayPolicy` registrations).
"""

from __future__ import annotations

import pytest

from inspector.rules.openclaw_2026_4_12.pruning.thinking import (
    drop_thinking_blocks,
    resolve_drop_thinking_blocks,
    should_preserve_thinking_blocks,
)
from inspector.rules.openclaw_2026_4_12.tokens import openclaw_prune_chars

THINK = {"type": "thinking", "thinking": "abc", "thinkingSignature": "sig"}
REDACTED = {"type": "redacted_thinking", "data": "opaque"}


def assistant(*blocks):
    return {"role": "assistant", "content": list(blocks)}


def test_latest_assistant_with_array_content_is_spared():
    older = assistant(THINK, {"type": "text", "text": "hi"})
    only_thinking = assistant(REDACTED, THINK)
    latest = assistant(THINK)
    string_content = {"role": "assistant", "content": "not an array: never the latest, never changed"}
    msgs = [older, {"role": "user", "content": "x"}, only_thinking, latest, string_content]
    out = drop_thinking_blocks(msgs)
    assert out[0] == assistant({"type": "text", "text": "hi"}) and out[0] is not older
    assert out[2]["content"] == [{"type": "text", "text": ""}]  # pinned: empty text, not "[assistant reasoning omitted]"
    assert out[3] is latest and out[4] is string_content and out[1] is msgs[1]
    assert msgs[0]["content"][0] is THINK  # input untouched
    assert openclaw_prune_chars(out[2]) == 0


def test_nothing_to_drop_returns_the_same_messages():
    msgs = [assistant({"type": "text", "text": "a"}), assistant(THINK)]
    out = drop_thinking_blocks(msgs)
    assert out == msgs and all(a is b for a, b in zip(out, msgs))


@pytest.mark.parametrize(
    "model,preserved",
    [
        ("claude-3-7-sonnet-20250219", False),
        ("claude-3-opus", False),
        ("claude-sonnet-4-5", True),
        ("anthropic/claude-opus-4.1", True),
        ("us.anthropic.claude-haiku-4-5-v1:0", True),
        ("claude-5-pro", True),
        ("claude-12", True),
        ("gpt-5", False),
        (None, False),
    ],
)
def test_should_preserve_thinking_blocks(model, preserved):
    assert should_preserve_thinking_blocks(model) is preserved


@pytest.mark.parametrize(
    "provider,model,api,drop",
    [
        # Anthropic plugin (and its claude-cli hook alias), Anthropic Vertex, Bedrock: Claude and not preserved.
        ("anthropic", "claude-3-7-sonnet", "anthropic-messages", True),
        ("anthropic", "claude-sonnet-4-5", "anthropic-messages", False),
        ("anthropic", "some-other-model", "anthropic-messages", False),
        ("claude-cli", "claude-3-5-haiku", None, True),
        ("anthropic-vertex", "claude-3-5-sonnet@20240620", None, True),
        ("amazon-bedrock", "us.anthropic.claude-3-7-sonnet-v1:0", "bedrock-converse-stream", True),
        ("Bedrock", "anthropic.claude-3-haiku", "openai-completions", True),  # normalizeProviderId alias
        # GitHub Copilot: any Claude model, preserved or not.
        ("github-copilot", "claude-sonnet-4.5", "anthropic-messages", True),
        ("github-copilot", "gpt-5", "openai-responses", False),
        # MiniMax (hybrid family with anthropicModelDropThinkingBlocks): only on an Anthropic api.
        ("minimax", "claude-3-7-sonnet", "anthropic-messages", True),
        ("minimax-cn", "claude-3-7-sonnet", "openai-completions", False),
        # Plugins whose replay policy never sets it, even for an old Claude on an Anthropic api.
        ("openrouter", "anthropic/claude-3-7-sonnet", "anthropic-messages", False),
        ("kilocode", "anthropic/claude-3-opus", "anthropic-messages", False),
        ("zai", "claude-3-opus", "anthropic-messages", False),
        ("google", "claude-3-opus", "anthropic-messages", False),
        ("openai", "claude-3-opus", "anthropic-messages", False),
        # No replay-policy plugin: the transport fallback (Anthropic api + Claude -> not preserved).
        ("my-proxy", "claude-3-7-sonnet", "anthropic-messages", True),
        ("my-proxy", "claude-3-7-sonnet", "bedrock-converse-stream", True),
        ("my-proxy", "claude-opus-4-1", "anthropic-messages", False),
        ("my-proxy", "claude-3-7-sonnet", "openai-completions", False),
        ("deepseek", "claude-3-7-sonnet", "anthropic-messages", True),  # a plugin without buildReplayPolicy
    ],
)
def test_transcript_policy_per_provider(provider, model, api, drop):
    decision = resolve_drop_thinking_blocks(provider, model, api)
    assert decision.drop is drop and decision.reason and decision.source == "transcript_policy"
