"""Where the Gateway listens and how to authenticate to it, resolved as the `openclaw` CLI does (2026.9.6).

Ported from `src/gateway/connection-details.ts` (`buildGatewayConnectionDetailsWithResolvers`), `src/config/paths.ts`
(`resolveGatewayPort`), `src/gateway/client-bootstrap.ts` (`resolveGatewayUrlOverride`) and
`src/gateway/credentials.ts` / `credential-planner.ts` (`resolveGatewayCredentialsFromConfig`):

* URL: `$OPENCLAW_GATEWAY_URL`; else, with `gateway.mode` `remote`, `gateway.remote.url` (required then, as
  OpenClaw's `ensureRemoteModeUrlConfigured`); else the local
  Gateway `ws://127.0.0.1:PORT` (`wss://` with `gateway.tls.enabled`), PORT being `$OPENCLAW_GATEWAY_PORT`
  (`PORT` or `HOST:PORT`), else `gateway.port`, else a port derived from `$OPENCLAW_PROFILE`, else 18789.
  Plaintext `ws://` to a host that is not loopback is refused (OpenClaw's "SECURITY ERROR").
* Credentials: with `$OPENCLAW_GATEWAY_URL`, only `$OPENCLAW_GATEWAY_TOKEN` / `$OPENCLAW_GATEWAY_PASSWORD`
  (config credentials are not sent to an overridden URL). Local mode: `gateway.auth.token` before the env token,
  `gateway.auth.password` before the env password (then `gateway.remote.*` when the local one is not configured).
  Remote mode: `gateway.remote.token`, the env token, `gateway.auth.token`; the env password, then
  `gateway.remote.password`, then `gateway.auth.password`. `${VAR}` in a config value is taken from the
  environment; a value still holding a placeholder counts as unset, as OpenClaw's `trimCredentialToUndefined`.
  A SecretRef (an object) cannot be resolved here: `GatewayConfigError` says to set the environment variable.

The secret is kept in `GatewayTarget` but never in its `repr`, its JSON or any message (`auth_kind` names which
kind is sent).
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

DEFAULT_GATEWAY_PORT = 18789
START_COMMAND = "openclaw gateway run"
"""How the Gateway is started in the foreground (docs/cli/gateway/running.md; the CLI's own unreachable hint)."""

_PROFILE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.IGNORECASE)
_ENV_REF = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)\}")


class GatewayConfigError(Exception):
    """The config or environment does not let the Gateway be reached (an unsafe URL, an unresolvable secret)."""


@dataclass
class GatewayTarget:
    """The Gateway to call: its URL, where the URL came from, and the credential sent (never shown)."""

    url: str
    url_source: str
    token: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @property
    def auth_kind(self) -> str:
        """`token`, `password` or `none`: which shared secret the connect frame carries."""
        return "token" if self.token else "password" if self.password else "none"

    @property
    def loopback(self) -> bool:
        """Whether the URL's host is this machine."""
        return is_loopback_host(urlsplit(self.url).hostname or "")

    def secrets(self) -> list[str]:
        """The secrets a message must never show (for scrubbing)."""
        return [s for s in (self.token, self.password) if s]

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "url_source": self.url_source, "auth": self.auth_kind}


def is_loopback_host(host: str) -> bool:
    """`localhost`, 127.0.0.0/8 or ::1."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _trim(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return value.strip() or None


def _section(data: Any, *keys: str) -> dict[str, Any]:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def parse_port(raw: str | None) -> int | None:
    """`$OPENCLAW_GATEWAY_PORT` as OpenClaw reads it: `PORT`, `HOST:PORT` or `[V6]:PORT`; None when unusable."""
    text = (raw or "").strip()
    if not text:
        return None
    m = re.fullmatch(r"\[[^\]]+\]:(\d+)", text)
    if m:
        text = m.group(1)
    elif not text.isdigit():
        if text.count(":") != 1 or text.startswith(":"):
            return None
        text = text.partition(":")[2]
        if not text.isdigit():
            return None
    port = int(text)
    return port if 0 < port < 65536 else None


def gateway_port(config: Mapping[str, Any], env: Mapping[str, str]) -> int:
    """`resolveGatewayPort`: the env port, `gateway.port`, the profile's derived port, or 18789."""
    from_env = parse_port(env.get("OPENCLAW_GATEWAY_PORT"))
    if from_env is not None:
        return from_env
    port = _section(config, "gateway").get("port")
    if isinstance(port, (int, float)) and not isinstance(port, bool) and math.isfinite(port) and port > 0:
        return int(port)
    profile = (env.get("OPENCLAW_PROFILE") or "").strip()
    if not profile or profile.lower() == "default" or not _PROFILE_RE.match(profile):
        return DEFAULT_GATEWAY_PORT
    h = 2166136261
    for byte in profile.encode("utf-8"):
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return 20000 + h % 40000


