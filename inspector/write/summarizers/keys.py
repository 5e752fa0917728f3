"""Which server, model and key an LLM summarizer uses: explicit values, the environment, `openclaw.json`.

`resolve_provider("openai" | "anthropic", ...)` decides, first match wins:

* provider id: `provider=` → the session's own provider when its API fits the summarizer → `openai` /
  `anthropic`;
* base URL: `base_url=` → `models.providers.<id>.baseUrl` → `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` (for
  those two ids) → the provider's well-known URL (`KNOWN_BASE_URLS`);
* key: `api_key=` → `models.providers.<id>.apiKey` (a literal, `${VAR}`, an env var name, or a SecretRef
  `{source: "env", id}`; `file`/`exec` refs are not resolved here) → `<ID>_API_KEY` → `OPENAI_API_KEY` /
  `ANTHROPIC_API_KEY` for those ids. A server on this machine (localhost, 127.0.0.1, ::1) needs none;
* model: `model=` → the session's model (when the provider is the session's) → the first model listed for the
  provider in `openclaw.json`.

Config entries whose `api` is for the other SDK are not used (an `anthropic-messages` provider is not called
through the OpenAI SDK). Every key found is registered with `redact.register_secret`, so no error text, log
line or event shows it; `ProviderConfig` never prints it (`repr`, `to_json`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlparse

from inspector.write.redact import register_secret

Kind = Literal["openai", "anthropic"]

KNOWN_BASE_URLS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "openrouter": "https://openrouter.ai/api/v1",
    "groq": "https://api.groq.com/openai/v1",
    "mistral": "https://api.mistral.ai/v1",
    "deepseek": "https://api.deepseek.com/v1",
    "xai": "https://api.x.ai/v1",
    "together": "https://api.together.xyz/v1",
    "cerebras": "https://api.cerebras.ai/v1",
    "ollama": "http://127.0.0.1:11434/v1",
    "lmstudio": "http://127.0.0.1:1234/v1",
}
API_OF_KIND = {"openai": ("openai-completions",), "anthropic": ("anthropic-messages",)}
NO_KEY_MARKERS = {"ollama-local", "custom-local", "secretref-managed", "minimax-oauth", "gcp-vertex-credentials"}
LOCAL_PLACEHOLDER_KEY = "no-key-needed"
_ENV_TEMPLATE = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


class ProviderConfigError(ValueError):
    """The provider cannot be used as configured (no model, no key for a remote server, an unusable key ref)."""


@dataclass(frozen=True)
class ProviderConfig:
    """A resolved summarizer endpoint. `api_key` is kept out of `repr` and `to_json`."""

    kind: Kind
    provider: str
    model: str
    base_url: str
    api_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    sources: Mapping[str, str] = field(default_factory=dict)
    reasoning: bool = False
    supports_store: bool = True
    max_tokens_field: str = "max_completion_tokens"
    api: str = ""
    """The provider entry's `api` in `openclaw.json` (empty: the summarizer's own, `API_OF_KIND`)."""
    model_max_tokens: int | None = None
    """The model entry's `maxTokens` in `openclaw.json` (None: not listed)."""

    def summary_model(self) -> dict[str, Any]:
        """The summarizer's model in OpenClaw's shape (`provider`, `id`, `api`, `reasoning`, `baseUrl`, `maxTokens`):
        what a rule set's `prompts.compaction_thinking_level` / `summary_request_reasoning` read."""
        out: dict[str, Any] = {"provider": self.provider, "id": self.model, "api": self.api or API_OF_KIND[self.kind][0],
                               "reasoning": self.reasoning, "baseUrl": self.base_url}
        if self.model_max_tokens is not None:
            out["maxTokens"] = self.model_max_tokens
        return out

    @property
    def is_local(self) -> bool:
        """True for a server on this machine."""
        host = (urlparse(self.base_url).hostname or "").lower()
        return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")

    def to_json(self) -> dict[str, Any]:
        """What is safe to show: everything but the key (only whether there is one and where it came from)."""
        return {
            "kind": self.kind,
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "has_key": bool(self.api_key) and self.api_key != LOCAL_PLACEHOLDER_KEY,
            "sources": dict(self.sources),
        }


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _provider_entry(config: Mapping[str, Any] | None, provider: str) -> dict[str, Any]:
    providers = ((config or {}).get("models") or {}).get("providers") if isinstance((config or {}).get("models"), dict) else None
    entry = providers.get(provider) if isinstance(providers, dict) else None
    return entry if isinstance(entry, dict) else {}


