"""The cache-TTL gate of OpenClaw 2026.9.6: who is eligible, and the server-side clearing of direct Anthropic
API-key requests.

Unchanged from 2026.4.12 and imported from there: the one expiry rule (`ttl_expired`), the last cache touch
(`readLastCacheTtlTimestamp`), the gate and its projection. What changed:

* eligibility (`isCacheTtlEligibleProvider`, `src/agents/embedded-agent-runner/cache-ttl.ts`, and the bundled
  plugins' `isCacheTtlEligible` hooks): the Anthropic plugin answers yes for `anthropic`; the OpenAI plugin for
  `openai` on its platform or ChatGPT endpoint (or a model whose compat says `supportsPromptCacheKey`); the
  OpenRouter plugin for the model families anthropic, deepseek, moonshot(ai) and z(-)ai. There is no Z.AI or
  Kilocode plugin any more: `zai` falls to the Anthropic-family rules, `kilocode` with an `anthropic/` model is
  eligible by the generic rule;
* direct Anthropic API-key requests (provider `anthropic`, api `anthropic-messages`, the default endpoint or
  api.anthropic.com, an API key rather than OAuth) open no client-side pruning round: the request carries the
  server-side `clear_tool_uses_20250919` edit (`resolveAnthropicPayloadPolicy`,
  `applyAnthropicContextManagementEdits` in `@openclaw/ai`): `server_tool_clearing`.

New names: `ServerToolClearing`, `server_tool_clearing`, `is_direct_anthropic_endpoint`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from inspector.js.globmatch import GlobMatcher
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.pruning.ttl import (
    CACHE_TTL_CUSTOM_TYPE,
    SCENARIO_IF_ENABLED,
    SCENARIO_NOW,
    SOURCE_CACHE_TTL_ENTRY,
    SOURCE_LAST_ASSISTANT,
    SOURCE_NONE,
    CacheTouch,
    Eligibility,
    TtlGate,
    evaluate_ttl_gate,
    format_duration_ms,
    generic_cache_ttl_rule,
    is_anthropic_bedrock_model,
    iso_or_none,
    js_number,
    matches_cache_ttl_context,
    ms_from_any,
    project_ttl_gate,
    read_last_cache_touch,
    result_expiry,
    ttl_expired,
)

__all__ = [
    "CACHE_TTL_CUSTOM_TYPE",
    "SCENARIO_IF_ENABLED",
    "SCENARIO_NOW",
    "SOURCE_CACHE_TTL_ENTRY",
    "SOURCE_LAST_ASSISTANT",
    "SOURCE_NONE",
    "CacheTouch",
    "Eligibility",
    "ServerToolClearing",
    "TtlGate",
    "evaluate_ttl_gate",
    "format_duration_ms",
    "is_anthropic_bedrock_model",
    "is_cache_ttl_eligible",
    "is_direct_anthropic_endpoint",
    "iso_or_none",
    "js_number",
    "matches_cache_ttl_context",
    "ms_from_any",
    "project_ttl_gate",
    "read_last_cache_touch",
    "result_expiry",
    "server_tool_clearing",
    "ttl_expired",
]

_OPENROUTER_CACHE_TTL_MODEL_FAMILY = re.compile(r"^(?:anthropic|deepseek|moonshot(?:ai)?|z-?ai)/")
_OPENAI_PLATFORM_PATHS = ("", "/", "/v1", "/v1/")
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"
ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com"

CLEAR_TOOL_USES_EDIT = "clear_tool_uses_20250919"
CONTEXT_MANAGEMENT_BETA = "context-management-2025-06-27"
CLEAR_TRIGGER_MIN_TOKENS = 50_000
CLEAR_TRIGGER_WINDOW_SHARE = 0.3
CLEAR_AT_LEAST_MIN_TOKENS = 12_500
CLEAR_AT_LEAST_WINDOW_SHARE = 0.05
CLEAR_KEEP_TOOL_USES = 3


def _lower(value: Any) -> str:
    return js_trim(value).lower() if isinstance(value, str) else ""


def _host(base_url: str) -> str | None:
    try:
        host = urlsplit(js_trim(base_url)).hostname
    except ValueError:
        return None
    return host.rstrip(".") if host else None


def _openai_endpoint(base_url: str | None) -> str:
    """`classifyOpenAIBaseUrl`, as far as eligibility asks: `platform`, `chatgpt` or `other`."""
    url = js_trim(base_url) if isinstance(base_url, str) else ""
    if not url:
        return "unresolved"
    try:
        parts = urlsplit(url)
    except ValueError:
        return "invalid"
    host = (parts.hostname or "").rstrip(".")
    if host in ("api.openai.com", "chatgpt.com") and (parts.scheme != "https" or parts.port or parts.query or parts.fragment):
        return "invalid"
    if host == "api.openai.com" and parts.path in _OPENAI_PLATFORM_PATHS:
        return "platform"
    if host == "chatgpt.com" and (parts.path == "/backend-api" or parts.path.startswith("/backend-api/")):
        return "chatgpt"
    return "other"


def is_cache_ttl_eligible(
    provider: str | None,
    model_id: str | None,
    model_api: str | None = None,
    base_url: str | None = None,
    supports_prompt_cache_key: bool | None = None,
) -> Eligibility:
    """`isCacheTtlEligibleProvider(provider, modelId, modelApi, {baseUrl, supportsPromptCacheKey})`.

    `base_url` None is the provider's default endpoint (OpenAI: api.openai.com/v1, which is eligible)."""
    p = _lower(provider)
    m = _lower(model_id)

    def result(ok: bool, reason: str) -> Eligibility:
        return Eligibility(ok, reason, provider, model_id, model_api)

    if p == "anthropic":
        return result(True, "anthropic (Anthropic plugin)")
    if p == "openai":
        if supports_prompt_cache_key is not None:
            return result(supports_prompt_cache_key, f"OpenAI plugin: the model's supportsPromptCacheKey is {supports_prompt_cache_key}")
        endpoint = _openai_endpoint(base_url if base_url is not None else OPENAI_DEFAULT_BASE_URL)
        ok = endpoint in ("platform", "chatgpt")
        where = "the default endpoint" if base_url is None else f"endpoint {base_url!r}"
        return result(ok, f"OpenAI plugin: {where} is {'an OpenAI platform/ChatGPT one' if ok else 'not OpenAI platform or ChatGPT'}")
    if p == "openrouter":
        family = m.removeprefix("openrouter/").removeprefix("~")
        ok = bool(_OPENROUTER_CACHE_TTL_MODEL_FAMILY.match(family))
        return result(ok, f"OpenRouter plugin: model family anthropic/deepseek/moonshot/z-ai: {'eligible' if ok else 'not eligible'}")
    generic = generic_cache_ttl_rule(p, m, model_api)
    if generic is not None:
        return result(True, generic)
    if not p:
        return result(False, "no provider known for this session")
    return result(False, f"provider {provider!r} is not cache-TTL eligible: OpenClaw does not install pruning for it")


