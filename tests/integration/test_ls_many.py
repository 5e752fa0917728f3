"""`session-inspector ls --json` on a directory of many sessions: each row's `glance` says what `stats --json` says
for the same file (real processes), and odd files in the directory neither hang nor end the listing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

from bench.many_sessions import generate_dir

FIGURES = ("header", "leaf_id", "model", "context_tokens", "session_name", "compactions")


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, HOME=str(ROOT / "tests" / "no-such-home"), OPENCLAW_STATE_DIR=str(ROOT / "no-state"),
               PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300, cwd=ROOT)


def stats_figures(path: str) -> dict:
    done = cli("stats", path, "--json", "--no-tiktoken")
    assert done.returncode == 0, done.stderr
    stats = json.loads(done.stdout)
    return {
        "header": stats["header"],
        "leaf_id": stats["leaf_id"],
        "model": stats["model"],
        "context_tokens": stats["context"]["estimate_context_tokens"]["tokens"],
        "session_name": stats["session_name"],
        "compactions": len(stats["compactions"]),
        "lines": stats["entries"]["total"] + 1,
    }


def test_ls_json_glance_is_what_stats_json_says(tmp_path):
    sessions = tmp_path / "agents" / "main" / "sessions"
    generate_dir(sessions, 30, big=1, big_size=300_000, seed=5)
    done = cli("ls", tmp_path, "--json", "--all")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["sessions"]
    assert len(rows) == 30 and all(row["format"] == "openclaw" for row in rows)
    # the biggest file (head and tail only), and a few others of each kind
    rows.sort(key=lambda row: row["size"], reverse=True)
    chosen = rows[:1] + [r for r in rows if r["kind"] != "live"][:2] + rows[10:13]
    big = rows[0]["glance"]
    assert "compactions" in big["unknown"] and big["estimated"] == ["lines"] and big["bytes_read"] < rows[0]["size"]
    for row in chosen:
        glance, want = row["glance"], stats_figures(row["path"])
        for figure in FIGURES:
            if figure not in glance["unknown"]:
                assert glance[figure] == want[figure], (row["path"], figure)
        if not glance["estimated"]:
            assert glance["lines"] == want["lines"]
        assert glance["context_tokens"] is not None and glance["error"] is None


def test_ls_json_with_odd_files(tmp_path):
    """Empty, header-only, a last line cut mid-write, a name that is not UTF-8, a FIFO: listed (or skipped) and
    glanced at without an error for the whole listing."""
    header = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n'
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "header.jsonl").write_text(header)
    (tmp_path / "cut.jsonl").write_text(header + '{"type":"message","id":"a1","parentId":null,"timest')
    (tmp_path / "no-header.jsonl").write_text('{"type":"custom","customType":"x","id":"c1","parentId":null}\n')
    os.mkfifo(tmp_path / "pipe.jsonl")
    odd = os.fsencode(tmp_path) + b"/caf\xe9.jsonl"
    with open(odd, "wb") as f:
        f.write(header.encode())
    done = cli("ls", tmp_path, "--json")
    assert done.returncode == 0, done.stderr
    rows = {Path(row["path"]).name: row for row in json.loads(done.stdout)["sessions"]}
    assert "pipe.jsonl" not in rows  # not a regular file: never opened
    assert rows["empty.jsonl"]["glance"]["lines"] == 0 and rows["empty.jsonl"]["glance"]["header"] is None
    assert rows["header.jsonl"]["glance"]["header"] == {"id": "s1", "version": 3, "timestamp": "2026-01-01T00:00:00.000Z",
                                                       "cwd": "/w"}
    assert rows["cut.jsonl"]["glance"]["leaf_id"] is None and rows["cut.jsonl"]["glance"]["context_tokens"] == 0
    assert rows["no-header.jsonl"]["glance"]["leaf_id"] == "c1"
    assert len(rows) == 5 and all(row["glance"]["error"] is None for row in rows.values())
    for name in ("empty.jsonl", "header.jsonl", "cut.jsonl", "no-header.jsonl"):
        want = stats_figures(rows[name]["path"])
        assert {k: rows[name]["glance"][k] for k in FIGURES} == {k: want[k] for k in FIGURES}, name
    table = cli("ls", tmp_path)
    assert table.returncode == 0 and "caf" in table.stdout
