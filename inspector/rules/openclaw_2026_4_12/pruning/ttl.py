"""The cache-TTL gate: when OpenClaw prunes, and whether it prunes this provider at all (spec §3.1, §3.2).

Reproduces OpenClaw 2026.4.12 (the build of commit 8f8492d1): `readLastCacheTtlTimestamp` and
`isCacheTtlEligibleProvider` (`src/agents/pi-embedded-runner/cache-ttl.ts`), `isAnthropicFamilyCacheTtlEligible`
(`anthropic-family-cache-semantics.ts`), `isGooglePromptCacheEligible` (`prompt-cache-retention.ts`), the bundled
provider plugins' `isCacheTtlEligible` hooks, and the gate of `src/agents/pi-hooks/context-pruning/extension.ts`:

    if (!lastTouch || ttlMs <= 0) return;          // no touch: no pruning
    if (Date.now() - lastTouch < ttlMs) return;     // cache still warm

`ttl_expired` is that rule and the only place "expired" is decided: the gate (`evaluate_ttl_gate`), the
projection of a session that has never been touched (`project_ttl_gate`) and the per-tool-result expiry
(`result_expiry`, the transcript's `~` marker) all call it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from inspector.base.durations import format_duration_ms
from inspector.js.timeutil import iso_or_none, js_number, ms_from_any, ms_from_iso  # noqa: F401  (re-exported: the gate's inputs)
from inspector.js.utf16 import js_trim
from inspector.rules.openclaw_2026_4_12.pruning.settings import js_json_number
from inspector.rules.openclaw_2026_4_12.window_guard import normalize_provider_id

CACHE_TTL_CUSTOM_TYPE = "openclaw.cache-ttl"

from inspector.rules.pruning_terms import (
    SCENARIO_IF_ENABLED,
    SCENARIO_NOW,
    SOURCE_CACHE_TTL_ENTRY,
    SOURCE_LAST_ASSISTANT,
    SOURCE_NONE,
)

# Bundled provider plugins with an `isCacheTtlEligible` hook (OpenClaw 2026.4.12), by plugin id. Each gets the
# trimmed, lower-cased model id.
_OPENROUTER_CACHE_TTL_MODEL_PREFIXES = ("anthropic/", "moonshot/", "moonshotai/", "zai/")
_PLUGIN_CACHE_TTL_HOOKS: dict[str, tuple[str, Any]] = {
    "openrouter": (
        "OpenRouter plugin: model id starts with anthropic/, moonshot/, moonshotai/ or zai/",
        lambda m: m.startswith(_OPENROUTER_CACHE_TTL_MODEL_PREFIXES),
    ),
    "kilocode": ("Kilocode plugin: model id starts with anthropic/", lambda m: m.startswith("anthropic/")),
    "zai": ("Z.AI plugin: always eligible", lambda m: True),
}
_BEDROCK_APP_INFERENCE_PROFILE_ARN_RE = re.compile(r"^arn:aws(-cn|-us-gov)?:bedrock:")


# --------------------------------------------------------------------------------------------- time helpers


def ttl_expired(reference_ms: float | None, now_ms: float, ttl_ms: float) -> bool:
    """The extension's rule: expired when there is a (truthy) reference, `ttlMs > 0` and `now - ref >= ttlMs`."""
    if not reference_ms or ttl_ms <= 0:
        return False
    return not (now_ms - reference_ms < ttl_ms)


