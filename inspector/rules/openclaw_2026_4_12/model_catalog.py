"""Known context windows and prices of common models (the "model" step of the window resolution, spec §5).

Values come from pi-ai 0.66.1 (the version OpenClaw 2026.4 pins), ``packages/ai/src/models.generated.ts``
(built as ``dist/models.generated.js`` in the ``@mariozechner/pi-ai@0.66.1`` npm package), for the providers
``anthropic``, ``openai``, ``openai-codex``, ``google``, ``github-copilot``, ``xai``, ``zai``, ``kimi-coding`` and
``minimax`` (old Gemini 1.5/live, Grok 2 and vision-beta entries left out). The same model id can have a different
window per provider (``github-copilot`` serves smaller windows, ``openai-codex`` caps GPT-5.x at 272k), so the
provider is part of the key. Prices are US dollars per million tokens, as in pi-ai's ``cost`` fields.
To refresh: ``npm pack @mariozechner/pi-ai@<version>``, import ``MODELS`` from ``dist/models.generated.js`` with
node, and dump ``provider, id, contextWindow, maxTokens, cost.{input,output,cacheRead,cacheWrite}``.
"""

from __future__ import annotations

from dataclasses import dataclass

PI_AI_VERSION = "0.66.1"


@dataclass(frozen=True)
class KnownModel:
    """One catalog entry: a model's context window and per-million-token prices."""

    provider: str
    model_id: str
    context_window: int
    max_tokens: int
    input_cost: float
    output_cost: float
    cache_read_cost: float
    cache_write_cost: float

    @property
    def key(self) -> str:
        """``provider/model_id``, as OpenClaw and pi write model refs."""
        return f"{self.provider}/{self.model_id}"