def resolve_key_value(raw: Any, env: Mapping[str, str], where: str) -> tuple[str | None, str]:
    """An `apiKey` value from `openclaw.json` → (key or None, where it came from)."""
    if isinstance(raw, dict):
        source, ref = raw.get("source"), raw.get("id")
        if source == "env" and isinstance(ref, str):
            return env.get(ref) or None, f"env {ref} (SecretRef in {where})"
        raise ProviderConfigError(f"{where}: a SecretRef with source {source!r} is not supported here; put the key in an environment variable")
    if not isinstance(raw, str) or not raw.strip():
        return None, where
    value = raw.strip()
    if value in NO_KEY_MARKERS:
        return None, f"{where} ({value})"
    m = _ENV_TEMPLATE.match(value)
    if m:
        return env.get(m.group(1)) or None, f"env {m.group(1)} (via {where})"
    if _ENV_NAME.match(value) and value in env:
        return env[value] or None, f"env {value} (named in {where})"
    return value, where


def _headers(entry: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    raw = entry.get("headers")
    if isinstance(raw, dict):
        for k, v in raw.items():
            value, _ = resolve_key_value(v, env, f"header {k}") if not isinstance(v, str) or _ENV_TEMPLATE.match(v) else (v, "")
            if isinstance(k, str) and value:
                out[k] = value
                register_secret(value)
    return out


def resolve_provider(
    kind: Kind,
    *,
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    config: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    session_model: tuple[str | None, str | None] | None = None,
) -> ProviderConfig:
    """Resolve a summarizer endpoint (see the module docstring). Raises `ProviderConfigError`."""
    env = _env(env)
    sources: dict[str, str] = {}
    sess_provider, sess_model = session_model or (None, None)
    if provider:
        pid = provider
        sources["provider"] = "explicit"
    elif sess_provider and _fits(kind, sess_provider, _provider_entry(config, sess_provider)):
        pid = sess_provider
        sources["provider"] = "session"
    else:
        pid = kind
        sources["provider"] = "default"
    entry = _provider_entry(config, pid)
    api = entry.get("api")
    if isinstance(api, str) and api not in API_OF_KIND[kind]:
        if provider:
            raise ProviderConfigError(f"provider {pid!r} is configured with api {api!r}; the {kind} summarizer cannot call it")
        entry = {}
    where = f"openclaw.json models.providers.{pid}"

    url = base_url
    if url:
        sources["base_url"] = "explicit"
    elif isinstance(entry.get("baseUrl"), str) and entry["baseUrl"].strip():
        url = entry["baseUrl"].strip()
        sources["base_url"] = f"{where}.baseUrl"
    elif pid == kind and env.get(f"{kind.upper()}_BASE_URL"):
        url = env[f"{kind.upper()}_BASE_URL"]
        sources["base_url"] = f"env {kind.upper()}_BASE_URL"
    elif pid in KNOWN_BASE_URLS:
        url = KNOWN_BASE_URLS[pid]
        sources["base_url"] = "built-in"
    if not url:
        raise ProviderConfigError(f"no base URL for provider {pid!r}: pass one or set {where}.baseUrl")

    key = api_key
    if key:
        sources["api_key"] = "explicit"
    else:
        if "apiKey" in entry:
            key, sources["api_key"] = resolve_key_value(entry.get("apiKey"), env, f"{where}.apiKey")
        if not key:
            for var in dict.fromkeys([f"{re.sub(r'[^A-Za-z0-9]', '_', pid).upper()}_API_KEY", f"{kind.upper()}_API_KEY" if pid == kind else ""]):
                if var and env.get(var):
                    key, sources["api_key"] = env[var], f"env {var}"
                    break

    chosen_model = model
    if chosen_model:
        sources["model"] = "explicit"
    elif sess_model and sess_provider == pid:
        chosen_model = sess_model
        sources["model"] = "session"
    else:
        models = entry.get("models")
        first = models[0] if isinstance(models, list) and models else None
        if isinstance(first, dict) and isinstance(first.get("id"), str):
            chosen_model = first["id"]
            sources["model"] = f"{where}.models[0]"
    if not chosen_model:
        raise ProviderConfigError(f"no model for provider {pid!r}: pass a model name")

    reasoning = False
    model_max: int | None = None
    for m in entry.get("models") or [] if isinstance(entry.get("models"), list) else []:
        if isinstance(m, dict) and m.get("id") == chosen_model:
            reasoning = reasoning or m.get("reasoning") is True
            max_tokens = m.get("maxTokens")
            model_max = max_tokens if isinstance(max_tokens, int) and not isinstance(max_tokens, bool) and max_tokens > 0 else model_max
    cfg = ProviderConfig(
        kind=kind,
        provider=pid,
        model=chosen_model,
        base_url=url.rstrip("/"),
        api_key=key,
        headers=_headers(entry, env),
        sources=sources,
        reasoning=reasoning,
        supports_store=_supports_store(pid, url),
        max_tokens_field="max_tokens" if "chutes.ai" in url else "max_completion_tokens",
        api=entry["api"] if isinstance(entry.get("api"), str) else "",
        model_max_tokens=model_max,
    )
    if not key:
        if not cfg.is_local:
            hint = f"{kind.upper()}_API_KEY" if pid == kind else f"{re.sub(r'[^A-Za-z0-9]', '_', pid).upper()}_API_KEY"
            raise ProviderConfigError(f"no API key for provider {pid!r} ({cfg.base_url}): set {hint} or {where}.apiKey")
        cfg = ProviderConfig(**{**cfg.__dict__, "api_key": LOCAL_PLACEHOLDER_KEY, "sources": {**sources, "api_key": "none needed (local server)"}})
    register_secret(cfg.api_key if cfg.api_key != LOCAL_PLACEHOLDER_KEY else None)
    return cfg


def _fits(kind: Kind, provider: str, entry: Mapping[str, Any]) -> bool:
    api = entry.get("api")
    if isinstance(api, str):
        return api in API_OF_KIND[kind]
    if kind == "anthropic":
        return provider == "anthropic"
    return provider != "anthropic" and (provider in KNOWN_BASE_URLS or bool(entry.get("baseUrl")))


def _supports_store(provider: str, url: str) -> bool:
    """pi-ai `detectCompat`: `store: false` is sent except to the non-standard OpenAI-compatible servers."""
    nonstandard = provider in ("cerebras", "xai", "zai", "opencode") or any(
        h in url for h in ("cerebras.ai", "api.x.ai", "chutes.ai", "deepseek.com", "api.z.ai", "opencode.ai")
    )
    return not nonstandard


def model_choices(
    kind: Kind,
    config: Mapping[str, Any] | None = None,
    session_model: tuple[str | None, str | None] | None = None,
) -> list[tuple[str, str, str]]:
    """The (provider id, model id, where) pairs a `kind` summarizer can be pointed at without typing: the session's
    own model when its provider fits `kind` (as `resolve_provider` decides), then every model `openclaw.json` lists
    under `models.providers` for a provider the summarizer can call. No key is read."""
    out: list[tuple[str, str, str]] = []
    sess_provider, sess_model = session_model or (None, None)
    if sess_provider and sess_model and _fits(kind, sess_provider, _provider_entry(config, sess_provider)):
        out.append((sess_provider, sess_model, "session"))
    models = (config or {}).get("models") if isinstance((config or {}).get("models"), dict) else None
    providers = (models or {}).get("providers")
    for pid, entry in (providers.items() if isinstance(providers, dict) else ()):
        if not isinstance(pid, str) or not isinstance(entry, dict) or not _fits(kind, pid, entry):
            continue
        for m in entry.get("models") or [] if isinstance(entry.get("models"), list) else []:
            mid = m.get("id") if isinstance(m, dict) else None
            if isinstance(mid, str) and mid and (pid, mid) not in [(p, i) for p, i, _ in out]:
                out.append((pid, mid, f"openclaw.json models.providers.{pid}"))
    return out
