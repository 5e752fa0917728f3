"""Before / after of one tool result the pruning preview changes, side by side.

Soft trim: the left side marks what OpenClaw keeps (the first `headChars` and last `tailChars` UTF-16 units of the
parts joined by `\\n`, images as OpenClaw's marker) and what it drops; the right side is the exact new text
(head, `...`, tail and the note). Hard clear: the whole old content is dropped for the placeholder. The texts are
the pruner's output (`PrunePreview.messages_after`); nothing is re-derived here except where to draw the cuts.

Long text is clipped (start and end shown, the middle counted); `m` shows four times more each time. All text is
untrusted: made inert, lone surrogates (a cut inside a surrogate pair, as OpenClaw makes them) shown as `\\udxxx`,
drawn as `Text`, never markup.
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.reactive import reactive
from textual.widgets import Static

from inspector.figures.pruning.preview import PrunePreview
from inspector.js.jsjson import js_len
from inspector.rules.pruning_terms import ACTION_HARD_CLEAR, ACTION_SOFT_TRIM

from ..detail.render import image_summary
from ..inert import make_inert

DEFAULT_LIMIT = 600
MORE_FACTOR = 4
_SURROGATE = re.compile("[\ud800-\udfff]")


def display_text(text: str) -> str:
    """`text` safe for a terminal: controls as visible escapes, lone surrogates as `\\udxxx`."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", make_inert(text))


def clip(text: str, limit: int | None) -> tuple[str, int, str]:
    """(start, hidden UTF-16 units, end) of `text` shown in about `limit` characters (None: all of it)."""
    if limit is None or len(text) <= limit:
        return text, 0, ""
    head = text[: max(1, limit * 2 // 3)]
    tail = text[len(text) - max(1, limit - len(head)) :]
    return head, js_len(text[len(head) : len(text) - len(tail)]), tail


def _content_text(content: Any) -> str:
    """The old content for display: text blocks and a one-line summary per image, joined by `\\n`."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text") if isinstance(block.get("text"), str) else "")
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append(f"[image {image_summary(block)}]")
        elif isinstance(block, dict):
            parts.append(f"[{block.get('type')} block]")
    return "\n".join(parts)


class PruningDiff(Horizontal):
    """Two scrolling panes: `before` (kept / dropped marked) and `after` (the text OpenClaw would send)."""

    COMPONENT_CLASSES = {"diff--kept", "diff--dropped", "diff--marker", "diff--note", "diff--muted"}

    DEFAULT_CSS = """
    PruningDiff {
        height: 1fr;
        & > VerticalScroll {
            width: 1fr; height: 1fr; border: round $border-blurred; padding: 0 1;
            border-title-color: $text-muted; scrollbar-size-vertical: 1;
        }
        & > VerticalScroll:focus-within { border: round $border; border-title-color: $text; }
        & > .diff--kept { }
        & > .diff--dropped { color: $text-muted; text-style: strike; }
        & > .diff--marker { color: $text-accent; text-style: bold; }
        & > .diff--note { color: $text-accent; }
        & > .diff--muted { color: $text-muted; }
    }
    """

    limit: reactive[int | None] = reactive(DEFAULT_LIMIT, init=False)
    """Characters shown per clipped segment (None: everything)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.preview: PrunePreview | None = None
        self.index: int | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="diff-before"):
            yield Static("", id="diff-before-body", markup=False)
        with VerticalScroll(id="diff-after"):
            yield Static("", id="diff-after-body", markup=False)

    def show(self, preview: PrunePreview, index: int | None) -> None:
        """Show context message `index` of `preview` (None: nothing changes)."""
        if index != self.index:
            self.limit = DEFAULT_LIMIT
        self.preview = preview
        self.index = index
        self._draw()

    def action_more(self) -> None:
        """Show `MORE_FACTOR` times more of clipped text (everything once it would exceed the longest text)."""
        if self.limit is not None:
            self.limit = self.limit * MORE_FACTOR

    def watch_limit(self) -> None:
        self._draw()

    # -- rendering --------------------------------------------------------------------------------

    def _append(self, out: Text, text: str, style: str, what: str = "more") -> None:
        s = self.get_component_rich_style
        head, hidden, tail = clip(text, self.limit)
        out.append(display_text(head), s(style))
        if hidden:
            out.append(f"\n⋯ {hidden:,} {what} chars (m: show more) ⋯\n", s("diff--marker"))
            out.append(display_text(tail), s(style))

    def _draw(self) -> None:
        before_pane = self.query_one("#diff-before", VerticalScroll)
        after_pane = self.query_one("#diff-after", VerticalScroll)
        before_body = self.query_one("#diff-before-body", Static)
        after_body = self.query_one("#diff-after-body", Static)
        p, i = self.preview, self.index
        if p is None or i is None:
            before_pane.border_title = Text("before")
            after_pane.border_title = Text("after")
            before_body.update(Text("Nothing is changed by this preview.", style=self.get_component_rich_style("diff--muted")))
            after_body.update("")
            return
        r = p.result
        action = p.actions[i]
        msg = p.messages[i]
        after_msg = p.messages_after[i]
        row = p.context.messages[i]
        tool = make_inert(row.tool_name or row.role)
        before = Text()
        after = Text()
        if action == ACTION_SOFT_TRIM:
            self._soft_trim(p, i, msg, after_msg, before, after)
        else:
            self._append(before, _content_text(msg.get("content")), "diff--dropped", "dropped")
            if action == ACTION_HARD_CLEAR:
                self._append(after, _content_text(after_msg.get("content")), "diff--note")
        before_pane.border_title = Text(f"before · #{i} {tool} · {r.chars_before[i]:,} chars")
        after_pane.border_title = Text(f"after · {action.replace('_', ' ')} · {r.chars_after[i]:,} chars")
        before_body.update(before)
        after_body.update(after)
        before_pane.scroll_home(animate=False)
        after_pane.scroll_home(animate=False)

    def _soft_trim(self, p: PrunePreview, i: int, msg: dict[str, Any], after_msg: dict[str, Any], before: Text, after: Text) -> None:
        s = self.get_component_rich_style
        content = msg.get("content")
        split = p.rules_or_default.pruner.soft_trim_split(msg, p.resolved.settings)
        if split is None:
            # Only the images change (OpenClaw's marker instead); the text is kept whole.
            before.append("images replaced by OpenClaw's marker; the text is kept\n", s("diff--muted"))
            self._append(before, _content_text(content), "diff--kept")
        else:
            before.append(
                f"kept: first {js_len(split.head):,} + last {js_len(split.tail):,} · dropped: {js_len(split.dropped):,} of {split.total:,} chars\n",
                s("diff--muted"),
            )
            self._append(before, split.head, "diff--kept")
            self._append(before, split.dropped, "diff--dropped", "dropped")
            self._append(before, split.tail, "diff--kept")
        text = after_msg["content"][0]["text"]
        note = split.note if split is not None else ""
        body = text[: len(text) - len(note)] if note and text.endswith(note) else text
        self._append(after, body, "diff--kept")
        if body is not text:
            after.append(display_text(note), s("diff--note"))