# (provider, id, contextWindow, maxTokens, cost.input, cost.output, cost.cacheRead, cost.cacheWrite)
_ROWS: tuple[tuple[str, str, int, int, float, float, float, float], ...] = (
    ("anthropic", "claude-3-5-haiku-20241022", 200000, 8192, 0.8, 4, 0.08, 1),
    ("anthropic", "claude-3-5-haiku-latest", 200000, 8192, 0.8, 4, 0.08, 1),
    ("anthropic", "claude-3-5-sonnet-20240620", 200000, 8192, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-3-5-sonnet-20241022", 200000, 8192, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-3-7-sonnet-20250219", 200000, 64000, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-3-haiku-20240307", 200000, 4096, 0.25, 1.25, 0.03, 0.3),
    ("anthropic", "claude-3-opus-20240229", 200000, 4096, 15, 75, 1.5, 18.75),
    ("anthropic", "claude-3-sonnet-20240229", 200000, 4096, 3, 15, 0.3, 0.3),
    ("anthropic", "claude-haiku-4-5", 200000, 64000, 1, 5, 0.1, 1.25),
    ("anthropic", "claude-haiku-4-5-20251001", 200000, 64000, 1, 5, 0.1, 1.25),
    ("anthropic", "claude-opus-4-0", 200000, 32000, 15, 75, 1.5, 18.75),
    ("anthropic", "claude-opus-4-1", 200000, 32000, 15, 75, 1.5, 18.75),
    ("anthropic", "claude-opus-4-1-20250805", 200000, 32000, 15, 75, 1.5, 18.75),
    ("anthropic", "claude-opus-4-20250514", 200000, 32000, 15, 75, 1.5, 18.75),
    ("anthropic", "claude-opus-4-5", 200000, 64000, 5, 25, 0.5, 6.25),
    ("anthropic", "claude-opus-4-5-20251101", 200000, 64000, 5, 25, 0.5, 6.25),
    ("anthropic", "claude-opus-4-6", 1000000, 128000, 5, 25, 0.5, 6.25),
    ("anthropic", "claude-sonnet-4-0", 200000, 64000, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-sonnet-4-20250514", 200000, 64000, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-sonnet-4-5", 200000, 64000, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-sonnet-4-5-20250929", 200000, 64000, 3, 15, 0.3, 3.75),
    ("anthropic", "claude-sonnet-4-6", 1000000, 64000, 3, 15, 0.3, 3.75),
    ("openai", "codex-mini-latest", 200000, 100000, 1.5, 6, 0.375, 0),
    ("openai", "gpt-4", 8192, 8192, 30, 60, 0, 0),
    ("openai", "gpt-4-turbo", 128000, 4096, 10, 30, 0, 0),
    ("openai", "gpt-4.1", 1047576, 32768, 2, 8, 0.5, 0),
    ("openai", "gpt-4.1-mini", 1047576, 32768, 0.4, 1.6, 0.1, 0),
    ("openai", "gpt-4.1-nano", 1047576, 32768, 0.1, 0.4, 0.03, 0),
    ("openai", "gpt-4o", 128000, 16384, 2.5, 10, 1.25, 0),
    ("openai", "gpt-4o-2024-05-13", 128000, 4096, 5, 15, 0, 0),
    ("openai", "gpt-4o-2024-08-06", 128000, 16384, 2.5, 10, 1.25, 0),
    ("openai", "gpt-4o-2024-11-20", 128000, 16384, 2.5, 10, 1.25, 0),
    ("openai", "gpt-4o-mini", 128000, 16384, 0.15, 0.6, 0.08, 0),
    ("openai", "gpt-5", 400000, 128000, 1.25, 10, 0.125, 0),
    ("openai", "gpt-5-chat-latest", 128000, 16384, 1.25, 10, 0.125, 0),
    ("openai", "gpt-5-codex", 400000, 128000, 1.25, 10, 0.125, 0),
    ("openai", "gpt-5-mini", 400000, 128000, 0.25, 2, 0.025, 0),
    ("openai", "gpt-5-nano", 400000, 128000, 0.05, 0.4, 0.005, 0),
    ("openai", "gpt-5-pro", 400000, 272000, 15, 120, 0, 0),
    ("openai", "gpt-5.1", 400000, 128000, 1.25, 10, 0.13, 0),
    ("openai", "gpt-5.1-chat-latest", 128000, 16384, 1.25, 10, 0.125, 0),
    ("openai", "gpt-5.1-codex", 400000, 128000, 1.25, 10, 0.125, 0),
    ("openai", "gpt-5.1-codex-max", 400000, 128000, 1.25, 10, 0.125, 0),
    ("openai", "gpt-5.1-codex-mini", 400000, 128000, 0.25, 2, 0.025, 0),
    ("openai", "gpt-5.2", 400000, 128000, 1.75, 14, 0.175, 0),
    ("openai", "gpt-5.2-chat-latest", 128000, 16384, 1.75, 14, 0.175, 0),
    ("openai", "gpt-5.2-codex", 400000, 128000, 1.75, 14, 0.175, 0),
    ("openai", "gpt-5.2-pro", 400000, 128000, 21, 168, 0, 0),
    ("openai", "gpt-5.3-chat-latest", 128000, 16384, 1.75, 14, 0.175, 0),
    ("openai", "gpt-5.3-codex", 400000, 128000, 1.75, 14, 0.175, 0),
    ("openai", "gpt-5.3-codex-spark", 128000, 32000, 1.75, 14, 0.175, 0),
    ("openai", "gpt-5.4", 272000, 128000, 2.5, 15, 0.25, 0),
    ("openai", "gpt-5.4-mini", 400000, 128000, 0.75, 4.5, 0.075, 0),
    ("openai", "gpt-5.4-nano", 400000, 128000, 0.2, 1.25, 0.02, 0),
    ("openai", "gpt-5.4-pro", 1050000, 128000, 30, 180, 0, 0),
    ("openai", "o1", 200000, 100000, 15, 60, 7.5, 0),
    ("openai", "o1-pro", 200000, 100000, 150, 600, 0, 0),
    ("openai", "o3", 200000, 100000, 2, 8, 0.5, 0),
    ("openai", "o3-deep-research", 200000, 100000, 10, 40, 2.5, 0),
    ("openai", "o3-mini", 200000, 100000, 1.1, 4.4, 0.55, 0),
    ("openai", "o3-pro", 200000, 100000, 20, 80, 0, 0),
    ("openai", "o4-mini", 200000, 100000, 1.1, 4.4, 0.28, 0),
    ("openai", "o4-mini-deep-research", 200000, 100000, 2, 8, 0.5, 0),
    ("openai-codex", "gpt-5.1", 272000, 128000, 1.25, 10, 0.125, 0),
    ("openai-codex", "gpt-5.1-codex-max", 272000, 128000, 1.25, 10, 0.125, 0),
    ("openai-codex", "gpt-5.1-codex-mini", 272000, 128000, 0.25, 2, 0.025, 0),
    ("openai-codex", "gpt-5.2", 272000, 128000, 1.75, 14, 0.175, 0),
    ("openai-codex", "gpt-5.2-codex", 272000, 128000, 1.75, 14, 0.175, 0),
    ("openai-codex", "gpt-5.3-codex", 272000, 128000, 1.75, 14, 0.175, 0),
    ("openai-codex", "gpt-5.3-codex-spark", 128000, 128000, 0, 0, 0, 0),
    ("openai-codex", "gpt-5.4", 272000, 128000, 2.5, 15, 0.25, 0),
    ("openai-codex", "gpt-5.4-mini", 272000, 128000, 0.75, 4.5, 0.075, 0),
    ("google", "gemini-2.0-flash", 1048576, 8192, 0.1, 0.4, 0.025, 0),
    ("google", "gemini-2.0-flash-lite", 1048576, 8192, 0.075, 0.3, 0, 0),
    ("google", "gemini-2.5-flash", 1048576, 65536, 0.3, 2.5, 0.075, 0),
    ("google", "gemini-2.5-flash-lite", 1048576, 65536, 0.1, 0.4, 0.025, 0),
    ("google", "gemini-2.5-flash-lite-preview-06-17", 1048576, 65536, 0.1, 0.4, 0.025, 0),
    ("google", "gemini-2.5-flash-lite-preview-09-2025", 1048576, 65536, 0.1, 0.4, 0.025, 0),
    ("google", "gemini-2.5-flash-preview-04-17", 1048576, 65536, 0.15, 0.6, 0.0375, 0),
    ("google", "gemini-2.5-flash-preview-05-20", 1048576, 65536, 0.15, 0.6, 0.0375, 0),
    ("google", "gemini-2.5-flash-preview-09-2025", 1048576, 65536, 0.3, 2.5, 0.075, 0),
    ("google", "gemini-2.5-pro", 1048576, 65536, 1.25, 10, 0.31, 0),
    ("google", "gemini-2.5-pro-preview-05-06", 1048576, 65536, 1.25, 10, 0.31, 0),
    ("google", "gemini-2.5-pro-preview-06-05", 1048576, 65536, 1.25, 10, 0.31, 0),
    ("google", "gemini-3-flash-preview", 1048576, 65536, 0.5, 3, 0.05, 0),
    ("google", "gemini-3-pro-preview", 1000000, 64000, 2, 12, 0.2, 0),
    ("google", "gemini-3.1-flash-lite-preview", 1048576, 65536, 0.25, 1.5, 0.025, 1),
    ("google", "gemini-3.1-pro-preview", 1048576, 65536, 2, 12, 0.2, 0),
    ("google", "gemini-3.1-pro-preview-customtools", 1048576, 65536, 2, 12, 0.2, 0),
    ("google", "gemini-flash-latest", 1048576, 65536, 0.3, 2.5, 0.075, 0),
    ("google", "gemini-flash-lite-latest", 1048576, 65536, 0.1, 0.4, 0.025, 0),
    ("google", "gemma-4-26b-it", 256000, 8192, 0, 0, 0, 0),
    ("google", "gemma-4-31b-it", 256000, 8192, 0, 0, 0, 0),
    ("github-copilot", "claude-haiku-4.5", 144000, 32000, 0, 0, 0, 0),
    ("github-copilot", "claude-opus-4.5", 160000, 32000, 0, 0, 0, 0),
    ("github-copilot", "claude-opus-4.6", 1000000, 64000, 0, 0, 0, 0),
    ("github-copilot", "claude-sonnet-4", 216000, 16000, 0, 0, 0, 0),
    ("github-copilot", "claude-sonnet-4.5", 144000, 32000, 0, 0, 0, 0),
    ("github-copilot", "claude-sonnet-4.6", 1000000, 32000, 0, 0, 0, 0),
    ("github-copilot", "gemini-2.5-pro", 128000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gemini-3-flash-preview", 128000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gemini-3-pro-preview", 128000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gemini-3.1-pro-preview", 128000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gpt-4.1", 128000, 16384, 0, 0, 0, 0),
    ("github-copilot", "gpt-4o", 128000, 4096, 0, 0, 0, 0),
    ("github-copilot", "gpt-5", 128000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5-mini", 264000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.1", 264000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.1-codex", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.1-codex-max", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.1-codex-mini", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.2", 264000, 64000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.2-codex", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.3-codex", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.4", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "gpt-5.4-mini", 400000, 128000, 0, 0, 0, 0),
    ("github-copilot", "grok-code-fast-1", 128000, 64000, 0, 0, 0, 0),
    ("xai", "grok-3", 131072, 8192, 3, 15, 0.75, 0),
    ("xai", "grok-3-fast", 131072, 8192, 5, 25, 1.25, 0),
    ("xai", "grok-3-fast-latest", 131072, 8192, 5, 25, 1.25, 0),
    ("xai", "grok-3-latest", 131072, 8192, 3, 15, 0.75, 0),
    ("xai", "grok-3-mini", 131072, 8192, 0.3, 0.5, 0.075, 0),
    ("xai", "grok-3-mini-fast", 131072, 8192, 0.6, 4, 0.15, 0),
    ("xai", "grok-3-mini-fast-latest", 131072, 8192, 0.6, 4, 0.15, 0),
    ("xai", "grok-3-mini-latest", 131072, 8192, 0.3, 0.5, 0.075, 0),
    ("xai", "grok-4", 256000, 64000, 3, 15, 0.75, 0),
    ("xai", "grok-4-1-fast", 2000000, 30000, 0.2, 0.5, 0.05, 0),
    ("xai", "grok-4-1-fast-non-reasoning", 2000000, 30000, 0.2, 0.5, 0.05, 0),
    ("xai", "grok-4-fast", 2000000, 30000, 0.2, 0.5, 0.05, 0),
    ("xai", "grok-4-fast-non-reasoning", 2000000, 30000, 0.2, 0.5, 0.05, 0),
    ("xai", "grok-4.20-0309-non-reasoning", 2000000, 30000, 2, 6, 0.2, 0),
    ("xai", "grok-4.20-0309-reasoning", 2000000, 30000, 2, 6, 0.2, 0),
    ("xai", "grok-code-fast-1", 256000, 10000, 0.2, 1.5, 0.02, 0),
    ("zai", "glm-4.5", 131072, 98304, 0, 0, 0, 0),
    ("zai", "glm-4.5-air", 131072, 98304, 0, 0, 0, 0),
    ("zai", "glm-4.5-flash", 131072, 98304, 0, 0, 0, 0),
    ("zai", "glm-4.5v", 64000, 16384, 0, 0, 0, 0),
    ("zai", "glm-4.6", 204800, 131072, 0, 0, 0, 0),
    ("zai", "glm-4.6v", 128000, 32768, 0, 0, 0, 0),
    ("zai", "glm-4.7", 204800, 131072, 0, 0, 0, 0),
    ("zai", "glm-4.7-flash", 200000, 131072, 0, 0, 0, 0),
    ("zai", "glm-4.7-flashx", 200000, 131072, 0.07, 0.4, 0.01, 0),
    ("zai", "glm-5", 204800, 131072, 0, 0, 0, 0),
    ("zai", "glm-5-turbo", 200000, 131072, 0, 0, 0, 0),
    ("zai", "glm-5.1", 200000, 131072, 0, 0, 0, 0),
    ("zai", "glm-5v-turbo", 200000, 131072, 0, 0, 0, 0),
    ("kimi-coding", "k2p5", 262144, 32768, 0, 0, 0, 0),
    ("kimi-coding", "kimi-k2-thinking", 262144, 32768, 0, 0, 0, 0),
    ("minimax", "MiniMax-M2.7", 204800, 131072, 0.3, 1.2, 0.06, 0.375),
    ("minimax", "MiniMax-M2.7-highspeed", 204800, 131072, 0.6, 2.4, 0.06, 0.375),
)

KNOWN_MODELS: tuple[KnownModel, ...] = tuple(KnownModel(*row) for row in _ROWS)

# Which provider's entry wins when only the model id matches (first-party APIs before resellers).
_FALLBACK_PROVIDER_ORDER = (
    "anthropic",
    "openai",
    "google",
    "xai",
    "zai",
    "kimi-coding",
    "minimax",
    "openai-codex",
    "github-copilot",
)

_BY_KEY: dict[tuple[str, str], KnownModel] = {(m.provider, m.model_id): m for m in KNOWN_MODELS}
_BY_ID: dict[str, KnownModel] = {}
for _provider in _FALLBACK_PROVIDER_ORDER:
    for _model in KNOWN_MODELS:
        if _model.provider == _provider:
            _BY_ID.setdefault(_model.model_id, _model)


def known_model(provider: str | None, model_id: str | None) -> KnownModel | None:
    """The catalog entry for ``provider``/``model_id``.

    Order: exact provider and id; provider compared case-insensitively (ids stay exact, as pi-ai's lookups are);
    then the id alone, preferring first-party providers (see ``_FALLBACK_PROVIDER_ORDER``). None when unknown.
    """
    if not model_id:
        return None
    if provider:
        exact = _BY_KEY.get((provider, model_id))
        if exact is not None:
            return exact
        folded = _BY_KEY.get((provider.strip().lower(), model_id))
        if folded is not None:
            return folded
    return _BY_ID.get(model_id)
