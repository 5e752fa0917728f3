"""The write path under attack, through the real `session-inspector` command (issue 28).

* a writer that keeps its descriptor open across a truncating compaction: its lines land in the replaced file
  (the checkpoint); the next run carries them over and says so, none is lost;
* `SESSION_INSPECTOR_KILL_AFTER_OP` kills a real `compact` right after its rename; `undo` then finishes it,
  carries what the writer wrote into the replaced file, and reverts it;
* `undo` refuses a checkpoint that is not, byte for byte, the file as it was (cut, shortened, replaced);
* a session truncated in place during a truncating compaction: a clear error and the lock released (it was a
  SIGBUS: the session was mapped);
* two `compact` runs over the same history: the second sees the first's compaction and writes nothing;
* an `undo` killed right after its rename: the next `undo` confirms it and reverts the compaction before it
  (newest first, as after an undo that finished).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from test_compaction_writer import BROKEN_LINE, amsg, e, rich_session, umsg

from inspector.read.encode import encode_entry
from inspector.write.lock import lock_path_for

SESSION_NAME = "0f0e0d0c-1111-4222-8333-444455556666.jsonl"
FORCE = ("--keep-recent-tokens", "10", "--context-window", "2000")  # the small fixture is worth compacting

WRITER = r"""
import json, os, sys, time
path, kind, parent, prefix, gap = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
fd = os.open(path, os.O_WRONLY | os.O_APPEND) if kind == "held" else -1
print("open", flush=True)
i, left = 0, None
os.set_blocking(0, False)
while left != 0:
    eid = f"{prefix}{i:04d}"
    # custom entries (what OpenClaw appends without the lock): a truncation keeps them, wherever the cut falls
    line = json.dumps({"type": "custom", "customType": "test.late", "data": {"i": i}, "id": eid, "parentId": parent,
                       "timestamp": "2026-06-07T09:00:00.000Z"}, separators=(",", ":")) + "\n"
    if kind == "pi":
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, line.encode())
        os.close(fd)
    else:
        os.write(fd, line.encode())
    parent, i = eid, i + 1
    if left is None:
        try:
            if os.read(0, 1) == b"":   # stdin closed: stop after a few more lines
                left = 5
        except BlockingIOError:
            pass
    else:
        left -= 1
    time.sleep(gap)
print(i, flush=True)
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    e = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(tmp_path / "home"), OPENCLAW_STATE_DIR=str(tmp_path / "home" / ".openclaw"),
             SESSION_INSPECTOR_STATE_DIR=str(tmp_path / "state"), SESSION_INSPECTOR_CACHE_DIR=str(tmp_path / "cache"))
    e.pop("OPENCLAW_CONFIG_PATH", None)
    e.pop("SESSION_INSPECTOR_KILL_AFTER_OP", None)
    return e


@pytest.fixture
def session(tmp_path: Path) -> Path:
    d = tmp_path / "sessions"
    d.mkdir()
    return rich_session(d / SESSION_NAME)


def cli(*args: Any, env: dict[str, str], **extra: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, text=True, env=extra.pop("env_", env),
                          cwd=ROOT, timeout=120, **extra)


class Writer:
    """A real process appending a line every `gap` seconds until stopped (then 5 more): pi's way or one descriptor."""

    def __init__(self, path: Path, kind: str, parent: str, prefix: str = "late", gap: float = 0.002) -> None:
        self.prefix = prefix
        self.proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path), kind, parent, prefix, str(gap)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "open"

    def stop(self) -> list[str]:
        """Stop it; the ids of every line it wrote."""
        out, _ = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0
        return [f"{self.prefix}{i:04d}" for i in range(int(out.split()[-1]))]


def ids_of(path: Path) -> list[str]:
    out = []
    for raw in path.read_bytes().split(b"\n"):
        if raw.strip() and raw != BROKEN_LINE:
            obj = json.loads(raw)
            if obj.get("type") != "session":
                out.append(obj["id"])
    return out


# --------------------------------------------------------------------------------------------------------------
# A writer that keeps its descriptor open; a compact killed right after its rename
# --------------------------------------------------------------------------------------------------------------


