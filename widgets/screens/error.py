"""Errors are screens, not tracebacks: a missing file, permission denied, not a regular file, an unsupported format."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..inert import make_inert


@dataclass(frozen=True)
class ErrorInfo:
    """What went wrong: `kind` is `missing`, `permission`, `directory`, `special` (a FIFO, device or socket),
    `unsupported` or `unreadable`."""

    kind: str
    title: str
    path: Path
    reason: str
    hints: tuple[str, ...] = ()
    details: tuple[str, ...] = ()

    @classmethod
    def from_open_error(cls, path: Path, reason: str) -> ErrorInfo:
        """Classify a `SessionOpenError` (or OSError text) for `path` by looking at the file system."""
        if not os.path.lexists(path):
            return cls("missing", "File not found", path, reason, (
                "Check the path, or run `session-inspector` without a path to browse the sessions found on this machine.",
                "`session-inspector --demo` opens the bundled demo session.",
            ))
        if os.path.isdir(path):
            return cls("directory", "This is a directory", path, reason, ("Open it with `session-inspector DIR` to browse its sessions.",))
        if not os.access(path, os.R_OK) or "permission" in reason.lower():
            return cls("permission", "Permission denied", path, reason, (
                "The file exists but this user cannot read it (OpenClaw writes transcripts with mode 0600).",
                "Run as the user that owns the OpenClaw state directory, or copy the file somewhere readable.",
            ))
        return cls("unreadable", "Cannot open the file", path, reason)

    @classmethod
    def special(cls, path: Path, what: str) -> ErrorInfo:
        """`path` exists but is not a regular file (`what`: "a FIFO", "a character device", ...): never read it."""
        return cls("special", "Not a regular file", path,
                   f"This is {what}, not a session file: reading it could block forever or never end, so it is not read.",
                   ("Session transcripts are regular .jsonl files; pass one, or a directory of them.",
                    "q quits."))

    @classmethod
    def unsupported(cls, path: Path, details: list[str]) -> ErrorInfo:
        """A file that is not an OpenClaw / pi session transcript."""
        return cls("unsupported", "Not an OpenClaw / pi session (unsupported format)", path,
                   'The first line is not a {"type":"session","id":…} header and no line is a known entry type.',
                   ("Session Inspector reads OpenClaw and pi-coding-agent session JSONL files (versions 1-3).",
                    "Claude Code and Codex transcripts are not supported yet."),
                   tuple(details))


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_file_kind(path: Path) -> str | None:
    """What `path` is when it exists and is neither a regular file nor a directory ("a FIFO (named pipe)", ...).

    Only `stat`s the path (following links), never opens it: opening a FIFO blocks until a writer comes.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((what for test, what in _SPECIAL_KINDS if test(mode)), "not a regular file")


class ErrorScreen(Screen):
    """A full screen explaining why a file cannot be shown, with what to do about it."""

    DEFAULT_CSS = """
    ErrorScreen {
        align: center middle;
        & #error-box { width: 90%; max-width: 110; height: auto; border: heavy $error; padding: 1 2; background: $panel; }
        & #error-title { color: $text-error; text-style: bold; }
        & .error-path { color: $text-muted; }
        & .error-hint { color: $text; margin-top: 1; }
        & .error-detail { color: $text-muted; }
    }
    """

    BINDINGS = [Binding("escape", "back", "Back", id="error.back"), Binding("q", "app.quit", "Quit", id="error.quit")]

    def __init__(self, info: ErrorInfo, *, covers: int = 0) -> None:
        """`covers`: screens under this one that failed to open and go away with it on Escape."""
        super().__init__()
        self.info = info
        self.covers = covers

    def compose(self) -> ComposeResult:
        info = self.info
        with Center():
            with Vertical(id="error-box"):
                yield Static(Text(info.title), id="error-title")
                yield Static(Text(make_inert(str(info.path))), classes="error-path")
                yield Static(Text(make_inert(info.reason)), classes="error-hint")
                for detail in info.details:
                    yield Static(Text(make_inert(detail)), classes="error-detail")
                for hint in info.hints:
                    yield Static(Text(hint), classes="error-hint")
        yield Footer()

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1 + self.covers:
            for _ in range(1 + self.covers):
                self.app.pop_screen()
        else:
            self.app.exit(return_code=2)
