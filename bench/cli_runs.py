"""The headless CLI run end to end, as a user runs it: one fresh `python -m inspector ...` process per run.

Each run's wall time includes interpreter start-up and imports; its peak RSS comes from `os.wait4` (the largest
single process of the run: the CLI's own, or a worker's if larger). stdout goes to a file and is hashed, so a warm
(cached) run can be checked against the cold one. Every run gets a controlled environment: no user OpenClaw config
(`OPENCLAW_CONFIG_PATH` points at a missing file), and the index cache (when the CLI has one) in a directory of the
benchmark's (`SESSION_INSPECTOR_CACHE_DIR`, `XDG_CACHE_HOME`), never the user's. Bytecode is cached as on a
user's install, even when `PYTHONDONTWRITEBYTECODE` is set (compiling every module costs about a second per run),
under `pycache` (`PYTHONPYCACHEPREFIX`, outside the repo), and `warm_up` compiles it before anything is timed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# name -> CLI arguments before the path
COMMANDS: dict[str, list[str]] = {
    "stats": ["stats", "--json"],
    "stats_no_tiktoken": ["stats", "--json", "--no-tiktoken"],
    "context": ["context", "--json"],
}
LABELS = {
    "stats": "`stats --json` (with tiktoken)",
    "stats_no_tiktoken": "`stats --json --no-tiktoken`",
    "context": "`context --json`",
}


@dataclass
class CliRun:
    """One end-to-end CLI run."""

    seconds: float
    peak_rss_bytes: int
    stdout_sha256: str
    stdout_bytes: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON form."""
        return asdict(self)


class CliRunner:
    """Runs the CLI in fresh processes under a scratch directory (config, caches, outputs)."""

    def __init__(self, scratch: Path, pycache: Path, python: str = sys.executable) -> None:
        self.scratch = scratch
        self.python = python
        scratch.mkdir(parents=True, exist_ok=True)
        pythonpath = os.environ.get("PYTHONPATH")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.base_env = dict(
            env,
            PYTHONPYCACHEPREFIX=str(pycache),
            PYTHONPATH=f"{pythonpath}{os.pathsep}{ROOT}" if pythonpath else str(ROOT),
            OPENCLAW_CONFIG_PATH=str(scratch / "no-openclaw.json"),
            XDG_CACHE_HOME=str(scratch / "xdg-cache"),
            COLUMNS="160",
        )
        self._cache_flag: bool | None = None

    def has_cache(self) -> bool:
        """Whether this CLI has an index cache (`--no-cache` in `stats --help`)."""
        if self._cache_flag is None:
            out = subprocess.run([self.python, "-m", "inspector", "stats", "--help"], capture_output=True, text=True,
                                 env=self.base_env, cwd=self.scratch, check=True)  # `-m` puts the cwd first on sys.path
            self._cache_flag = "--no-cache" in out.stdout
        return self._cache_flag

    def run(self, command: str, path: Path, *, cache_dir: Path, use_cache: bool, rules: str | None = None) -> CliRun:
        """`python -m inspector <command> PATH`, with the cache in `cache_dir` (or `--no-cache`), under the rule set
        `rules` (`--rules`; None: the CLI's own choice)."""
        argv = [self.python, "-m", "inspector", *COMMANDS[command]]
        if rules is not None:
            argv += ["--rules", rules]
        if not use_cache and self.has_cache():
            argv.append("--no-cache")
        argv.append(str(path))
        env = dict(self.base_env, SESSION_INSPECTOR_CACHE_DIR=str(cache_dir))
        return self._timed(argv, env)

    def warm_up(self, tiny: Path, commands: list[str]) -> dict[str, float]:
        """Compile and cache every module (each command once on `tiny`, untimed), then the floor under every CLI
        row: a bare interpreter, `python -m inspector stats --help`, and each command on the tiny session."""
        for name in commands:
            self.run(name, tiny, cache_dir=self.scratch / "warm-up-cache", use_cache=False)
        floor = {
            "python_seconds": self._timed([self.python, "-c", "pass"], self.base_env).seconds,
            "cli_help_seconds": self._timed([self.python, "-m", "inspector", "stats", "--help"], self.base_env).seconds,
        }
        for name in commands:
            floor[f"{name}_tiny_seconds"] = self.run(name, tiny, cache_dir=self.scratch / "warm-up-cache",
                                                     use_cache=False).seconds
        return floor

    def _timed(self, argv: list[str], env: dict[str, str]) -> CliRun:
        out_path = self.scratch / "stdout"
        err_path = self.scratch / "stderr"
        with out_path.open("wb") as out, err_path.open("wb") as err:
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, cwd=self.scratch)
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.perf_counter() - t0
            proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: {err_path.read_text()[-2000:]}")
        # Hashed from the file, never held whole: a child's ru_maxrss counts the pages it shared with this process
        # when forked (Linux keeps that mark across exec), so a large output kept here would inflate every later run.
        with out_path.open("rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        return CliRun(seconds, usage.ru_maxrss * 1024, digest, out_path.stat().st_size)
