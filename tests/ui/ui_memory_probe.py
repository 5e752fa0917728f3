"""Run by `test_ui_memory.py` in a fresh process: the inspector app (headless, Textual's pilot) on a session, every
key of the help screen pressed once the previous one settled; prints the peak resident size (VmHWM, KiB) after the
opening and after the tour as JSON.

    python tests/ui/ui_memory_probe.py SESSION.jsonl
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parents[1])]

from test_ui_responsive import KEYS, SIZE
from test_ui_support import make_app, settle


def peak_kib() -> int:
    """The process's peak resident size so far (VmHWM), in KiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM")


async def tour(path: Path) -> dict[str, int]:
    """Open `path`, settle, press every key; the peaks after each stage."""
    out = {"imported": peak_kib()}
    async with make_app(path).run_test(size=SIZE) as pilot:
        await settle(pilot, 120)
        out["opened"] = peak_kib()
        for key in KEYS:
            await pilot.press(key)
            await settle(pilot, 120)
        out["toured"] = peak_kib()
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(tour(Path(sys.argv[1])))))
