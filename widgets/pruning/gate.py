"""The cache-TTL gate of a pruning preview: open or closed and why, the TTL and where the reference time came from.

Everything shown is a `PrunePreview` field (`gate`, `resolved`, `eligibility`, `would_openclaw_prune`) of the
scenario on screen: `now` (what OpenClaw does) or `if_enabled` (the projection, labelled as such); entry ids,
providers and reasons come from the session file and are made inert. Times JavaScript's `Date` cannot hold are
said to be out of range (`iso_or_none`), never a crash.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from inspector.base.durations import format_duration_ms
from inspector.figures.pruning.preview import PrunePreview
from inspector.js.timeutil import iso_or_none
from inspector.rules.pruning_terms import SCENARIO_IF_ENABLED, SOURCE_CACHE_TTL_ENTRY, SOURCE_LAST_ASSISTANT

from ..inert import make_inert
from .view import PreviewPanel

OUT_OF_RANGE = "outside JavaScript's Date range"


def iso_text(ms: float | None) -> str:
    """An ISO time as JavaScript's `toISOString()` would print it, or why there is none."""
    if ms is None:
        return "none"
    return iso_or_none(ms) or f"{ms:g} ms ({OUT_OF_RANGE})"


class PruningGate(PreviewPanel):
    """The gate verdict (OPEN / closed / forced), its reason, the TTL and reference time, and whether OpenClaw would prune."""

    COMPONENT_CLASSES = {"gate--open", "gate--closed", "gate--forced", "gate--muted", "gate--label", "gate--warn"}

    DEFAULT_CSS = """
    PruningGate {
        height: auto;
        & > .gate--open { color: $text-success; text-style: bold; }
        & > .gate--closed { color: $text-warning; text-style: bold; }
        & > .gate--forced { color: $text-accent; text-style: bold; }
        & > .gate--muted { color: $text-muted; }
        & > .gate--label { text-style: bold; }
        & > .gate--warn { color: $text-warning; }
    }
    """


    PLACEHOLDER = "gate: computing…"
    MUTED = "gate--muted"

    def render_preview(self, p: PrunePreview):
        s = self.get_component_rich_style
        g = p.gate
        projected = p.scenario == SCENARIO_IF_ENABLED
        head = Text()
        head.append("IF ENABLED · " if projected else "NOW · ", s("gate--forced" if projected else "gate--label"))
        head.append("Gate ", s("gate--label"))
        if g.open:
            head.append("OPEN", s("gate--open"))
            head.append(" · the next request would be pruned" if p.result.changed else " · nothing to prune", s("gate--muted"))
        elif g.forced:
            head.append("closed · FORCED", s("gate--forced"))
            head.append(" · previewing as if the TTL had expired", s("gate--muted"))
        else:
            head.append("closed", s("gate--closed"))
            head.append(" · nothing is pruned (f: force)" if projected else " · nothing is pruned now (f: force)", s("gate--muted"))
        reason = Text(make_inert(g.reason))
        ttl = Text()
        ttl.append("ttl ", s("gate--label"))
        ttl.append(f"{format_duration_ms(g.ttl_ms)} ({make_inert(p.resolved.ttl_source)})")
        if g.expires_at is not None:
            ttl.append(f" · expires {iso_text(g.expires_at)}", s("gate--muted"))
        ref = Text()
        if g.last_cache_touch_at is not None:
            ref.append("touch " if g.source == SOURCE_CACHE_TTL_ENTRY else "projected touch at the last assistant ", s("gate--label"))
            ref.append(iso_text(g.last_cache_touch_at))
            if g.reference_entry_id:
                ref.append(f" ({make_inert(g.reference_entry_id)})", s("gate--muted"))
        elif projected:
            ref.append("no assistant message to project a first touch from", s("gate--warn"))
        else:
            ref.append("no cache touch: lastCacheTouchAt is null", s("gate--warn"))
        times = Text()
        times.append("now ", s("gate--label"))
        times.append(iso_text(g.now))
        mode = p.resolved.configured_mode
        config = Text()
        config.append("config ", s("gate--label"))
        if p.resolved.enabled:
            config.append("mode cache-ttl (enabled)")
        else:
            shown = "unset" if mode is None else make_inert(repr(mode))
            config.append(f"mode {shown}: not enabled, previewed as if cache-ttl", s("gate--warn"))
        if p.resolved.anthropic_auto_default.applies:
            config.append(" · Anthropic auto-default", s("gate--muted"))
        elig = p.eligibility
        provider = Text()
        provider.append("provider ", s("gate--label"))
        provider.append(make_inert(elig.reason), s("gate--muted") if elig.eligible else s("gate--warn"))
        verdict = Text()
        if projected:
            verdict.append("Once enabled and touched, OpenClaw would prune: ", s("gate--label"))
        else:
            verdict.append("OpenClaw would prune on the next request: ", s("gate--label"))
        verdict.append("yes" if p.would_openclaw_prune else "no", s("gate--open") if p.would_openclaw_prune else s("gate--closed"))
        if g.source == SOURCE_LAST_ASSISTANT:
            verdict.append(" (a projection: OpenClaw has no cache touch to go by today)", s("gate--muted"))
        return Group(head, reason, ttl, ref, times, config, provider, verdict)
