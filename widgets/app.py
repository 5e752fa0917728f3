"""The Textual app: picks the first screen, wires screens, bindings, the user's keymap and the command palette.

`main(argv)` is what `session-inspector [PATH] [--demo] [--context-window N] [--config FILE]` runs.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen

from inspector.host.discovery.stores import store_of
from inspector.storage.heap import limit_malloc_arenas

from .browser.screen import BrowserScreen
from .commands import ScreenCommands
from .heap import IdleCollector
from .inert import make_inert
from .keymap import app_keymap, keymap_problems
from .launch import EXIT_NOT_A_TERMINAL, demo_path, exit_on_signals, parse_args, terminal_problem
from .options import InspectorOptions
from .screens.error import ErrorInfo, ErrorScreen
from .screens.inspector import InspectorScreen
from .user_config import load_user_config

STYLES = Path(__file__).resolve().parent.parent / "styles" / "inspector.tcss"
CONFIG_NOTICE_SECONDS = 30
IDLE_TICK_SECONDS = 0.5
NO_SESSIONS = (
    "DEMO: no sessions found in OpenClaw's or pi's default places, so this is the bundled demo session. "
    "Open yours with session-inspector PATH."
)


class InspectorApp(App[int]):
    """Session Inspector: a session browser, an inspector per session, error screens."""

    CSS_PATH = str(STYLES)
    TITLE = "Session Inspector"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    BINDINGS = [Binding("q", "quit", "Quit", id="app.quit")]

    def __init__(self, options: InspectorOptions | None = None) -> None:
        limit_malloc_arenas()  # before the first worker thread (`inspector.storage.heap`)
        super().__init__()
        self.options = options or InspectorOptions()
        if not self.options.animations:
            self.animation_level = "none"
        if self.options.initial_theme:
            self.theme = self.options.initial_theme
        self.user_config = load_user_config()
        self.scratch_dirs: list[Path] = []
        """Temp dirs of copies the app made (the bundled demo compacted as a copy): removed when the app quits."""
        self.set_keymap(self.user_config.keymap)  # an id of no binding binds nothing: `_check_keymap` reports it
        self.collector = IdleCollector()
        """Full garbage collections wait until the user is idle (`widgets.heap`)."""

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this platform; on Linux / macOS the one that ends the app when its terminal goes
        away (`widgets.terminal_driver`)."""
        driver_class = super().get_driver_class()
        if sys.platform == "win32":
            return driver_class
        from textual.drivers.linux_driver import LinuxDriver

        from .terminal_driver import TerminalDriver

        return TerminalDriver if driver_class is LinuxDriver else driver_class

    def on_mount(self) -> None:
        self.collector.start()
        self.set_interval(IDLE_TICK_SECONDS, self._idle_tick, name="idle collection")
        if not self.is_headless:  # a real terminal to give back: SIGTERM / SIGHUP end the app as `q` does
            exit_on_signals(lambda code: self.exit(return_code=code))
        if self.user_config.keymap:
            self._check_keymap()
        elif self.user_config.problems:
            self._config_notice(list(self.user_config.problems))

    def _idle_tick(self) -> None:
        self.collector.tick(busy=any(w.is_running and w.group != "watch" for w in self.workers))

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown, events.MouseScrollDown, events.MouseScrollUp)):
            self.collector.note_input()
        await super().on_event(event)

    def on_unmount(self) -> None:
        """The app quits: its temp copies go, and the garbage collector gets its thresholds back."""
        self.collector.stop()
        for directory in self.scratch_dirs:
            shutil.rmtree(directory, ignore_errors=True)
        self.scratch_dirs.clear()

    @work(thread=True, group="keymap", description="keymap check")
    def _check_keymap(self) -> None:
        """Report the keymap's unknown ids and taken keys with the file's other problems (in a thread: it imports
        every module with bindings, some of which the app only loads when their screen opens)."""
        self._config_notice([*self.user_config.problems, *keymap_problems(app_keymap(self))])

    def _config_notice(self, problems: list[str]) -> None:
        if problems:
            self.notify(make_inert(f"{self.user_config.path}:\n" + "\n".join(problems)),
                        title="Config file", severity="warning", timeout=CONFIG_NOTICE_SECONDS, markup=False)

    def get_default_screen(self) -> Screen:
        """The first screen is the real one (no blank screen underneath that could repaint over it)."""
        return self.start_screen()

    def start_screen(self) -> Screen:
        """The demo, one session, a directory's sessions, or the default places (demo when empty)."""
        o = self.options
        if o.demo:
            return self.demo_screen()
        if o.path is not None:
            if o.path.is_dir() and (o.session is None or store_of(o.path) is None):  # an agent dir with --session: its store
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
