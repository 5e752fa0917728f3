"""Base of the pruning overlay's read-only panels: each shows one part of the current `PrunePreview`."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widget import Widget

from inspector.pruning.preview import PrunePreview


class PreviewPanel(Widget):
    """A panel that renders the latest preview handed to `show()`, or a placeholder while it is computed.

    Subclasses set `PLACEHOLDER` and `MUTED` (the component class of the placeholder) and implement
    `render_preview`.
    """

    PLACEHOLDER = "computing…"
    MUTED = ""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.preview: PrunePreview | None = None

    def show(self, preview: PrunePreview) -> None:
        """Show `preview`."""
        self.preview = preview
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        if self.preview is None:
            return Text(self.PLACEHOLDER, style=self.get_component_rich_style(self.MUTED) if self.MUTED else "")
        return self.render_preview(self.preview)

    def render_preview(self, p: PrunePreview) -> RenderableType:
        raise NotImplementedError
