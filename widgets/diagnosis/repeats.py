"""The repeats panel: what keeps repeating on the active path, ranked by the tokens it cost (the engine's
`inspector.figures.diagnosis.repeats.find_repeats`, in `Timeline.repeats`). Enter on one asks to show its occurrences in
the transcript (then `n` / `N` step through them there).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from inspector.base.textsafe import one_line
from inspector.figures.diagnosis.repeats import COMMAND_REPEAT, ERROR_REPEAT, FILE_REREAD, RETRY_AFTER_FAILURE, Repeat

from .texts import tokens

KIND_LABELS = {
    FILE_REREAD: "file re-read",
    COMMAND_REPEAT: "same command",
    ERROR_REPEAT: "same error",
    RETRY_AFTER_FAILURE: "retry after fail",
}
SUBJECT_CHARS = 120


def kind_label(kind: str) -> str:
    """A repeat kind in words (`file_reread` → `file re-read`)."""
    return KIND_LABELS.get(kind, kind)


def repeat_label(repeat: Repeat) -> str:
    """`file re-read /src/app.py` (inert): what the transcript jump says it is stepping through."""
    return f"{kind_label(repeat.kind)} {one_line(repeat.subject, 60)}"


class RepeatsPanel(OptionList):
    """One option per repeat: rank, kind, count, tokens, tool and what repeats."""

    DEFAULT_CSS = """
    RepeatsPanel {
        height: 1fr;
        border: none;
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    class Chosen(Message):
        """Enter on repeat `index` (its position in `Timeline.repeats`)."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def show(self, repeats: list[Repeat]) -> None:
        """List `repeats` (already ranked by the engine)."""
        highlighted = self.highlighted
        self.clear_options()
        if not repeats:
            self.add_option(Option(Text("no repeats on the active path (re-reads, commands, errors, retries)", style="dim"), disabled=True))
            return
        for rank, rep in enumerate(repeats, 1):
            line = Text(no_wrap=True, overflow="ellipsis")
            line.append(f"{rank:>2} ", style="dim")
            line.append(f"{kind_label(rep.kind):<16} ", style="bold")
            line.append(f"×{rep.count:<4}")
            line.append(f"{tokens(rep.tokens):>9} tok  ")
            subject = one_line(rep.subject, SUBJECT_CHARS)
            tool = one_line(rep.tool_name, 12)
            if not subject.startswith(tool + " "):  # a retry's subject already names its tool
                line.append(tool + ": ", style="dim")
            line.append(subject)
            self.add_option(Option(line, id=f"repeat-{rank - 1}"))
        self.highlighted = highlighted if highlighted is not None and highlighted < len(repeats) else 0

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id and event.option.id.startswith("repeat-"):
            self.post_message(self.Chosen(int(event.option.id[len("repeat-"):])))
