"""kill -9 after every file operation of an undo (of a truncating compaction) while another process appends: no line lost.

See `tests/write_sweep.py` for the trials and what is checked after each kill.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from write_sweep import Zygote, sweep, sweep_state_dir, zygote

__all__ = ["sweep_state_dir", "zygote"]  # the sweep's fixtures, used by name


@pytest.mark.parametrize("kind", ["pi", "held"])
def test_kill_9_after_every_file_operation_loses_no_appended_line(tmp_path: Path, zygote: Zygote, kind: str) -> None:
    sweep(tmp_path, zygote, "undo", kind)
