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

Summary text a server streams (which a hostile or broken server can fill with the Authorization header it was
sent) is scrubbed by value only, with `scrub_values` / `StreamScrubber` (the key the summarizer sent, its other
headers, and the known secrets above): the key-shaped patterns would also erase what a summary legitimately
says about code (`api_key=os.environ[...]`, "the Authorization header").
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


def secret_values(extra: Iterable[str | None] = (), env: Mapping[str, str] | None = None) -> list[str]:
    """Every secret scrubbed by value: the registered ones, `extra` and the key-like environment variables'
    values (at least 6 characters each), longest first."""
    with _REGISTERED_LOCK:
        values = set(_REGISTERED)
    values.update(v for v in extra if v and len(v) >= _MIN_SECRET_LEN)
    values.update(env_secret_values(env))
    return sorted(values, key=len, reverse=True)


def scrub_values(text: str, values: Iterable[str]) -> str:
    """`text` with every one of `values` (longest first, as `secret_values` orders them) replaced by `[redacted]`."""
    for value in values:
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def scrub_secrets(text: str, extra: Iterable[str | None] = (), env: Mapping[str, str] | None = None) -> str:
    """`text` with every known secret value and every key-shaped token replaced by `[redacted]`."""
    if not text:
        return text
    text = scrub_values(text, secret_values(extra, env))
    for pattern in _PATTERNS:
        if pattern.groups >= 2:
            text = pattern.sub(lambda m: m.group(1) + m.group(2) + REDACTED, text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


class StreamScrubber:
    """Scrubs secret values out of a text that arrives in pieces (a streamed summary), even a secret split over
    several pieces: `feed` returns what is safe to show now, holding back only the end of the text that could be
    the start of a secret; `flush` returns what is held back at the end. What it returns, put together, holds none
    of the values."""

    def __init__(self, values: Iterable[str]) -> None:
        self.values = [v for v in values if v]
        self._pending = ""

    def feed(self, piece: str) -> str:
        """What of the text so far can be shown (scrubbed), given one more piece."""
        if not self.values:
            return piece
        text = self._pending + piece
        out: list[str] = []
        while True:
            # The earliest secret in the text, if any: what is before it is safe, the secret is replaced.
            hits = [(i, v) for v in self.values if (i := text.find(v)) >= 0]
            if not hits:
                break
            i, value = min(hits, key=lambda h: (h[0], -len(h[1])))
            out.append(text[:i] + REDACTED)
            text = text[i + len(value):]
        keep = self._could_start_a_secret(text)
        out.append(text[: len(text) - keep])
        self._pending = text[len(text) - keep:]
        return "".join(out)

    def _could_start_a_secret(self, text: str) -> int:
        """The length of the longest end of `text` that some secret starts with (0: none)."""
        held = 0
        for value in self.values:
            i = text.find(value[0], max(0, len(text) - len(value) + 1))
            while i >= 0 and len(text) - i > held:
                if value.startswith(text[i:]):
                    held = len(text) - i
                    break
                i = text.find(value[0], i + 1)
        return held

    def flush(self) -> str:
        """The text held back (no secret can complete it any more)."""
        rest, self._pending = self._pending, ""
        return rest
