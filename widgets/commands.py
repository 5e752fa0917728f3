"""Command palette and help rows: every action of the active screen by name (its bindings, estimators, sorts, jumps).

A screen offers `palette_commands()`; `binding_commands` and `help_rows` build the parts every screen shares from
its `BINDINGS`, so the palette, the help screen and the footer name each action the same way, with the keys of the
user's keymap (`widgets.keymap`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.dom import DOMNode

from .keymap import app_keymap, key_label, remapped

PaletteCommand = tuple[str, str, Callable[[], object]]
"""(title, help, callback) of one command palette entry."""
NO_KEY = "no key"
"""The key shown for a binding whose key the user's keymap gave to another one."""


def _bindings(node: DOMNode, bindings: Iterable[BindingType]) -> list[Binding]:
    return remapped(bindings, app_keymap(node))


def help_rows(node: DOMNode, *nodes_bindings: Iterable[BindingType]) -> list[tuple[str, str, str]]:
    """(key, description, tooltip) of every binding, with the keys of `node`'s app keymap, for `HelpScreen`.

    Each argument after `node` is the `BINDINGS` of one node (a keymap key takes the key of its node's bindings only)."""
    return [(key_label(b.key) or NO_KEY, b.description, b.tooltip or "") for bindings in nodes_bindings for b in _bindings(node, bindings)]


def binding_commands(node: DOMNode, bindings: Iterable[BindingType]) -> list[PaletteCommand]:
    """One palette command per distinct action of `bindings`, run on `node` (its help names the keys in force)."""
    out: list[PaletteCommand] = []
    seen: set[str] = set()
    for binding in _bindings(node, bindings):
        if binding.action in seen:
            continue
        seen.add(binding.action)
        out.append((binding.description, f"{binding.tooltip} ({binding.key or NO_KEY})", lambda a=binding.action: node.run_action(a)))
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
