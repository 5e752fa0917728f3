"""Time the session browser on a directory of many sessions (issue 12, "many sessions"), headless with Textual's pilot.

    python bench/many_browser.py /tmp/many/sessions        # after `python bench/many_sessions.py /tmp/many/sessions`

Prints, from the app's start: when the list is shown (the table has rows), when the rows on screen have their
glance (context column) and their full summary (every column), how long a key takes to act while the
figures are being filled (`s` sorts by the next column: from the key event to the table sorted; the worst of three), when the visible rows have their
figures, and when every row has them. Numbers depend on the machine and its load: compare runs made together.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from textual import events

from widgets.app import InspectorApp
from widgets.browser.screen import BrowserScreen
from widgets.browser.table import SessionTable
from widgets.browser.watch import ManualWatcher
from widgets.options import InspectorOptions


def _filled(screen: BrowserScreen, rows: int | None = None, glance: bool = False) -> bool:
    table = screen.query_one(SessionTable)
    shown = table.rows_shown if rows is None else table.rows_shown[:rows]
    memo = screen.glances if glance else screen.summaries
    return bool(shown) and all(memo.peek(r.file.path) is not None for r in shown)


async def measure(root: Path, size: tuple[int, int] = (160, 48), limit: float = 600.0) -> dict[str, float]:
    """Run the browser on `root`; returns the timings in seconds."""
    options = InspectorOptions(path=root, animations=False, poll_interval=None, watcher_factory=lambda p: ManualWatcher(p))
    app = InspectorApp(options)
    out: dict[str, float] = {}
    started = time.perf_counter()
    async with app.run_test(size=size):
        while time.perf_counter() - started < limit:
            screen = app.screen
            if isinstance(screen, BrowserScreen) and screen.query_one(SessionTable).row_count:
                break
            await asyncio.sleep(0.005)
        out["list_shown"] = time.perf_counter() - started
        screen = app.screen
        assert isinstance(screen, BrowserScreen)
        visible = size[1] - 8
        while not _filled(screen, visible, glance=True) and time.perf_counter() - started < limit:
            await asyncio.sleep(0.005)
        out["visible_glanced"] = time.perf_counter() - started
        while not _filled(screen, visible) and time.perf_counter() - started < limit:
            await asyncio.sleep(0.01)
        out["visible_filled"] = time.perf_counter() - started
        keys = []
        table = screen.query_one(SessionTable)
        for _ in range(3):  # a key as a user types it (the pilot's press would also wait for every queued message)
            before = screen.sort_column
            t0 = time.perf_counter()
            app.post_message(events.Key("s", "s"))
            while screen.sort_column == before or table.sort_column == before:
                await asyncio.sleep(0.001)
            keys.append(time.perf_counter() - t0)
            await asyncio.sleep(0.3)
        out["key_max"] = max(keys)
        screen._sort_by("updated")
        while not _filled(screen) and time.perf_counter() - started < limit:
            await asyncio.sleep(0.05)
        out["all_filled"] = time.perf_counter() - started
        out["rows"] = float(screen.query_one(SessionTable).row_count)
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--limit", type=float, default=600.0, help="give up waiting after this many seconds")
    args = parser.parse_args(argv)
    result = asyncio.run(measure(args.dir, limit=args.limit))
    print(" ".join(f"{k}={v:.3f}" if k != "rows" else f"rows={int(v)}" for k, v in result.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