def is_direct_anthropic_endpoint(provider: Any, base_url: str | None) -> bool:
    """`isDirectAnthropicModel`: provider `anthropic` on the default endpoint or api.anthropic.com."""
    if _lower(provider) != "anthropic":
        return False
    return base_url is None or not js_trim(base_url) or _host(base_url) == "api.anthropic.com"


def _glob(patterns: Any) -> list[GlobMatcher]:
    return [GlobMatcher(p) for p in (_lower(x) for x in (patterns if isinstance(patterns, list) else [])) if p]


def clearing_exclusions(tools: Any, tool_names: list[str]) -> list[str]:
    """`resolveToolClearingExclusions`: the exact `tools.deny` names plus every tool of the request (its tool
    list and its transcript's tool calls, `tool_names`) that deny matches or allow (when given) does not."""
    tools = tools if isinstance(tools, dict) else {}
    allow, deny = _glob(tools.get("allow")), _glob(tools.get("deny"))
    if not allow and not deny:
        return []
    raw_deny = tools.get("deny") if isinstance(tools.get("deny"), list) else []
    excluded = {js_trim(n) for n in raw_deny if isinstance(n, str) and js_trim(n) and "*" not in n}
    for name in dict.fromkeys(tool_names):
        low = _lower(name)
        if any(g.matches(low) for g in deny) or (allow and not any(g.matches(low) for g in allow)):
            excluded.add(name)
    return sorted(excluded, key=lambda s: s.encode("utf-16-be", "surrogatepass"))


