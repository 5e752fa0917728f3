"""OpenClaw 2026.9.6's overflow classification of error texts (`rules.triggers.is_context_overflow_error`, the
`compaction/overflow.py` port) against the real functions (`openclaw_2026_9` fixture; skips when absent).

Texts: real provider overflow, rate-limit, TPM, billing and reasoning errors; strings generated from every pattern
of the release's own tables (`hypothesis` `from_regex`), then varied (case, Unicode whitespace and line
terminators, CJK and astral characters, `429` / `402` / `413` prefixes, JSON error bodies, markdown headings).
Each function of the port must give the real one's answer on every text.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_9_6.compaction import overflow as O
from inspector.rules.ruleset import rule_set

SCRIPT = Path(__file__).parent.parent / "oracle" / "oc_2026_9_overflow.mjs"
SCOPES = ["assistant-error", "failover-explicit", "provider-fallback", "failover-hint", "context-window-too-small", "tpm-rate-limit-hint", "rate-limit-hint"]
REAL = [
    "prompt is too long: 213462 tokens > 200000 maximum",
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208923 tokens > 200000 maximum"}}',
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    "This model's maximum prompt length is 131072 but the request contains 140000 tokens.",
    "Please reduce the length of the messages or completion.",
    "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
    "The input (140000 tokens) is longer than the model's context length (131072 tokens).",
    "the request exceeds the available context size, try increasing it",
    "request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it",
    "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
    "exceeded model token limit: 262144 (requested: 300000)",
    "tokens in request more than max tokens allowed",
    "Prompt exceeds max length",
    "413 status code (no body)", "413 (no body)", "400 status code (no body)",
    "ollama error: context length exceeded, too many tokens",
    "prompt has 9,001 tokens, but the configured context size is 8,192 tokens",
    "input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000",
    "Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 20000, Requested 15000.",
    "Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced",
    "429 Too Many Requests: rate limit exceeded, retry later",
    "ThrottlingException: Too many tokens, please wait before trying again.",
    "Service unavailable: context length exceeded",
    "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
    "402 Payment Required: insufficient credits", "billing error: please upgrade your plan",
    "Reasoning is mandatory for this endpoint and cannot be disabled. max context exceeded",
    "context window is too small: minimum is 16000 tokens",
    "invalid prompt template: input too long for model", "上下文过长，请压缩上下文", "请求过于频繁 context limit",
    "Context overflow: prompt too large for the model.", "model_context_window_exceeded", "context_length_exceeded",
    "## Summary\n## Decisions\ncredit balance exceeded context window", "", " ", "error: request_too_large",
]
NOISE = ["", " ", "\u00a0", "\u2028", "\r\n", "\t", "中文", "😀", "Error: ", "429 ", "402 ", "413 ", '{"error":{"code":429}} ', "## x\n"]


def _vary(rng: random.Random, text: str) -> str:
    if rng.random() < 0.3:
        text = text.upper() if rng.random() < 0.5 else text.title()
    if rng.random() < 0.4:
        text = text.replace(" ", rng.choice([" ", "\u00a0", "\u3000", "\t", "\n", "  "]))
    return rng.choice(NOISE) + text + rng.choice(NOISE)


def _generated(count: int) -> list[str]:
    out: list[str] = []
    patterns = [p for scope in O.CONTEXT_OVERFLOW_PATTERN_SCOPES.values() for p in scope]

    @settings(max_examples=count, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def sample(data: st.DataObject) -> None:
        pattern = data.draw(st.sampled_from(patterns))
        out.append(data.draw(st.from_regex(pattern, fullmatch=False)))

    sample()
    return out


def _ours(text: str) -> dict[str, Any]:
    return {
        "agent": O.is_agent_core_overflow_error(text),
        "scopes": [O.matches_context_overflow_message(text, s) for s in SCOPES],
        "isLikelyContextOverflowError": O.is_likely_context_overflow_error(text),
        "isContextOverflowError": O.is_context_overflow_error_from_tables(text),
        "isContextOverflowErrorFromTables": O.is_context_overflow_error_from_tables(text),
        "looksLikeProviderContextOverflowCandidate": O.looks_like_provider_context_overflow_candidate(text),
        "isRateLimitErrorMessage": O.is_rate_limit_error_message(text),
        "isBillingErrorMessage": O.is_billing_error_message(text),
        "isProviderRequestSizeCeilingError": O.is_provider_request_size_ceiling_error(text),
    }


def test_overflow_classification_matches_openclaw(openclaw_2026_9: Any) -> None:  # noqa: F811
    rng = random.Random(2026)
    base = REAL + _generated(600)
    texts = base + [_vary(rng, rng.choice(base)) for _ in range(1500)]
    real = openclaw_2026_9.run_script(SCRIPT, texts)
    mismatches = [(t, m, r) for t, m, r in zip(texts, map(_ours, texts), real, strict=True) if m != r]
    assert not mismatches, mismatches[:5]
    likely = sum(r["isLikelyContextOverflowError"] for r in real)
    assert 300 < likely < len(texts) - 300  # both answers, many times


def test_the_2026_9_rules_use_the_release_classifier() -> None:
    """pi-ai's patterns take a TPM request-size error and a bare `context overflow:` differently from 2026.9.6."""
    sept, april = rule_set("openclaw-2026.9.6").triggers, rule_set("openclaw-2026.4.12").triggers
    text = "Context overflow: prompt too large for the model."
    assert sept.is_context_overflow_error(text) and not april.is_context_overflow_error(text)
    assert not sept.is_context_overflow_error("429 Too Many Requests: too many tokens")


def test_no_silent_overflow_under_2026_9(tmp_path: Path) -> None:
    """A `stop` assistant whose input exceeds the window: pi's silent overflow, not 2026.9.6's (its recovery only
    looks at `error` and `length` assistants)."""
    from oracle.cases import builder, usage

    from inspector.session.session import open_session

    b = builder()
    b.user("hi")
    b.assistant("done", usage=usage(300_000))
    path = b.write(tmp_path / "s.jsonl")
    kinds = {}
    for rid in ("openclaw-2026.4.12", "openclaw-2026.9.6"):
        s = open_session(path, rid)
        got = rule_set(rid).triggers.overflow_trigger(s, s.context(), 200_000)
        kinds[rid] = (got.is_overflow, got.kind)
    assert kinds == {"openclaw-2026.4.12": (True, "silent"), "openclaw-2026.9.6": (False, None)}
