"""Finding the Gateway as the `openclaw` CLI does (`inspector.host.gateway.target`): the port and the credentials
compared with OpenClaw 2026.9.6's own `resolveGatewayPort` and `resolveGatewayCredentialsFromConfig` on generated
configs and environments (skipped without the oracle), and the URL rules, refusals and secrecy by hand."""

from __future__ import annotations

import random

import pytest
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401

from inspector.host.gateway.target import (
    DEFAULT_GATEWAY_PORT,
    GatewayConfigError,
    _credentials,
    gateway_port,
    resolve_gateway_target,
)

PORT_ENVS = [None, "", "  ", "1234", " 4321 ", "host:99", "[::1]:8080", "a:b:c", ":5", "abc", "0", "70000", "65535"]
PROFILES = [None, "", "dev", "default", "DEFAULT", "work-2", "Bad Name!", "x" * 65, "ünï"]
SECRETS = [None, "", "  ", "cfg-token", " spaced "]


def _cases(n: int, seed: int = 24) -> list[tuple[dict, dict]]:
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        gateway: dict = {}
        if rng.random() < 0.5:
            gateway["mode"] = rng.choice(["local", "remote", "other"])
        if rng.random() < 0.5:
            gateway["port"] = rng.choice([0, -3, 1, 18790, 2**16 - 1, 40000])
        auth = {k: v for k, v in (("mode", rng.choice([None, "token", "password", "none", "trusted-proxy"])),
                                  ("token", rng.choice(SECRETS)), ("password", rng.choice(SECRETS))) if v is not None}
        remote = {k: v for k, v in (("token", rng.choice(SECRETS)), ("password", rng.choice(SECRETS))) if v is not None}
        if auth:
            gateway["auth"] = auth
        if remote:
            gateway["remote"] = remote
        env = {k: v for k, v in (("OPENCLAW_GATEWAY_PORT", rng.choice(PORT_ENVS)), ("OPENCLAW_PROFILE", rng.choice(PROFILES)),
                                 ("OPENCLAW_GATEWAY_TOKEN", rng.choice(SECRETS)), ("OPENCLAW_GATEWAY_PASSWORD", rng.choice(SECRETS)))
               if v is not None}
        cases.append(({"gateway": gateway} if gateway else {}, env))
    return cases


def test_port_and_credentials_match_openclaw(openclaw_2026_9):  # noqa: F811
    cases = _cases(400)
    jobs = []
    for config, env in cases:
        mode = "remote" if config.get("gateway", {}).get("mode") == "remote" else "local"
        jobs.append({"module": "paths", "fn": "resolveGatewayPort", "args": [config, env]})
        jobs.append({"module": "credentials", "fn": "resolveGatewayCredentialsFromConfig",
                     "args": [{"cfg": config, "env": env, "modeOverride": mode}]})
    got = openclaw_2026_9.call(jobs)
    for i, (config, env) in enumerate(cases):
        remote = config.get("gateway", {}).get("mode") == "remote"
        assert gateway_port(config, env) == got[2 * i], (config, env)
        theirs = got[2 * i + 1]
        assert _credentials(config, env, remote) == (theirs.get("token"), theirs.get("password")), (config, env)


def test_local_url_and_sources():
    assert resolve_gateway_target({}, {}).url == f"ws://127.0.0.1:{DEFAULT_GATEWAY_PORT}"
    t = resolve_gateway_target({"gateway": {"port": 3000, "tls": {"enabled": True}, "auth": {"token": "s3cret"}}}, {})
    assert (t.url, t.url_source, t.auth_kind, t.loopback) == ("wss://127.0.0.1:3000", "local loopback", "token", True)
    remote = resolve_gateway_target({"gateway": {"mode": "remote", "remote": {"url": "wss://gw.example:443", "token": "r"}}}, {})
    assert (remote.url, remote.url_source, remote.token, remote.loopback) == ("wss://gw.example:443", "config gateway.remote.url", "r", False)


def test_an_env_url_gets_only_env_credentials():
    config = {"gateway": {"auth": {"token": "config-token"}}}
    t = resolve_gateway_target(config, {"OPENCLAW_GATEWAY_URL": "ws://localhost:9999"})
    assert (t.url, t.url_source, t.token) == ("ws://localhost:9999", "env OPENCLAW_GATEWAY_URL", None)
    t = resolve_gateway_target(config, {"OPENCLAW_GATEWAY_URL": "ws://[::1]:9", "OPENCLAW_GATEWAY_PASSWORD": "pw"})
    assert (t.token, t.password, t.auth_kind) == (None, "pw", "password")


def test_refusals():
    with pytest.raises(GatewayConfigError, match="plaintext ws://"):
        resolve_gateway_target({}, {"OPENCLAW_GATEWAY_URL": "ws://10.0.0.5:18789"})
    assert resolve_gateway_target({}, {"OPENCLAW_GATEWAY_URL": "ws://10.0.0.5:1", "OPENCLAW_ALLOW_INSECURE_PRIVATE_WS": "1"}).url
    with pytest.raises(GatewayConfigError, match="not a ws:// or wss:// URL"):
        resolve_gateway_target({}, {"OPENCLAW_GATEWAY_URL": "http://127.0.0.1:1"})
    with pytest.raises(GatewayConfigError, match=r"remote\.url missing"):
        resolve_gateway_target({"gateway": {"mode": "remote"}}, {})
    with pytest.raises(GatewayConfigError, match=r"gateway\.auth\.token is a SecretRef") as exc:
        resolve_gateway_target({"gateway": {"auth": {"token": {"source": "env", "id": "X"}}}}, {})
    assert "OPENCLAW_GATEWAY_TOKEN" in str(exc.value)


def test_env_placeholders_in_config_and_the_secret_never_shown():
    t = resolve_gateway_target({"gateway": {"auth": {"token": "${GW_TOKEN}"}}}, {"GW_TOKEN": "from-env-var"})
    assert t.token == "from-env-var"
    assert resolve_gateway_target({"gateway": {"auth": {"token": "${MISSING_VAR}"}}}, {}).token is None
    assert "from-env-var" not in repr(t) + str(t.to_json())
