"""The Textual app: picks the first screen, wires screens, bindings and the command palette. Nothing else.

`main(argv)` is what `session-inspector [PATH] [--demo] [--context-window N] [--config FILE]` runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from .browser.screen import BrowserScreen
from .commands import ScreenCommands
from .launch import EXIT_NOT_A_TERMINAL, demo_path, exit_on_signals, parse_args, terminal_problem
from .options import InspectorOptions
from .screens.error import ErrorInfo, ErrorScreen
from .screens.inspector import InspectorScreen

STYLES = Path(__file__).resolve().parent.parent / "styles" / "inspector.tcss"
NO_SESSIONS = (
    "DEMO: no sessions found in OpenClaw's or pi's default places, so this is the bundled demo session. "
    "Open yours with session-inspector PATH."
)


class InspectorApp(App[int]):
    """Session Inspector: a session browser, an inspector per session, error screens."""

    CSS_PATH = str(STYLES)
    TITLE = "Session Inspector"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    BINDINGS = [Binding("q", "quit", "Quit")]

    def __init__(self, options: InspectorOptions | None = None) -> None:
        super().__init__()
        self.options = options or InspectorOptions()
        if not self.options.animations:
            self.animation_level = "none"
        if self.options.initial_theme:
            self.theme = self.options.initial_theme

    def on_mount(self) -> None:
        if not self.is_headless:  # a real terminal to give back: SIGTERM / SIGHUP end the app as `q` does
            exit_on_signals(lambda code: self.exit(return_code=code))

    def get_default_screen(self) -> Screen:
        """The first screen is the real one (no blank screen underneath that could repaint over it)."""
        return self.start_screen()

    def start_screen(self) -> Screen:
        """The demo, one session, a directory's sessions, or the default places (demo when empty)."""
        o = self.options
        if o.demo:
            return self.demo_screen()
        if o.path is not None:
            if o.path.is_dir():
                return BrowserScreen(o.path, o)
            return InspectorScreen(o.path, o)
        return BrowserScreen(None, o, on_empty=lambda: self.push_screen(self.demo_screen(can_go_back=False, reason=NO_SESSIONS)))

    def demo_screen(self, can_go_back: bool = True, reason: str | None = None) -> Screen:
        """The bundled demo session, or an error screen saying it is missing from this installation.

        The title and the header say it is the demo; `reason` (why it opened unasked) goes in the notice bar too."""
        path = demo_path()
        if path is None:
            return ErrorScreen(ErrorInfo("missing", "Demo session not found", Path("inspector/data"),
                                         "This installation has no bundled demo session.",
                                         ("Pass a session file or directory: session-inspector PATH",)))
        self.title = f"{self.TITLE} · DEMO"
        self.sub_title = reason or "the bundled demo session"
        return InspectorScreen(path, self.options, can_go_back=can_go_back, demo=reason or "")


def main(argv: list[str]) -> int:
    """Parse the interactive command line and run the app until it exits."""
    options = parse_args(argv)
    problem = terminal_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_NOT_A_TERMINAL
    app = InspectorApp(options)
    app.run()
    return app.return_code or 0
