"""The cache-TTL gate: when OpenClaw prunes, and whether it prunes this provider at all (spec §3.1, §3.2).

Sources: OpenClaw `src/agents/pi-embedded-runner/cache-ttl.ts` (`readLastCacheTtlTimestamp`,
`isCacheTtlEligibleProvider`), `anthropic-family-cache-semantics.ts`, `prompt-cache-retention.ts`
(`isGooglePromptCacheEligible`), the provider plugins' `isCacheTtlEligible`, and
`src/agents/pi-hooks/context-pruning/extension.ts` (the gate itself).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..timeutil import iso_from_ms, ms_from_iso
from .utf16 import js_trim

CACHE_TTL_CUSTOM_TYPE = "openclaw.cache-ttl"

# Provider plugins that answer `isCacheTtlEligible` (bundled plugins, OpenClaw 2026.4).
_OPENROUTER_CACHE_TTL_MODEL_PREFIXES = ("anthropic/", "deepseek/", "moonshot/", "moonshotai/", "zai/")
_NATIVE_CACHE_TTL_PROVIDERS = frozenset({"moonshot", "zai"})

SOURCE_CACHE_TTL_ENTRY = "cache_ttl_entry"
SOURCE_LAST_ASSISTANT = "last_assistant_message"
SOURCE_NONE = "none"


# --------------------------------------------------------------------------------------------- time helpers


def ms_from_any(value: Any) -> float | None:
    """Epoch ms from a number (already ms) or an ISO string; None when neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            return float(ms_from_iso(value))
        except ValueError:
            return None
    return None


def format_duration_ms(ms: float) -> str:
    """A short human duration: `4m 12s`, `2h 03m`, `3d 4h`."""
    sign = "-" if ms < 0 else ""
    s = int(abs(ms) // 1000)
    d, s = divmod(s, 86_400)
    h, s = divmod(s, 3_600)
    m, s = divmod(s, 60)
    if d:
        return f"{sign}{d}d {h}h"
    if h:
        return f"{sign}{h}h {m:02d}m"
    if m:
        return f"{sign}{m}m {s:02d}s"
    return f"{sign}{s}s"


# ------------------------------------------------------------------------------------- last cache touch


def _normalize_key(value: Any) -> str | None:
    """`normalizeOptionalLowercaseString`: trimmed, lower-cased, None when not a non-empty string."""
    if not isinstance(value, str):
        return None
    trimmed = js_trim(value)
    return trimmed.lower() if trimmed else None


def matches_cache_ttl_context(data: Any, provider: str | None, model_id: str | None) -> bool:
    """`matchesCacheTtlContext`: a provider/model the context gives must equal the entry's (trimmed, lower-cased)."""
    data = data if isinstance(data, dict) else {}
    expected_provider = _normalize_key(provider)
    if expected_provider and _normalize_key(data.get("provider")) != expected_provider:
        return False
    expected_model = _normalize_key(model_id)
    if expected_model and _normalize_key(data.get("modelId")) != expected_model:
        return False
    return True


@dataclass(slots=True)
class CacheTouch:
    """One `openclaw.cache-ttl` custom entry used as `lastCacheTouchAt`."""

    timestamp_ms: float
    entry_id: str | None
    line: int | None
    provider: Any
    model_id: Any

    def to_json(self) -> dict[str, Any]:
        return {
            "timestamp_ms": self.timestamp_ms,
            "at": iso_from_ms(self.timestamp_ms),
            "entry_id": self.entry_id,
            "line": self.line,
            "provider": self.provider,
            "modelId": self.model_id,
        }


def read_last_cache_touch(entries: Iterable[Any], provider: str | None = None, model_id: str | None = None) -> CacheTouch | None:
    """`readLastCacheTtlTimestamp(sessionManager, {provider, modelId})` over *all* entries, last in file order first.

    `entries` are reader entries with `.type`, `.data` (the parsed line), `.id`, `.line`. An entry whose
    `data.timestamp` is not a finite, non-zero number is skipped and the search goes on.
    """
    for entry in reversed(list(entries)):
        if getattr(entry, "type", None) != "custom":
            continue
        parsed = getattr(entry, "data", None) or {}
        if parsed.get("customType") != CACHE_TTL_CUSTOM_TYPE:
            continue
        data = parsed.get("data")
        if not matches_cache_ttl_context(data, provider, model_id):
            continue
        ts = data.get("timestamp") if isinstance(data, dict) else None
        if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not ts or not math.isfinite(ts):
            continue
        return CacheTouch(float(ts), getattr(entry, "id", None), getattr(entry, "line", None), data.get("provider"), data.get("modelId"))
    return None


# ------------------------------------------------------------------------------------------ eligibility


@dataclass(slots=True)
class Eligibility:
    """Whether OpenClaw installs context pruning for this provider/model at all (`isCacheTtlEligibleProvider`)."""

    eligible: bool
    reason: str
    provider: str | None
    model_id: str | None
    model_api: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "eligible": self.eligible,
            "reason": self.reason,
            "provider": self.provider,
            "modelId": self.model_id,
            "api": self.model_api,
        }


