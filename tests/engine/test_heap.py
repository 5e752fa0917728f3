"""`inspector.storage.heap.keep_big_allocations_mapped`: on glibc the mapping threshold is fixed (mallopt answers 1), once per
process; elsewhere it reports that nothing changed, and nothing fails. `limit_malloc_arenas` caps the arenas unless
`$MALLOC_ARENA_MAX` chose."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from inspector.storage import heap


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's mapping threshold is glibc's")
def test_the_threshold_is_fixed_once_on_glibc() -> None:
    code = "from inspector.storage import heap; print(heap._done, heap.keep_big_allocations_mapped(), heap._done, heap.keep_big_allocations_mapped())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True", "True", "True"]


def test_without_ctypes_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(heap, "_done", False)
    monkeypatch.setitem(sys.modules, "ctypes", None)  # `import ctypes` raises ImportError
    assert heap.keep_big_allocations_mapped() is False
    assert heap._done is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's arena cap is glibc's")
def test_the_arena_cap_is_set_unless_the_environment_chose() -> None:
    code = "from inspector.storage import heap; print(heap.limit_malloc_arenas())"
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}

    def run(extra: dict[str, str]) -> list[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**env, **extra}).stdout.split()

    assert run({}) == ["True"]
    assert run({"MALLOC_ARENA_MAX": "4"}) == ["False"], "the environment's choice stands"
