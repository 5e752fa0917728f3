"""OpenClaw 2026.9.6's window resolution and guard (`inspector/rules/openclaw_2026_9_6/window_guard.py`) against the
real ones: `resolveContextWindowInfo` after the config loader's legacy migration, `resolveEmbeddedRuntimeModelPolicy`
(with the models of the plugins' manifests), `evaluateContextWindowGuard` and its two messages, and
`resolveProviderEndpoint`, over generated windows, configs, providers, model ids and base URLs (`oc_2026_9_window.mjs`).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.rules.openclaw_2026_9_6 import window_guard as wg
from inspector.rules.openclaw_2026_9_6.model_catalog import load_catalog

SCRIPT = Path(__file__).parents[1] / "oracle" / "oc_2026_9_window.mjs"

CATALOG_MODELS = [(m.provider, m.model_id) for m in load_catalog().models]
PROVIDER_SPELLINGS = ["anthropic", "Anthropic", " anthropic ", "anthropic-vertex", "claude-cli", "openai", "OpenAI", "google",
                      "xai", "nvidia", "openrouter", "huggingface", "together", "vercel-ai-gateway", "ollama", "lmstudio",
                      "z.ai", "zai", "my-proxy", "github-copilot"]
MODEL_SPELLINGS = ["claude-opus-5", "opus", "Opus-5", "claude-opus-5-5", "claude-sonnet-4-6", "claude-sonnet-4.6", "sonnet",
                   "claude-opus-4-6", "claude-opus-4-6[1m]", "claude-fable-5", "claude-mythos-5", "claude-haiku-4-5",
                   "anthropic/claude-opus-5", "Anthropic/claude-opus-4-7", "gpt-5.6-sol", "openai/gpt-5.4", "gemini-3-pro",
                   "google/gemini-3.1-pro", "gemini-3.1-pro-preview", "grok-4.5-latest", "grok-4.7-latest", "llama3",
                   "huggingface/deepseek-ai/DeepSeek-R1", "moonshotai/Kimi-K2.5", "glm-5.1", " padded-id ", "a/b/c"]
NUMBERS: list[Any] = [0, -5, 1, 3999, 4000, 4001, 7999, 8000, 8001, 16000, 32000, 39999.9, 40000, 128000, 200000, 272000,
                      1000000, 2000000, 1e9, 5000.7, "64000", None, True]
URLS = ["http://127.0.0.1:11434", "http://localhost:1234/v1", "localhost:8080", "http://[::1]:8000", "https://box.local/v1",
        "http://gpu.internal", "http://a.localhost", "https://api.openai.com/v1", "http://192.168.1.10:8000", "  ",
        "not a url", "127.0.0.1", "http://LOCALHOST", "https://example.com/localhost", "ftp://foo.local", "http://x.local.",
        "https://api.anthropic.com", "http://127.0.0.2", "http://user:pw@localhost:1/", "https://foo.internal:443/x?y#z"]


def _row(rng: random.Random, model_id: str) -> dict[str, Any]:
    row: dict[str, Any] = {"id": model_id}
    for key in ("contextTokens", "contextWindow"):
        if rng.random() < 0.6:
            row[key] = rng.choice(NUMBERS)
    if rng.random() < 0.2:
        row["baseUrl"] = rng.choice(URLS)
    return row


def _config(rng: random.Random, provider: str, model_id: str) -> dict[str, Any]:
    """A config with a provider entry (maybe spelled otherwise, with legacy provider-level budgets), rows of
    nearby ids, agent defaults with `contextTokens` (legacy) and `context1m` params."""
    config: dict[str, Any] = {}
    if rng.random() < 0.85:
        key = rng.choice([provider, provider.upper(), f" {provider}", rng.choice(PROVIDER_SPELLINGS)])
        ids = [model_id, rng.choice(MODEL_SPELLINGS), js_variant(rng, model_id)]
        rows = [_row(rng, i) for i in rng.sample(ids, rng.randint(0, 3))]
        entry: dict[str, Any] = {"models": rows}
        for legacy in ("contextTokens", "contextWindow"):
            if rng.random() < 0.15:
                entry[legacy] = rng.choice(NUMBERS)
        if rng.random() < 0.3:
            entry["baseUrl"] = rng.choice(URLS)
        config["models"] = {"providers": {key: entry}}
    defaults: dict[str, Any] = {}
    if rng.random() < 0.3:
        defaults["contextTokens"] = rng.choice(NUMBERS)
    if rng.random() < 0.25:
        defaults["params"] = {"context1m": rng.choice([True, False, "true"])}
    if rng.random() < 0.25:
        defaults["models"] = {f"{wg.normalize_provider_id(provider)}/{model_id.strip()}": {"params": {"context1m": rng.choice([True, False])}}}
    if defaults:
        config["agents"] = {"defaults": defaults}
    return config


def js_variant(rng: random.Random, model_id: str) -> str:
    return rng.choice([model_id.upper(), f"{model_id}-x", f" {model_id}", model_id.replace("-", ".")])


def _exact_or_unknown(provider: str, model_id: str) -> bool:
    """Whether our catalog lookup finds the model as the real one does: by exact provider and id, or not at all
    (its id-only fallback, ours, knows models of other providers that OpenClaw's manifests do not give this one)."""
    return load_catalog().lookup(provider, model_id) is None or (provider, model_id) in CATALOG_MODELS


def _resolve_cases(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        if rng.random() < 0.5:
            provider, model_id = rng.choice(CATALOG_MODELS)
        else:
            provider, model_id = rng.choice(PROVIDER_SPELLINGS), rng.choice(MODEL_SPELLINGS)
            if not _exact_or_unknown(provider, model_id):
                continue
        cases.append({"kind": "resolve", "cfg": _config(rng, provider, model_id), "provider": provider, "modelId": model_id})
    return cases


@pytest.fixture(scope="module")
def run(openclaw_2026_9, tmp_path_factory):  # noqa: F811
    home = tmp_path_factory.mktemp("openclaw-home")

    def call(cases: list[dict[str, Any]]) -> list[Any]:
        for c in cases:
            if c["kind"] == "resolve":
                c["baseUrl"] = wg.resolve_context_window(c["provider"], c["modelId"], c["cfg"]).base_url
        return list(openclaw_2026_9.run_script(SCRIPT, {"home": str(home), "cases": cases}))

    return call


def test_resolution_matches_openclaw(run):
    cases = _resolve_cases(1500, seed=96)
    results = run(cases)
    wrong = []
    sources = set()
    for case, real in zip(cases, results, strict=True):
        ours = wg.resolve_context_window(case["provider"], case["modelId"], case["cfg"])
        sources.add(ours.openclaw_source)
        if (ours.tokens, ours.openclaw_source) != (real["info"]["tokens"], real["info"]["source"]):
            wrong.append((case, ours, real["info"]))
            continue
        guard = wg.evaluate_context_window_guard(ours, provider=case["provider"], model_id=case["modelId"])
        expected = {"error": guard.message} if guard.should_block else {"tokens": ours.tokens, "source": ours.openclaw_source}
        if real["run"] != expected:
            wrong.append((case, guard, real["run"]))
    assert sources == {"modelsConfig", "model", "default"}
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, first: {wrong[:3]}"


ALIAS_PAIRS = [("anthropic", "opus", "claude-opus-5"), ("anthropic", "sonnet-4.6", "claude-sonnet-4-6"), ("Anthropic", "OPUS-4.6", "claude-opus-4-6"),
               ("anthropic", "anthropic/claude-opus-5", "claude-opus-5"), ("google", "gemini-3-pro", "gemini-3.1-pro-preview"),
               ("google-vertex", "google/gemini-3.1-flash", "gemini-3-flash-preview"), ("xai", "grok-4.7-latest", "grok-4.7"),
               ("xai", "grok-4-fast-reasoning", "grok-4-fast"), ("openrouter", "some/model", "openrouter/some/model"),
               ("openrouter", "bare", "openrouter/bare"), ("nvidia", "nemo", "nvidia/nemo"), ("huggingface", "huggingface/x/y", "x/y"),
               ("together", "moonshotai/Kimi-K2.5", "moonshotai/Kimi-K2.6"), ("vercel-ai-gateway", "sonnet", "anthropic/claude-sonnet-4-6"),
               ("my-proxy", "my-proxy/m", "m"), ("ollama", " llama3 ", "llama3"), ("claude-cli", "claude-opus-4-6[1m]", "claude-opus-4-6[1m]")]


def test_configured_ids_match_as_openclaw_canonicalizes_them(run):
    """Rows spelled as an alias, a prefixed id or a canonical id, looked up by the other spelling."""
    cases = []
    for provider, one, other in ALIAS_PAIRS:
        for row_id, wanted in ((one, other), (other, one)):
            for row in ({"contextWindow": 77_000}, {"contextTokens": 2_500_000}, {"contextTokens": 9_000, "contextWindow": 3_000}):
                cfg = {"models": {"providers": {provider: {"models": [{"id": row_id, **row}]}}}}
                if _exact_or_unknown(provider.strip().lower(), wanted):
                    cases.append({"kind": "resolve", "cfg": cfg, "provider": provider.strip().lower(), "modelId": wanted})
    results = run(cases)
    wrong = [(c, r["info"]) for c, r in zip(cases, results, strict=True)
             if (lambda w: (w.tokens, w.openclaw_source))(wg.resolve_context_window(c["provider"], c["modelId"], c["cfg"]))
             != (r["info"]["tokens"], r["info"]["source"])]
    assert sum(r["info"]["source"] == "modelsConfig" for r in results) > len(cases) // 2
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, first: {wrong[:3]}"


def test_guard_matches_openclaw(run):
    rng = random.Random(7)
    cases: list[dict[str, Any]] = []
    for _ in range(1500):
        case: dict[str, Any] = {
            "kind": "guard",
            "info": {"tokens": rng.choice([*NUMBERS, rng.randint(1, 2_000_000), rng.uniform(0, 50_000)]),
                     "source": rng.choice(["model", "modelsConfig", "default"])},
            "provider": rng.choice(PROVIDER_SPELLINGS), "modelId": rng.choice(MODEL_SPELLINGS),
            "runtimeBaseUrl": rng.choice([None, *URLS]),
        }
        if rng.random() < 0.2:
            case["info"]["referenceTokens"] = rng.choice(NUMBERS)
        if rng.random() < 0.15:
            case["warnBelowTokens"] = rng.choice([0, 1, 5000.5, 8000, 50000])
        if rng.random() < 0.15:
            case["hardMinTokens"] = rng.choice([0, 1, 2500.9, 4000, 30000])
        cases.append(case)
    wrong = []
    levels = set()
    for case, real in zip(cases, run(cases), strict=True):
        info = case["info"]
        tokens = info["tokens"] if isinstance(info["tokens"], (int, float)) and not isinstance(info["tokens"], bool) else None
        ref = info.get("referenceTokens")
        guard = wg.evaluate_context_window_guard(
            tokens, provider=case["provider"], model_id=case["modelId"], source=info["source"],
            warn_below_tokens=case.get("warnBelowTokens"), hard_min_tokens=case.get("hardMinTokens"),
            reference_tokens=ref if isinstance(ref, (int, float)) and not isinstance(ref, bool) else None,
            base_url=case["runtimeBaseUrl"],
        )
        levels.add(guard.level)
        expected_message = real["block"] if real["shouldBlock"] else real["warn"] if real["shouldWarn"] else ""
        if ((guard.tokens, guard.hard_min, guard.warn_below, guard.should_block, guard.message)
                != (real["tokens"], real["hardMin"], real["warnBelow"], real["shouldBlock"], expected_message)):
            wrong.append((case, guard, real))
        elif not real["shouldBlock"] and guard.should_warn != real["shouldWarn"]:
            wrong.append((case, guard, real))
    assert levels == {"ok", "warn", "block"}
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, first: {wrong[:3]}"


def test_local_endpoint_matches_openclaw(run):
    cases = [{"kind": "endpoint", "baseUrl": u} for u in [*URLS, None, "", "http://foo.LOCAL", "https://[::1]", "http://0.0.0.0"]]
    real = run(cases)
    assert "local" in real and "custom" in real
    assert [wg.is_local_endpoint(c["baseUrl"]) for c in cases] == [r == "local" for r in real]


BARE_SCRIPT = Path(__file__).parents[1] / "oracle" / "oc_2026_9_bare_window.mjs"


def test_a_bare_id_gets_the_smallest_window_of_every_provider_listing_it(openclaw_2026_9, tmp_path) -> None:  # noqa: F811
    """Every id of the 2026.9.6 table, without a provider: the window step's `window_model` against the real
    `applyDiscoveredContextWindows` projecting the same table (the Gateway's context cache: per id the smallest of
    Anthropic's fixed window, `contextTokens`, `contextWindow`); and, in a fresh scratch state, the real Gateway's
    own cache (`ensureContextWindowCacheLoaded` + `lookupContextTokens`) holds only the providers the table's
    docstring names, with the same windows for the ids they list."""
    from inspector.rules.openclaw_2026_9_6 import model_catalog as MC
    from inspector.rules.openclaw_2026_9_6.window_guard import resolve_context_window

    models = MC.window_catalog().models
    ids = sorted({m.model_id for m in models}) + ["no-such-model"]
    rows = [{"provider": m.provider, "id": m.model_id, "contextWindow": m.context_window, "contextTokens": m.context_tokens} for m in models]
    real = openclaw_2026_9.run_script(BARE_SCRIPT, {"home": str(tmp_path / "home"), "config": {}, "ids": ids, "models": rows})
    ours = [found.runtime_window if (found := MC.window_model(None, i)) is not None else None for i in ids]
    assert ours == real["projected"], [(i, o, r) for i, o, r in zip(ids, ours, real["projected"], strict=True) if o != r]
    assert [resolve_context_window(None, i, None).tokens for i in ids[:-1]] == real["projected"][:-1]
    # where it differs from the first-party pick (the prices' lookup)
    differs = {i: (MC.known_model(None, i).runtime_window, o) for i, o in zip(ids, ours, strict=False)
               if o is not None and MC.known_model(None, i).runtime_window != o}
    assert differs["claude-opus-4-8"] == (1_000_000, 200_000) and differs["gpt-5.4-mini"] == (400_000, 272_000)
    assert differs["deepseek-v4-flash"][1] == differs["deepseek-v4-pro"][1] == 1_000_000
    # a fresh Gateway state: only the static catalog's providers, the same windows where they list an id
    assert real["providers"] == ["claude-cli", "google", "google-vertex", "minimax", "minimax-portal", "opencode-go"]
    fresh = dict(zip(ids, real["windows"], strict=True))
    assert fresh["claude-opus-4-8"] == 200_000 and fresh["deepseek-v4-flash"] == 1_000_000 and fresh["gpt-5.4-mini"] is None
    assert real["resolved"] == real["windows"]
    # a provider that lists the id keeps its own row; 2026.4.12 unchanged
    assert MC.window_model("anthropic", "claude-opus-4-8").runtime_window == 1_000_000
    from inspector.rules.openclaw_2026_4_12.window_guard import resolve_context_window as april

    assert april(None, "claude-opus-4-6", None).tokens == 1_000_000
