"""The header of an open session: file, format and version, model, context window and source, the window-size
guard, the rules followed (which release, and why), how full the context is when it is past a threshold (over the window: a warning first), live state.

Every figure is the engine's `inspector.figures.overview.ContextOverview` (built by `inspector.figures.session_figures.context_overview`,
the same object `stats --json` prints) and its `inspector.figures.diagnosis.fill.FillState`; only the live state
("live · checked 12:00:00") is the screen's. The guard is about the window's size; the fill is how much of the
window the session uses: each is shown for what it is, never one for the other. The fill says what it rests on
(recorded usage, estimate, or both: `inspector.rules.context_basis`), never a usage recorded before the latest compaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from inspector.figures.diagnosis.fill import FILL_COMPACTION_DUE, FILL_OVER_WINDOW, FillState
from inspector.figures.overview import ContextOverview
from inspector.read.formats.mirror import ForeignMirror
from inspector.read.store.mirror import Mirror
from inspector.rules.context_basis import short
from inspector.rules.ruleset import RuleChoice

from .diagnosis.texts import fill_label, fill_role
from .inert import one_line
from .transcript.previews import human_bytes

HEADER_FILL_LEVELS = (FILL_OVER_WINDOW, FILL_COMPACTION_DUE)
"""Fill levels the header names first (over the window, compaction due); lower ones are the gauge's."""


@dataclass(frozen=True, slots=True)
class HeaderData:
    """What the header shows: the engine's overview of the context, and the screen's live-follow state."""

    overview: ContextOverview
    live: str = ""
    fill: FillState | None = None
    badge: str = ""
    """Said first, in the warning colour (`DEMO` for the bundled demo session)."""
    rules: RuleChoice | None = None
    """Which release's rules the figures follow, and why (`inspector.host.rules_choice`)."""
    store: tuple[str, str] | None = None
    """A session of an OpenClaw SQLite store: (its key or id, the store's path), named instead of the mirror file."""
    foreign: tuple[str, str] | None = None
    """A Claude Code / Codex file: (its format's name, its path), named instead of its pi-format mirror."""


def store_title(mirror: Mirror | None) -> tuple[str, str] | None:
    """`HeaderData.store` of a store session's mirror: (session key or id, store path); None for a session file."""
    if mirror is None:
        return None
    return (mirror.session_key or mirror.session_id, str(mirror.store))


def foreign_title(mirror: ForeignMirror | None) -> tuple[str, str] | None:
    """`HeaderData.foreign` of a Claude Code / Codex file's mirror: (its format's name, its path); None otherwise."""
    return (mirror.title, str(mirror.source)) if mirror is not None else None


class SessionHeader(Widget):
    """Two lines naming the open session and the window it is judged against."""

    COMPONENT_CLASSES = {"header--title", "header--muted", "header--ok", "header--warn", "header--block", "header--live"}

    DEFAULT_CSS = """
    SessionHeader {
        height: 2;
        background: $panel;
        padding: 0 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        & > .header--title { color: $text; text-style: bold; }
        & > .header--muted { color: $text-muted; }
        & > .header--ok { color: $text-success; text-style: bold; }
        & > .header--warn { color: $text-warning; text-style: bold; }
        & > .header--block { color: $text-error; text-style: bold; }
        & > .header--live { color: $text-accent; }
    }
    """

    data: reactive[HeaderData | None] = reactive(None)
    """The session shown; None while loading."""

    loading_text: reactive[str] = reactive("")
    """Shown instead of the data while the file is indexed."""

    def render(self) -> Text:
        s = self.get_component_rich_style
        data = self.data
        width = max(20, self.content_region.width)
        if data is None:
            return Text(one_line(self.loading_text or "loading…", width * 2), style=s("header--muted"))
        o = data.overview
        path = Path(data.foreign[1] if data.foreign is not None else o.file)
        line1 = Text(no_wrap=True, overflow="ellipsis")
        name = o.session_name or o.session_id or ""
        if data.badge:
            line1.append(f"{data.badge} ", s("header--warn"))
        if data.store is not None:
            key, store = data.store
            line1.append(one_line(key, 60), s("header--title"))
            store = one_line(store, len(store) + 1)
            line1.append(f"  {store if len(store) <= 60 else '…' + store[-59:]}", s("header--muted"))  # its end names it
        else:
            line1.append(one_line(path.name, 60), s("header--title"))
            if str(path.parent) not in ("", "."):
                line1.append(f"  {one_line(str(path.parent), 60)}", s("header--muted"))
        if data.foreign is not None:
            line1.append(f"   {data.foreign[0]}")
        else:
            line1.append(f"   {o.format} v{o.version}")
        if data.foreign is None and o.version < 3:
            line1.append(" (migrated in memory)", s("header--muted"))
        if data.rules is not None:
            line1.append(" · rules ", s("header--muted"))
            line1.append(data.rules.id)
            line1.append(f" ({data.rules.source})", s("header--muted"))
        if not o.valid and data.foreign is None:
            line1.append("  INVALID for pi", s("header--block"))
        if name:
            line1.append(f"   {one_line(name, 40)}", s("header--muted"))
        line1.append(f"   {o.entries:,} entries · {human_bytes(o.size_bytes)}", s("header--muted"))
        line2 = Text(no_wrap=True, overflow="ellipsis")
        fill = data.fill
        if fill is not None and fill.level in HEADER_FILL_LEVELS:
            role = "block" if fill_role(fill) == "error" else "warn"
            line2.append("⚠ " + fill_label(fill), s(f"header--{role}"))
            if fill.basis:
                line2.append(f" ({short(fill.basis)})", s("header--muted"))
            line2.append(" · ", s("header--muted"))
        model = o.model or {}
        line2.append("window ", s("header--muted"))
        line2.append(f"{o.window.tokens:,}")
        src = o.window.source + (f", capped by {o.window.capped_by}" if o.window.capped_by else "")
        line2.append(f" ({one_line(src, 60)})", s("header--muted"))
        line2.append(" · size guard ", s("header--muted"))
        line2.append(o.guard.level.upper(), s(f"header--{o.guard.level}"))
        line2.append(" · model ", s("header--muted"))
        line2.append(one_line(f"{model.get('provider')}/{model.get('modelId')}", 60) if model else "unknown")
        line2.append(f" · thinking {one_line(str(o.thinking_level), 10)}", s("header--muted"))
        if data.live:
            line2.append(f" · {data.live}", s("header--live"))
        text = Text("\n", no_wrap=True).join([line1, line2])
        text.no_wrap = True
        text.overflow = "ellipsis"
        return text
