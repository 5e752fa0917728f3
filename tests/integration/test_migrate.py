"""`compact --migrate` (`inspector.write.migrate`): a version 1 or 2 file rewritten as pi 0.66.1 migrates it on open.

Differential: our migrated file parses to the same entries as pi's own `SessionManager.open` migration of a temporary
copy (the ids pi draws at random compared by position), on the corpus' v1 files and on hand-built v1/v2 files with
unknown fields, compactions' `firstKeptEntryIndex` (back and forward), `hookMessage` roles, blank and malformed lines.
Then: `undo` restores the original bytes, after a migration alone and after migrate + compact (two undos); a file
changed since its migration is not put back; the refusal of a version 1 file names --migrate.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from oracle.pi_oracle import oracle_dist

from inspector.write.journal import Journal
from inspector.write.migrate import migrate_session
from inspector.write.runner import RunOptions, run_compaction
from inspector.write.sessionfile import SessionWriteError
from inspector.write.undo import undo_last_compaction

CORPUS = Path(os.environ.get("SESSION_INSPECTOR_CORPUS") or ROOT.parent / "shared" / "corpus")
SCRIPT = ROOT / "tests" / "oracle" / "pi_migrate.mjs"


def _lines(*objs: Any) -> bytes:
    return b"".join((o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n" for o in objs)


def _msg(role: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"type": "message", "timestamp": "2025-01-01T00:00:00.000Z", "message": {"role": role, "content": [{"type": "text", "text": text}],
                                                                                    "timestamp": 1}, **extra}


V1 = _lines(
    {"type": "session", "id": "s-1", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w", "provider": "anthropic", "x-unknown": {"a": [1, 2]}},
    _msg("user", "hello", **{"x-field": "kept"}),
    b"",
    _msg("assistant", "hi \u00e9\u4e2d\ud83d\ude00"),
    b"{not json",
    _msg("hookMessage", "from a hook"),
    {"type": "compaction", "timestamp": "2025-01-01T00:00:01.000Z", "summary": "s", "firstKeptEntryIndex": 2, "tokensBefore": 10, "extra": True},
    _msg("user", "next"),
    {"type": "compaction", "timestamp": "2025-01-01T00:00:02.000Z", "summary": "t", "firstKeptEntryIndex": 8, "tokensBefore": 11},
    {"type": "model_change", "timestamp": "2025-01-01T00:00:03.000Z", "provider": "openai", "modelId": "gpt-5", "weird": None},
    _msg("user", "last"),
)
V2 = _lines(
    {"type": "session", "version": 2, "id": "s-2", "timestamp": "2025-01-01T00:00:00.000Z", "cwd": "/w"},
    {**_msg("user", "a"), "id": "aaaa0001", "parentId": None},
    {**_msg("hookMessage", "b", customType="x"), "id": "aaaa0002", "parentId": "aaaa0001", "unknown": 1},
    {**_msg("assistant", "c"), "id": "aaaa0003", "parentId": "aaaa0002"},
)


def _canonical(text: str) -> list[Any]:
    """The entries of a JSONL text, each id replaced by its entry's position (pi draws ids at random)."""
    objs = [json.loads(line) for line in text.splitlines() if line.strip()]
    pos = {o["id"]: f"#{i}" for i, o in enumerate(objs) if isinstance(o.get("id"), str) and o.get("type") != "session"}

    def fix(o: dict[str, Any]) -> dict[str, Any]:
        out = dict(o)
        for key in ("id", "parentId", "firstKeptEntryId"):
            if isinstance(out.get(key), str) and o.get("type") != "session":
                out[key] = pos.get(out[key], out[key])
        return out

    return [fix(o) for o in objs]