def is_cache_ttl_eligible(provider: str | None, model_id: str | None, model_api: str | None = None) -> Eligibility:
    """`isCacheTtlEligibleProvider(provider, modelId, modelApi)` with the bundled plugins' answers built in."""
    p = js_trim(provider).lower() if isinstance(provider, str) else ""
    m = js_trim(model_id).lower() if isinstance(model_id, str) else ""

    def result(ok: bool, reason: str) -> Eligibility:
        return Eligibility(ok, reason, provider, model_id, model_api)

    if not p:
        return result(False, "no provider known for this session")
    if p == "anthropic":
        return result(True, "anthropic (Anthropic plugin)")
    if p == "openrouter":
        if m.startswith(_OPENROUTER_CACHE_TTL_MODEL_PREFIXES):
            return result(True, "openrouter with a prompt-cache model (OpenRouter plugin)")
        return result(False, "openrouter model without prompt-cache TTL (OpenRouter plugin)")
    if p == "kilocode":
        if m.startswith("anthropic/"):
            return result(True, "kilocode with an anthropic/ model")
        return result(False, "kilocode with a non-Anthropic model")
    if p in _NATIVE_CACHE_TTL_PROVIDERS:
        return result(True, f"{p} (native prompt-cache TTL provider)")
    if p == "amazon-bedrock":
        if "anthropic.claude" in m or "anthropic/claude" in m:
            return result(True, "amazon-bedrock with an Anthropic Claude model")
        return result(False, "amazon-bedrock with a non-Claude model")
    if model_api == "anthropic-messages":
        return result(True, "api anthropic-messages (Anthropic family)")
    if model_api == "google-generative-ai" and (m.startswith("gemini-2.5") or m.startswith("gemini-3")):
        return result(True, "Google prompt-cache model (gemini-2.5 / gemini-3)")
    return result(False, f"provider {provider!r} is not cache-TTL eligible: OpenClaw does not install pruning for it")


# ------------------------------------------------------------------------------------------------- gate


@dataclass(slots=True)
class TtlGate:
    """The extension's gate: prune when `lastCacheTouchAt` is set, `ttlMs > 0` and `now - lastCacheTouchAt >= ttlMs`.

    `source` says where the reference time came from: the last `openclaw.cache-ttl` entry, or (for a session
    that never had pruning enabled) the last assistant message, or nothing.
    """

    open: bool
    reason: str
    source: str
    last_cache_touch_at: float | None
    now: float
    ttl_ms: int
    touch: CacheTouch | None = None
    reference_entry_id: str | None = None
    forced: bool = False  # set by the preview when --force runs the pruner although the gate is closed

    @property
    def expires_at(self) -> float | None:
        """When the cache entry expires (`lastCacheTouchAt + ttlMs`), if there is a reference time."""
        if self.last_cache_touch_at is None:
            return None
        return self.last_cache_touch_at + self.ttl_ms

    @property
    def elapsed_ms(self) -> float | None:
        return None if self.last_cache_touch_at is None else self.now - self.last_cache_touch_at

    def to_json(self) -> dict[str, Any]:
        return {
            "open": self.open,
            "reason": self.reason,
            "source": self.source,
            "last_cache_touch_at": iso_from_ms(self.last_cache_touch_at),
            "last_cache_touch_at_ms": self.last_cache_touch_at,
            "now": iso_from_ms(self.now),
            "now_ms": self.now,
            "ttl_ms": self.ttl_ms,
            "expires_at": iso_from_ms(self.expires_at),
            "elapsed_ms": self.elapsed_ms,
            "reference_entry_id": self.reference_entry_id,
            "touch": self.touch.to_json() if self.touch else None,
            "forced": self.forced,
        }


def evaluate_ttl_gate(
    *,
    now_ms: float,
    ttl_ms: int,
    touch: CacheTouch | None,
    fallback_ms: float | None = None,
    fallback_entry_id: str | None = None,
) -> TtlGate:
    """Evaluate the gate at `now_ms`; with no touch entry, use `fallback_ms` (the last assistant message) and say so."""
    if touch is not None:
        ref, source, ref_id = touch.timestamp_ms, SOURCE_CACHE_TTL_ENTRY, touch.entry_id
        what = f"last cache touch (openclaw.cache-ttl entry {touch.entry_id})"
    elif fallback_ms is not None:
        ref, source, ref_id = fallback_ms, SOURCE_LAST_ASSISTANT, fallback_entry_id
        what = (
            "no openclaw.cache-ttl entry for this model (pruning never ran here): previewing against the last "
            f"assistant message ({fallback_entry_id})"
        )
    else:
        return TtlGate(False, "no openclaw.cache-ttl entry and no assistant message: OpenClaw would not prune", SOURCE_NONE, None, now_ms, ttl_ms)

    if ttl_ms <= 0:
        return TtlGate(False, f"ttl is {ttl_ms} ms: OpenClaw never prunes", source, ref, now_ms, ttl_ms, touch, ref_id)
    elapsed = now_ms - ref
    ago = f"{format_duration_ms(elapsed)} ago" if elapsed >= 0 else f"{format_duration_ms(-elapsed)} in the future"
    if elapsed >= ttl_ms:
        reason = f"{what}; {ago} >= ttl {format_duration_ms(ttl_ms)}: cache expired"
        return TtlGate(True, reason, source, ref, now_ms, ttl_ms, touch, ref_id)
    reason = f"{what}; {ago} < ttl {format_duration_ms(ttl_ms)}: cache still warm, no pruning"
    return TtlGate(False, reason, source, ref, now_ms, ttl_ms, touch, ref_id)
