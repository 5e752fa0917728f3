"""The head of the timeline screen: calls, cost and cache-hit ratio, cache writes a TTL expiry caused, what the
transcript does not show, how full the context is (apart from the window guard), the thresholds crossed and the
largest jump. Every figure is the engine's `Timeline` (`inspector.figures.diagnosis.timeline`).
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from inspector.base.durations import format_duration_ms
from inspector.base.textsafe import one_line
from inspector.figures.diagnosis.timeline import Timeline
from inspector.rules.context_basis import short

from .texts import GUARD_NOTE, fill_role, overhead_headline, overhead_source, percent, signed, tokens, trend_text, usd


class TimelineSummary(Widget):
    """Up to seven short lines over the chart, three when `compact` (or "computing…" until the timeline is ready)."""

    COMPONENT_CLASSES = {"summary--label", "summary--muted", "summary--ok", "summary--warn", "summary--error", "summary--overhead"}

    DEFAULT_CSS = """
    TimelineSummary {
        height: auto;
        padding: 0 1;
        background: $panel;
        & > .summary--label { text-style: bold; }
        & > .summary--muted { color: $text-muted; }
        & > .summary--ok { color: $text-success; text-style: bold; }
        & > .summary--warn { color: $text-warning; text-style: bold; }
        & > .summary--error { color: $text-error; text-style: bold; }
        & > .summary--overhead { color: $text-accent; text-style: bold; }
    }
    """

    compact: reactive[bool] = reactive(False, layout=True)
    """Only the title with calls, cost and cache; what the transcript does not show; the fill."""

    def __init__(self, title: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.title = title
        self.timeline: Timeline | None = None
        self.status = "computing the timeline…"

    def show(self, timeline: Timeline | None, status: str = "") -> None:
        """Show `timeline`, or `status` while there is none."""
        self.timeline = timeline
        self.status = status
        self.refresh(layout=True)

    def _s(self, role: str):
        return self.get_component_rich_style(f"summary--{role}")

    def render(self) -> Group | Text:
        t = self.timeline
        title = self._line()
        title.append(self.title, self._s("label"))
        if t is None:
            title.append(f" · {self.status}", self._s("muted"))
            return title
        lines: list[Text | None]
        if self.compact:
            lines = [self._calls(t, title), self._overhead(t), self._fill(t)]
        else:
            lines = [title, self._calls(t, None), self._cache(t), self._overhead(t), self._fill(t), self._thresholds(t), self._jump(t), self._gateway(t)]
        return Group(*(line for line in lines if line))

    @staticmethod
    def _line() -> Text:
        return Text(no_wrap=True, overflow="ellipsis")

    def _calls(self, t: Timeline, line: Text | None) -> Text:
        s = self._s
        calls = t.calls
        if line is None:
            line = self._line()
            line.append("Calls ", s("label"))
        else:
            line.append(" · ", s("muted"))
        line.append(f"{len(calls):,} on the active path")
        skipped = len(t.walk.skipped_synthetic) + len(t.walk.skipped_zero_usage)
        if skipped:
            line.append(f" ({skipped:,} without a request skipped)", s("muted"))
        if calls:
            line.append(f" · prompt {tokens(calls[0].prompt_tokens)} → {tokens(calls[-1].prompt_tokens)} tok")
        cost = t.cost
        line.append(" · cost ", s("muted"))
        line.append(usd(cost.total), s("label"))
        sources = []
        if cost.recorded_calls:
            sources.append(f"recorded on {cost.recorded_calls:,}")
        if cost.price_table_calls:
            sources.append(f"price table on {cost.price_table_calls:,} ({cost.table.get('source_published', '?')})")
        if cost.unknown_calls:
            sources.append(f"{cost.unknown_calls:,} unpriced")
        if sources:
            line.append(f" ({', '.join(sources)})", s("muted"))
        line.append(" · cache hit ", s("muted"))
        line.append(percent(t.cache.hit_ratio), s("label"))
        return line

    def _cache(self, t: Timeline) -> Text:
        s = self._s
        c = t.cache
        line = self._line()
        line.append("Cache writes after a TTL expiry ", s("label"))
        ttl = "off" if c.ttl_ms <= 0 else format_duration_ms(c.ttl_ms)
        line.append(f"(TTL {ttl}, {c.ttl_source}): ", s("muted"))
        if c.expiry_writes:
            n = len(c.expiry_writes)
            line.append(f"{n:,} call{'s' if n != 1 else ''}, {tokens(c.expiry_write_tokens)} tok, {usd(c.expiry_write_cost)}")
        else:
            line.append("none")
        line.append(f" · cache read {tokens(c.cache_read)} · write {tokens(c.cache_write)} of {tokens(c.prompt_tokens)} prompt tok", s("muted"))
        return line

    def _overhead(self, t: Timeline) -> Text:
        s = self._s
        o = t.overhead
        line = self._line()
        line.append("Not in the transcript ", s("label"))
        line.append("(derived) ", s("muted"))
        line.append(overhead_headline(o), s("overhead"))
        if o.calls_used:
            line.append(f" · median {tokens(o.median)} · {trend_text(o)}")
        line.append(f" · {overhead_source(o)}", s("muted"))
        line.append(f"\nSplit ({t.attribution.method}): ", s("label"))
        line.append(t.attribution.verdict, s("overhead"))
        return line

    def _fill(self, t: Timeline) -> Text:
        s = self._s
        fill = t.fill
        line = self._line() if self.compact and not fill.over_window else Text()
        line.append("Context now ", s("label"))
        if fill.basis:
            line.append(f"({short(fill.basis)}) ", s("muted"))
        line.append(fill.message, s(fill_role(fill)))
        line.append(" · window-size guard ", s("muted"))
        level = str(t.guard.get("level", "ok"))
        line.append(level.upper(), s({"ok": "ok", "warn": "warn"}.get(level, "error")))
        line.append(f" ({GUARD_NOTE})", s("muted"))
        return line

    def _thresholds(self, t: Timeline) -> Text:
        s = self._s
        line = self._line()
        line.append("First above ", s("label"))
        for i, crossing in enumerate(t.thresholds):
            if i:
                line.append(" · ", s("muted"))
            line.append(f"{crossing.name} {tokens(crossing.tokens)}: ", s("muted"))
            if crossing.call_index is None:
                line.append("never", s("muted"))
            else:
                line.append(f"call {crossing.call_index} (line {crossing.line})", s("warn" if crossing.kind != "window" else "error"))
        if t.agent_rule is None:
            line.append(f" · compaction = window − reserve {tokens(t.reserve.reserve_tokens)} ({t.reserve.describe()})", s("muted"))
        else:
            line.append(f" · compaction = {t.agent_rule.agent}'s own rule: {t.agent_rule.rule}", s("muted"))
        return line

    def _jump(self, t: Timeline) -> Text | None:
        if not t.jumps:
            return None
        s = self._s
        j = t.jumps[0]
        line = self._line()
        line.append("Largest jump ", s("label"))
        line.append(f"{signed(j.delta_tokens)} tok at call {j.call_index} (line {j.line})", s("warn"))
        if j.causes:
            top = j.causes[0]
            what = one_line(top.tool_name or top.role, 24)
            line.append(f", mostly {what} {top.role} line {top.line} ({tokens(top.pi_tokens)} tok)")
        line.append(f" · {len(t.jumps)} largest marked 1-9 on the chart · ] next", s("muted"))
        return line

    def _gateway(self, t: Timeline) -> Text | None:
        """What OpenClaw's Gateway log recorded (only when it recorded anything of the session) and the first
        disagreement with the session's figures."""
        gw = t.gateway
        if gw is None:
            return None
        s = self._s
        line = self._line()
        line.append("OpenClaw's log ", s("label"))
        counts: dict[str, int] = {}
        for e in gw["events"]:
            counts[e["kind"]] = counts.get(e["kind"], 0) + 1
        line.append(", ".join(f"{n:,} {kind.replace('_', ' ')}" for kind, n in counts.items()) or "no event")
        if gw["disagreements"]:
            n = len(gw["disagreements"])
            line.append(f" · {n:,} disagreement{'s' if n != 1 else ''}: ", s("muted"))
            line.append(one_line(gw["disagreements"][0]["message"], 160), s("warn"))
        return line