@dataclass(slots=True)
class ServerToolClearing:
    """The server-side `clear_tool_uses_20250919` edit a direct Anthropic API-key request carries instead of
    client-side pruning, and what it would clear of this context (the server decides; an estimate).

    `applies` is True (an API key is configured), False, or None (the auth is not known from the config: it
    applies if the gateway authenticates with an API key). `trigger_tokens` / `clear_at_least_tokens` are input
    tokens; `keep_tool_uses` the most recent tool uses kept. `input_tokens` is the context's estimate,
    `clearable` the tool results the edit may clear (older than the kept ones, not excluded), with their tokens.
    """

    applies: bool | None
    reason: str
    trigger_tokens: int
    clear_at_least_tokens: int
    keep_tool_uses: int = CLEAR_KEEP_TOOL_USES
    exclude_tools: list[str] = field(default_factory=list)
    input_tokens: int | None = None
    clearable: list[tuple[int, int]] = field(default_factory=list)

    @property
    def clearable_tokens(self) -> int:
        """Tokens of the tool results the edit may clear."""
        return sum(t for _, t in self.clearable)

    @property
    def would_clear(self) -> bool:
        """The context is past the trigger and the clearable results reach `clear_at_least`."""
        return bool(self.applies) and self.input_tokens is not None and self.input_tokens >= self.trigger_tokens and (
            self.clearable_tokens >= self.clear_at_least_tokens
        )

    def edit(self) -> dict[str, Any]:
        """The `context_management.edits[]` entry as OpenClaw sends it."""
        return {
            "type": CLEAR_TOOL_USES_EDIT,
            "trigger": {"type": "input_tokens", "value": self.trigger_tokens},
            "keep": {"type": "tool_uses", "value": self.keep_tool_uses},
            "clear_at_least": {"type": "input_tokens", "value": self.clear_at_least_tokens},
            "exclude_tools": list(self.exclude_tools),
            "clear_tool_inputs": False,
        }

    def to_json(self) -> dict[str, Any]:
        """`applies`, why, the edit, the beta header, and the estimate of what it would clear."""
        return {
            "applies": self.applies,
            "reason": self.reason,
            "edit": self.edit(),
            "beta": CONTEXT_MANAGEMENT_BETA,
            "input_tokens_estimate": self.input_tokens,
            "would_clear": self.would_clear,
            "clearable_indexes": [i for i, _ in self.clearable],
            "clearable_tokens": self.clearable_tokens,
        }


def server_tool_clearing(
    *,
    configured_mode: Any,
    provider: Any,
    model_api: str | None,
    auth_mode: str | None,
    context_window_tokens: int | None,
    tools: Any = None,
    base_url: str | None = None,
    messages: list[dict[str, Any]] | None = None,
    message_tokens: list[int] | None = None,
) -> ServerToolClearing | None:
    """The server-side clearing path for this request, or None when the request is not a direct Anthropic one.

    `auth_mode` is `api_key`, `oauth` or None (unknown); `message_tokens` the per-message token estimate (for
    `input_tokens` and the clearable results)."""
    if _lower(provider) != "anthropic" or _lower(model_api) != "anthropic-messages" or not is_direct_anthropic_endpoint(provider, base_url):
        return None
    window = context_window_tokens if isinstance(context_window_tokens, int) and context_window_tokens > 0 else 0
    trigger = max(CLEAR_TRIGGER_MIN_TOKENS, int(window * CLEAR_TRIGGER_WINDOW_SHARE))
    at_least = max(CLEAR_AT_LEAST_MIN_TOKENS, int(window * CLEAR_AT_LEAST_WINDOW_SHARE))
    if configured_mode != "cache-ttl":
        applies: bool | None = False
        reason = "contextPruning.mode is not cache-ttl: no clearing edit is sent"
    elif auth_mode == "oauth":
        applies, reason = False, "OAuth auth: the request keeps client-side pruning"
    elif auth_mode == "api_key":
        applies, reason = True, "direct Anthropic API-key request: the server clears old tool results, no client-side round"
    else:
        applies, reason = None, "direct Anthropic request: the server clears if the gateway uses an API key (not OAuth); auth not known"
    msgs = messages or []
    names = [b["name"] for m in msgs if m.get("role") == "assistant" and isinstance(m.get("content"), list)
             for b in m["content"] if isinstance(b, dict) and b.get("type") == "toolCall" and isinstance(b.get("name"), str)]
    out = ServerToolClearing(applies, reason, trigger, at_least, exclude_tools=clearing_exclusions(tools, names))
    if message_tokens is not None and len(message_tokens) == len(msgs):
        out.input_tokens = sum(message_tokens)
        results = [i for i, m in enumerate(msgs) if m.get("role") == "toolResult"]
        kept = set(results[-CLEAR_KEEP_TOOL_USES:]) if CLEAR_KEEP_TOOL_USES else set()
        excluded = set(out.exclude_tools)
        out.clearable = [(i, message_tokens[i]) for i in results if i not in kept and msgs[i].get("toolName") not in excluded]
    return out
