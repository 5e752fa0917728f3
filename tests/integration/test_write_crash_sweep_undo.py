"""kill -9 after every file operation of an undo (of a truncating compaction) while another process appends: no line lost.

See `tests/write_sweep.py` for the trials and what is checked after each kill.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from write_sweep import Zygote, sweep


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "state"
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(d))
    return d


@pytest.fixture
def zygote(tmp_path: Path) -> Iterator[Zygote]:
    z = Zygote(tmp_path / "zygote.log")
    yield z
    z.close()


@pytest.mark.parametrize("kind", ["pi", "held"])
def test_kill_9_after_every_file_operation_loses_no_appended_line(tmp_path: Path, zygote: Zygote, kind: str) -> None:
    sweep(tmp_path, zygote, "undo", kind)
