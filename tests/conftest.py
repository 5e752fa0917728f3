"""Shared test helpers: tiny JSONL writers and the location of the shared corpus."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from inspector.read.encode import encode_entry_text

# The UI tests' shared pilot fixture (`ui`), for every test module; unused snapshots fail runs under xdist too.
pytest_plugins = ["ui_support", "xdist_support"]

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture(autouse=True)
def _own_index_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets an empty index cache of its own (`$SESSION_INSPECTOR_CACHE_DIR`, inherited by the
    subprocesses it starts): no test reads or writes the user's real cache, nor another test's."""
    path = tmp_path_factory.mktemp("index-cache")
    monkeypatch.setenv("SESSION_INSPECTOR_CACHE_DIR", str(path))
    monkeypatch.delenv("SESSION_INSPECTOR_CACHE_MAX_BYTES", raising=False)
    return path


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app's config file (`$SESSION_INSPECTOR_CONFIG`) is a path of the test's own, absent until a test writes
    it: no test reads the user's real keymap."""
    path = tmp_path_factory.mktemp("user-config") / "config.toml"
    monkeypatch.setenv("SESSION_INSPECTOR_CONFIG", str(path))
    return path


@functools.cache
def bench_generator() -> ModuleType:
    """`bench/generate.py` loaded as a module (once): the benchmark's session generator, a source of realistic
    sessions for tests."""
    spec = importlib.util.spec_from_file_location("bench_generate", ROOT / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def bench_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2,500-entry session from the benchmark's generator (seed 11), written once per test process."""
    path = tmp_path_factory.mktemp("gen") / "generated.jsonl"
    bench_generator().generate(path, entries=2500, seed=11)
    return path


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (a zombie not reaped yet counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def corpus_file(*parts: str) -> Path:
    """A file of ../shared/corpus, or skip the test when the corpus is not there."""
    path = CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"corpus not available: {path}")
    return path


def jline(obj) -> str:
    """One JSONL line as pi writes it (`JSON.stringify(entry)`, through the product's one entry encoder)."""
    return encode_entry_text(obj)


def write_lines(path: Path, objs, trailing_newline: bool = True) -> Path:
    text = "\n".join(o if isinstance(o, str) else jline(o) for o in objs)
    path.write_text(text + ("\n" if trailing_newline else ""), encoding="utf-8")
    return path


def header(version=3, sid="s-1"):
    return {"type": "session", "version": version, "id": sid, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}


def msg(eid, parent, message, ts="2026-01-01T00:00:01.000Z"):
    return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": message}


def user(text, ts=1767225601000):
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def assistant(text="ok", tool_calls=(), usage=None, provider="anthropic", model="claude-sonnet-4-5", stop="stop"):
    content = [{"type": "text", "text": text}] if text else []
    for cid, name, args in tool_calls:
        content.append({"type": "toolCall", "id": cid, "name": name, "arguments": args})
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": provider,
        "model": model,
        "usage": usage
        or {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
            "cost": {"input": 0.0003, "output": 0.0003, "cacheRead": 0, "cacheWrite": 0, "total": 0.0006}},
        "stopReason": "toolUse" if tool_calls else stop,
        "timestamp": 1767225602000,
    }


def tool_result(cid, name, text, details=None):
    m = {"role": "toolResult", "toolCallId": cid, "toolName": name, "content": [{"type": "text", "text": text}],
         "isError": False, "timestamp": 1767225603000}
    if details is not None:
        m["details"] = details
    return m


def entry(etype, eid, parent, **payload):
    return {"type": etype, "id": eid, "parentId": parent, "timestamp": "2026-01-01T00:00:05.000Z", **payload}
