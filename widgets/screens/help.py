"""Help (`?`): what the columns and estimators mean, and every key of the screen it was opened from."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..inert import one_line
from ..transcript.estimators import ESTIMATOR_HELP, ESTIMATOR_LABELS

INTRO = (
    "Each transcript row is one message of the context the model sees (pi's buildSessionContext), in order: "
    "role and tool, a one-line preview, a bar and size under the chosen estimator, and the context so far.\n"
    "The right side shows the context now against the window (OpenClaw's window resolution and guard), where it "
    "goes by tool and role, and the largest messages; Enter on a row shows the whole message. Below 110 columns the "
    "side panel sits under the transcript: Enter, w or s opens it, Esc closes it.\n"
    "Markers: ├ branch point (the entry has several children) · ○ off the active path · × dropped by compaction · ~ tool result whose prompt-cache TTL has expired (when, and its age, in the message detail; `p` previews what pruning would cut).\n"
    "Compaction forecast (C): ✂ cut point · │ kept tail · ↳ split-turn prefix · § part / ┆ chunk start (with its tokens) "
    "· ! oversized · - dropped by the history share (dimmed).\n"
    "The first column is `ctx`, the position in the context the model sees, or `line`, the line in the file when `o` shows every entry in file order."
)


class HelpScreen(ModalScreen[None]):
    """Keys and concepts; any of Esc / q / ? closes it.

    Its background is opaque: a see-through one makes Textual draw the whole screen underneath, dimmed, on every
    frame (~100 ms for the inspector on a big session)."""

    DEFAULT_CSS = """
    HelpScreen {
        align: center middle;
        background: $background;
        & #help-box { width: 96; max-width: 95%; height: 90%; border: heavy $primary; background: $panel; padding: 0 1; }
    }
    """

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help.close")]

    def __init__(self, bindings: list[tuple[str, str, str]], title: str = "Session Inspector", intro: str = INTRO, *, estimators: bool = True) -> None:
        """`intro` and `estimators` (the estimator table) describe the screen it was opened from."""
        super().__init__()
        self.key_rows = bindings
        self.title_text = title
        self.intro = intro
        self.estimators = estimators

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text(one_line(self.title_text, 200), style="bold"))
            yield Static(Text(self.intro))
            if self.estimators:
                est = Table(box=None, padding=(0, 1), show_header=False)
                est.add_column(style="bold", no_wrap=True)
                est.add_column()
                for key, label in ESTIMATOR_LABELS.items():
                    est.add_row(label, ESTIMATOR_HELP[key])
                yield Static(Text("\nEstimators (e cycles)", style="bold"))
                yield Static(est)
            keys = Table(box=None, padding=(0, 1), show_header=False)
            keys.add_column(style="bold", no_wrap=True)
            keys.add_column(no_wrap=True)
            keys.add_column()
            for key, description, tooltip in self.key_rows:
                keys.add_row(key, description, tooltip)
            yield Static(Text("\nKeys (also in the command palette, ctrl+p)", style="bold"))
            yield Static(keys)

    def action_close(self) -> None:
        self.dismiss(None)