def test_lines_written_into_the_replaced_file_are_carried_by_the_next_run(session: Path, env: dict[str, str]) -> None:
    original = ids_of(session)
    writer = Writer(session, "held", "a3")
    time.sleep(0.05)
    first = cli("compact", session, "--truncate", "--yes", "--json", *FORCE, env=env)
    assert first.returncode == 0, first.stderr
    checkpoint = Path(json.loads(first.stdout)["commit"]["checkpoint"])
    first_entry = json.loads(first.stdout)["commit"]["entry_id"]
    time.sleep(0.05)  # the writer goes on writing into the file the rename replaced
    written = writer.stop()
    late = [i for i in written if i not in set(ids_of(session))]
    assert late, "the writer wrote nothing after the rename"
    assert all(f'"id":"{i}"'.encode() in checkpoint.read_bytes() for i in late)  # kept in the replaced file
    second = cli("compact", session, "--yes", "--json", *FORCE, env=env)
    assert second.returncode in (0, 1), second.stderr
    recovered = json.loads(second.stdout)["recovered"]
    assert any(f"carried {len(late)} line(s)" in n and str(checkpoint) in n for n in recovered), recovered
    ids = ids_of(session)
    assert all(ids.count(i) == 1 for i in written)
    assert {"m0", "f0f0f0f0", "f1f1f1f1", "a2", "r2", "a3"} <= set(ids) < set(original) | set(written) | {first_entry, (json.loads(second.stdout)["commit"] or {}).get("entry_id")}
    # nothing more to carry: a third run reports nothing
    third = cli("compact", session, "--yes", "--json", *FORCE, env=env)
    assert not [n for n in json.loads(third.stdout)["recovered"] if "carried" in n]


def test_a_compact_killed_after_its_rename_is_finished_by_undo(session: Path, env: dict[str, str]) -> None:
    original = session.read_bytes()
    writer = Writer(session, "held", "a3")
    killed = cli("compact", session, "--truncate", "--yes", "--json", *FORCE, env=env,
                 env_=dict(env, SESSION_INSPECTOR_KILL_AFTER_OP="replace:2"))  # 1: the journal, 2: the session
    assert killed.returncode == -9, killed.stderr
    assert "killed after file operation" in killed.stderr and ".truncate-tmp -> " in killed.stderr
    assert lock_path_for(session).exists()  # a real crash: the lock stays behind
    time.sleep(0.05)
    written = writer.stop()
    assert [i for i in written if i not in set(ids_of(session))]  # some lines are only in the replaced file
    undo = cli("undo", session, "--json", env=env)
    assert undo.returncode == 0, undo.stderr
    result = json.loads(undo.stdout)
    assert any(n.startswith("confirmed truncation with compaction") for n in result["recovered"]), result
    assert any("carried" in n for n in result["recovered"]), result
    ids = ids_of(session)
    assert all(ids.count(i) == 1 for i in written)
    assert [i for i in ids if i not in written] == ids_of_bytes(original)  # the file as it was, plus the writer's lines
    assert not lock_path_for(session).exists() and not list(session.parent.glob("*-tmp"))


@pytest.mark.parametrize("first", [(), ("--truncate",)], ids=["append-then-append", "truncate-then-append"])
def test_an_undo_killed_after_its_rename_lets_the_next_undo_revert_the_compaction_before(session: Path, env: dict[str, str],
                                                                                         first: tuple[str, ...]) -> None:
    original = ids_of(session)
    one = cli("compact", session, "--yes", "--json", *first, *FORCE, env=env)
    assert one.returncode == 0, one.stderr
    one_id = json.loads(one.stdout)["commit"]["entry_id"]
    with open(session, "ab") as f:  # a turn after the first compaction, so that there is something to compact again
        f.write(encode_entry(e("message", "u9", one_id, 20, message=umsg("And now?"))))
        f.write(encode_entry(e("message", "a9", "u9", 21, message=amsg("Done again."))))
    two = cli("compact", session, "--yes", "--json", *FORCE, env=env)
    assert two.returncode == 0, two.stderr
    two_id = json.loads(two.stdout)["commit"]["entry_id"]
    killed = cli("undo", session, env=env, env_=dict(env, SESSION_INSPECTOR_KILL_AFTER_OP="replace:2"))  # 1: the journal, 2: the session
    assert killed.returncode == -9, killed.stderr
    assert ".undo-tmp -> " in killed.stderr and two_id not in ids_of(session)  # renamed, never journaled as done
    undo = cli("undo", session, "--json", env=env)
    assert undo.returncode == 0, undo.stderr
    result = json.loads(undo.stdout)
    assert f"confirmed the undo of compaction {two_id}, renamed into place before a crash" in result["recovered"], result
    assert result["entry_id"] == one_id  # the compaction before, not a refusal ("the file was replaced since ...")
    assert ids_of(session) == [*original, "u9", "a9"]
    assert not lock_path_for(session).exists() and not list(session.parent.glob("*-tmp"))


