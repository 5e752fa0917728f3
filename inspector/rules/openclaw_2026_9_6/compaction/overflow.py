"""OpenClaw 2026.9.6's context-overflow classification of a provider error text (new in 2026.9: OpenClaw no longer
uses pi-ai's `OVERFLOW_PATTERNS`).

Ported from the 2026.9.6 `dist/`: `@openclaw/ai` `internal/runtime.mjs` (`packages/ai/src/utils/overflow.ts`:
`CONTEXT_OVERFLOW_PATTERN_SCOPES`, `matchesContextOverflowMessage`, the agent core's `isContextOverflow` case 1
with its `NON_OVERFLOW_PATTERNS`), `classify-core-*.mjs` (`src/agents/failover/context-overflow-tables.ts`:
`isContextOverflowErrorFromTables`, `looksLikeProviderContextOverflowCandidate`, `isReasoningConstraintErrorMessage`,
`hasRateLimitTpmHint`), `classify-*.mjs` (`src/agents/failover/context-overflow.ts`: `isContextOverflowError`,
`isLikelyContextOverflowError`) and `message-patterns-*.mjs` (`isRateLimitErrorMessage`, `isBillingErrorMessage`,
`isProviderRequestSizeCeilingError`).

`is_context_overflow_error(text)` is what the overflow recovery (`recoverEmbeddedRunOverflow`) decides for an
assistant that stopped with an error: the agent core's patterns, else the failover classifier's
`isLikelyContextOverflowError`. Not reproduced: the full failover classification that vetoes an overflow when it
names another reason (`classifyFailoverSignal` kind `reason`: auth, model not found, format...; the rate-limit and
billing vetoes are reproduced), and provider plugins' own matchers (none without a provider runtime).
The patterns are JavaScript regexes, compiled by `js_regex` with JavaScript's meaning of `\\s`, `.` and `$`.
"""

from __future__ import annotations

import re

from inspector.js.utf16 import JS_WHITESPACE, js_trim

_WS = re.escape(JS_WHITESPACE)
_JS_CLASS_ESCAPES = {"\\s": _WS}
_JS_ESCAPES = {"\\s": f"[{_WS}]", "\\S": f"[^{_WS}]", ".": "[^\n\r\u2028\u2029]", "$": r"\Z"}


