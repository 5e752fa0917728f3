"""NOW or IF ENABLED: which question the pruning overlay is answering, said so it cannot be mistaken.

A `PrunePreview` answers "what does OpenClaw do with this file on the next request?" (scenario `now`). For a
session pruning has never touched (no `openclaw.cache-ttl` entry for its model) OpenClaw keeps `lastCacheTouchAt`
null and prunes nothing; the preview then carries `if_enabled`, the same preview with the gate as it would stand
after a first touch at the last assistant message: a projection ("what would be cut if I enabled pruning now?").
The overlay shows one at a time (`i` switches); this banner says which, in words taken from the preview's fields.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from inspector.base.durations import format_duration_ms
from inspector.figures.pruning.preview import PrunePreview
from inspector.rules.pruning_terms import ACTION_KEEP, SCENARIO_IF_ENABLED, SCENARIO_NOW, SOURCE_NONE

from ..inert import one_line
from .view import PreviewPanel, laid_out_width

SCENARIO_TITLES = {SCENARIO_NOW: "NOW", SCENARIO_IF_ENABLED: "IF ENABLED (projection)"}
"""How each scenario is named on screen (box title, banner, help)."""


def scenario_preview(preview: PrunePreview, scenario: str) -> PrunePreview:
    """The preview of `scenario`: the projection when asked for and present, else the preview itself."""
    if scenario == SCENARIO_IF_ENABLED and preview.if_enabled is not None:
        return preview.if_enabled
    return preview


def changed_count(p: PrunePreview) -> int:
    """Tool results the preview changes (soft trim or hard clear)."""
    return sum(a != ACTION_KEEP for a in p.actions)


def _results(n: int) -> str:
    return f"{n} tool result" + ("" if n == 1 else "s")


def now_headline(p: PrunePreview) -> str:
    """What OpenClaw does with this file on the next request, in one line."""
    g = p.gate
    if not g.open and not g.forced:
        if g.source == SOURCE_NONE:
            return "NOW: OpenClaw prunes nothing — no cache-ttl touch (lastCacheTouchAt is null until a run with pruning enabled)"
        if g.ttl_ms <= 0:
            return "NOW: OpenClaw prunes nothing — ttl is 0"
        left = (g.expires_at - g.now) if g.expires_at is not None else None
        when = f", expires in {format_duration_ms(left)}" if left is not None and left > 0 else ""
        return f"NOW: OpenClaw prunes nothing — the prompt cache is still warm{when}"
    n = changed_count(p)
    if g.forced:
        return f"NOW, FORCED: as if the TTL had expired, {_results(n)} would change — OpenClaw itself prunes nothing now"
    if not p.eligibility.eligible:
        return f"NOW: OpenClaw prunes nothing — not cache-TTL eligible (shown as if it were: {_results(n)} would change)"
    if not p.resolved.enabled:
        return f"NOW: OpenClaw prunes nothing — contextPruning is not enabled (shown as if it were: {_results(n)} would change)"
    if not n:
        return "NOW: the cache TTL has expired, but nothing is prunable"
    return f"NOW: OpenClaw prunes {_results(n)} on the next request"


def projection_headline(p: PrunePreview) -> str:
    """The projection in one line: what would be cut once pruning is enabled and has touched the cache."""
    g = p.gate
    if g.source == SOURCE_NONE:
        return "IF ENABLED (projection): no assistant message yet, so no first cache touch to project from"
    n = changed_count(p)
    if g.open or g.forced:
        verdict = f"{_results(n)} would be cut" if n else "nothing would be cut"
    else:
        verdict = "nothing yet: the projected cache is still warm"
    return f"IF ENABLED (projection, not what happens now): {verdict}"


def banner_lines(preview: PrunePreview, scenario: str) -> tuple[str, str]:
    """(headline, detail) for the overlay's banner when `preview` (the `now` preview) is shown as `scenario`."""
    if scenario == SCENARIO_IF_ENABLED and preview.if_enabled is not None:
        p = preview.if_enabled
        ref = f"the last assistant message ({p.gate.reference_entry_id})" if p.gate.reference_entry_id else "the last assistant message"
        detail = f"As if enabled, with the first cache touch at {ref} · i: back to NOW"
        return projection_headline(p), detail
    if preview.if_enabled is not None:
        detail = f"i: show IF ENABLED — the projection ({projection_headline(preview.if_enabled).split(': ', 1)[1]})"
    else:
        detail = "The session has a cache-ttl touch for its model: this is what OpenClaw goes by (no projection needed)."
    return now_headline(preview), detail


class PruningScenarioBanner(PreviewPanel):
    """Two lines on top of the overlay: which scenario is shown and what it means; its class says which."""

    COMPONENT_CLASSES = {"scenario--headline", "scenario--detail"}

    DEFAULT_CSS = """
    PruningScenarioBanner {
        height: auto;
        padding: 0 1;
        background: $primary-muted;
        & > .scenario--headline { text-style: bold; }
        & > .scenario--detail { color: $text-muted; }
        &.-projection { background: $warning-muted; }
        &.-failed { background: $error-muted; }
    }
    """

    PLACEHOLDER = "computing the preview…"
    MUTED = "scenario--detail"

    scenario = SCENARIO_NOW

    def show_scenario(self, preview: PrunePreview, scenario: str) -> None:
        """Show `preview` (the `now` one) as `scenario`."""
        self.scenario = scenario
        self.set_class(scenario == SCENARIO_IF_ENABLED and preview.if_enabled is not None, "-projection")
        self.show(preview)

    def fail(self, reason: str) -> None:
        """Say the preview could not be computed (the panel keeps the error look until the next preview)."""
        super().fail(reason)
        self.set_class(True, "-failed")

    def show(self, preview: PrunePreview) -> None:
        self.set_class(False, "-failed")
        super().show(preview)

    def unavailable_text(self, reason: str) -> str:
        return f"PREVIEW UNAVAILABLE: {reason}"

    def render_preview(self, p: PrunePreview) -> Group:
        s = self.get_component_rich_style
        width = max(20, laid_out_width(self) or 100)
        headline, detail = banner_lines(p, self.scenario)
        return Group(
            Text(one_line(headline, width * 2), style=s("scenario--headline")),
            Text(one_line(detail, width * 2), style=s("scenario--detail")),
        )
