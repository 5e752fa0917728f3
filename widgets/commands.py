"""Command palette and help rows: every action of the active screen by name (its bindings, estimators, sorts, jumps).

A screen offers `palette_commands()`; `binding_commands` and `help_rows` build the parts every screen shares from
its `BINDINGS`, so the palette, the help screen and the footer name each action the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

PaletteCommand = tuple[str, str, Callable[[], object]]
"""(title, help, callback) of one command palette entry."""


def _bindings(bindings: Iterable[BindingType]) -> list[Binding]:
    out = []
    for binding in bindings:
        assert isinstance(binding, Binding), "screens declare their bindings as Binding objects"
        out.append(binding)
    return out


def key_label(key: str) -> str:
    """A binding's key as the help screen shows it (`?`, `/` rather than their names)."""
    return (
        key.replace("question_mark", "?").replace("slash", "/")
        .replace("left_square_bracket", "[").replace("right_square_bracket", "]")
    )


def help_rows(bindings: Iterable[BindingType]) -> list[tuple[str, str, str]]:
    """(key, description, tooltip) of every binding, for `HelpScreen`."""
    return [(key_label(b.key), b.description, b.tooltip or "") for b in _bindings(bindings)]


def binding_commands(node: DOMNode, bindings: Iterable[BindingType]) -> list[PaletteCommand]:
    """One palette command per distinct action of `bindings`, run on `node`."""
    out: list[PaletteCommand] = []
    seen: set[str] = set()
    for binding in _bindings(bindings):
        if binding.action in seen:
            continue
        seen.add(binding.action)
        out.append((binding.description, f"{binding.tooltip} ({binding.key})", lambda a=binding.action: node.run_action(a)))
    return out


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
