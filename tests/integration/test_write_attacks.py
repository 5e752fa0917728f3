"""The write path under attack (issue 28): `compact` and `undo` against symlinks, read-only files, a full disk,
special files at the lock path, concurrent writers, and the messages that must say what really happened.

Real parts only: real processes (the CLI as a subprocess wherever a hang, a resource limit or dropped
capabilities are involved, `run_cli` in-process otherwise; another process holds the lock or writes the file),
real FIFOs and directories at the lock path, a real full file system (a 1 MB tmpfs, where this machine lets the
test mount one) and a real file size limit (`RLIMIT_FSIZE`, which makes `write()` fail with EFBIG like a full
disk, for a subprocess everywhere). The one stand-in: a file system without hard links (where the checkpoint
and the backup must be copies) is `link(2)` failing with EPERM, as vfat's does (`_no_link`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, assistant, header, jline, msg, user, write_lines
from inprocess import run_cli
from llm_servers import OpenAIServer

from inspector.write.lock import lock_path_for

SID = "0f0e0d0c-1111-4222-8333-444455556666"


# --------------------------------------------------------------------------------------------------------------
# Sessions and processes
# --------------------------------------------------------------------------------------------------------------


def turn_lines(start: int, n: int, parent: str | None, big: int = 0) -> list[dict[str, Any]]:
    """`n` user/assistant pairs `u<i>`/`a<i>` chained after `parent` (each text padded by `big` characters)."""
    out = []
    for i in range(start, start + n):
        out.append(msg(f"u{i:03d}", parent, user(f"question {i} " + "q" * big)))
        out.append(msg(f"a{i:03d}", f"u{i:03d}", assistant(f"answer {i} " + "a" * big)))
        parent = f"a{i:03d}"
    return out


def build_session(path: Path, turns: int = 8, big: int = 200) -> Path:
    """A v3 session: the header and `turns` user/assistant pairs (`a<turns-1>` is the leaf)."""
    return write_lines(path, [header(sid=SID), *turn_lines(0, turns, None, big)])


def add_turns(path: Path, start: int, n: int) -> list[bytes]:
    """Append `n` turns after the file's last entry (as pi's appendFileSync does); the lines written."""
    last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
    lines = [(jline(o) + "\n").encode() for o in turn_lines(start, n, last["id"])]
    with open(path, "ab") as f:
        f.write(b"".join(lines))
    return lines


def entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


def said(out: subprocess.CompletedProcess[str] | str, phrase: str) -> bool:
    """Whether the output (stdout and stderr) says `phrase`, whatever the line wrapping of the terminal renderer."""
    text = out if isinstance(out, str) else out.stdout + out.stderr
    return "".join(phrase.split()) in "".join(text.split())


def leftovers(directory: Path, name: str) -> list[str]:
    """Everything beside the session `name` in `directory` that a refused write must not leave behind."""
    return sorted(p.name for p in directory.iterdir() if p.name != name)


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "state"
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(d))
    return d


def env_for(state: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), SESSION_INSPECTOR_STATE_DIR=str(state), PYTHONDONTWRITEBYTECODE="1", **extra)


def cli_process(args: list[Any], env: dict[str, str], timeout: float = 60, prefix: list[str] | None = None,
                **kw: Any) -> subprocess.CompletedProcess[str]:
    """`python -m inspector ARGS` as a real process, killed after `timeout` seconds (then TimeoutExpired)."""
    return subprocess.run([*(prefix or []), sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=timeout, **kw)


HOLDER = """
import sys, time
from inspector.write.lock import acquire_session_write_lock
lock = acquire_session_write_lock(sys.argv[1], timeout_ms=0)
print("locked", flush=True)
sys.stdin.read()
"""


@contextlib.contextmanager
def lock_held_by_another_process(session: Path) -> Iterator[subprocess.Popen[str]]:
    """A live process holding OpenClaw's lock of `session` (payload with its pid and starttime) until the block ends."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(session)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=30)


