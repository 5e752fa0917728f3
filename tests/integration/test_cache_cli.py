"""The index cache through the CLI, in real processes: cached output is byte for byte the `--no-cache` output.

`stats`, `context` and `timeline --json` (tiktoken on) are compared on the demo, a damaged fixture and a
generated file, unchanged (the memo replays), after appends, truncation, replacement, a config change, and
with another process appending while several read through the cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, assistant, entry, header, jline, msg, tool_result, user, write_lines

from inspector.storage.cache import cache_dir as store

COMMANDS = (("stats", "--json"), ("context", "--json"), ("timeline", "--json"))


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ, HOME=str(home), OPENCLAW_STATE_DIR=str(home / ".openclaw"))
    env.pop("OPENCLAW_CONFIG_PATH", None)
    return env


def cli(*args: object, env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *map(str, args)], capture_output=True, env=env, cwd=cwd, timeout=300
    )


def out(*args: object, env: dict[str, str], cwd: Path | None = None) -> bytes:
    proc = cli(*args, env=env, cwd=cwd)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert proc.stderr == b""
    return proc.stdout


def assert_cached_equals_cold(path: Path | str, env: dict[str, str], cwd: Path | None = None, runs: int = 2) -> None:
    """Each command, run `runs` times with the cache, prints exactly what `--no-cache` prints."""
    for command in COMMANDS:
        cold = out(*command, path, "--no-cache", env=env, cwd=cwd)
        for _ in range(runs):
            assert out(*command, path, env=env, cwd=cwd) == cold, f"{command[0]} differs from a cold read"


def memo_files(cache: Path) -> dict[str, float]:
    return {f.name: f.mtime for f in store.owned_files(cache) if f.kind == "memo"}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def damaged_fixture(path: Path) -> Path:
    objs: list = [header(), entry("model_change", "m1", None, provider="anthropic", modelId="claude-sonnet-4-5")]
    parent = "m1"
    for i in range(30):
        objs.append(msg(f"u{i}", parent, user(f"do {i} 日本語")))
        objs.append(msg(f"a{i}", f"u{i}", assistant("", tool_calls=[(f"c{i}", "exec", {"command": f"ls {i}"})])))
        objs.append(msg(f"t{i}", f"a{i}", tool_result(f"c{i}", "exec", "out " * (50 + i))))
        parent = f"t{i}"
        if i == 10:
            objs.append("{not json")
        if i == 20:
            objs.append(msg("u5", parent, user("duplicate id")))
            parent = "u5"
    objs.append(msg("z", parent, assistant("done")))
    return write_lines(path, objs)


def generated(path: Path) -> Path:
    subprocess.run([sys.executable, str(ROOT / "bench" / "generate.py"), "--entries", "600", str(path)], check=True, capture_output=True)
    return path


@pytest.mark.parametrize("kind", ["demo", "damaged", "generated"])
def test_unchanged_then_appended(tmp_path: Path, home: Path, _own_index_cache: Path, kind: str) -> None:
    path = tmp_path / "s.jsonl"
    if kind == "demo":
        shutil.copyfile(ROOT / "inspector" / "data" / "demo-session.jsonl", path)
    elif kind == "damaged":
        damaged_fixture(path)
    else:
        generated(path)
    env = env_for(home)
    assert_cached_equals_cold(path, env)
    memos = memo_files(_own_index_cache)
    assert len(memos) == 3, "one memo per command line"
    assert any(f.kind == "index" for f in store.owned_files(_own_index_cache))
    time.sleep(0.05)
    assert_cached_equals_cold(path, env, runs=1)
    assert all(memo_files(_own_index_cache)[name] > mtime for name, mtime in memos.items()), "memos replayed (used: touched)"

    data = path.read_bytes()
    last_id = json.loads(data.rstrip(b"\n").rsplit(b"\n", 1)[-1]).get("id")
    more = [msg("late-u", last_id, user("one more")), msg("late-a", "late-u", assistant("appended"))]
    with open(path, "ab") as f:
        f.write(b"".join(jline(o).encode() + b"\n" for o in more))
    assert_cached_equals_cold(path, env)


@pytest.mark.parametrize("damage", ["cut short", "a byte changed", "zeroed"])
def test_a_memo_a_crash_left_damaged_is_not_replayed(tmp_path: Path, home: Path, _own_index_cache: Path, damage: str) -> None:
    """A memo is written without an fsync: what a crash can leave of one (short, a changed byte, zeroed blocks) is
    told apart by the digest in its header and never printed; the next run writes it again."""
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    cold = out("stats", "--json", path, "--no-cache", env=env)
    assert out("stats", "--json", path, env=env) == cold
    (name,) = memo_files(_own_index_cache)
    memo = _own_index_cache / name
    data = bytearray(memo.read_bytes())
    if damage == "cut short":
        data = data[:-7]
    elif damage == "a byte changed":
        data[-20] ^= 0x01
    else:
        data[-len(cold) :] = bytes(len(cold))
    memo.write_bytes(bytes(data))
    assert out("stats", "--json", path, env=env) == cold
    assert memo.read_bytes() != bytes(data), "written again"
    assert out("stats", "--json", path, env=env) == cold


def test_partial_line_then_completed(tmp_path: Path, home: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    line = jline(msg("p1", "z", user("written in two parts")))
    with open(path, "a", encoding="utf-8") as f:
        f.write(line[:30])
    assert_cached_equals_cold(path, env)
    with open(path, "a", encoding="utf-8") as f:
        f.write(line[30:] + "\n")
    assert_cached_equals_cold(path, env)


def test_truncated_and_replaced(tmp_path: Path, home: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    assert_cached_equals_cold(path, env, runs=1)
    data = path.read_bytes()
    with open(path, "r+b") as f:
        f.truncate(len(data) // 2)
    assert_cached_equals_cold(path, env, runs=1)
    other = generated(tmp_path / "other.jsonl")
    os.replace(other, path)
    assert_cached_equals_cold(path, env, runs=1)
    st = os.stat(path)
    body = bytearray(path.read_bytes())
    at = len(body) // 2
    body[at : at + 4] = b"XXXX" if body[at : at + 4] != b"XXXX" else b"YYYY"
    with open(path, "r+b") as f:
        f.write(bytes(body))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert_cached_equals_cold(path, env, runs=1)


def test_config_change_is_seen(tmp_path: Path, home: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    config = home / ".openclaw" / "openclaw.json"
    config.parent.mkdir()
    config.write_text('{"agents": {"defaults": {"contextTokens": 50000}}}')
    first = out("stats", "--json", path, env=env)
    assert json.loads(first)["context_window"]["tokens"] == 50000
    assert out("stats", "--json", path, env=env) == first
    config.write_text('{"agents": {"defaults": {"contextTokens": 40000}}}')  # same path, other values
    second = out("stats", "--json", path, env=env)
    assert json.loads(second)["context_window"]["tokens"] == 40000
    assert second == out("stats", "--json", path, "--no-cache", env=env)
    config.write_text("{ broken")  # a config error: reported every time, never replayed
    for _ in range(2):
        proc = cli("stats", "--json", path, env=env)
        assert proc.returncode == 0 and b"config" in proc.stderr
        assert json.loads(proc.stdout)["config_error"]


REPLAY_PROBE = """
import sys
from inspector.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.write("config imported" if "inspector.host.openclaw_config" in sys.modules else "config not imported")
sys.exit(code)
"""


def replay_probe(*args: object, env: dict[str, str]) -> tuple[bytes, str]:
    """A run of the CLI that also says whether `inspector.host.openclaw_config` was imported (a replayed memo whose config
    witness holds never imports it)."""
    proc = subprocess.run([sys.executable, "-c", REPLAY_PROBE, *map(str, args)], capture_output=True, env=env, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout, proc.stderr.decode()


def test_config_witness_replays_without_the_config_and_sees_every_change(tmp_path: Path, home: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    low = home / ".clawdbot" / "openclaw.json"  # the last candidate probed: any earlier one that appears wins
    low.parent.mkdir()
    low.write_text('{"agents": {"defaults": {"contextTokens": 50000}}}')
    time.sleep(2.1)  # older than the witness's racy window (a file this fresh is resolved again on every replay)
    first, _ = replay_probe("stats", "--json", path, env=env)
    assert json.loads(first)["context_window"]["tokens"] == 50000
    again, how = replay_probe("stats", "--json", path, env=env)
    assert (again, how) == (first, "config not imported")

    high = home / ".openclaw" / "openclaw.json"  # $OPENCLAW_STATE_DIR/openclaw.json: probed first
    high.parent.mkdir()
    high.write_text('{"agents": {"defaults": {"contextTokens": 40000}}}')
    second, how = replay_probe("stats", "--json", path, env=env)
    assert json.loads(second)["context_window"]["tokens"] == 40000 and how == "config imported"
    assert second == out("stats", "--json", path, "--no-cache", env=env)

    time.sleep(2.1)
    assert replay_probe("stats", "--json", path, env=env) == (second, "config imported")  # recorded with its witness
    assert replay_probe("stats", "--json", path, env=env) == (second, "config not imported")
    high.write_text('{"agents": {"defaults": {"contextTokens": 30000}}}')  # same size, same path
    third, _ = replay_probe("stats", "--json", path, env=env)
    assert json.loads(third)["context_window"]["tokens"] == 30000

    other = tmp_path / "other.json"
    other.write_text('{"agents": {"defaults": {"contextTokens": 20000}}}')
    moved, _ = replay_probe("stats", "--json", path, env=dict(env, OPENCLAW_CONFIG_PATH=str(other)))
    assert json.loads(moved)["context_window"]["tokens"] == 20000


def test_options_and_working_directory_are_in_the_key(tmp_path: Path, home: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    for extra in ((), ("--leaf", "a3"), ("--no-tiktoken",), ("--context-window", "30000")):
        assert out("stats", "--json", path, *extra, env=env) == out("stats", "--json", path, *extra, "--no-cache", env=env)
        assert out("stats", "--json", path, *extra, env=env) == out("stats", "--json", path, *extra, "--no-cache", env=env)
    (tmp_path / "sub").mkdir()
    shutil.copyfile(path, tmp_path / "sub" / "s.jsonl")
    here = out("stats", "--json", "s.jsonl", env=env, cwd=tmp_path)
    there = out("stats", "--json", "s.jsonl", env=env, cwd=tmp_path / "sub")
    assert json.loads(here)["file"] == json.loads(there)["file"] == "s.jsonl"
    with open(tmp_path / "sub" / "s.jsonl", "a", encoding="utf-8") as f:
        f.write(jline(msg("extra", "z", user("only in sub"))) + "\n")
    there = out("stats", "--json", "s.jsonl", env=env, cwd=tmp_path / "sub")
    assert there == out("stats", "--json", "s.jsonl", "--no-cache", env=env, cwd=tmp_path / "sub")
    assert out("stats", "--json", "s.jsonl", env=env, cwd=tmp_path) == here


def test_no_cache_writes_nothing(tmp_path: Path, home: Path, _own_index_cache: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    for command in COMMANDS:
        out(*command, path, "--no-cache", env=env)
    out("prune", path, "--no-cache", env=env)
    assert os.listdir(_own_index_cache) == []


def test_cache_info_and_clear(tmp_path: Path, home: Path, _own_index_cache: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    out("stats", "--json", path, env=env)
    info = json.loads(out("cache", "info", "--json", env=env))
    assert info["dir"] == str(_own_index_cache) and info["usable"] is True
    assert info["entries"] == {"index": 1, "memo": 1, "mirror": 0, "temp": 0}
    assert info["total_bytes"] == sum(f.stat().st_size for f in _own_index_cache.iterdir())
    (_own_index_cache / "README").write_text("not the cache's")
    cleared = json.loads(out("cache", "clear", "--json", env=env))
    assert cleared["removed"] == 2 and cleared["freed_bytes"] == info["total_bytes"]
    assert os.listdir(_own_index_cache) == ["README"]
    assert json.loads(out("cache", "info", "--json", env=env))["files"] == 0
    assert b"removed" in out("cache", "clear", env=env)


def test_unusable_cache_dir_is_no_error(tmp_path: Path, home: Path) -> None:
    path = damaged_fixture(tmp_path / "s.jsonl")
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("x")
    env = dict(env_for(home), SESSION_INSPECTOR_CACHE_DIR=str(blocker))
    assert_cached_equals_cold(path, env, runs=1)
    info = json.loads(out("cache", "info", "--json", env=env))
    assert info["usable"] is False and "not a directory" in info["reason"]


def test_concurrent_appender_and_readers(tmp_path: Path, home: Path, _own_index_cache: Path) -> None:
    """One process appends turns while others run the CLI through the cache; afterwards the cache agrees with a cold read."""
    path = damaged_fixture(tmp_path / "s.jsonl")
    env = env_for(home)
    writer = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), "40"], env=env, stderr=subprocess.PIPE
    )
    readers: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(3):
            for command in COMMANDS:
                readers.append(subprocess.Popen(
                    [sys.executable, "-m", "inspector", *command, str(path)], env=env,
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                ))
            for proc in readers[-3:]:
                assert proc.wait(timeout=300) == 0, proc.stderr.read() if proc.stderr else b""
    finally:
        assert writer.wait(timeout=300) == 0, writer.stderr.read() if writer.stderr else b""
    assert_cached_equals_cold(path, env)
    assert not [f for f in store.owned_files(_own_index_cache) if f.temporary], "no temporary file left behind"


APPENDER = r"""
import json, sys, time
path, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    line = json.dumps({"type": "message", "id": f"w{i}", "parentId": f"w{i-1}" if i else "z",
                       "timestamp": "2026-01-01T00:00:09.000Z",
                       "message": {"role": "user", "content": [{"type": "text", "text": "w" * (50 + i)}], "timestamp": 1767225609000}},
                      separators=(",", ":"))
    half = len(line) // 2
    with open(path, "a") as f:
        f.write(line[:half]); f.flush()
        time.sleep(0.005)
        f.write(line[half:] + "\n")
    time.sleep(0.02)
"""


def test_concurrent_writers_of_one_entry(tmp_path: Path, home: Path, _own_index_cache: Path) -> None:
    """Several processes index the same file at once and all save its snapshot: the entry stays whole."""
    path = generated(tmp_path / "s.jsonl")
    env = env_for(home)
    procs = [
        subprocess.Popen([sys.executable, "-m", "inspector", "context", "--json", str(path)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [e for _, e in outputs]
    assert len({o for o, _ in outputs}) == 1
    files = store.owned_files(_own_index_cache)
    assert [f.kind for f in files if f.kind == "index"] == ["index"] and not [f for f in files if f.temporary]
    assert_cached_equals_cold(path, env, runs=1)
    assert outputs[0][0] == out("context", "--json", path, "--no-cache", env=env)
