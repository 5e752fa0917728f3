"""A replayed memo answers before anything heavy is imported: the warm floor is the interpreter's start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT

from inspector.read import lines as index
from inspector.storage.cache import filekey

PROBE = """
import sys
at_start = set(sys.modules)  # what the interpreter's start (site, an editable install's hook) imported
from inspector.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
heavy = ("dataclasses", "pathlib", "typing", "json", "orjson", "re", "inspector.host.openclaw_config", "inspector.session.session")
sys.stderr.write(" ".join(m for m in heavy if m in sys.modules and m not in at_start))
sys.exit(code)
"""


def test_the_file_key_hashes_the_head_the_index_reads() -> None:
    assert filekey.HEAD_BYTES == index.HEAD_BYTES


def test_a_replayed_memo_imports_nothing_heavy(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes((ROOT / "inspector" / "data" / "demo-session.jsonl").read_bytes())
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / ".openclaw"), SESSION_INSPECTOR_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("OPENCLAW_CONFIG_PATH", None)
    runs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", PROBE, "stats", "--json", str(path)], capture_output=True, env=env,
                              cwd=ROOT, timeout=300, check=True)
        runs.append((proc.stdout, proc.stderr.decode()))
        time.sleep(0.01)
    (first, imported_cold), (second, imported_warm) = runs
    assert second == first
    assert "inspector.session.session" in imported_cold  # the first run computed the figures
    assert imported_warm == ""


STORE_PROBE = """
import sys
from inspector.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.write(" ".join(m for m in ("sqlite3", "zstandard", "inspector.read.store.connection") if m in sys.modules))
sys.exit(code)
"""


def test_a_command_on_a_session_file_imports_nothing_of_the_sqlite_stores(tmp_path: Path) -> None:
    """Telling a session file from a store reads its first sixteen bytes: `sqlite3` (and its memory) is for stores only."""
    path = tmp_path / "s.jsonl"
    path.write_bytes((ROOT / "inspector" / "data" / "demo-session.jsonl").read_bytes())
    env = dict(os.environ, HOME=str(tmp_path), OPENCLAW_STATE_DIR=str(tmp_path / ".openclaw"))
    proc = subprocess.run([sys.executable, "-c", STORE_PROBE, "stats", "--json", "--no-tiktoken", "--no-cache", str(path)],
                          capture_output=True, env=env, cwd=ROOT, timeout=300, check=True)
    assert proc.stderr.decode() == ""
