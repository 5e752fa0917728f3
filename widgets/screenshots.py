"""Regenerate the SVGs in `screenshots/` from the bundled demo session: `python -m widgets.screenshots`.

Each picture is the app's own `export_screenshot()` of one state, taken headless at a fixed size with a fixed
clock, no live polling and no animations, so the files only change when the UI or the demo does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from inspector.figures.marks import MarkKind
from inspector.samples.demo import demo_session_path

from .app import InspectorApp
from .options import FixedClock, InspectorOptions
from .user_config import CONFIG_ENV

ROOT = Path(__file__).resolve().parent.parent
OUT_DIR = ROOT / "screenshots"
SIZE = (150, 44)
NOW = datetime(2026, 1, 2, 12, 0, 0, tzinfo=UTC)


@dataclass
class Shot:
    """One screenshot: a file name, a title, the keys to press, and optional window override."""

    name: str
    title: str
    keys: tuple[str, ...] = ()
    context_window: int | None = None
    before: Callable[[object], Awaitable[None]] | None = field(default=None, repr=False)
    after: Callable[[object], Awaitable[None]] | None = field(default=None, repr=False)


async def settle(pilot, timeout: float = 30.0) -> None:
    """Wait until no worker (other than the file watcher) is running and the screen is quiet.

    Shared with the UI tests (`tests/test_ui_support.py`)."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline:
        await pilot.pause()
        if any(w.is_running and w.group != "watch" for w in pilot.app.workers):
            quiet = 0
            await asyncio.sleep(0.02)
            continue
        quiet += 1
        if quiet >= 3:
            await pilot.pause(0.1)
            return
    raise TimeoutError(f"the app did not settle: {[w.name for w in pilot.app.workers if w.is_running]}")


async def _select_largest(pilot) -> None:
    screen = pilot.app.screen
    sizes = screen.model.sizes("pi")
    screen.transcript.move_to(max(range(len(sizes)), key=lambda i: sizes[i] or 0))
    await settle(pilot)


async def _show_cut_point(pilot) -> None:
    """Centre the transcript on the forecast's cut point (the split-turn prefix above it, the kept tail below)."""
    screen = pilot.app.screen
    model = screen.model
    cut = model.marks.of_kind(MarkKind.CUT_POINT)
    if cut:
        row = model.row_of_entry(cut[0].entry_index)
        if row is not None:
            screen.transcript.move_to(model.nearest_view_index(row))
    await settle(pilot)


SHOTS = (
    Shot("transcript", "Transcript and where the context goes (pi chars/4)"),
    Shot("message-detail", "The largest message in full", ("enter",), before=_select_largest),
    Shot("tiktoken", "Sizes under tiktoken", ("e", "e")),
    Shot("off-path", "Every entry, off-path branches marked", ("o", "home")),
    Shot("guard-warn", "A small context window: guard WARN", (), context_window=24_000),
    Shot("help", "Help", ("question_mark",)),
    Shot("pruning", "Pruning preview: what OpenClaw's cache-TTL pruning would cut", ("p",)),
    Shot("compaction-plan", "Compaction forecast on a 60k window: cut point, split-turn prefix, history-share drop",
         ("C",), context_window=60_000, after=_show_cut_point),
    Shot("timeline", "Timeline: where the context jumped, what repeats, what the transcript does not show", ("l",)),
)


async def take(shot: Shot, demo: Path) -> str:
    """The SVG of one state."""
    options = InspectorOptions(
        path=demo, clock=FixedClock(NOW), poll_interval=None, animations=False, env={}, home=Path("/nonexistent-home"),
        context_window=shot.context_window,
    )
    app = InspectorApp(options)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        if shot.before is not None:
            await shot.before(pilot)
        if shot.keys:
            await pilot.press(*shot.keys)
            await settle(pilot)
        if shot.after is not None:
            await shot.after(pilot)
        return app.export_screenshot(title=f"Session Inspector · {shot.title}")


def main(argv: list[str] | None = None) -> int:
    """Write every screenshot to `screenshots/` (or `--out DIR`)."""
    parser = argparse.ArgumentParser(prog="python -m widgets.screenshots", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="directory for the SVGs (default: screenshots/)")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    demo = demo_session_path()
    os.environ[CONFIG_ENV] = "/nonexistent-session-inspector-config.toml"  # the default keys, not the developer's keymap
    cwd = os.getcwd()
    os.chdir(demo.parent)  # the header then names the file without a machine-specific directory
    try:
        for shot in SHOTS:
            svg = asyncio.run(take(shot, Path(demo.name)))
            (out / f"{shot.name}.svg").write_text(svg, encoding="utf-8")
            print(f"wrote {out / (shot.name + '.svg')}")
    finally:
        os.chdir(cwd)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