class ActingOpenAIServer(OpenAIServer):
    """An OpenAI-compatible server that runs `act` once, when the first request arrives (the compaction has
    planned and not committed yet), before it answers."""

    def __init__(self, act: Callable[[], None], **kw: Any) -> None:
        super().__init__(**kw)
        self.act: Callable[[], None] | None = act

    def respond(self, h: Any, behaviour: str, body: dict[str, Any]) -> None:
        with self.lock:
            act, self.act = self.act, None
        if act is not None:
            act()
        super().respond(h, behaviour, body)


FILE_WRITER = """
import os, sys
path, op, arg = sys.argv[1:4]
if op == "append":    # like pi's appendFileSync, no lock
    with open(path, "ab") as f:
        f.write(bytes.fromhex(arg))
else:                 # cut the file in place, as another program rewriting it would
    os.truncate(path, int(arg))
"""


def another_process(path: Path, op: str, arg: str) -> Callable[[], None]:
    """A real process that appends bytes to `path` or cuts it, run when called."""
    return lambda: subprocess.run([sys.executable, "-c", FILE_WRITER, str(path), op, arg], check=True, timeout=30)


def llm_compact(session: Path, srv: OpenAIServer) -> subprocess.CompletedProcess[str]:
    return run_cli(["compact", session, "--yes", "--summarizer", "openai", "--model", "m1", "--base-url", srv.base_url,
                    "--keep-recent-tokens", "10"])


# --------------------------------------------------------------------------------------------------------------
# 3. A symlinked session path: the target is locked and rewritten, the link stays a link
# --------------------------------------------------------------------------------------------------------------


def test_a_symlinked_session_honours_the_targets_lock_and_stays_a_link(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "links").mkdir()
    real = build_session(tmp_path / "real" / f"{SID}.jsonl")
    link = tmp_path / "links" / f"{SID}.jsonl"
    link.symlink_to(os.path.relpath(real, link.parent))
    original = real.read_bytes()

    # OpenClaw holds the target's lock: the link's path must not be a way around it (compact and undo)
    with lock_held_by_another_process(real):
        for args in (["compact", link, "--yes", "--truncate", "--keep-recent-tokens", "10"], ["undo", link]):
            out = run_cli([*args, "--lock-timeout", "0.3"])
            assert out.returncode == 2, out
            assert said(out, "holds the session lock")
            assert real.read_bytes() == original and link.is_symlink()
    assert not lock_path_for(link).exists()

    out = run_cli(["compact", link, "--yes", "--truncate", "--keep-recent-tokens", "10", "--json"])
    assert out.returncode == 0, out
    result = json.loads(out.stdout)["commit"]
    assert result["mode"] == "truncate" and result["path"] == str(real)
    assert link.is_symlink() and link.resolve() == real.resolve()  # the target was rewritten, the link kept
    assert entries(real)[-1]["type"] == "compaction" and len(real.read_bytes()) < len(original)
    assert [p.name for p in real.parent.glob("*.checkpoint.*")] == [Path(result["checkpoint"]).name]
    assert leftovers(link.parent, link.name) == []  # no lock, checkpoint or temp file beside the link

    out = run_cli(["undo", link])
    assert out.returncode == 0, out
    assert link.is_symlink() and real.read_bytes() == original


# --------------------------------------------------------------------------------------------------------------
# 4. A read-only file is refused by --truncate and undo as by an append (another user: a rename needs only the
#    directory, so it would get around the file's mode)
# --------------------------------------------------------------------------------------------------------------


DROP_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"]


@pytest.fixture
def unprivileged(tmp_path: Path, state_dir: Path) -> tuple[list[str], dict[str, str]]:
    """The command prefix and environment of a CLI process bound by file permissions.

    Root may write any file, so as root the process runs under `setpriv` without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH (the capability-dropped user of the issue: the owner's mode bits apply to it); as another
    user it runs as it is.
    """
    env = env_for(state_dir)
    if os.geteuid() != 0:
        return [], env
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot start a process that file permissions bind")
    probe = tmp_path / "probe"
    probe.write_text("x")
    probe.chmod(0o444)
    res = subprocess.run([*DROP_DAC, sys.executable, "-c", f"open({str(probe)!r}, 'a')"], capture_output=True, text=True, timeout=30)
    if "PermissionError" not in res.stderr:
        pytest.skip(f"setpriv could not drop CAP_DAC_OVERRIDE here: {res.stderr.strip()[-200:] or 'the file was writable'}")
    probe.unlink()
    return DROP_DAC, env


