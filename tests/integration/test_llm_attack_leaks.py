"""The LLM path under attack (issue 28): a server that echoes the key it was sent (in an error body and in the
summary it streams) never gets it into the session, any file under HOME (state, journal, breaker, logs, cache) or
the output, for both SDKs, in text and `--json` modes. Real processes: `python -m inspector compact`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from test_llm_attacks import DEMO, IDS, KEYS, SERVERS, _env


def _compact(session: Path, kind: str, base_url: str, home: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "inspector", "compact", str(session), "--summarizer", kind, "--base-url", base_url,
                           "--model", "m1", *args], capture_output=True, env=_env(home, kind), stdin=subprocess.DEVNULL, cwd=ROOT,
                          timeout=120)


def _files_holding(root: Path, needles: list[bytes]) -> list[str]:
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            found += [f"{path}: {n!r}" for n in needles if n in data]
    return found


@pytest.mark.parametrize("mode", ["text", "json"])
@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_a_server_echoing_the_key_never_gets_it_anywhere(server_cls: Any, kind: str, mode: str, tmp_path: Path) -> None:
    key = KEYS[kind]
    needles = [key.encode(), key[-12:].encode()]  # the key, and its end (a partial leak)
    home = tmp_path / "home"
    home.mkdir()
    session = tmp_path / "sessions" / DEMO.name
    session.parent.mkdir()
    shutil.copy(DEMO, session)
    with server_cls() as srv:
        # an error whose body repeats the headers (retried), then summaries that repeat them
        srv.script(["echo_key"])
        srv.default = "echo_key_summary"
        out = _compact(session, kind, srv.base_url, home, "--yes", *(["--json"] if mode == "json" else []))
        sent = [{k.lower(): v for k, v in r["headers"].items()} for r in srv.requests]
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    assert len(sent) >= 3 and all(key in h.get("authorization", "") + h.get("x-api-key", "") for h in sent)  # the key was sent
    leaks = _files_holding(home, needles) + _files_holding(session.parent, needles)
    leaks += [f"{name}: {n!r}" for name, data in (("stdout", out.stdout), ("stderr", out.stderr)) for n in needles if n in data]
    assert leaks == []
    entry = json.loads(session.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    assert entry["type"] == "compaction" and "the client authenticated with" in entry["summary"] and "[redacted]" in entry["summary"]
    assert b"retry 1/3" in out.stderr  # the error line was shown (scrubbed)
    assert len([p for p in home.rglob("*") if p.is_file()]) >= 2  # the run kept its state (breaker, journal) under this HOME