def js_regex(source: str, ignore_case: bool = True) -> re.Pattern[str]:
    """A JavaScript regex literal's source (no `u`, `m` or `s` flag) as a Python pattern that matches the same:
    `\\s` is JavaScript's whitespace, `.` stops at every line terminator, `$` is the end of input, `[\\s\\S]` any
    character; `\\w`, `\\d`, `\\b` and `/i` case folding are ASCII."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(source):
        if source.startswith("[\\s\\S]", i):
            out.append("(?s:.)")
            i += 6
            continue
        ch = source[i]
        if ch == "\\":
            pair = source[i : i + 2]
            out.append((_JS_CLASS_ESCAPES if in_class else _JS_ESCAPES).get(pair, pair))
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
            if source.startswith("^", i + 1):  # a leading ^ is the negation, a leading ] a literal: copy both
                out.append("^")
                i += 1
        else:
            out.append(_JS_ESCAPES.get(ch, ch))
        i += 1
    return re.compile("".join(out), re.ASCII | (re.IGNORECASE if ignore_case else 0))


def _all(*sources: str) -> tuple[re.Pattern[str], ...]:
    return tuple(js_regex(s) for s in sources)


CONFIGURED_CONTEXT_SIZE_OVERFLOW = r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?"
CONTEXT_OVERFLOW_PATTERN_SCOPES: dict[str, tuple[re.Pattern[str], ...]] = {
    "assistant-error": _all(
        r"prompt is too long", r"request_too_large", r"input length and `?max_tokens`? exceed context limit: [\d,]+ \+ [\d,]+ > [\d,]+",
        r"input is too long for requested model", r"exceeds the context window",
        r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
        r"input token count.*exceeds the maximum", r"maximum prompt length is \d+", r"reduce the length of the messages",
        r"maximum context length is \d+ tokens", r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
        r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)", r"exceeds the limit of \d+",
        r"(?:exceeds the available context size|context size has been exceeded)", r"greater than the context length",
        r"context window exceeds limit", r"exceeded model token limit", r"tokens? in request more than max tokens? allowed",
        r"prompt exceeds max(?:imum)? length", r"too large for model with \d+ maximum context length", CONFIGURED_CONTEXT_SIZE_OVERFLOW,
        r"model_context_window_exceeded", r"prompt too long; exceeded (?:max )?context length", r"context[_ ]length[_ ]exceeded",
        r"too many tokens", r"token limit exceeded", r"^413\s*(?:status code)?\s*\(no body\)",
    ),
    "failover-explicit": (
        *_all(
            r"request_too_large", r"context_overflow", CONFIGURED_CONTEXT_SIZE_OVERFLOW, r"invalid_argument[\s\S]*maximum number of tokens",
            r"request exceeds the maximum size", r"context length exceeded", r"maximum context length", r"prompt is too long",
            r"prompt too long", r"exceeds model context window", r"model token limit", r"input exceeds[\s\S]*maximum number of tokens",
            r"^(?=[\s\S]*context window)(?=[\s\S]*ran out of (?:room|space))", r"request size exceeds[\s\S]*context window",
            r"context overflow:", r"exceed context limit", r"exceeds the model'?s maximum context", r"max_tokens[\s\S]*exceed[\s\S]*context",
            r"input(?: length[\s\S]*exceed[\s\S]*context| \([\d,]+\s*tokens?\) is longer than (?:the )?model'?s context length)",
            r"413[\s\S]*too large", r"context_window_exceeded", r"input length [\d,]+\s+tokens? exceeds the model limit",
        ),
        js_regex("上下文过长|上下文超出|上下文长度超|超出最大上下文|请压缩上下文", ignore_case=False),
    ),
    "provider-fallback": _all(
        r"\binput token count exceeds the maximum number of input tokens\b", r"\binput is too long for this model\b",
        r"\binput exceeds the maximum number of tokens\b", r"\bollama error:\s*context length exceeded(?:,\s*too many tokens)?\b",
        r"\btotal tokens?.*exceeds? (?:the )?(?:model(?:'s)? )?(?:max|maximum|limit)",
        r"\b(?:(?:request|prompt) \(\d[\d,]*\s*tokens?\) exceeds (?:the )?available context size|context size has been exceeded)\b",
        r"\binput (?:is )?too long for (?:the )?model\b",
    ),
    "failover-hint": _all(
        r"context.*overflow|context window.*(too (?:large|long)|exceed|over|limit|max(?:imum)?|requested|sent|tokens)|"
        r"prompt.*(too (?:large|long)|exceed|over|limit|max(?:imum)?)|"
        r"(?:request|input).*(?:context|window|length|token).*(too (?:large|long)|exceed|over|limit|max(?:imum)?)"
    ),
    "context-window-too-small": _all(r"context window.*(too small|minimum is)"),
    "tpm-rate-limit-hint": _all(r"\btpm\b|tokens per minute"),
    "rate-limit-hint": _all(r"rate limit|too many requests|requests per (?:minute|hour|day)|quota|throttl|429\b|tokens per day"),
}
"""`CONTEXT_OVERFLOW_PATTERN_SCOPES`: each scope's wordings."""
NON_OVERFLOW_PATTERNS = _all(r"^(Throttling error|Service unavailable):", r"rate limit", r"too many requests")
"""The agent core's `NON_OVERFLOW_PATTERNS` (an error text matching one is never an overflow there)."""