def _config_secret(value: Any, path: str, env: Mapping[str, str]) -> tuple[str | None, bool]:
    """A configured credential: `(value or None, configured)`; a SecretRef raises `GatewayConfigError`."""
    if value is None:
        return None, False
    if isinstance(value, dict):
        raise GatewayConfigError(
            f"{path} is a SecretRef, which session-inspector does not resolve: set OPENCLAW_GATEWAY_TOKEN "
            "(or OPENCLAW_GATEWAY_PASSWORD) in the environment instead")
    text = _trim(value)
    if text is None:
        return None, False
    text = _ENV_REF.sub(lambda m: env.get(m.group(1)) or m.group(0), text).strip()
    if _ENV_REF.search(text):
        return None, True  # an unresolved placeholder is no credential
    return text or None, True


def _first(*values: str | None) -> str | None:
    return next((v for v in values if v), None)


def _credentials(config: Mapping[str, Any], env: Mapping[str, str], remote_mode: bool) -> tuple[str | None, str | None]:
    auth, remote = _section(config, "gateway", "auth"), _section(config, "gateway", "remote")
    env_token, env_password = _trim(env.get("OPENCLAW_GATEWAY_TOKEN")), _trim(env.get("OPENCLAW_GATEWAY_PASSWORD"))
    local_token, local_token_set = _config_secret(auth.get("token"), "gateway.auth.token", env)
    local_password, local_password_set = _config_secret(auth.get("password"), "gateway.auth.password", env)
    remote_token, _ = _config_secret(remote.get("token"), "gateway.remote.token", env)
    remote_password, _ = _config_secret(remote.get("password"), "gateway.remote.password", env)
    if remote_mode:
        return _first(remote_token, env_token, local_token), _first(env_password, remote_password, local_password)
    token = _first(local_token, env_token, None if local_token_set else remote_token)
    fallback_password = None if local_password_set or auth.get("mode") == "trusted-proxy" else remote_password
    return token, _first(local_password, env_password, fallback_password)


def resolve_gateway_target(config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None) -> GatewayTarget:
    """The Gateway the `openclaw` CLI would call with this config and environment (see the module docstring)."""
    config = config if isinstance(config, Mapping) else {}
    env = os.environ if env is None else env
    gateway = _section(config, "gateway")
    env_url = _trim(env.get("OPENCLAW_GATEWAY_URL"))
    remote_mode = gateway.get("mode") == "remote"
    remote_url = _trim(_section(config, "gateway", "remote").get("url")) if remote_mode else None
    if env_url:
        url, source = env_url, "env OPENCLAW_GATEWAY_URL"
        token, password = _trim(env.get("OPENCLAW_GATEWAY_TOKEN")), _trim(env.get("OPENCLAW_GATEWAY_PASSWORD"))
    else:
        scheme = "wss" if _section(config, "gateway", "tls").get("enabled") is True else "ws"
        if remote_url:
            url, source = remote_url, "config gateway.remote.url"
        elif remote_mode:
            raise GatewayConfigError("gateway remote mode misconfigured: gateway.remote.url missing (set it, or gateway.mode=local)")
        else:
            url, source = f"{scheme}://127.0.0.1:{gateway_port(config, env)}", "local loopback"
        token, password = _credentials(config, env, remote_mode)
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise GatewayConfigError(f"the Gateway URL from {source} is not a ws:// or wss:// URL")
    if parts.scheme == "ws" and not is_loopback_host(parts.hostname) and not _private_allowed(parts.hostname, env):
        raise GatewayConfigError(
            f"the Gateway URL from {source} uses plaintext ws:// to a non-loopback address; use wss:// "
            "(or an SSH tunnel to 127.0.0.1), as OpenClaw requires")
    return GatewayTarget(url=url, url_source=source, token=token, password=password)


def _private_allowed(host: str, env: Mapping[str, str]) -> bool:
    """OpenClaw's break-glass `OPENCLAW_ALLOW_INSECURE_PRIVATE_WS=1` for private-network addresses."""
    if env.get("OPENCLAW_ALLOW_INSECURE_PRIVATE_WS") != "1":
        return False
    try:
        return ipaddress.ip_address(host.strip("[]")).is_private
    except ValueError:
        return host.endswith(".local")