def result_expiry(
    reference_ms: float | None, result_ms: float | None, now_ms: float, ttl_ms: float
) -> tuple[bool | None, float | None]:
    """(expired, expires_at) of one tool result's prompt-cache entry.

    The entry was last written at max(reference, the result's own time): it expires `ttl` after that, by the
    same rule as the gate (`ttl_expired`). (None, None) without a reference time.
    """
    if reference_ms is None:
        return None, None
    start = max(reference_ms, result_ms) if result_ms is not None else reference_ms
    return ttl_expired(start, now_ms, ttl_ms), start + ttl_ms


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
        """The touch entry: its time (ms and ISO; ISO null outside JavaScript's Date range), id, line and keys."""
        return {
            "timestamp_ms": self.timestamp_ms,
            "at": iso_or_none(self.timestamp_ms),
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
    for entry in reversed(entries if isinstance(entries, Sequence) else list(entries)):
        if getattr(entry, "type", None) != "custom":
            continue
        parsed = getattr(entry, "data", None) or {}
        if parsed.get("customType") != CACHE_TTL_CUSTOM_TYPE:
            continue
        data = parsed.get("data")
        if not isinstance(data, dict) or not matches_cache_ttl_context(data, provider, model_id):
            continue  # (`typeof data?.timestamp === "number"` fails for anything but an object)
        ts = js_number(data.get("timestamp"))
        if not ts:
            continue
        return CacheTouch(ts, getattr(entry, "id", None), getattr(entry, "line", None), data.get("provider"), data.get("modelId"))
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
        """`eligible`, the rule that decided it, and the provider/model/api it was asked about."""
        return {
            "eligible": self.eligible,
            "reason": self.reason,
            "provider": self.provider,
            "modelId": self.model_id,
            "api": self.model_api,
        }


def is_anthropic_bedrock_model(model_id: str) -> bool:
    """`isAnthropicBedrockModel`: an Anthropic Claude id, or an application inference profile ARN naming claude."""
    m = _normalize_key(model_id) or ""
    if "anthropic.claude" in m or "anthropic/claude" in m:
        return True
    if _BEDROCK_APP_INFERENCE_PROFILE_ARN_RE.match(m) and ":application-inference-profile/" in m:
        return "claude" in m.split(":application-inference-profile/")[1]
    return False


def generic_cache_ttl_rule(provider: str, model_id: str, model_api: str | None) -> str | None:
    """The rules `isCacheTtlEligibleProvider` applies after the plugins' hooks (normalized `provider` and
    `model_id`): the Anthropic family (`anthropic-vertex`, Claude on `amazon-bedrock`, else api
    `anthropic-messages`), `kilocode` with an `anthropic/` model, Google prompt-cache models. The reason when one
    makes the model eligible, else None. Unchanged in 2026.9."""
    if provider == "anthropic-vertex":
        return "anthropic-vertex (Anthropic family)"
    if provider == "amazon-bedrock" and is_anthropic_bedrock_model(model_id):
        return "amazon-bedrock with an Anthropic Claude model"
    if provider != "amazon-bedrock" and model_api == "anthropic-messages":
        return "api anthropic-messages (Anthropic family)"
    if provider == "kilocode" and model_id.startswith("anthropic/"):
        return "kilocode with an anthropic/ model"
    if model_api == "google-generative-ai" and (model_id.startswith("gemini-2.5") or model_id.startswith("gemini-3")):
        return "Google prompt-cache model (api google-generative-ai, gemini-2.5 / gemini-3)"
    return None


def is_cache_ttl_eligible(provider: str | None, model_id: str | None, model_api: str | None = None) -> Eligibility:
    """`isCacheTtlEligibleProvider(provider, modelId, modelApi)` with the bundled plugins' answers built in.

    First the provider's plugin hook (found by `normalizeProviderId`, so `z-ai` finds the Z.AI plugin), then
    the Anthropic family (`anthropic`, `anthropic-vertex`, Claude on `amazon-bedrock`, else api
    `anthropic-messages`), `kilocode` with an `anthropic/` model, and Google prompt-cache models.
    """
    p = _normalize_key(provider) or ""
    m = _normalize_key(model_id) or ""

    def result(ok: bool, reason: str) -> Eligibility:
        return Eligibility(ok, reason, provider, model_id, model_api)

    hook = _PLUGIN_CACHE_TTL_HOOKS.get(normalize_provider_id(p)) if p else None
    if hook is not None:
        rule, answer = hook
        ok = bool(answer(m))
        return result(ok, f"{rule}: {'eligible' if ok else 'not eligible'}")
    if p == "anthropic":
        return result(True, "anthropic (Anthropic plugin)")
    generic = generic_cache_ttl_rule(p, m, model_api)  # its kilocode rule is unreachable while the Kilocode plugin answers first
    if generic is not None:
        return result(True, generic)
    if not p:
        return result(False, "no provider known for this session")
    if p == "amazon-bedrock":
        return result(False, "amazon-bedrock with a model that is neither Anthropic Claude nor a Google prompt-cache model")
    return result(False, f"provider {provider!r} is not cache-TTL eligible: OpenClaw does not install pruning for it")


# ------------------------------------------------------------------------------------------------- gate


@dataclass(slots=True)
class TtlGate:
    """The extension's gate: prune when `lastCacheTouchAt` is set, `ttlMs > 0` and `now - lastCacheTouchAt >= ttlMs`.

    `scenario` is `now` (what OpenClaw does with this file: the reference is the last `openclaw.cache-ttl`
    entry for the model, or there is none and the gate is closed) or `if_enabled` (the projection for a session
    pruning has never touched: the reference is the last assistant message, where the first touch would be).
    `source` names the reference: `cache_ttl_entry`, `last_assistant_message` or `none`.
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
    scenario: str = SCENARIO_NOW

    @property
    def expires_at(self) -> float | None:
        """When the cache entry expires (`lastCacheTouchAt + ttlMs`), if there is a reference time."""
        if self.last_cache_touch_at is None:
            return None
        return self.last_cache_touch_at + self.ttl_ms

    @property
    def elapsed_ms(self) -> float | None:
        """`now - lastCacheTouchAt`, if there is a reference time."""
        return None if self.last_cache_touch_at is None else self.now - self.last_cache_touch_at

    def to_json(self) -> dict[str, Any]:
        """The gate's `prune --json` object (ISO times are null where JavaScript's Date could not hold them)."""
        return {
            "open": self.open,
            "reason": self.reason,
            "source": self.source,
            "scenario": self.scenario,
            "last_cache_touch_at": iso_or_none(self.last_cache_touch_at),
            "last_cache_touch_at_ms": self.last_cache_touch_at,
            "now": iso_or_none(self.now),
            "now_ms": self.now,
            "ttl_ms": js_json_number(self.ttl_ms),
            "expires_at": iso_or_none(self.expires_at),
            "elapsed_ms": self.elapsed_ms,
            "reference_entry_id": self.reference_entry_id,
            "touch": self.touch.to_json() if self.touch else None,
            "forced": self.forced,
        }


def _verdict(what: str, ref: float, now_ms: float, ttl_ms: int) -> tuple[bool, str]:
    """(open, reason) for a reference time, by `ttl_expired`."""
    if ttl_ms <= 0:
        return False, f"{what}; ttl is {ttl_ms} ms: OpenClaw never prunes"
    elapsed = now_ms - ref
    ago = f"{format_duration_ms(elapsed)} ago" if elapsed >= 0 else f"{format_duration_ms(-elapsed)} in the future"
    if ttl_expired(ref, now_ms, ttl_ms):
        return True, f"{what}; {ago} >= ttl {format_duration_ms(ttl_ms)}: cache expired"
    return False, f"{what}; {ago} < ttl {format_duration_ms(ttl_ms)}: cache still warm, no pruning"


def evaluate_ttl_gate(*, now_ms: float, ttl_ms: int, touch: CacheTouch | None) -> TtlGate:
    """The gate OpenClaw evaluates at `now_ms`: `lastCacheTouchAt` is the touch entry's time, or null (closed)."""
    if touch is None:
        reason = (
            "no openclaw.cache-ttl entry for this provider/model: OpenClaw keeps lastCacheTouchAt null and "
            "prunes nothing (pruning touches the cache only after a run with it enabled)"
        )
        return TtlGate(False, reason, SOURCE_NONE, None, now_ms, ttl_ms)
    what = f"last cache touch (openclaw.cache-ttl entry {touch.entry_id})"
    is_open, reason = _verdict(what, touch.timestamp_ms, now_ms, ttl_ms)
    return TtlGate(is_open, reason, SOURCE_CACHE_TTL_ENTRY, touch.timestamp_ms, now_ms, ttl_ms, touch, touch.entry_id)


def project_ttl_gate(*, now_ms: float, ttl_ms: int, reference_ms: float | None, reference_entry_id: str | None) -> TtlGate:
    """The `if_enabled` gate: as it would stand had pruning touched the cache at the last assistant message."""
    if reference_ms is None:
        reason = "projection: no assistant message yet, so no first cache touch to project"
        return TtlGate(False, reason, SOURCE_NONE, None, now_ms, ttl_ms, scenario=SCENARIO_IF_ENABLED)
    what = f"projection: first cache touch assumed at the last assistant message ({reference_entry_id})"
    is_open, reason = _verdict(what, reference_ms, now_ms, ttl_ms)
    return TtlGate(
        is_open, reason, SOURCE_LAST_ASSISTANT, reference_ms, now_ms, ttl_ms, None, reference_entry_id,
        scenario=SCENARIO_IF_ENABLED,
    )
