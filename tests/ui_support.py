"""The shared pilot fixture of the UI tests (a pytest plugin loaded by `tests/conftest.py`).

    @pytest.mark.anyio
    async def test_something(tmp_path, ui):
        pilot = await ui(path)              # the inspector app on `path`, deterministic options, settled
        await pilot.press("e")

`ui(path, size=SIZE, settle=True, **overrides)` starts `InspectorApp` with `test_ui_support.options(path,
**overrides)` (fixed clock, no poll timer, no animations, empty home and environment) and returns its pilot,
after the app settled unless `settle=False`; `ui.run(app, size)` does the same for any app. Every app started
is shut down when the test ends. Tests run on asyncio through AnyIO's pytest plugin.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from test_ui_support import SIZE, make_app
from test_ui_support import settle as settle_app
from textual.app import App
from textual.pilot import Pilot


@pytest.fixture
def anyio_backend() -> str:
    """The UI tests run on asyncio (Textual's loop)."""
    return "asyncio"


class PilotFactory:
    """Starts apps for one test and keeps them running until it ends (see the module docstring)."""

    def __init__(self, stack: AsyncExitStack) -> None:
        self._stack = stack

    async def run(self, app: App[Any], size: tuple[int, int] = SIZE, settle: bool = False) -> Pilot[Any]:
        """Run `app` headless at `size` (optionally wait until it settled) and return its pilot."""
        pilot = await self._stack.enter_async_context(app.run_test(size=size))
        if settle:
            await settle_app(pilot)
        return pilot

    async def __call__(self, path: Path | None = None, *, size: tuple[int, int] = SIZE, settle: bool = True, **overrides: Any) -> Pilot[Any]:
        """The inspector app on `path` with deterministic options (`overrides` replace some), settled."""
        return await self.run(make_app(path, **overrides), size, settle)


@pytest.fixture
async def ui() -> AsyncIterator[PilotFactory]:
    """A `PilotFactory`: `pilot = await ui(path)`."""
    async with AsyncExitStack() as stack:
        yield PilotFactory(stack)
