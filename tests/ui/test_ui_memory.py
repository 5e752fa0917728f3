"""The app's resident memory grows with the session by at most `MAX_INCREMENT_PER_MIB` per MiB of file, after the
opening and after a tour of every key of the help screen: the peak (VmHWM) of a fresh process on a generated
16 MiB session, minus the same on a 200-entry one (the interpreter, Textual, numpy and the tokenizer: the baseline,
~117 MB after the opening and ~145-170 MB after the tour on this machine, itself held to `BASELINE_MB`).
`tests/ui/ui_memory_probe.py` drives the app in its own process, so no other test's memory is counted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import bench_generator

PROBE = Path(__file__).resolve().parent / "ui_memory_probe.py"
ROOT = Path(__file__).resolve().parents[2]
SIZE_MIB = 16
MAX_INCREMENT_PER_MIB = {"opened": 1.4, "toured": 1.6}
"""MiB of resident memory per MiB of session file, over the small session's (issue 27 asks for 0.5 of the file,
baseline included). Measured 2026-11-27 (h-appmem): 1.15-1.2 after the opening on 16 and 64 MiB files; after the
tour 0.75 on 64 MiB and 0.8-1.9 on 16 MiB (two peaks that each vary by ~10 MB from run to run: not lowered)."""
BASELINE_MB = {"opened": 140, "toured": 195}
"""The 200-entry session's own peaks, MB (measured 2026-11-27 after h-appmem: ~117 after the opening, 143-171 after
the tour; 120 and 175-178 before)."""

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")


def _peaks(path: Path) -> dict[str, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, str(PROBE), str(path)], capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_memory_grows_with_the_file_by_at_most_the_bound(tmp_path):
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    gen = bench_generator()
    gen.generate(small, entries=200, seed=3, shape="thinking")
    gen.generate(big, size_bytes=SIZE_MIB << 20, seed=3, shape="thinking")
    mib = big.stat().st_size / (1 << 20)
    base, grown = _peaks(small), _peaks(big)
    for stage in ("opened", "toured"):
        assert base[stage] >> 10 <= BASELINE_MB[stage], f"{stage}: {base[stage] >> 10} MB on 200 entries (bound {BASELINE_MB[stage]})"
        per_mib = (grown[stage] - base[stage]) / 1024 / mib
        assert per_mib <= MAX_INCREMENT_PER_MIB[stage], (
            f"{stage}: {grown[stage] >> 10} MB on {mib:.0f} MiB vs {base[stage] >> 10} MB on 200 entries: "
            f"{per_mib:.2f} MiB per MiB of file (bound {MAX_INCREMENT_PER_MIB[stage]})"
        )
