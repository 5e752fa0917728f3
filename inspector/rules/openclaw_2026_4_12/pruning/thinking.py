"""`dropThinkingBlocks` as the pinned OpenClaw has it, and the transcript policy that turns it on.

Sources (OpenClaw 2026.4.12, the build of commit 8f8492d1): `src/agents/pi-embedded-runner/thinking.ts`,
`src/agents/transcript-policy.ts` (`resolveTranscriptPolicy`, `buildUnownedProviderTransportReplayFallback`),
`src/plugins/provider-replay-helpers.ts` (`shouldPreserveThinkingBlocks`, the replay-policy families) and the
bundled provider plugins' `buildReplayPolicy` hooks.

The pruner estimates the context over `dropThinkingBlocks(messages)` when the policy sets it
(`dropThinkingBlocksForEstimate: runtime.dropThinkingBlocks`). In this version an assistant message left with
no blocks gets one *empty* text block (0 chars); newer OpenClaw writes `[assistant reasoning omitted]`
(29 chars) instead, which is not what the pinned version counts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.window_guard import normalize_provider_id

EMPTY_TEXT_BLOCK: dict[str, Any] = {"type": "text", "text": ""}

ANTHROPIC_APIS = ("anthropic-messages", "bedrock-converse-stream")


def _is_assistant_with_content(msg: Any) -> bool:
    return isinstance(msg, dict) and msg.get("role") == "assistant" and isinstance(msg.get("content"), list)


def _is_thinking_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking")


def drop_thinking_blocks(messages: Sequence[Any]) -> list[Any]:
    """`dropThinkingBlocks`: thinking and redacted_thinking blocks removed from every assistant message with
    array content except the latest one; an assistant left empty gets `[{"type": "text", "text": ""}]`.

    Returns a new list; unchanged messages are the same objects, changed ones shallow copies.
    """
    latest = -1
    for i in range(len(messages) - 1, -1, -1):
        if _is_assistant_with_content(messages[i]):
            latest = i
            break
    out: list[Any] = []
    for i, msg in enumerate(messages):
        if i == latest or not _is_assistant_with_content(msg):
            out.append(msg)
            continue
        kept = [b for b in msg["content"] if not _is_thinking_block(b)]
        if len(kept) == len(msg["content"]):
            out.append(msg)
            continue
        copy = dict(msg)
        copy["content"] = kept if kept else [dict(EMPTY_TEXT_BLOCK)]
        out.append(copy)
    return out


# ---------------------------------------------------------------------------------------------------------
# The transcript policy's `dropThinkingBlocks`


def should_preserve_thinking_blocks(model_id: Any) -> bool:
    """`shouldPreserveThinkingBlocks`: Claude models that keep thinking in context natively (Opus/Sonnet/Haiku 4+,
    `claude-5`... and later)."""
    m = js_trim(model_id).lower() if isinstance(model_id, str) else ""
    if "claude" not in m:
        return False
    if "opus-4" in m or "sonnet-4" in m or "haiku-4" in m:
        return True
    return re.search(r"claude-[5-9]", m) is not None or re.search(r"claude-\d{2,}", m) is not None


# Which bundled plugin owns `buildReplayPolicy` for a provider id (ids, aliases and hook aliases), and its rule.
_ANTHROPIC_BY_MODEL = "anthropic_by_model"  # Claude and not preserved
_CLAUDE_ALWAYS = "claude_always"  # github-copilot: any Claude model
_HYBRID = "hybrid_anthropic_openai"  # minimax: Claude on an Anthropic api and not preserved
_NEVER = "never"  # the policy never sets dropThinkingBlocks
_REPLAY_POLICY_OWNERS: dict[str, tuple[str, str]] = {
    "anthropic": (_ANTHROPIC_BY_MODEL, "Anthropic plugin"),
    "claude-cli": (_ANTHROPIC_BY_MODEL, "Anthropic plugin (claude-cli)"),
    "anthropic-vertex": (_ANTHROPIC_BY_MODEL, "Anthropic Vertex plugin"),
    "amazon-bedrock": (_ANTHROPIC_BY_MODEL, "Amazon Bedrock plugin"),
    "github-copilot": (_CLAUDE_ALWAYS, "GitHub Copilot plugin"),
    "minimax": (_HYBRID, "MiniMax plugin"),
    "minimax-cn": (_HYBRID, "MiniMax plugin"),
    "minimax-portal": (_HYBRID, "MiniMax plugin"),
    "minimax-portal-cn": (_HYBRID, "MiniMax plugin"),
    **dict.fromkeys(("openrouter", "kilocode", "opencode", "opencode-go", "zai", "moonshot", "ollama", "xai", "x-ai", "arcee", "fireworks", "fireworks-ai", "kimi", "mistral", "openai", "azure-openai", "azure-openai-responses", "openai-codex", "google", "google-antigravity", "google-vertex", "google-gemini-cli", "gemini-cli"), (_NEVER, "its plugin's replay policy")),
}


@dataclass(frozen=True, slots=True)
class DropThinkingPolicy:
    """Whether the transcript policy drops thinking blocks for this provider/model (and so for the estimate)."""

    drop: bool
    reason: str
    source: str = "transcript_policy"  # or "flag" when forced from the command line / options

    def to_json(self) -> dict[str, Any]:
        """`drop`, where the decision came from, and the rule in words."""
        return {"drop": self.drop, "source": self.source, "reason": self.reason}


def resolve_drop_thinking_blocks(provider: Any, model_id: Any, model_api: Any) -> DropThinkingPolicy:
    """`resolveTranscriptPolicy({provider, modelId, modelApi}).dropThinkingBlocks`, bundled plugins built in."""
    p = normalize_provider_id(provider)
    m = js_trim(model_id).lower() if isinstance(model_id, str) else ""
    claude = "claude" in m
    preserved = should_preserve_thinking_blocks(model_id)
    owner = _REPLAY_POLICY_OWNERS.get(p)
    if owner is not None:
        rule, who = owner
        if rule == _ANTHROPIC_BY_MODEL:
            drop = claude and not preserved
            return DropThinkingPolicy(drop, f"{who}: {_claude_rule(claude, preserved)}")
        if rule == _CLAUDE_ALWAYS:
            return DropThinkingPolicy(claude, f"{who}: {'a Claude model: drop' if claude else 'not a Claude model: keep'}")
        if rule == _HYBRID:
            if model_api not in ANTHROPIC_APIS:
                return DropThinkingPolicy(False, f"{who}: api {model_api!r} is not an Anthropic api: keep")
            drop = claude and not preserved
            return DropThinkingPolicy(drop, f"{who}: {_claude_rule(claude, preserved)}")
        return DropThinkingPolicy(False, f"{who} never drops thinking blocks")
    if model_api in ANTHROPIC_APIS and claude:
        drop = not preserved
        return DropThinkingPolicy(drop, f"no replay-policy plugin; api {model_api}: {_claude_rule(claude, preserved)}")
    return DropThinkingPolicy(False, "no replay-policy plugin and not a Claude model on an Anthropic api: keep")


def _claude_rule(claude: bool, preserved: bool) -> str:
    if not claude:
        return "not a Claude model: keep"
    if preserved:
        return "a Claude 4+ model that keeps thinking in context: keep"
    return "an older Claude model: drop"
