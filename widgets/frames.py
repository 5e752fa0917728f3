"""UI work spread over frames: each job runs after a frame of its own, so no frame holds the UI thread for all of
them (`FrameJobs`)."""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Awaitable, Callable

from textual.screen import Screen

Job = Callable[[], Awaitable[None] | None]


class FrameJobs:
    """Jobs run one per frame of `screen`, in the order they were added: each after the screen's next refresh
    (the frame that shows what the previous job changed). A job may be sync or async."""

    def __init__(self, screen: Screen) -> None:
        self._screen = screen
        self._jobs: deque[Job] = deque()

    @property
    def pending(self) -> bool:
        """Some job has not run yet (or is running)."""
        return bool(self._jobs)

    def add(self, job: Job) -> None:
        """Run `job` after the frames of the jobs before it."""
        self._jobs.append(job)
        if len(self._jobs) == 1:
            self._screen.call_after_refresh(self._run)

    async def _run(self) -> None:
        if not self._jobs:
            return
        try:
            result = self._jobs[0]()
            if inspect.isawaitable(result):
                await result
        finally:
            self._jobs.popleft()
            if self._jobs:
                self._screen.call_after_refresh(self._run)
