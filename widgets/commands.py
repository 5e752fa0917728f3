"""Command palette: every action of the active screen by name (its bindings, estimators, sorts, jumps)."""

from __future__ import annotations

from functools import partial
from typing import Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider


class ScreenCommands(Provider):
    """Offers the `palette_commands()` of the screen the palette was opened from."""

    def _commands(self) -> list[tuple[str, str, Callable[[], object]]]:
        getter = getattr(self.screen, "palette_commands", None)
        return list(getter()) if callable(getter) else []

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(callback), help=help_text)