_RATE_LIMIT: tuple[re.Pattern[str] | str, ...] = (
    *_all(
        r"rate[_ ]limit|too many requests",
        r"^\s*429\b|\b(?:https?|status(?:[ _-]?code)?|response(?:[ _-]?code)?|http(?:[ _-]?status)?)\b[\s:=#\"'(]{0,6}429\b|"
        r"[\"'](?:status|code)[\"']\s*:\s*429\b|"
        r"\b429\b[\s:)\].,-]*(?:rate[_ -]?limit(?:ed|ing)?|too many requests|resource has been exhausted|quota(?:\s+(?:exceeded|exhausted|depleted|reached))?)\b",
        r"too many (?:concurrent )?requests", r"\bthrottl(?:ing[_]?exception|ing|ed)\b", r"\bconcurrency limit\b.*\b(?:breached|reached)\b",
    ),
    "model_cooldown", "exceeded your current quota", *_all(r"\bresource[_ -]?exhausted\b", r"\bquota[_ -]?exceeded\b"), "usage limit",
    *_all(r"\btpm\b"), "tokens per minute", "tokens per day", "请求过于频繁", "调用频率", "频率限制", "配额不足", "配额已用尽", "额度不足", "额度已用尽",
)
_BILLING: tuple[re.Pattern[str] | str, ...] = (
    *_all(
        r"[\"']?(?:status|code)[\"']?\s*[:=]\s*402\b|\bhttp\s*402\b|\berror(?:\s+code)?\s*[:=]?\s*402\b|^\s*402\s+payment",
        r"\b(?:got|returned|received)\s+(?:a\s+)?402\b(?!\s+records\b)",
    ),
    "payment required", "insufficient credits", *_all(r"used\s+all\s+available\s+credits", r"(?:monthly\s+)?spend(?:ing)?\s+limit",
                                                      r"insufficient[_ ]quota", r"\b(?:go|free)usagelimiterror\b"),
    "available balance", "out of budget", "credit balance", "plans & billing",
    *_all(r"insufficient[_ ]balance", r"\binsufficient\s+\w+\s+balance\b"), "insufficient usd or diem balance",
    *_all(r"requires?\s+more\s+credits", r"out of extra usage", r"draw from your extra usage", r"extra usage is required(?: for long context requests)?"),
    "余额不足", "欠费", js_regex(r"\"code\"\s*:\s*\"InvalidSubscription\""), js_regex(r"\bdoes not have a valid coding\s*plan subscription\b"),
    js_regex(r"\"code\"\s*:\s*1311\b", ignore_case=False),
    *_all(r"\bcurrent\s+subscription\s+plan\b.*\b(?:does\s+not|doesn't|not)\b.*\binclude\s+access\b", r"\bmodel\b.*\bnot\s+available\b.*\bcurrent\s+plan\b"),
)
_BILLING_HEAD = js_regex(
    r"^(?:error[:\s-]+)?billing(?:\s+error)?(?:[:\s-]+|$)|^(?:error[:\s-]+)?(?:credit balance|insufficient credits?|payment required|http\s*402\b)"
)
_MARKDOWN_HEADING = js_regex(r"(?:^|\n)##\s+\S", ignore_case=False)
_STATED_TOKEN_SIZES = js_regex(r"(?:\btpm\b|tokens per minute)[^.\n]*?\blimit\s+([\d,]+)[^.\n]*?\brequested\s+([\d,]+)")
_CANDIDATE_SIGNAL = js_regex(r"\b(?:context|window|prompt|token|tokens|input|request|model)\b")
_CANDIDATE_ACTION = js_regex(r"\b(?:too\s+(?:large|long|many)|exceed(?:s|ed|ing)?|overflow|limit|maximum|max)\b")


def _lower(raw: str) -> str:
    """`normalizeLowercaseStringOrEmpty`: trimmed, lower case."""
    return js_trim(raw).lower()


def _matches(raw: str, patterns: tuple[re.Pattern[str] | str, ...]) -> bool:
    """`matchesErrorPatterns`: on the trimmed lower-case text, a regex search or a substring."""
    if not raw:
        return False
    value = _lower(raw)
    return any(p in value if isinstance(p, str) else p.search(value) is not None for p in patterns)


def matches_context_overflow_message(error_message: str, scope: str) -> bool:
    """`matchesContextOverflowMessage(errorMessage, scope)`."""
    return any(p.search(error_message) is not None for p in CONTEXT_OVERFLOW_PATTERN_SCOPES[scope])


