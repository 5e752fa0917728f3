"""What the app is started with: the file or directory, window options, and the injectable world.

Tests and snapshots pass a fixed clock, a manual file watcher, a poll interval (or none) and an explicit
home/env so nothing depends on the host's time, home directory or file-system events.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from inspector.base.clock import Clock, FixedClock, SystemClock

from .browser.watch import DirectoryWatcher

__all__ = ["Clock", "FixedClock", "InspectorOptions", "SystemClock", "WatcherFactory"]


WatcherFactory = Callable[[list[Path]], DirectoryWatcher]


@dataclass
class InspectorOptions:
    """How the inspector was asked to start, plus the injectable clock, watcher, intervals and environment.

    `path` is a session file or a directory (None: the default places, or the demo when none are found);
    `demo` always opens the bundled demo. `poll_interval` is the live-follow period in seconds (None: no
    timer; tests call `InspectorScreen.check_for_updates()` themselves). `watcher_factory` builds the
    directory watcher of the session browser (None: watchfiles). `home`/`env` are passed to discovery and
    config lookup. `animations` False turns animations and cursor blink off.
    """

    path: Path | None = None
    demo: bool = False
    context_window: int | None = None
    config_path: Path | None = None
    rules: str | None = None
    """`--rules ID` (None: each session's rules are chosen as `inspector.host.rules_choice.choose_rules` says)."""
    session: str | None = None
    """`--session ID_OR_KEY`: the session of the OpenClaw SQLite store `path` names (None: the most recently updated)."""
    gateway_log: Path | None = None
    """`--gateway-log PATH`: OpenClaw's Gateway log (a file and its rotations, or a directory); None: the config's
    `logging.file`, else the default place, shown only when it recorded something of the session."""
    clock: Clock = field(default_factory=SystemClock)
    poll_interval: float | None = 0.1
    watcher_factory: WatcherFactory | None = None
    home: Path | None = None
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    animations: bool = True
    encoding: str | None = "cl100k_base"
    initial_theme: str | None = None
