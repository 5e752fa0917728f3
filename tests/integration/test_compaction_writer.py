"""The compaction writer: OpenClaw's entry exactly, truncation, undo, crashes, concurrent appends, pi loading it."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from inspector.base.clock import FixedClock
from inspector.read.encode import encode_entry
from inspector.write.journal import Journal, JournalRecord, new_record_id, normalized_path
from inspector.write.lock import LockHeld, lock_path_for
from inspector.write.sessionfile import SessionLines, SessionWriteError
from inspector.write.truncate import plan_truncation, render_truncation
from inspector.write.undo import undo_last_compaction
from inspector.write.writer import PlanSnapshot, WriterHooks, commit_compaction

CLOCK = FixedClock(datetime(2026, 6, 7, 8, 9, 10, 123000, tzinfo=UTC))
SUMMARY = "## Decisions\nUse the cache.\n\n## Open TODOs\nNone.\n\n## Constraints/Rules\nNone.\n\n## Pending user asks\nNone.\n\n## Exact identifiers\n/src/app.py"
DETAILS = {"readFiles": ["/src/a.py"], "modifiedFiles": ["/src/b.py"]}


# --------------------------------------------------------------------------------------------------------------
# Sessions, built as pi writes them
# --------------------------------------------------------------------------------------------------------------


def _ts(n: int) -> str:
    return f"2026-06-07T08:00:{n:02d}.000Z"


def e(etype: str, eid: str, parent: str | None, n: int = 0, **payload: Any) -> dict[str, Any]:
    if etype in ("custom", "custom_message"):
        return {"type": etype, **payload, "id": eid, "parentId": parent, "timestamp": _ts(n)}
    return {"type": etype, "id": eid, "parentId": parent, "timestamp": _ts(n), **payload}


def umsg(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1780819200000}


def amsg(text: str, calls: tuple[tuple[str, str, dict[str, Any]], ...] = ()) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    content += [{"type": "toolCall", "id": cid, "name": name, "arguments": args} for cid, name, args in calls]
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "usage": {"input": 900, "output": 40, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 940,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse" if calls else "stop",
        "timestamp": 1780819201000,
    }


def rmsg(cid: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": cid, "toolName": "read", "content": [{"type": "text", "text": text}],
            "isError": False, "timestamp": 1780819202000}


HEADER = {"type": "session", "version": 3, "id": "0f0e0d0c-1111-4222-8333-444455556666", "timestamp": _ts(0), "cwd": "/w"}
KEPT_UNKNOWN = b'{"type":"future_thing","id":"f1f1f1f1","parentId":"u2","timestamp":"2026-06-07T08:00:08.500Z","x":1.0,"y":"\\u00e9"}'
UNKNOWN_LINE = b'{"type":"future_thing","id":"f0f0f0f0","parentId":"a1","timestamp":"2026-06-07T08:00:05.000Z","x":1.0,"nested":{"b":2,"a":[1e2]}}'
BROKEN_LINE = b'{"type":"message","id":"broken' + "\u00e9".encode() + b'", oops'


def rich_session(path: Path) -> Path:
    """A session with everything the truncation must treat right: branches, labels, unknown and broken lines."""
    lines: list[bytes] = [encode_entry(HEADER)]
    entries = [
        e("model_change", "m0", None, 1, provider="anthropic", modelId="claude-sonnet-4-5"),
        e("message", "u1", "m0", 2, message=umsg("Read /src/a.py and fix the bug in 123e4567-e89b-12d3-a456-426614174000")),
        e("message", "a1", "u1", 3, message=amsg("Reading it.", (("c1", "read", {"path": "/src/a.py"}),))),
        e("message", "r1", "a1", 4, message=rmsg("c1", "def f():\n    return 1\n")),
        e("label", "l1", "r1", 5, targetId="a1", label="first read"),
        e("branch_summary", "bs1", "u1", 6, fromId="u1", summary="an abandoned branch"),
        e("custom", "cu1", "r1", 6, customType="openclaw.cache-ttl", data={"timestamp": 1780819202000}),
        e("message", "mir", "a1", 7, message=amsg("delivery mirror")),
        e("message", "u2", "cu1", 8, message=umsg("Now write /src/b.py")),
        e("message", "a2", "u2", 9, message=amsg("Writing.", (("c2", "write", {"path": "/src/b.py", "content": "x"}),))),
        e("message", "r2", "a2", 10, message=rmsg("c2", "ok")),
        e("label", "l2", "r2", 11, targetId="u2", label="second ask"),
        e("message", "a3", "l2", 12, message=amsg("Done.")),
    ]
    for ent in entries:
        lines.append(encode_entry(ent))
        if ent["id"] == "r1":
            lines.append(UNKNOWN_LINE + b"\n")
            lines.append(BROKEN_LINE + b"\n")
        if ent["id"] == "u2":
            lines.append(KEPT_UNKNOWN + b"\n")
    path.write_bytes(b"".join(lines))
    return path


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "state"
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(d))
    return d


@pytest.fixture
def session(tmp_path: Path) -> Path:
    return rich_session(tmp_path / "0f0e0d0c-1111-4222-8333-444455556666.jsonl")


def _objs(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().split(b"\n") if x.strip() and x != BROKEN_LINE]


def test_the_fixture_is_what_the_test_thinks() -> None:
    assert json.loads(KEPT_UNKNOWN)["y"] == "é" and b"1.0" in KEPT_UNKNOWN


# --------------------------------------------------------------------------------------------------------------
# Append
# --------------------------------------------------------------------------------------------------------------


def test_append_writes_openclaws_entry_exactly(session: Path) -> None:
    before = session.read_bytes()
    res = commit_compaction(session, SUMMARY, "u2", 12345, DETAILS, clock=CLOCK)
    after = session.read_bytes()
    assert after.startswith(before)
    line = after[len(before):]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    obj = json.loads(line)
    assert list(obj) == ["type", "id", "parentId", "timestamp", "summary", "firstKeptEntryId", "tokensBefore", "details", "fromHook"]
    assert obj == {"type": "compaction", "id": res.entry_id, "parentId": "a3", "timestamp": "2026-06-07T08:09:10.123Z",
                   "summary": SUMMARY, "firstKeptEntryId": "u2", "tokensBefore": 12345, "details": DETAILS, "fromHook": True}
    assert len(res.entry_id) == 8 and all(c in "0123456789abcdef" for c in res.entry_id)
    assert line == encode_entry(obj)  # JSON.stringify bytes: compact, non-ASCII as itself
    assert (res.mode, res.parent_id, res.size_before, res.size_after, res.offset) == ("append", "a3", len(before), len(after), len(before))
    assert not lock_path_for(session).exists()
    rec = Journal().last_committed(session)
    assert rec is not None and rec.entry_id == res.entry_id and rec.offset == len(before)


def test_boundary_entry_without_details_omits_the_key(session: Path) -> None:
    commit_compaction(session, "## Decisions\nNo prior history.", "m0", 0, None, clock=CLOCK)
    obj = _objs(session)[-1]
    assert "details" not in obj and obj["fromHook"] is True and obj["tokensBefore"] == 0


def test_refusals_change_nothing(tmp_path: Path, session: Path) -> None:
    partial = tmp_path / "partial.jsonl"
    partial.write_bytes(session.read_bytes() + b'{"type":"message","id":"zz"')
    with pytest.raises(SessionWriteError, match="incomplete"):
        commit_compaction(partial, SUMMARY, "u2", 1, DETAILS)
    v1 = tmp_path / "v1.jsonl"
    v1.write_bytes(b'{"type":"session","id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n{"type":"message","message":{"role":"user","content":"hi"}}\n')
    with pytest.raises(SessionWriteError, match="version 1"):
        commit_compaction(v1, SUMMARY, "u2", 1, DETAILS)
    nohdr = tmp_path / "nohdr.jsonl"
    nohdr.write_bytes(b'{"type":"message","id":"a","parentId":null}\n')
    with pytest.raises(SessionWriteError, match="header"):
        commit_compaction(nohdr, SUMMARY, "a", 1, DETAILS)
    for p, data in ((partial, partial.read_bytes()), (v1, v1.read_bytes()), (nohdr, nohdr.read_bytes())):
        assert p.read_bytes() == data
        assert not lock_path_for(p).exists()


def test_live_lock_holder_refuses(session: Path) -> None:
    before = session.read_bytes()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys,time\nfrom inspector.write.lock import acquire_session_write_lock as a\n"
         "l=a(sys.argv[1]); print('locked', flush=True); time.sleep(60)", str(session)],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        with pytest.raises(LockHeld) as info:
            commit_compaction(session, SUMMARY, "u2", 1, DETAILS, lock_timeout_ms=200)
        assert info.value.pid == holder.pid
        assert session.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()


def test_parent_is_the_leaf_at_commit_time_and_branch_moves_refuse(session: Path) -> None:
    snap = PlanSnapshot.of(session)
    assert snap.leaf_id == "a3"
    with open(session, "ab") as f:  # the live agent keeps going while we summarize
        f.write(encode_entry(e("message", "u3", "a3", 20, message=umsg("more"))))
        f.write(encode_entry(e("message", "a4", "u3", 21, message=amsg("more done"))))
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS, since=snap, clock=CLOCK)
    assert res.parent_id == "a4"
    # the next plan sees our compaction as the leaf; another process branches away from it
    snap2 = PlanSnapshot.of(session)
    with open(session, "ab") as f:
        f.write(encode_entry(e("message", "x1", "a2", 22, message=umsg("elsewhere"))))
    before = session.read_bytes()
    with pytest.raises(SessionWriteError, match="another branch"):
        commit_compaction(session, SUMMARY, "u2", 1, DETAILS, since=snap2)
    assert session.read_bytes() == before


def test_replaced_file_since_the_plan_refuses(session: Path, tmp_path: Path) -> None:
    snap = PlanSnapshot.of(session)
    copy = tmp_path / "copy"
    shutil.copy(session, copy)
    os.replace(copy, session)
    with pytest.raises(SessionWriteError, match="replaced"):
        commit_compaction(session, SUMMARY, "u2", 1, DETAILS, since=snap)


def test_new_ids_never_collide_with_any_quoted_string_in_the_file(tmp_path: Path) -> None:
    import inspector.write.sessionfile as sf

    data = b'{"x":"deadbeef"}'
    seq = iter(["deadbeef-0000-4000-8000-000000000000", "cafef00d-0000-4000-8000-000000000000"])
    orig = sf.uuid.uuid4
    sf.uuid.uuid4 = lambda: next(seq)  # type: ignore[assignment]
    try:
        assert sf.new_entry_id(data) == "cafef00d"
    finally:
        sf.uuid.uuid4 = orig


# --------------------------------------------------------------------------------------------------------------
# Truncate
# --------------------------------------------------------------------------------------------------------------


def test_truncate_drops_what_openclaw_drops_and_keeps_the_rest_byte_for_byte(session: Path) -> None:
    original = session.read_bytes()
    res = commit_compaction(session, SUMMARY, "u2", 999, DETAILS, truncate=True, clock=CLOCK)
    assert res.mode == "truncate" and res.checkpoint is not None
    assert res.checkpoint.name.startswith("0f0e0d0c-1111-4222-8333-444455556666.checkpoint.") and res.checkpoint.suffix == ".jsonl"
    assert res.checkpoint.read_bytes() == original
    out = session.read_bytes()
    raw_lines = out.split(b"\n")[:-1]
    ids = [json.loads(x).get("id") for x in raw_lines if x != BROKEN_LINE]
    # summarized messages u1 a1 r1 gone; label l1 (targets a1) and branch_summary bs1 (parent u1) gone
    assert ids == [HEADER["id"], "m0", "f0f0f0f0", "cu1", "mir", "u2", "f1f1f1f1", "a2", "r2", "l2", "a3", res.entry_id]
    assert BROKEN_LINE in raw_lines and KEPT_UNKNOWN in raw_lines and UNKNOWN_LINE not in raw_lines  # unknown entry re-parented (its parent a1 left)
    unknown = [x for x in raw_lines if b"future_thing" in x][0]
    assert unknown == UNKNOWN_LINE.replace(b'"parentId":"a1"', b'"parentId":"m0"').replace(b"1.0", b"1").replace(b"1e2", b"100")
    orig_lines = {json.loads(x)["id"]: x for x in original.split(b"\n")[:-1] if x not in (BROKEN_LINE, KEPT_UNKNOWN)}
    for x in raw_lines:
        if x in (BROKEN_LINE, KEPT_UNKNOWN) or b"future_thing" in x:
            continue
        obj = json.loads(x)
        if obj["id"] in ("cu1", "mir"):
            assert obj["parentId"] == "m0"  # nearest kept ancestor of r1 / a1
            assert x == orig_lines[obj["id"]].replace(f'"parentId":"{"r1" if obj["id"] == "cu1" else "a1"}"'.encode(), b'"parentId":"m0"')
        elif obj["id"] != res.entry_id:
            assert x == orig_lines[obj["id"]]  # untouched lines are byte-identical
    assert res.entries_removed == 5


def test_truncate_with_nothing_to_remove_appends(session: Path) -> None:
    before = session.read_bytes()
    res = commit_compaction(session, SUMMARY, "m0", 1, DETAILS, truncate=True)
    assert res.mode == "append" and res.truncation_reason == "no entries to remove" and res.checkpoint is None
    assert session.read_bytes().startswith(before)
    assert not list(session.parent.glob("*.checkpoint.*"))


# --------------------------------------------------------------------------------------------------------------
# Undo
# --------------------------------------------------------------------------------------------------------------


def _append_after(path: Path, parent: str) -> list[bytes]:
    new = [encode_entry(e("message", "n1", parent, 30, message=umsg("after the compaction"))),
           encode_entry(e("message", "n2", "n1", 31, message=amsg("reply")))]
    with open(path, "ab") as f:
        for line in new:
            f.write(line)
    return new


def test_undo_append_removes_our_line_and_reparents_what_followed(session: Path) -> None:
    original = session.read_bytes()
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS)
    n1, n2 = _append_after(session, res.entry_id)
    before_undo = session.read_bytes()
    undo = undo_last_compaction(session)
    assert undo.reparented == 1 and undo.mode == "append"
    assert session.read_bytes() == original + n1.replace(f'"parentId":"{res.entry_id}"'.encode(), b'"parentId":"a3"') + n2
    assert undo.backup.read_bytes() == before_undo and undo.backup.name.startswith(session.name + ".bak-")
    with pytest.raises(SessionWriteError, match="no compaction written by this tool"):
        undo_last_compaction(session)


def test_undo_truncate_restores_the_checkpoint_plus_what_came_after(session: Path) -> None:
    original = session.read_bytes()
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS, truncate=True)
    n1, n2 = _append_after(session, res.entry_id)
    undo = undo_last_compaction(session)
    assert undo.restored_from == res.checkpoint
    assert session.read_bytes() == original + n1.replace(f'"parentId":"{res.entry_id}"'.encode(), b'"parentId":"a3"') + n2


def test_undo_refuses_when_our_line_changed(session: Path) -> None:
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS)
    data = session.read_bytes().replace(b"Use the cache.", b"Use the CACHE.")
    with open(session, "r+b") as f:  # edit in place (same inode)
        f.write(data)
    with pytest.raises(SessionWriteError, match=f"{res.entry_id} is no longer in the file"):
        undo_last_compaction(session)
    assert session.read_bytes() == data


def test_a_torn_line_of_ours_is_cut_off_before_the_next_write(session: Path) -> None:
    before = session.read_bytes()
    line = b'{"type":"compaction","id":"abcd1234","parentId":"a3","summary":"half'
    Journal().add(JournalRecord(new_record_id(), normalized_path(session), "append", "pending", "abcd1234", "a3",
                                "2026-06-07T08:09:10.123Z", hashlib.sha256(line + b'"}\n').hexdigest(), len(line) + 3, len(before)))
    with open(session, "ab") as f:
        f.write(line)
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS)
    assert res.recovered == ("removed the torn line of compaction abcd1234 left by a crash",)
    assert session.read_bytes().startswith(before) and res.offset == len(before)


# --------------------------------------------------------------------------------------------------------------
# pi loads the result (the real SessionManager, run with node)
# --------------------------------------------------------------------------------------------------------------

ORACLE_JS = """
const dir = process.argv[1];
const { SessionManager } = await import(dir + "/node_modules/@mariozechner/pi-coding-agent/dist/index.js");
const out = [];
for (const f of JSON.parse(process.argv[2])) {
  const sm = SessionManager.open(f);
  out.push({ leaf: sm.getLeafId(), entries: sm.getEntries(), messages: sm.buildSessionContext().messages });
}
process.stdout.write(JSON.stringify(out));
"""


def pi_oracle(paths: list[Path], tmp_path: Path) -> list[dict[str, Any]]:
    """Load COPIES of `paths` with pi 0.66.1's SessionManager (skip when node or the package is absent)."""
    node = shutil.which("node")
    base = Path(os.environ.get("PI_ORACLE_DIR", Path.home() / ".cache" / "session-inspector" / "pi-oracle"))
    pkg = base / "node_modules" / "@mariozechner" / "pi-coding-agent" / "dist" / "index.js"
    if node is None or not pkg.exists():
        pytest.skip(f"pi oracle unavailable (node: {node}, package: {pkg}); `make oracle` installs it")
    copies = []
    for i, p in enumerate(paths):
        c = tmp_path / f"oracle-{i}" / p.name
        c.parent.mkdir()
        shutil.copy(p, c)
        copies.append(str(c))
    out = subprocess.run([node, "--input-type=module", "-e", ORACLE_JS, str(base), json.dumps(copies)],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _messages_from(path: Path, first_kept: str, leaf: str) -> list[dict[str, Any]]:
    """What pi should keep: the message entries on the path from `first_kept` to `leaf` (pre-compaction file)."""
    lines = SessionLines(path.read_bytes())
    branch = lines.branch(leaf)
    ids = [b.id for b in branch]
    tail = branch[ids.index(first_kept):]
    return [b.obj["message"] for b in tail if b.type == "message"]


def test_pi_session_manager_loads_append_and_truncate_results(session: Path, tmp_path: Path) -> None:
    expected_tail = _messages_from(session, "u2", "a3")
    appended = tmp_path / "a" / session.name
    truncated = tmp_path / "t" / session.name
    for p in (appended, truncated):
        p.parent.mkdir()
        shutil.copy(session, p)
    ra = commit_compaction(appended, SUMMARY, "u2", 4242, DETAILS, clock=CLOCK)
    rt = commit_compaction(truncated, SUMMARY, "u2", 4242, DETAILS, truncate=True, clock=CLOCK)
    a, t = pi_oracle([appended, truncated], tmp_path)
    for got, res in ((a, ra), (t, rt)):
        assert got["leaf"] == res.entry_id
        first, *rest = got["messages"]
        assert first["role"] == "compactionSummary" and first["summary"] == SUMMARY and first["tokensBefore"] == 4242
        assert first["timestamp"] == int(CLOCK.at.timestamp() * 1000)
        assert rest == expected_tail
        ours = [x for x in got["entries"] if x["id"] == res.entry_id][0]
        assert ours == json.loads(encode_entry({k: ours[k] for k in ours}))
        assert ours["fromHook"] is True and ours["details"] == DETAILS and ours["parentId"] == "a3"
    # pi sees every entry we kept (the broken line is skipped by pi, as before)
    assert {x["id"] for x in t["entries"]} == {x["id"] for x in a["entries"]} - {"u1", "a1", "r1", "l1", "bs1", ra.entry_id} | {rt.entry_id}


# --------------------------------------------------------------------------------------------------------------
# Crashes: kill -9 at random moments
# --------------------------------------------------------------------------------------------------------------

TRIALS = 30
ZYGOTE = """
import os, random, sys, time
from pathlib import Path
from inspector.write.writer import WriterHooks, commit_compaction
print("ready", flush=True)
for cmd in sys.stdin:
    parts = cmd.split("\\t")
    if parts[0] == "run":
        path, truncate, seed, unit = Path(parts[1]), parts[2] == "1", int(parts[3]), parts[4].rstrip("\\n")
        t0 = time.monotonic()
        pid = os.fork()
        if pid == 0:
            rnd = random.Random(seed)
            nap = lambda: time.sleep(rnd.uniform(0, 0.004))
            try:
                commit_compaction(path, unit * 400, "u2", 7, {"readFiles": [], "modifiedFiles": []}, truncate=truncate,
                                  hooks=WriterHooks(after_lock=nap, before_write=nap, before_rename=nap))
            finally:
                os._exit(0)
        print(pid, flush=True)
    elif parts[0] == "reap":
        pid = int(parts[1])
        _, status = os.waitpid(pid, 0)
        print(status, round(time.monotonic() - t0, 6), flush=True)
"""


@pytest.mark.parametrize("truncate", [False, True], ids=["append", "truncate"])
def test_kill_9_at_random_moments_leaves_old_or_new_never_partial(tmp_path: Path, state_dir: Path, truncate: bool) -> None:
    rng = random.Random(20260607 + truncate)
    template = rich_session(tmp_path / "template.jsonl")
    old = template.read_bytes()
    env = dict(os.environ, PYTHONPATH=str(ROOT), SESSION_INSPECTOR_STATE_DIR=str(state_dir))
    # one pre-imported process forks a writer per trial (a fresh interpreter per trial would take most of the time)
    zygote = subprocess.Popen([sys.executable, "-c", ZYGOTE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert zygote.stdin is not None and zygote.stdout is not None
    assert zygote.stdout.readline().strip() == "ready"

    def run(path: Path, seed: int, unit: str) -> int:
        zygote.stdin.write(f"run\t{path}\t{int(truncate)}\t{seed}\t{unit}\n")
        zygote.stdin.flush()
        return int(zygote.stdout.readline())

    def reap(pid: int) -> tuple[int, float]:
        zygote.stdin.write(f"reap\t{pid}\n")
        zygote.stdin.flush()
        status, elapsed = zygote.stdout.readline().split()
        return int(status), float(elapsed)

    outcomes = {"old": 0, "new": 0}
    stale_locks = 0
    try:
        cal = tmp_path / "cal"
        cal.mkdir()
        shutil.copy(template, cal / "s.jsonl")
        status, span = reap(run(cal / "s.jsonl", 0, "x"))
        assert status == 0 and (cal / "s.jsonl").read_bytes() != old  # calibration: a commit runs to the end
        for trial in range(TRIALS):
            d = tmp_path / f"t{trial}"
            d.mkdir()
            path = d / "s.jsonl"
            shutil.copy(template, path)
            unit = f"summary {trial} ✓ "
            pid = run(path, trial, unit)
            time.sleep(rng.uniform(0, span * 1.3))
            os.kill(pid, 9)
            reap(pid)
            now = path.read_bytes()
            checkpoints = list(d.glob("s.checkpoint.*.jsonl"))
            if lock_path_for(path).exists():
                stale_locks += 1
                assert json.loads(lock_path_for(path).read_text())["pid"] == pid  # never an empty lock file
            if now == old:
                outcomes["old"] += 1
            else:
                outcomes["new"] += 1
                ours = SessionLines(now).leaf
                assert ours is not None and ours.type == "compaction" and ours.obj["summary"] == unit * 400
                if truncate:
                    # exactly the truncation of (old + our line), and the checkpoint holds the old file
                    expected_lines = SessionLines(old + ours.raw + b"\n")
                    assert now == render_truncation(expected_lines, plan_truncation(expected_lines))
                    assert [c.read_bytes() for c in checkpoints] == [old]
                else:
                    assert now == old + ours.raw + b"\n"
            # the next writer reclaims a stale lock left by the killed one and finds the file sound
            res = commit_compaction(path, "next", "u2", 1, None, truncate=truncate, lock_timeout_ms=0)
            assert res.entry_id in path.read_text()
            assert not list(d.glob("*-tmp")) and not list(d.glob("*.tmp"))  # no temp file outlives the next writer
    finally:
        zygote.kill()
        zygote.wait()
    assert outcomes["old"] + outcomes["new"] == TRIALS
    assert outcomes["old"] and outcomes["new"], outcomes  # kills landed both before and after the commit point
    assert stale_locks > 0  # some kills left the lock behind, and the next writer reclaimed it


# --------------------------------------------------------------------------------------------------------------
# A second process appending while a compaction runs
# --------------------------------------------------------------------------------------------------------------

APPENDER = """
import json, sys, time
path, n, parent = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print("go", flush=True)
for i in range(n):
    line = json.dumps({"type": "message", "id": f"ap{i:04d}", "parentId": parent, "timestamp": "2026-06-07T09:00:00.000Z",
                       "message": {"role": "assistant", "content": [{"type": "text", "text": f"mirror {i}"}]}},
                      separators=(",", ":")) + "\\n"
    with open(path, "ab") as f:   # like pi's appendFileSync: open(O_APPEND), write, close; no lock
        f.write(line.encode())
    parent = f"ap{i:04d}"
    time.sleep(0.002)
"""


@pytest.mark.parametrize("truncate", [False, True], ids=["append", "truncate"])
def test_every_line_appended_during_a_compaction_survives_exactly_once(session: Path, truncate: bool) -> None:
    snap = PlanSnapshot.of(session)
    n = 150
    proc = subprocess.Popen([sys.executable, "-c", APPENDER, str(session), str(n), "a3"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
    hold = WriterHooks(after_lock=lambda: time.sleep(0.05), before_write=lambda: time.sleep(0.01),
                       before_rename=lambda: time.sleep(0.03))
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS, since=snap, truncate=truncate, hooks=hold)
    assert proc.wait(timeout=60) == 0
    data = session.read_bytes()
    for i in range(n):
        assert data.count(f'"id":"ap{i:04d}"'.encode()) == 1, i
    assert data.count(f'"id":"{res.entry_id}"'.encode()) == 1
    assert data.endswith(b"\n") and all(x.strip() for x in data.split(b"\n")[:-1])


def test_cli_undo(session: Path, state_dir: Path) -> None:
    original = session.read_bytes()
    res = commit_compaction(session, SUMMARY, "u2", 1, DETAILS, truncate=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT), SESSION_INSPECTOR_STATE_DIR=str(state_dir))
    out = subprocess.run([sys.executable, "-m", "inspector", "undo", str(session), "--json"], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["entry_id"] == res.entry_id and data["mode"] == "truncate" and data["restored_from"] == str(res.checkpoint)
    assert session.read_bytes() == original
    again = subprocess.run([sys.executable, "-m", "inspector", "undo", str(session)], capture_output=True, text=True,
                           env=env, cwd=ROOT, timeout=60)
    assert again.returncode == 2 and "no compaction written by this tool" in again.stderr and again.stdout == ""