def is_agent_core_overflow_error(error_message: str) -> bool:
    """The agent core's `isContextOverflow` on an error assistant's `errorMessage` (case 1)."""
    return bool(error_message) and not any(p.search(error_message) for p in NON_OVERFLOW_PATTERNS) and (
        matches_context_overflow_message(error_message, "assistant-error")
    )


def is_rate_limit_error_message(raw: str) -> bool:
    """`isRateLimitErrorMessage`."""
    return _matches(raw, _RATE_LIMIT)


def is_billing_error_message(raw: str) -> bool:
    """`isBillingErrorMessage` (not for a text with several `## ` headings: a summary, not an error)."""
    value = _lower(raw)
    if not value or len(_MARKDOWN_HEADING.findall(raw)) > 1:
        return False
    if _matches(value, _BILLING):
        return True
    if not _BILLING_HEAD.search(raw):
        return False
    return any(word in value for word in ("upgrade", "credits", "payment", "purchase", "subscription", "plan"))


def _stated_count(digits: str | None) -> float | None:
    if digits is None:
        return None
    try:
        n = float(digits.replace(",", "")) if digits.replace(",", "") else 0.0
    except ValueError:
        return None
    return n if n > 0 else None


def is_provider_request_size_ceiling_error(error_message: str) -> bool:
    """`isProviderRequestSizeCeilingError`: a TPM message stating a request larger than the limit."""
    stated = _STATED_TOKEN_SIZES.search(error_message) if error_message else None
    limit = _stated_count(stated.group(1) if stated else None)
    requested = _stated_count(stated.group(2) if stated else None)
    return limit is not None and requested is not None and requested > limit


def looks_like_provider_context_overflow_candidate(error_message: str) -> bool:
    """`looksLikeProviderContextOverflowCandidate`."""
    return not is_rate_limit_error_message(error_message) and bool(_CANDIDATE_SIGNAL.search(error_message)) and bool(
        _CANDIDATE_ACTION.search(error_message)
    )


def is_reasoning_constraint_error_message(raw: str) -> bool:
    """`isReasoningConstraintErrorMessage`."""
    lower = _lower(raw) if raw else ""
    return (
        "reasoning is mandatory" in lower or "reasoning is required" in lower or "requires reasoning" in lower
        or ("reasoning" in lower and "cannot be disabled" in lower)
    )


def is_context_overflow_error_from_tables(error_message: str) -> bool:
    """`isContextOverflowErrorFromTables` (also `isContextOverflowError` without a provider plugin)."""
    if not error_message:
        return False
    if matches_context_overflow_message(error_message, "tpm-rate-limit-hint") and not is_provider_request_size_ceiling_error(error_message):
        return False
    if is_reasoning_constraint_error_message(error_message):
        return False
    return matches_context_overflow_message(error_message, "failover-explicit") or (
        looks_like_provider_context_overflow_candidate(error_message) and matches_context_overflow_message(error_message, "provider-fallback")
    )


def is_likely_context_overflow_error(error_message: str) -> bool:
    """`isLikelyContextOverflowError`: the failover classifier's overflow test, with its vetoes."""
    if not error_message:
        return False
    if is_provider_request_size_ceiling_error(error_message):
        return is_context_overflow_error_from_tables(error_message)
    if matches_context_overflow_message(error_message, "tpm-rate-limit-hint") or is_reasoning_constraint_error_message(error_message):
        return False
    if is_billing_error_message(error_message) or matches_context_overflow_message(error_message, "context-window-too-small"):
        return False
    if is_rate_limit_error_message(error_message):
        return False
    if is_context_overflow_error_from_tables(error_message):
        return True
    if "prompt template" in _lower(error_message) or matches_context_overflow_message(error_message, "rate-limit-hint"):
        return False
    return matches_context_overflow_message(error_message, "failover-hint")


def is_context_overflow_error(error_message: str) -> bool:
    """Whether 2026.9.6's overflow recovery takes an error assistant's `errorMessage` for a context overflow: the
    agent core's patterns (`isContextOverflow`), else `isLikelyContextOverflowError` (see the module docstring)."""
    return is_agent_core_overflow_error(error_message) or is_likely_context_overflow_error(error_message)