def test_truncate_refuses_a_read_only_file_before_any_checkpoint(tmp_path: Path, unprivileged: tuple[list[str], dict[str, str]]) -> None:
    prefix, env = unprivileged
    (tmp_path / "s").mkdir()
    session = build_session(tmp_path / "s" / f"{SID}.jsonl", turns=10)
    session.chmod(0o444)
    original = session.read_bytes()
    ino = session.stat().st_ino
    for extra in (["--truncate"], []):  # truncate (a rename would get around the mode) and append say the same
        out = cli_process(["compact", session, "--yes", "--keep-recent-tokens", "10", *extra], env, prefix=prefix)
        assert out.returncode == 2, (out.stdout, out.stderr)
        assert said(out, "is read-only for this user") and said(out, "nothing written")
        assert "Errno" not in out.stdout + out.stderr and "Traceback" not in out.stderr
        assert session.read_bytes() == original and session.stat().st_ino == ino and session.stat().st_mode & 0o777 == 0o444
        assert leftovers(session.parent, session.name) == []  # no checkpoint, temp file or lock


def test_undo_refuses_a_read_only_file(tmp_path: Path, unprivileged: tuple[list[str], dict[str, str]]) -> None:
    prefix, env = unprivileged
    (tmp_path / "s").mkdir()
    session = build_session(tmp_path / "s" / f"{SID}.jsonl", turns=10)
    out = cli_process(["compact", session, "--yes", "--keep-recent-tokens", "10"], env, prefix=prefix)
    assert out.returncode == 0, out.stderr
    session.chmod(0o444)
    compacted = session.read_bytes()
    out = cli_process(["undo", session], env, prefix=prefix)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert said(out, "is read-only for this user") and said(out, "nothing changed")
    assert session.read_bytes() == compacted and entries(session)[-1]["type"] == "compaction"
    assert leftovers(session.parent, session.name) == []  # no .bak copy, temp file or lock


# --------------------------------------------------------------------------------------------------------------
# 5. A full disk: the checkpoint and the backup are hard links and take no space; where they must be copies (a
#    file system without hard links), a copy that does not fit is a clear refusal, never a torn checkpoint, and so
#    is a new file that does not fit
# --------------------------------------------------------------------------------------------------------------


def _assert_refused_for_space(out: subprocess.CompletedProcess[str], session: Path, original: bytes, what: str) -> None:
    text = out.stdout + out.stderr
    assert out.returncode == 2, text
    assert "Traceback" not in text and "BufferError" not in text
    assert said(out, f"no space to write {what}") and said(out, "the session file is unchanged")
    assert session.read_bytes() == original
    assert leftovers(session.parent, session.name) == []  # no checkpoint (torn or whole), no temp file, no lock


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG instead of killing the process


def _no_link(*args: Any, **kwargs: Any) -> None:
    """`os.link` on a file system without hard links (vfat, some network mounts): EPERM."""
    raise OSError(errno.EPERM, os.strerror(errno.EPERM))


NO_HARD_LINKS = """
import errno, os, runpy
def _no_link(*args, **kwargs):
    raise OSError(errno.EPERM, os.strerror(errno.EPERM))
os.link = _no_link
runpy.run_module("inspector", run_name="__main__", alter_sys=True)
"""


def cli_process_without_hard_links(args: list[Any], env: dict[str, str], **kw: Any) -> subprocess.CompletedProcess[str]:
    """`cli_process` in a process where `link(2)` fails as on a file system without hard links (as `_no_link`)."""
    return subprocess.run([sys.executable, "-c", NO_HARD_LINKS, *map(str, args)], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=60, **kw)


