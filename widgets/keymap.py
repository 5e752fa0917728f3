"""Key binding ids: every binding of the app has one, so the user's keymap (`[keymap]` of the config file) can remap it.

Ids are named after the action in the domain's words (`estimator.next`, `pruning.preview`, `compaction.forecast`)
and are unique across the app. Textual applies the keymap itself (`App.set_keymap`: the bindings, the footer);
`remapped` gives the keys of a binding under it for the help screen and the command palette.

`BOUND_MODULES` names every module that declares `BINDINGS`; `binding_ids()` imports them (only when a keymap has
to be checked: some are loaded lazily) and lists every id, so an id of the keymap that names no binding is reported.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from functools import cache

from textual.binding import Binding, BindingType
from textual.dom import DOMNode

BOUND_MODULES = (
    "widgets.app",
    "widgets.browser.screen",
    "widgets.browser.table",
    "widgets.compaction.gateway_screen",
    "widgets.compaction.run_screen",
    "widgets.compaction.view",
    "widgets.detail.detail",
    "widgets.diagnosis.calls_table",
    "widgets.diagnosis.chart",
    "widgets.diagnosis.screen",
    "widgets.pruning.screen",
    "widgets.pruning.snippet",
    "widgets.screens.diagnostics",
    "widgets.screens.error",
    "widgets.screens.filter",
    "widgets.screens.help",
    "widgets.screens.inspector",
    "widgets.transcript.search_bar",
    "widgets.transcript.transcript",
)
"""The modules whose classes declare `BINDINGS` (a test checks that no other module of `widgets` does)."""


def bound_classes() -> list[type[DOMNode]]:
    """Every class of `BOUND_MODULES` that declares its own `BINDINGS`."""
    out = []
    for name in BOUND_MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, DOMNode) and value.__module__ == name and "BINDINGS" in vars(value):
                out.append(value)
    return out


@cache
def binding_ids() -> frozenset[str]:
    """The id of every binding of the app."""
    return frozenset(b.id for cls in bound_classes() for b in cls.BINDINGS if isinstance(b, Binding) and b.id)


def unknown_ids(keymap: Mapping[str, str]) -> list[str]:
    """The ids of `keymap` that name no binding of the app, sorted."""
    return sorted(set(keymap) - binding_ids())


def keymap_problems(keymap: Mapping[str, str]) -> list[str]:
    """What is wrong with `keymap`: ids that name no binding, keys taken from other bindings (`keymap_clashes`)."""
    unknown = unknown_ids(keymap)
    problems = [f"[keymap] unknown binding id(s), ignored: {', '.join(unknown)} (README: \"Keys and the keymap\")"] if unknown else []
    return problems + keymap_clashes(keymap)


def app_keymap(node: DOMNode) -> Mapping[str, str]:
    """The keymap in force (`App.set_keymap`; Textual keeps it in `App._keymap`, with no public getter)."""
    return node.app._keymap


def key_label(key: str) -> str:
    """A binding's key as the help screen shows it (`?`, `/` rather than their names)."""
    return (
        key.replace("question_mark", "?").replace("slash", "/")
        .replace("left_square_bracket", "[").replace("right_square_bracket", "]")
    )


def _keys(keys: str) -> list[str]:
    return [key.strip() for key in keys.split(",")]


def remapped(bindings: Iterable[BindingType], keymap: Mapping[str, str]) -> list[Binding]:
    """The bindings of one node (one class's `BINDINGS`) as Textual binds them under `keymap` (`BindingsMap.apply_keymap`).

    A binding whose id the keymap names gets the keymap's keys; a key it takes is taken from the node's other bindings
    (a binding left with no key is still listed, with an empty key: the command palette still runs it)."""
    declared = []
    for binding in bindings:
        assert isinstance(binding, Binding), "screens declare their bindings as Binding objects"
        declared.append(binding)
    new_keys = {b.id: keys for b in declared if b.id and (keys := keymap.get(b.id))}
    taken = {key for keys in new_keys.values() for key in _keys(keys)}
    out = []
    for binding in declared:
        if binding.id in new_keys:
            out.append(binding.with_key(new_keys[binding.id]))
            continue
        kept = [key for key in _keys(binding.key) if key not in taken]
        out.append(binding if len(kept) == len(_keys(binding.key)) else binding.with_key(",".join(kept)))
    return out


def _bound_keys(binding: Binding, keymap: Mapping[str, str], declared: Mapping[str | None, set[str]]) -> set[str]:
    """The keys `binding` wants: the keymap's when it names it, else its declared ones."""
    return set(_keys(binding.key)) if binding.id in keymap else declared.get(binding.id, set())


def keymap_clashes(keymap: Mapping[str, str]) -> list[str]:
    """One line per key the keymap gives to a binding that already belongs to another binding of the same node
    (Textual then binds it to the keymap's binding only, or to both when the keymap gives it to both)."""
    out = []
    for cls in bound_classes():
        before = {b.id: set(_keys(b.key)) for b in cls.BINDINGS if isinstance(b, Binding)}
        after = remapped(cls.BINDINGS, keymap)
        for binding in after:
            if binding.id not in keymap:
                continue
            for key in _keys(binding.key):
                others = sorted(str(b.id) for b in after if b.id != binding.id and key in _bound_keys(b, keymap, before))
                if others:
                    out.append(f"[keymap] {binding.id} = \"{key_label(key)}\" takes the key of {', '.join(others)} ({cls.__name__})")
    return out
