"""Import, in a worker thread, the modules of the screens the app loads only when their key is first pressed.

The timeline (`l`) needs numpy and the plotting widgets (0.4-1 s to import), pruning (`p`) and compaction (`X`)
their own screens. Imported on the UI thread at the key press, that time blocks the screen; imported here once the
session is shown, it runs beside the event loop (the interpreter switches threads every few milliseconds), and the
key press finds the modules loaded.
"""

from __future__ import annotations

import importlib

LAZY_MODULES = (
    "widgets.diagnosis.screen",
    "widgets.pruning.screen",
    "widgets.pruning.state",
    "widgets.compaction.run_screen",
)
"""The modules imported inside an action (`from .screen import ...`), heaviest first."""


def warm_lazy_imports() -> None:
    """Import every module of `LAZY_MODULES` (a module that fails to import is left to fail where it is used)."""
    for name in LAZY_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # the action that needs the module reports its error
            continue