def _pi_migrate(paths: list[Path], tmp: Path) -> None:
    dist, why = oracle_dist()
    if dist is None:
        pytest.skip(f"pi oracle unavailable: {why}")
    env = {**os.environ, "HOME": str(tmp / "home"), "PI_CODING_AGENT_DIR": str(tmp / "home" / ".pi")}
    proc = subprocess.run(["node", str(SCRIPT), str(dist)], input=json.dumps([str(p) for p in paths]), capture_output=True, text=True,
                          timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr


def _cases(tmp: Path) -> list[tuple[str, bytes]]:
    cases = [("v1", V1), ("v2", V2)]
    for name in ("before-compaction.v1.jsonl", "large-session.v1.jsonl"):
        if (CORPUS / "pi" / name).exists():
            cases.append((name, (CORPUS / "pi" / name).read_bytes()))
    return cases


def test_our_migration_parses_to_pi_s_own(tmp_path: Path) -> None:
    ours_dir, pis_dir = tmp_path / "ours", tmp_path / "pi"
    ours_dir.mkdir()
    pis_dir.mkdir()
    cases = _cases(tmp_path)
    pis = []
    for name, data in cases:
        (ours_dir / name).write_bytes(data)
        (pis_dir / name).write_bytes(data)  # a temporary copy: pi migrates it in place
        pis.append(pis_dir / name)
    _pi_migrate(pis, tmp_path)
    journal = Journal.at(tmp_path / "journal.json")
    for name, data in cases:
        res = migrate_session(ours_dir / name, journal=journal)
        ours = (ours_dir / name).read_text()
        theirs = (pis_dir / name).read_text()
        assert theirs != data.decode("utf-8", "replace")  # pi did migrate its copy
        assert _canonical(ours) == _canonical(theirs), name
        assert res.from_version == (2 if name == "v2" else 1)
    v1 = _canonical((ours_dir / "v1").read_text())
    assert v1[0]["version"] == 3 and v1[0]["x-unknown"] == {"a": [1, 2]} and v1[1]["x-field"] == "kept"  # unknown fields survive
    assert v1[3]["message"]["role"] == "custom" and v1[4]["firstKeptEntryId"] == "#2" and "firstKeptEntryIndex" not in v1[4]
    assert "firstKeptEntryId" not in v1[6] and len(v1) == 9  # a forward index names no id yet; the malformed line is dropped
    v2 = _canonical((ours_dir / "v2").read_text())
    assert v2[2]["message"]["role"] == "custom" and v2[2]["id"] == "#2" and v2[2]["unknown"] == 1


def test_undo_restores_the_original_bytes(tmp_path: Path) -> None:
    journal = Journal.at(tmp_path / "journal.json")
    path = tmp_path / "v1.jsonl"
    path.write_bytes(V1)
    res = migrate_session(path, journal=journal)
    assert res.checkpoint.read_bytes() == V1 and res.lines_dropped == 1 and res.roles_renamed == 1 and res.ids_added == 8
    with pytest.raises(SessionWriteError, match="already version 3"):
        migrate_session(path, journal=journal)
    undone = undo_last_compaction(path, journal=journal)
    assert undone.mode == "migrate" and path.read_bytes() == V1


def test_a_file_changed_since_its_migration_is_not_put_back(tmp_path: Path) -> None:
    journal = Journal.at(tmp_path / "journal.json")
    path = tmp_path / "v2.jsonl"
    path.write_bytes(V2)
    migrate_session(path, journal=journal)
    migrated = path.read_bytes()
    with open(path, "ab") as f:
        f.write(_lines({**_msg("user", "appended by pi"), "id": "bbbb0001", "parentId": "aaaa0003"}))
    with pytest.raises(SessionWriteError, match="changed since it was migrated"):
        undo_last_compaction(path, journal=journal)
    assert path.read_bytes().startswith(migrated)


@pytest.mark.skipif(not (CORPUS / "pi" / "large-session.v1.jsonl").exists(), reason=f"no large-session.v1.jsonl in {CORPUS}")
def test_compact_migrate_then_two_undos(tmp_path: Path) -> None:
    src = CORPUS / "pi" / "large-session.v1.jsonl"
    path = tmp_path / src.name
    shutil.copy(src, path)
    os.chmod(path, 0o644)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SESSION_INSPECTOR_STATE_DIR": str(tmp_path / "s")}
    refused = subprocess.run([sys.executable, "-m", "inspector", "compact", str(path), "--yes", "--json"], capture_output=True, text=True,
                             env=env, cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2 and "--migrate" in json.loads(refused.stdout)["reason"]
    out = subprocess.run([sys.executable, "-m", "inspector", "compact", str(path), "--yes", "--json", "--migrate"], capture_output=True,
                         text=True, env=env, cwd=ROOT, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert res["status"] == "committed" and res["migrated"]["from_version"] == 1 and res["entry"]["summary"].startswith("## Decisions\n")
    assert json.loads(path.read_bytes().split(b"\n", 1)[0])["version"] == 3
    for _ in range(2):
        undo = subprocess.run([sys.executable, "-m", "inspector", "undo", str(path)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
        assert undo.returncode == 0, undo.stderr
    assert path.read_bytes() == src.read_bytes()


def test_a_dry_run_never_migrates(tmp_path: Path) -> None:
    path = tmp_path / "v1.jsonl"
    path.write_bytes(V1)
    res = run_compaction(path, RunOptions(dry_run=True, migrate=True))
    assert res.migration is None and path.read_bytes() == V1
