"""Directory watching for the session browser: watchfiles in production, a hand-driven watcher in tests.

A watcher is an async iterator of "something changed" events (each a set of changed paths, possibly empty);
the browser re-runs discovery on each one. Watching a path that does not exist is skipped, not an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol


class DirectoryWatcher(Protocol):
    """Yields a set of changed paths every time something below the watched directories changes."""

    def changes(self) -> AsyncIterator[set[Path]]:
        """Async iterator of change batches; ends when `stop()` is called."""
        ...

    def stop(self) -> None:
        """End the iterator."""
        ...


class WatchfilesWatcher:
    """`watchfiles.awatch` over the directories that exist (recursive, debounced by watchfiles)."""

    def __init__(self, paths: list[Path], debounce_ms: int = 300) -> None:
        self.paths = [p for p in paths if p.is_dir()]
        self.debounce_ms = debounce_ms
        self._stop = asyncio.Event()

    async def changes(self) -> AsyncIterator[set[Path]]:
        if not self.paths:
            await self._stop.wait()
            return
        from watchfiles import awatch

        async for batch in awatch(*self.paths, debounce=self.debounce_ms, stop_event=self._stop, recursive=True):
            yield {Path(p) for _change, p in batch}

    def stop(self) -> None:
        self._stop.set()


class ManualWatcher:
    """A watcher driven by the test: `trigger()` reports a change, `stop()` ends it."""

    def __init__(self, paths: list[Path] | None = None) -> None:
        self.paths = list(paths or [])
        self._queue: asyncio.Queue[set[Path] | None] = asyncio.Queue()

    def trigger(self, *paths: Path) -> None:
        """Report that `paths` (or something unnamed) changed."""
        self._queue.put_nowait(set(paths))

    async def changes(self) -> AsyncIterator[set[Path]]:
        while True:
            batch = await self._queue.get()
            if batch is None:
                return
            yield batch

    def stop(self) -> None:
        self._queue.put_nowait(None)