def ids_of_bytes(data: bytes) -> list[str]:
    return [json.loads(r)["id"] for r in data.split(b"\n") if r.strip() and r != BROKEN_LINE and b'"type":"session"' not in r]


# --------------------------------------------------------------------------------------------------------------
# undo and a checkpoint that is not the file as it was
# --------------------------------------------------------------------------------------------------------------


def _tamper_cut_mid_line(cp: Path, other: Path) -> None:
    data = cp.read_bytes()
    cp.write_bytes(data[: data.rfind(b"\n", 0, len(data) // 2) + 40])  # a torn line; the tail glues onto it


def _tamper_drop_entries(cp: Path, other: Path) -> None:
    lines = cp.read_bytes().split(b"\n")
    cp.write_bytes(b"\n".join(lines[:3]) + b"\n")  # whole lines gone, still well formed


def _tamper_replace(cp: Path, other: Path) -> None:
    os.replace(other, cp)  # another session's content, longer than the original


@pytest.mark.parametrize(("tamper", "why"), [(_tamper_cut_mid_line, "cut short since"), (_tamper_drop_entries, "cut short since"),
                                           (_tamper_replace, "are not the ones recorded (SHA-256): edited or replaced since")],
                         ids=["torn", "shortened", "replaced"])
def test_undo_refuses_a_checkpoint_that_is_not_the_file_as_it_was(session: Path, env: dict[str, str], tmp_path: Path, tamper: Any,
                                                                  why: str) -> None:
    done = cli("compact", session, "--truncate", "--yes", "--json", *FORCE, env=env)
    assert done.returncode == 0, done.stderr
    checkpoint = Path(json.loads(done.stdout)["commit"]["checkpoint"])
    other = tmp_path / "other.jsonl"  # another session, longer than this one
    other.write_bytes(checkpoint.read_bytes().replace(b"0f0e0d0c-1111", b"9f9e9d9c-9999") + b'{"type":"message","id":"zz"}\n')
    tamper(checkpoint, other)
    before = session.read_bytes()
    undo = cli("undo", session, env=env)
    assert undo.returncode == 2 and undo.stdout == ""
    assert f"the checkpoint {checkpoint} is not the file as it was before compaction" in undo.stderr, undo.stderr
    assert why in undo.stderr and "nothing changed" in undo.stderr
    assert session.read_bytes() == before
    assert not lock_path_for(session).exists() and not list(session.parent.glob("*.bak-*"))


def test_undo_accepts_a_checkpoint_that_only_grew(session: Path, env: dict[str, str]) -> None:
    original = session.read_bytes()
    done = cli("compact", session, "--truncate", "--yes", "--json", *FORCE, env=env)
    checkpoint = Path(json.loads(done.stdout)["commit"]["checkpoint"])
    with open(checkpoint, "ab") as f:  # a late line written into the replaced file: kept, carried, then undone with the rest
        f.write(b'{"type":"message","id":"late0001","parentId":"a3","timestamp":"2026-06-07T09:00:00.000Z","message":{"role":"user","content":"x"}}\n')
    undo = cli("undo", session, "--json", env=env)
    assert undo.returncode == 0, undo.stderr
    assert any("carried 1 line(s)" in n for n in json.loads(undo.stdout)["recovered"])
    assert ids_of(session) == ids_of_bytes(original) + ["late0001"]


def test_a_late_line_whose_parent_the_truncation_removed_is_reparented_when_carried(session: Path, env: dict[str, str]) -> None:
    done = cli("compact", session, "--truncate", "--yes", "--json", *FORCE, env=env)
    checkpoint = Path(json.loads(done.stdout)["commit"]["checkpoint"])
    assert "r1" not in ids_of(session)  # summarized and removed; its nearest kept ancestor is m0 (as for cu1)
    with open(checkpoint, "ab") as f:  # written late into the replaced file by a process that kept it open
        f.write(b'{"type":"custom","customType":"x","data":{},"id":"late0001","parentId":"r1","timestamp":"2026-06-07T09:00:00.000Z"}\n')
        f.write(b'{"type":"custom","customType":"x","data":{},"id":"late0002","parentId":"late0001","timestamp":"2026-06-07T09:00:01.000Z"}\n')
    again = cli("compact", session, "--yes", "--json", *FORCE, env=env)
    assert any("carried 2 line(s)" in n for n in json.loads(again.stdout)["recovered"]), again.stdout
    parents = {}
    for raw in session.read_bytes().split(b"\n"):
        if raw.strip() and raw != BROKEN_LINE:
            o = json.loads(raw)
            parents[o["id"]] = o.get("parentId")
    assert parents["late0001"] == parents["cu1"] == "m0" and parents["late0002"] == "late0001"


# --------------------------------------------------------------------------------------------------------------
# The session truncated in place during a truncating compaction
# --------------------------------------------------------------------------------------------------------------


def _mapped_by(pid: int, path: Path) -> bool:
    try:
        return str(path) in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_a_session_truncated_in_place_during_a_truncating_compaction_is_a_clear_error(tmp_path: Path, env: dict[str, str]) -> None:
    path = tmp_path / "sessions" / SESSION_NAME
    path.parent.mkdir()
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate.py"), str(path), "--size", "24MB", "--shape", "chat"],
                   check=True, capture_output=True, timeout=120)
    lock = lock_path_for(path)
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "compact", str(path), "--truncate", "--yes", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    cut: list[float] = []

    def truncate_in_place() -> None:
        # as soon as the commit holds the lock and has the session mapped (the old code did), or 20 ms into it
        locked_at = None
        deadline = time.monotonic() + 100
        while proc.poll() is None and time.monotonic() < deadline:
            if locked_at is None and lock.exists():
                locked_at = time.monotonic()
            if locked_at is not None and (_mapped_by(proc.pid, path) or time.monotonic() - locked_at > 0.02):
                os.truncate(path, os.stat(path).st_size // 2)  # mid-line, in place (same inode)
                cut.append(time.monotonic())
                return
            time.sleep(0.0005)

    t = threading.Thread(target=truncate_in_place)
    t.start()
    out, err = proc.communicate(timeout=120)
    t.join()
    assert cut, "the commit never took the lock"
    assert proc.returncode == 2, (proc.returncode, err[-2000:])  # not -7 (SIGBUS, exit 135 from a shell)
    result = json.loads(out)
    assert result["status"] == "failed" and "shrank" in result["reason"] and "nothing changed" in result["reason"], result["reason"]
    assert not lock.exists()  # released
    assert not list(path.parent.glob("*-tmp")) and not list(path.parent.glob("*.checkpoint.*"))


# --------------------------------------------------------------------------------------------------------------
# Two compact runs over the same history
# --------------------------------------------------------------------------------------------------------------

HOLDER = """
import sys
from inspector.write.lock import acquire_session_write_lock
lock = acquire_session_write_lock(sys.argv[1])
print("locked", flush=True)
sys.stdin.read()
lock.release()
"""


def test_two_concurrent_compact_runs_write_one_compaction(session: Path, env: dict[str, str]) -> None:
    before = ids_of(session)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(session)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    runs = [subprocess.Popen([sys.executable, "-m", "inspector", "compact", str(session), "--yes", "--json", *FORCE],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) for _ in range(2)]
    for run in runs:  # both planned and summarized the same history, and wait for the lock to commit
        assert run.stderr is not None
        while "commit: append one compaction entry" not in (line := run.stderr.readline()):
            assert line, "the run ended before its commit"
    holder.communicate("", timeout=30)
    results = []
    for run in runs:
        out, _ = run.communicate(timeout=60)
        results.append((run.returncode, json.loads(out)))
    assert sorted(code for code, _ in results) == [0, 1], results
    (_, won), (_, lost) = sorted(results, key=lambda r: r[0])
    assert won["status"] == "committed" and lost["status"] == "nothing_written" and not lost["changed"]
    entry = won["commit"]["entry_id"]
    assert lost["reason"].startswith(f"nothing to compact: compaction {entry} was written into"), lost["reason"]
    after = ids_of(session)
    assert after == [*before, entry]  # one compaction, over the history both planned
