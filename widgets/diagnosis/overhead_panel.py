""""Not in the transcript" as its own share of the breakdown: what the model saw that the session file does not hold
(system prompt, tool schemas, injected context), derived per call as recorded prompt − pi's chars/4 estimate of the
transcript sent, with its share of the last prompt, its trend (a sparkline over the calls) and the calls it comes
from. The figures are the engine's `OverheadSummary` and `CallPoint.not_in_transcript` (`inspector.figures.diagnosis`).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static

from inspector.figures.diagnosis.timeline import Timeline

from .texts import overhead_explanation, percent, tokens, trend_text

PENDING = "Not in the transcript (derived): computed with the timeline (l; on demand for a large session)"


class OverheadPanel(Vertical):
    """The not-in-transcript share: headline and share bar, what it is, trend line and sparkline, source."""

    COMPONENT_CLASSES = {"overhead--label", "overhead--muted", "overhead--overhead"}

    DEFAULT_CSS = """
    OverheadPanel {
        height: auto;
        & > #overhead-trend { display: none; }
        &.-shown > #overhead-trend { display: block; }
        & > .overhead--label { text-style: bold; }
        & > .overhead--muted { color: $text-muted; }
        & > .overhead--overhead { color: $text-accent; text-style: bold; }
        & > #overhead-text, & > #overhead-notes { height: auto; }
        & > #overhead-trend { height: 1; }
        & > #overhead-notes { margin: 0 0 1 0; }
        & > #overhead-trend > .sparkline--min-color { color: $accent-darken-2; }
        & > #overhead-trend > .sparkline--max-color { color: $accent; }
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(Text(PENDING), id="overhead-text")
        yield Sparkline([], id="overhead-trend")
        yield Static("", id="overhead-notes")

    def on_mount(self) -> None:
        self.query_one("#overhead-text", Static).update(Text(PENDING, style=self.get_component_rich_style("overhead--muted")))

    def show(self, timeline: Timeline) -> None:
        """Show the not-in-transcript figures of `timeline`."""
        from ..breakdown import share_bar

        overhead = timeline.overhead
        style = lambda role: self.get_component_rich_style(f"overhead--{role}")
        head = Text()
        head.append("Not in the transcript ", style("label"))
        head.append("(derived)", style("muted"))
        share = Text()
        if overhead.latest is None:
            share.append("unknown: no call recorded a prompt", style("muted"))
        else:
            share.append(f"{share_bar(max(0.0, overhead.latest_share or 0.0))} {percent(overhead.latest_share)}", style("overhead"))
            share.append(f" of the last prompt · {tokens(overhead.latest)} tok", style("overhead"))
        lines = [head, share]
        if overhead.calls_used:
            lines.append(Text(f"trend {trend_text(overhead)}", style=style("muted")))
        self.query_one("#overhead-text", Static).update(Text("\n").join(lines))
        self.query_one("#overhead-notes", Static).update(Text(overhead_explanation(overhead), style=style("muted")))
        values = [float(c.not_in_transcript) for c in timeline.calls if c.prompt_tokens > 0]
        self.query_one("#overhead-trend", Sparkline).data = values
        self.set_class(True, "-shown")
