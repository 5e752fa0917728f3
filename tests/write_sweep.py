"""The kill -9 sweep of the write path (`test_write_crash_sweep*.py`): a zygote that forks, per trial, a real
writer process and a real compaction / undo process armed with the crash hook, and the checks after each kill.

Each trial forks a writer (pi's way: open, append, close per line; or one that keeps its descriptor open) that
appends a line every ~1 ms until the actor is gone (then a few more), and an actor armed with
`faults.kill_after(k, op)`: it SIGKILLs itself right after its kth `op`. `sweep` runs, for every operation
(`open`, `write`, `fsync`, `replace`, `link`, `unlink`, ...), k = 1, 2, ... until a run completes without
reaching a kth one: every file operation of the run, named by kind and rank (stable while the writer's lines
shift the plain count). After each trial every line the writer appended is in the session, or in a replaced
file the journal records, from where the next run's recovery carries it (and says so); then exactly once.
A pre-imported zygote forks the processes (a fresh interpreter per trial would take most of the time).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from test_compaction_writer import BROKEN_LINE, rich_session

from inspector.write import faults
from inspector.write.journal import Journal
from inspector.write.lock import lock_path_for
from inspector.write.recovery import recover_session
from inspector.write.undo import undo_last_compaction
from inspector.write.writer import commit_compaction

MAX_RANK = 40  # a full run does ~45 file operations, at most ~20 of one kind
AFTER_STOP = 3  # lines the writer still appends once the compaction / undo process is gone

ZYGOTE = r"""
import json, os, select, sys, time
from pathlib import Path
from inspector.write import faults
from inspector.write.journal import Journal
from inspector.write.undo import undo_last_compaction
from inspector.write.writer import commit_compaction

def write_lines(path, kind, parent, prefix, stop, report, after_stop):
    # one line per ~1 ms until told to stop, then `after_stop` more; the count goes to `report`
    fd = os.open(path, os.O_WRONLY | os.O_APPEND) if kind == "held" else -1
    i, left = 0, None
    while left != 0:
        eid = f"{prefix}{i:04d}"
        line = json.dumps({"type": "message", "id": eid, "parentId": parent, "timestamp": "2026-06-07T09:00:00.000Z",
                           "message": {"role": "assistant", "content": [{"type": "text", "text": f"late {i}"}]}},
                          separators=(",", ":")) + "\n"
        if kind == "pi":  # pi's appendFileSync: open(O_APPEND), write, close; no lock
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
            os.write(fd, line.encode())
            os.close(fd)
        else:             # a writer that keeps its descriptor: after a rename it writes into the replaced file
            os.write(fd, line.encode())
        parent, i = eid, i + 1
        if left is None and (select.select([stop], [], [], 0)[0] or i >= 2000):
            left = after_stop
        elif left is not None:
            left -= 1
        time.sleep(0.001)
    os.write(report, f"{i}\n".encode())

def fork(fn):
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            fn()
        except BaseException as exc:
            sys.stderr.write(f"trial error: {exc!r}\n")
            code = 3
        finally:
            os._exit(code)
    return pid

print("ready", flush=True)
for cmd in sys.stdin:
    a = json.loads(cmd)
    path, journal = Path(a["path"]), Journal.at(Path(a["journal"]))

    def act():
        faults.kill_after(a["k"], a["op"])
        if a["what"] == "truncate":
            commit_compaction(path, "a summary", "u2", 7, None, truncate=True, journal=journal)
        else:
            undo_last_compaction(path, journal=journal)

    stop_r, stop_w = os.pipe()
    report_r, report_w = os.pipe()
    writer = fork(lambda: write_lines(a["path"], a["kind"], a["parent"], a["prefix"], stop_r, report_w, a["after_stop"]))
    time.sleep(0.003)  # the writer has started (a held descriptor is open on the file as it is now)
    actor = fork(act)
    _, actor_status = os.waitpid(actor, 0)
    os.write(stop_w, b"x")
    _, writer_status = os.waitpid(writer, 0)
    written = int(os.read(report_r, 64) or b"-1")
    for fd in (stop_r, stop_w, report_r, report_w):
        os.close(fd)
    print(json.dumps([actor_status, writer_status, written]), flush=True)
"""


class Zygote:
    """A pre-imported process that runs trials (forks a writer and an armed actor, reaps both)."""

    def __init__(self, log: Path) -> None:
        self.log_path = log
        self.log = log.open("wb")
        self.proc = subprocess.Popen([sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready"

    def trial(self, **args: Any) -> tuple[int, int, int]:
        """(actor's wait status, writer's wait status, lines the writer wrote)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(args) + "\n")
        self.proc.stdin.flush()
        actor, writer, written = json.loads(self.proc.stdout.readline())
        return actor, writer, written

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.log.close()


def _ids(data: bytes) -> list[str]:
    out = []
    for raw in data.split(b"\n"):
        if raw.strip() and raw != BROKEN_LINE:
            obj = json.loads(raw)  # every line but the fixture's deliberately broken one is JSON
            if obj.get("type") != "session":
                out.append(obj["id"])
    return out


def _recover(path: Path, journal: Journal) -> list[str]:
    """The next run's recovery (what `compact` and `undo` do first), in this process: lock, resolve, release."""
    return recover_session(path, journal=journal, lock_timeout_ms=5000)


