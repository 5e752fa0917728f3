"""OpenClaw's tool-result context guard, shown with the pruning preview (both run before each request).

Figures are `PrunePreview.guard` (`inspector.rules.openclaw_2026_4_12.pruning.tool_guard`): the single-result and whole-context limits,
every tool result over the single limit with what it would be cut to (the exact suffix text), and the
overflow error OpenClaw would throw. The guard sees the context after pruning when the preview prunes.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from inspector.figures.pruning.preview import PrunePreview

from ..inert import make_inert
from .view import PreviewPanel

MAX_ROWS = 4


class PruningGuard(PreviewPanel):
    """A few lines: limits, the results the guard would cut (and how), and the overflow verdict."""

    COMPONENT_CLASSES = {"guard--label", "guard--muted", "guard--error", "guard--ok"}

    DEFAULT_CSS = """
    PruningGuard {
        height: auto;
        & > .guard--label { text-style: bold; }
        & > .guard--muted { color: $text-muted; }
        & > .guard--error { color: $text-error; text-style: bold; }
        & > .guard--ok { color: $text-success; }
    }
    """


    PLACEHOLDER = "tool-result guard: computing…"
    MUTED = "guard--muted"

    def render_preview(self, p: PrunePreview):
        s = self.get_component_rich_style
        g = p.guard
        on = "pruned" if p.applied and p.result.changed else "unpruned"
        head = Text()
        head.append("Tool-result guard ", s("guard--label"))
        head.append(
            f"(on the {on} context) · one result ≤ {g.max_single_tool_result_chars:,} · context ≤ {g.max_context_chars:,} chars est.",
            s("guard--muted"),
        )
        lines = [head]
        for t in g.truncated[:MAX_ROWS]:
            row = p.context.messages[t.index]
            line = Text()
            line.append(f"  #{t.index} {make_inert(row.tool_name or row.role)}: {t.estimate_before:,} → {t.estimate_after:,}")
            if t.truncation is not None:
                where = "at a newline" if t.truncation.cut_at_newline else "mid-line"
                line.append(f", cut {where} at {t.truncation.cut_point:,} + ", s("guard--muted"))
                line.append(make_inert(t.truncation.suffix))
            else:
                line.append(f" ({t.kind.replace('_', ' ')})", s("guard--muted"))
            line.append(" · details dropped", s("guard--muted"))
            lines.append(line)
        if len(g.truncated) > MAX_ROWS:
            lines.append(Text(f"  … {len(g.truncated) - MAX_ROWS} more", style=s("guard--muted")))
        verdict = Text()
        verdict.append(f"  context {g.context_chars_after:,} / {g.max_context_chars:,}: ", s("guard--muted"))
        if g.overflow:
            verdict.append(make_inert(g.error or "overflow"), s("guard--error"))
        else:
            verdict.append("no overflow" + ("" if g.truncated else "; no result over the limit"), s("guard--ok"))
        lines.append(verdict)
        return Group(*lines)
