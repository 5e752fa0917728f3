"""The real OpenClaw 2026.9.6 Gateway for tests: `openclaw gateway run` in a scratch HOME, its model a fake
OpenAI-compatible server on 127.0.0.1 (`llm_servers.OpenAIServer`), token auth on a free loopback port.

`running_gateway(oc, home, model_base_url)` writes `home/.openclaw/openclaw.json` (local mode, the port, the
token, the fake provider as the default model, the log file inside `home`, no plugins, the safeguard's quality guard off so a
canned summary is kept), starts the Gateway with `HOME` / `OPENCLAW_STATE_DIR` at `home` and nothing else of the
user's, waits for its `[gateway] ready` line and yields a `Gateway` (port, token, env for clients). The store must
exist before: `openclaw doctor --session-sqlite import` refuses to run beside a Gateway. Never a user's state.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from oracle.openclaw_2026_9 import OpenClaw2026_9

TOKEN = "gateway-test-token-5b1f0e"
READY_LINE = "[gateway] ready"
EMBEDDED_ENV = {"OPENCLAW_DISABLE_BONJOUR": "1", "OPENCLAW_NO_RESPAWN": "1", "OPENCLAW_EXEC_SHELL_SNAPSHOT": "0",
                "OPENCLAW_SKIP_CHANNELS": "1", "OPENCLAW_SKIP_CRON": "1", "OPENCLAW_SKIP_GMAIL_WATCHER": "1",
                "OPENCLAW_SKIP_CANVAS_HOST": "1", "OPENCLAW_SKIP_BROWSER_CONTROL_SERVER": "1"}
"""A Gateway for one test, as docs/gateway/embedding.md runs an embedded one: no LAN advertising, no respawn, no
channels, automations, canvas or browser servers (none is needed to compact, and each costs start-up time)."""
START_TIMEOUT_S = 90.0
"""About 10 s on an idle machine; more when the cores are shared."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Gateway:
    """A started Gateway: where it listens and how a client reaches it."""

    port: int
    token: str
    home: Path
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def client_env(self) -> dict[str, str]:
        """The environment of a client of this Gateway: the scratch HOME and state dir (whose config names the port
        and the token)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
        return dict(env, HOME=str(self.home), OPENCLAW_STATE_DIR=str(self.home / ".openclaw"))


def gateway_config(port: int, model_base_url: str, home: Path) -> dict:
    """The scratch `openclaw.json`."""
    return {
        "gateway": {"mode": "local", "port": port, "bind": "loopback", "auth": {"mode": "token", "token": TOKEN}},
        "logging": {"file": str(home / "openclaw-gateway.log")},
        "plugins": {"enabled": False},  # no plugin discovery or load: a faster start, and none is needed here
        "agents": {"defaults": {"model": {"primary": "fake/fake-model"}, "compaction": {"qualityGuard": {"enabled": False}}}},
        "models": {"mode": "merge", "providers": {"fake": {
            "baseUrl": model_base_url, "apiKey": "fake-key", "api": "openai-completions",
            "models": [{"id": "fake-model", "name": "Fake", "reasoning": False, "input": ["text"],
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                        "contextWindow": 200000, "maxTokens": 8192}],
        }}},
    }


@contextmanager
def running_gateway(oc: OpenClaw2026_9, home: Path, model_base_url: str) -> Iterator[Gateway]:
    """Start `openclaw gateway run` for `home` (see the module docstring); stopped (SIGTERM, then SIGKILL of its
    process group) on exit."""
    port = free_port()
    state = home / ".openclaw"
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(gateway_config(port, model_base_url, home), indent=2))
    out = home / "gateway-stdout.log"
    env = {"HOME": str(home), "OPENCLAW_STATE_DIR": str(state), "PATH": f"{oc.node.parent}:/usr/bin:/bin",
           "LANG": "C.UTF-8", "NO_COLOR": "1", "TMPDIR": str(home), **EMBEDDED_ENV}
    with open(out, "wb") as sink:
        proc = subprocess.Popen(
            [str(oc.node), str(oc.package / "openclaw.mjs"), "gateway", "run", "--port", str(port), "--bind", "loopback",
             "--auth", "token", "--token", TOKEN],
            env=env, cwd=home, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while READY_LINE not in out.read_text(errors="replace"):
            if proc.poll() is not None:
                raise RuntimeError(f"openclaw gateway exited with {proc.returncode}:\n{out.read_text(errors='replace')[-4000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"openclaw gateway not ready after {START_TIMEOUT_S:.0f} s:\n{out.read_text(errors='replace')[-4000:]}")
            time.sleep(0.2)
        yield Gateway(port, TOKEN, home, out)
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its helpers (spawn broker, sqlite workers) are in its group
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait(timeout=5)
