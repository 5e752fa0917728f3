"""Base of the pruning overlay's read-only panels: each shows one part of the current `PrunePreview`."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from inspector.figures.pruning.preview import PrunePreview

from ..inert import one_line


def laid_out_width(widget: Widget) -> int:
    """The width of `widget`'s content at the last layout (0 before the first). `render` must not ask
    `content_region`: while a layout is pending Textual arranges every widget of the screen to answer (~20 ms on
    the pruning overlay, on each panel's first draw)."""
    return max(0, widget._size.width - widget.styles.gutter.width)


class PreviewPanel(Widget):
    """A panel that renders the latest preview handed to `show()`, a placeholder while the first one is computed,
    or says it is unavailable once `fail()` was called without a preview to show.

    Subclasses set `PLACEHOLDER` and `MUTED` (the component class of the placeholder) and implement
    `render_preview`.
    """

    PLACEHOLDER = "computing…"
    MUTED = ""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.preview: PrunePreview | None = None
        self.failure: str | None = None

    def show(self, preview: PrunePreview) -> None:
        """Show `preview`."""
        self.preview = preview
        self.failure = None
        self.refresh(layout=True)

    def fail(self, reason: str) -> None:
        """The preview failed (`reason`, one line): without an earlier preview, say so instead of "computing…"."""
        self.failure = reason
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        style = self.get_component_rich_style(self.MUTED) if self.MUTED else ""
        if self.preview is None:
            if self.failure is not None:
                return Text(one_line(self.unavailable_text(self.failure), 400), style=style)
            return Text(self.PLACEHOLDER, style=style)
        return self.render_preview(self.preview)

    def unavailable_text(self, reason: str) -> str:
        """What the panel says when the preview failed and there is none to show (`gate: unavailable`)."""
        name = self.PLACEHOLDER.removesuffix("computing…").rstrip(": ")
        return f"{name}: unavailable" if name else "unavailable"

    def render_preview(self, p: PrunePreview) -> RenderableType:
        raise NotImplementedError
