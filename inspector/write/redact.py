"""Keeping API keys out of everything this tool prints, logs or stores.

Every error text that may have touched a provider (an SDK exception, a server's error body echoing a header,
a breaker's `last_error`) goes through `scrub_secrets` before it is shown or persisted. It removes:

* the value of every known key environment variable that is set (`KEY_ENV_VARS`, plus any `*_API_KEY`,
  `*_TOKEN`, `*_SECRET` variable) and every key registered with `register_secret` (keys read from flags or
  `openclaw.json`: `inspector.write.summarizers.keys` registers them when it resolves a provider);
* anything shaped like a key: `sk-...` (OpenAI, Anthropic `sk-ant-...`, OpenRouter `sk-or-...`),
  `Bearer <token>`, and `x-api-key`/`api_key`/`apiKey` followed by a value.

Secrets shorter than 6 characters are not scrubbed by value (they would erase ordinary words); the pattern
rules still apply.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping

REDACTED = "[redacted]"

KEY_ENV_VARS: tuple[str, ...] = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "GEMINI_API_KEY",
    "TOGETHER_API_KEY",
    "CEREBRAS_API_KEY",
    "OLLAMA_API_KEY",
    "SESSION_INSPECTOR_API_KEY",
)
"""Environment variables that hold provider keys (each one's value is scrubbed wherever it appears)."""

_SECRET_ENV_SUFFIXES = ("_API_KEY", "_AUTH_TOKEN", "_TOKEN", "_SECRET", "_KEY")
_MIN_SECRET_LEN = 6

_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{4,}"),
    re.compile(r"""(?i)(x-api-key|api[_-]?key|authorization|auth[_-]?token)(["']?\s*[:=]\s*["']?)[^\s"',}]+"""),
)

_REGISTERED: set[str] = set()
_REGISTERED_LOCK = threading.Lock()


def register_secret(value: str | None) -> None:
    """Remember a key (from a flag or a config file) so that every later `scrub_secrets` removes it."""
    if value and len(value) >= _MIN_SECRET_LEN:
        with _REGISTERED_LOCK:
            _REGISTERED.add(value)


def env_secret_values(env: Mapping[str, str] | None = None) -> list[str]:
    """The values of the key-like environment variables that are set (known names and `*_API_KEY` & co)."""
    env = os.environ if env is None else env
    out = []
    for name, value in env.items():
        if not value or len(value) < _MIN_SECRET_LEN:
            continue
        if name in KEY_ENV_VARS or name.endswith(_SECRET_ENV_SUFFIXES):
            out.append(value)
    return out


def scrub_secrets(text: str, extra: Iterable[str | None] = (), env: Mapping[str, str] | None = None) -> str:
    """`text` with every known secret value and every key-shaped token replaced by `[redacted]`."""
    if not text:
        return text
    with _REGISTERED_LOCK:
        values = set(_REGISTERED)
    values.update(v for v in extra if v and len(v) >= _MIN_SECRET_LEN)
    values.update(env_secret_values(env))
    for value in sorted(values, key=len, reverse=True):
        if value in text:
            text = text.replace(value, REDACTED)
    for pattern in _PATTERNS:
        if pattern.groups >= 2:
            text = pattern.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
        else:
            text = pattern.sub(REDACTED, text)
    return text