def _check_writer_lines(path: Path, journal: Journal, expected: list[str], where: str) -> tuple[bool, list[str]]:
    """Every writer line is in the session after recovery, exactly once; lines missing before it were reported."""
    before = set(_ids(path.read_bytes()))
    missing = [i for i in expected if i not in before]
    if missing:  # each missing line is in a replaced file the journal records (where the recovery looks)
        kept = b"".join(Path(r.kept).read_bytes() for r in journal.replaced_for(path) if Path(r.kept).exists())
        assert all(f'"id":"{i}"'.encode() in kept for i in missing), (where, missing)
    notes = _recover(path, journal)
    if missing:
        assert any("carried" in n for n in notes), (where, len(missing), notes)
    assert not any(r.status == "pending" for r in journal.records_for(path)), where
    assert not any(r.status == "pending" for r in journal.replaced_for(path)), where
    ids = _ids(path.read_bytes())
    counts = {i: ids.count(i) for i in expected}
    assert all(c == 1 for c in counts.values()), (where, {i: c for i, c in counts.items() if c != 1}, notes)
    assert len(ids) == len(set(ids)), (where, "a line was duplicated")
    assert not lock_path_for(path).exists(), where
    assert not list(path.parent.glob("*-tmp")), where
    return bool(missing), notes


def _kills(log: Path) -> list[tuple[str, str]]:
    return re.findall(r"killed after file operation \d+ \((\w+) ([^)\n]*)\)", log.read_text(errors="replace"))


def _trial(tmp_path: Path, zygote: Zygote, template: Path, what: str, kind: str, op: str, k: int) -> tuple[bool, bool]:
    """One trial; (the run completed, the recovery had lines to carry)."""
    original = template.read_bytes()
    original_ids = _ids(original)
    d = tmp_path / f"{what}-{kind}-{op}-{k}"
    d.mkdir()
    path = d / "0f0e0d0c-1111-4222-8333-444455556666.jsonl"
    shutil.copy(template, path)
    journal = Journal.at(d / "state" / "journal.json")
    parent = "a3"
    if what == "undo":
        parent = commit_compaction(path, "a summary", "u2", 7, None, truncate=True, journal=journal).entry_id
    prefix = f"w{op[:2]}{k:02d}x"
    actor, writer, written = zygote.trial(path=str(path), journal=str(journal.file.path), what=what, kind=kind, op=op, k=k,
                                          parent=parent, prefix=prefix, after_stop=AFTER_STOP)
    assert writer == 0 and written > AFTER_STOP, (op, k, writer, written)
    expected = [f"{prefix}{i:04d}" for i in range(written)]
    assert actor in (0, 9), (op, k, actor)  # the run completed, or was killed by the hook (never an error)
    where = f"{what}/{kind}: kill after {op} #{k}" if actor == 9 else f"{what}/{kind}: complete run"
    needed, _ = _check_writer_lines(path, journal, expected, where)
    ids = set(_ids(path.read_bytes())) - set(expected)
    compactions = [i for i in ids if i not in original_ids]
    if what == "truncate":
        if compactions:  # truncated: the checkpoint starts with the file as it was
            assert len(compactions) == 1 and not {"u1", "a1", "r1"} & ids, where
            [cp] = d.glob("*.checkpoint.*.jsonl")
            assert cp.read_bytes().startswith(original), where
        else:  # not truncated: nothing lost, no checkpoint left that is only a second name of the session
            assert ids == set(original_ids), where
            assert all(os.stat(cp).st_ino != os.stat(path).st_ino for cp in d.glob("*.checkpoint.*.jsonl")), where
    else:
        if compactions:  # the undo did not happen: it can be done now, and restores everything
            undo_last_compaction(path, journal=journal)
            ids = set(_ids(path.read_bytes())) - set(expected)
        assert ids == set(original_ids), where
        assert sorted(_ids(path.read_bytes())) == sorted(original_ids + expected), where
    return actor == 0, needed


def sweep(tmp_path: Path, zygote: Zygote, what: str, kind: str) -> None:
    """Kill `what` ("truncate": a truncating compaction; "undo": the undo of one) after every file operation in
    turn while a `kind` writer ("pi" or "held") appends; check each trial (see the module docstring)."""
    template = rich_session(tmp_path / "template.jsonl")
    recovered_trials = 0
    trials = 0
    t0 = time.monotonic()
    for op in faults.OPERATIONS:
        for k in range(1, MAX_RANK + 1):
            completed, needed = _trial(tmp_path, zygote, template, what, kind, op, k)
            trials += 1
            recovered_trials += needed
            if completed:
                break
        else:
            pytest.fail(f"{what}/{kind}: more than {MAX_RANK} {op} operations in one run")
    killed = _kills(zygote.log_path)
    assert len(killed) >= trials - len(faults.OPERATIONS) and len(killed) > 30, (trials, len(killed))
    # kills landed right after the session's rename, and some left lines only in the replaced file (then carried)
    assert any(op == "replace" and re.search(r"\.jsonl\.(truncate|undo)-tmp -> .*\.jsonl$", target) for op, target in killed), killed
    assert recovered_trials > 0
    assert time.monotonic() - t0 < 60


@pytest.fixture(autouse=True)
def sweep_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This tool's state dir (journal, breaker) inside the test's own folder (a sweep module imports it)."""
    d = tmp_path / "state"
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(d))
    return d


@pytest.fixture
def zygote(tmp_path: Path) -> Iterator[Zygote]:
    """The pre-started process each trial forks its run from (closed after the test)."""
    z = Zygote(tmp_path / "zygote.log")
    yield z
    z.close()
