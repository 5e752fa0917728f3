"""What the pruning overlay remembers between openings: per open file, for as long as the app runs.

Closing the overlay (`Esc`) and opening it again (`p`) keeps the edited settings, the force toggle and the scenario
shown (issue 14: the settings used to reset each time). The state lives with the app, keyed by the session file's
resolved path, and is never written anywhere.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.app import App

from inspector.rules.pruning_terms import SCENARIO_NOW


@dataclass
class PruningState:
    """The overlay's choices for one file: the settings fields as typed (only those that differ from the config,
    and only while every field was valid), force, and the scenario shown (`now` or `if_enabled`)."""

    texts: dict[str, Any] = field(default_factory=dict)
    force: bool = False
    scenario: str = SCENARIO_NOW


_STATES: weakref.WeakKeyDictionary[App[Any], dict[Path, PruningState]] = weakref.WeakKeyDictionary()


def remembered_state(app: App[Any], path: Path) -> PruningState:
    """The state of the overlay for session file `path` in `app` (a fresh one the first time)."""
    per_app = _STATES.setdefault(app, {})
    key = Path(path).resolve()
    state = per_app.get(key)
    if state is None:
        state = per_app[key] = PruningState()
    return state