def test_a_file_size_limit_does_not_stop_a_checkpoint_that_is_a_hard_link(tmp_path: Path, state_dir: Path) -> None:
    (tmp_path / "s").mkdir()
    session = build_session(tmp_path / "s" / f"{SID}.jsonl", turns=24, big=3000)
    original, inode = session.read_bytes(), session.stat().st_ino
    # the truncated file (~20 KB) fits under the limit; a copy of the whole file (~150 KB) would not, a link writes nothing
    out = cli_process(["compact", session, "--yes", "--truncate", "--keep-recent-tokens", "10", "--json"], env_for(state_dir),
                      preexec_fn=lambda: _limit_file_size(len(original) // 2))
    assert out.returncode == 0, out.stderr
    checkpoint = Path(json.loads(out.stdout)["commit"]["checkpoint"])
    assert checkpoint.stat().st_ino == inode and checkpoint.read_bytes() == original


def test_a_file_size_limit_during_the_checkpoint_copy_is_a_clear_refusal(tmp_path: Path, state_dir: Path) -> None:
    (tmp_path / "s").mkdir()
    session = build_session(tmp_path / "s" / f"{SID}.jsonl", turns=24, big=3000)
    original = session.read_bytes()
    # no hard links: the checkpoint is a copy of the whole file (~150 KB), which the limit cuts; the truncated file fits
    limit = len(original) // 2
    out = cli_process_without_hard_links(["compact", session, "--yes", "--truncate", "--keep-recent-tokens", "10"], env_for(state_dir),
                                         preexec_fn=lambda: _limit_file_size(limit))
    _assert_refused_for_space(out, session, original, "the copy")

    # the same for undo's backup copy: an append-mode compaction, then undo under a limit the copy crosses
    out = cli_process(["compact", session, "--yes", "--keep-recent-tokens", "10"], env_for(state_dir))
    assert out.returncode == 0, out.stderr
    compacted = session.read_bytes()
    line = len(compacted) - len(original)
    out = cli_process_without_hard_links(["undo", session], env_for(state_dir),
                                         preexec_fn=lambda: _limit_file_size(len(compacted) - line // 2))
    _assert_refused_for_space(out, session, compacted, "the copy")

    # with hard links the backup takes no space, but the new file must fit: under half its size, a clear refusal
    out = cli_process(["undo", session], env_for(state_dir), preexec_fn=lambda: _limit_file_size(len(original) // 2))
    _assert_refused_for_space(out, session, compacted, "the new file")


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MB tmpfs (skipped where mounting is not permitted)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True, text=True, timeout=30)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a 1 MB tmpfs here (needs root / CAP_SYS_ADMIN): {res.stderr.strip()[-200:]}")
    try:
        yield mnt
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True, timeout=30).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30)


def test_a_full_file_system_during_the_checkpoint_copy_is_a_clear_refusal(small_tmpfs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = build_session(small_tmpfs / f"{SID}.jsonl", turns=40, big=8000)  # ~670 KB on a 1 MB file system
    original = session.read_bytes()
    assert 600_000 < len(original) < 1_000_000
    args = ["compact", session, "--yes", "--truncate", "--keep-recent-tokens", "10", "--json"]
    with monkeypatch.context() as m:  # no hard links: the checkpoint is a copy, which does not fit
        m.setattr(os, "link", _no_link)
        out = run_cli(args)
    _assert_refused_for_space(out, session, original, "the copy")
    out = run_cli(args)  # with hard links the checkpoint takes no space: the same compaction is written
    assert out.returncode == 0, out.stdout + out.stderr
    assert Path(json.loads(out.stdout)["commit"]["checkpoint"]).read_bytes() == original


# --------------------------------------------------------------------------------------------------------------
# 8 and 12. Something that is not a lock file at the lock path: a FIFO never hangs, a directory is named
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["compact", "undo"])
def test_a_fifo_at_the_lock_path_is_an_error_not_a_hang(tmp_path: Path, state_dir: Path, command: str) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl")
    original = session.read_bytes()
    lock = lock_path_for(session)
    os.mkfifo(lock)
    args: list[Any] = [command, session, "--lock-timeout", "1"]
    if command == "compact":
        args += ["--yes", "--keep-recent-tokens", "10", "--timeout", "5"]
    started = time.monotonic()
    try:
        out = cli_process(args, env_for(state_dir), timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{command} hung on the FIFO at {lock} past --lock-timeout and --timeout (killed after 20 s)")
    assert out.returncode == 2, (out.stdout, out.stderr)
    text = out.stdout + out.stderr
    assert said(out, f"the lock path {lock} is a FIFO (named pipe), not a lock file") and "Traceback" not in text
    assert time.monotonic() - started < 20
    assert session.read_bytes() == original and lock.exists() and not lock.is_file()


@pytest.mark.parametrize("age_s", [0, 3600], ids=["fresh", "hour-old"])
@pytest.mark.parametrize("command", ["compact", "undo"])
def test_a_directory_at_the_lock_path_is_named_as_such(tmp_path: Path, command: str, age_s: int) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl")
    original = session.read_bytes()
    lock = lock_path_for(session)
    lock.mkdir()
    if age_s:
        os.utime(lock, (time.time() - age_s, time.time() - age_s))  # old enough to be "stale" by OpenClaw's mtime rule
    args: list[Any] = [command, session, "--lock-timeout", "0.3"] + (["--yes", "--keep-recent-tokens", "10"] if command == "compact" else [])
    out = run_cli(args)
    text = out.stdout + out.stderr
    assert out.returncode == 2, text
    assert said(out, f"the lock path {lock} is a directory, not a lock file")
    assert not said(out, "probably running") and "Errno" not in text
    assert lock.is_dir() and session.read_bytes() == original


# --------------------------------------------------------------------------------------------------------------
# 12. Messages that say what really happened
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("first,second", [("append", "append"), ("append", "truncate"), ("truncate", "append"), ("truncate", "truncate")])
def test_undo_twice_undoes_both_compactions_newest_first(tmp_path: Path, first: str, second: str) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl", turns=10)
    original = session.read_bytes()
    # every version of the file stays open, so a rename can never hand a later version a freed inode number
    # again (the journal's identity check would then pass by chance, whatever the code does)
    versions = [open(session, "rb")]

    def compact(mode: str) -> str:
        out = run_cli(["compact", session, "--yes", "--keep-recent-tokens", "10", "--json"] + (["--truncate"] if mode == "truncate" else []))
        assert out.returncode == 0, out
        versions.append(open(session, "rb"))
        commit = json.loads(out.stdout)["commit"]
        assert commit["mode"] == mode
        return str(commit["entry_id"])

    try:
        c1 = compact(first)
        added = add_turns(session, 10, 3)  # the conversation goes on after the first compaction
        c2 = compact(second)
        undone = []
        for _ in range(2):
            out = run_cli(["undo", session, "--json"])
            assert out.returncode == 0, out
            versions.append(open(session, "rb"))
            undone.append(json.loads(out.stdout)["entry_id"])
    finally:
        for f in versions:
            f.close()
    assert undone == [c2, c1]
    data = session.read_bytes()
    assert data.startswith(original) and not [e for e in entries(session) if e["type"] == "compaction"]
    after = entries(session)[-6:]
    assert [e["id"] for e in after] == ["u010", "a010", "u011", "a011", "u012", "a012"]
    assert after[0]["parentId"] == "a009"  # re-parented from the first compaction onto its parent
    assert data[len(original) :].split(b"\n", 1)[1] == b"".join(added[1:])  # the rest byte for byte

    out = run_cli(["undo", session])
    assert out.returncode == 2 and said(out, "no compaction written by this tool to undo")
    assert not said(out, "another tool")


def test_a_half_written_last_line_completed_during_the_run_is_kept_not_a_branch_move(tmp_path: Path) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl", turns=10)
    line = (jline(msg("u010", "a009", user("typed while the compaction ran"))) + "\n").encode()
    with open(session, "ab") as f:
        f.write(line[:40])  # a writer mid-append when the compaction plans
    with ActingOpenAIServer(another_process(session, "append", line[40:].hex())) as srv:  # it ends its line meanwhile
        out = llm_compact(session, srv)
    assert srv.requests and out.returncode == 0, out
    assert not said(out, "another branch")
    objs = entries(session)
    assert objs[-2]["id"] == "u010" and objs[-1]["type"] == "compaction" and objs[-1]["parentId"] == "u010"
    assert line in session.read_bytes()


@pytest.mark.parametrize("tail,kind", [(b'{"type":"message","id":"u0', "incomplete"), (None, "complete JSON")], ids=["cut-off", "no-newline"])
def test_a_last_line_without_newline_names_the_line_and_what_to_do(tmp_path: Path, tail: bytes | None, kind: str) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl", turns=10)
    out = run_cli(["compact", session, "--yes", "--keep-recent-tokens", "10"])  # something for undo to revert
    assert out.returncode == 0, out
    add_turns(session, 10, 1)
    data = session.read_bytes()
    data = data + tail if tail is not None else data[:-1]  # a line cut off, or the final newline missing
    session.write_bytes(data)
    number = data.count(b"\n") + 1
    for args in (["compact", session, "--yes", "--keep-recent-tokens", "10"], ["undo", session]):
        out = run_cli(args)
        text = out.stdout + out.stderr
        assert out.returncode == 2, text
        assert said(out, f"line {number} (the last line) is {kind}") and said(out, "final newline")
        assert not said(out, "in a moment") and not said(out, "Try again.")
        assert said(out, "remove the incomplete line" if tail else "add the missing newline")
        assert session.read_bytes() == data


def test_a_file_cut_during_the_compaction_says_it_changed(tmp_path: Path) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl", turns=10)
    original = session.read_bytes()
    with ActingOpenAIServer(another_process(session, "cut", str(len(original) - 25))) as srv:  # mid-line, in place
        out = llm_compact(session, srv)
    assert srv.requests and out.returncode == 2, out
    assert said(out, "the file changed during the compaction: it is shorter than when the compaction was planned")
    assert not said(out, "in a moment")
    assert session.read_bytes() == original[: len(original) - 25]


TOGGLER = """
import os, sys, time
path, a, b = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
fd = os.open(path, os.O_WRONLY)
print("go", flush=True)
deadline = time.monotonic() + float(sys.argv[4])
while time.monotonic() < deadline:   # rewrite the file in place, never shorter (no mapped page is cut)
    os.pwrite(fd, b, 0)
    time.sleep(0.0007)
    os.pwrite(fd, a, 0)
    time.sleep(0.0007)
"""


def test_a_file_rewritten_while_the_compaction_reads_it_says_it_changed(tmp_path: Path) -> None:
    session = build_session(tmp_path / f"{SID}.jsonl", turns=10, big=400)
    a = session.read_bytes()
    lines = a.split(b"\n")
    b = b"\n".join([lines[0]] + [b"x" * len(x) for x in lines[1:]])  # same size, every entry line no longer JSON
    (tmp_path / "a.bin").write_bytes(a)
    (tmp_path / "b.bin").write_bytes(b)
    proc = subprocess.Popen([sys.executable, "-c", TOGGLER, str(session), str(tmp_path / "a.bin"), str(tmp_path / "b.bin"), "25"],
                            stdout=subprocess.PIPE, text=True)
    seen: dict[int, list[str]] = {}
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "go"
        deadline = time.monotonic() + 20
        for _ in range(150):
            if time.monotonic() > deadline or any(said(m, "changed during the compaction") for m in seen.get(2, [])):
                break
            out = run_cli(["compact", session, "--yes", "--keep-recent-tokens", "10"])
            seen.setdefault(out.returncode, []).append(out.stdout + out.stderr)
            if out.returncode == 0:
                os.truncate(session, len(a))  # take our entry back out, for the next round
    finally:
        proc.kill()
        proc.wait()
    texts = [t for ts in seen.values() for t in ts]
    assert not [t for t in texts if "not valid JSON" in t or "zero-length" in t or "Traceback" in t], texts
    changed = [t for t in seen.get(2, []) if said(t, "changed during the compaction")]
    assert changed, {k: v[:2] for k, v in seen.items()}
    assert said(changed[0], "changed on disk since it was indexed") and said(changed[0], "another program rewrote or truncated it")
