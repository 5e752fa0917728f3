"""The messages a pruning preview changes: one row per soft-trimmed or hard-cleared tool result.

Each row shows the context index, the tool, the action, the pruner's chars before → after, how long the result's
cache entry has been expired (the engine's `ExpiryInfo`, as the transcript's `~` mark: "projected" when it is
counted from the last assistant message because pruning never touched the cache), and whether the tool-result
context guard would cut it as well. Highlighting a row asks the screen to show its before/after. `stage_text` says
in words where the pruner stopped, or why nothing changes (gate closed, too few assistants, under softTrimRatio...).
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual import on
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from inspector.base.durations import format_duration_ms
from inspector.figures.pruning.expiry import ExpiryInfo
from inspector.figures.pruning.preview import PrunePreview
from inspector.rules.pruning_terms import (
    ACTION_HARD_CLEAR,
    ACTION_KEEP,
    ACTION_SOFT_TRIM,
    SCENARIO_IF_ENABLED,
    SOURCE_LAST_ASSISTANT,
    STAGE_BELOW_HARD_CLEAR_RATIO,
    STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS,
    STAGE_BELOW_SOFT_TRIM_RATIO,
    STAGE_ESTIMATE_THREW,
    STAGE_HARD_CLEAR_DISABLED,
    STAGE_HARD_CLEARED,
    STAGE_NO_CONTEXT_WINDOW,
    STAGE_TOO_FEW_ASSISTANTS,
)

from ..inert import one_line

ACTION_LABELS = {
    ACTION_SOFT_TRIM: "soft trim",
    ACTION_HARD_CLEAR: "hard clear",
    ACTION_KEEP: "keep",
    # OpenClaw 2026.9.6: projections of earlier rounds, replayed (what was pruned stays pruned)
    "already_soft_trimmed": "trimmed ↺",
    "already_hard_cleared": "cleared ↺",
    "already_truncated": "truncated ↺",
}


def _pct(x: float | None) -> str:
    return "?" if x is None else f"{x * 100:.1f}%"


def stage_text(preview: PrunePreview) -> str:
    """Where the pruner stopped, in words, with the figures that decided it; under OpenClaw 2026.9.6 first what
    earlier rounds pruned (replayed whatever the gate) and the server-side clearing of a direct Anthropic request."""
    replayed = preview.replayed
    prefix = f"{len(replayed)} tool result(s) already pruned by earlier rounds, replayed whatever the gate (↺). " if replayed else ""
    clearing = preview.server_clearing
    if clearing is not None and clearing.applies is not False:
        edit = clearing.edit()
        who = "This direct Anthropic API-key request" if clearing.applies else "If the gateway uses an API key, this direct Anthropic request"
        verdict = (
            f"the server would clear {len(clearing.clearable)} older tool result(s), ~{clearing.clearable_tokens:,} tokens"
            if clearing.would_clear
            else "below the trigger or clear-at-least: the server clears nothing"
        )
        return prefix + (
            f"{who} opens no client-side round: it carries {edit['type']} (trigger {edit['trigger']['value']:,} tokens, "
            f"keep {edit['keep']['value']} tool uses, clear at least {edit['clear_at_least']['value']:,}); {verdict}."
        )
    return prefix + _stage_text(preview)


def _stage_text(preview: PrunePreview) -> str:
    r = preview.result
    s = preview.resolved.settings
    if not preview.applied:
        if preview.scenario == SCENARIO_IF_ENABLED:
            return "Projected gate closed: even once enabled, nothing would be pruned yet. Press f to preview as if the TTL had expired."
        more = " or i for the IF ENABLED projection" if preview.if_enabled is not None else ""
        return f"Gate closed: OpenClaw would not prune now. Press f to preview as if the TTL had expired{more}."
    stage = r.stage
    if stage == STAGE_NO_CONTEXT_WINDOW:
        return "No context window is known for this model: OpenClaw leaves the context as it is."
    if stage == STAGE_ESTIMATE_THREW:
        return f"OpenClaw's size estimate would throw on this context ({r.estimate_error}): its pruner leaves the context as it is."
    if stage == STAGE_TOO_FEW_ASSISTANTS:
        return f"Fewer than keepLastAssistants ({s.keep_last_assistants}) assistant messages: nothing is prunable."
    if stage == STAGE_BELOW_SOFT_TRIM_RATIO:
        return f"Context at {_pct(r.ratio_before)} of the char window, under softTrimRatio {s.soft_trim_ratio:g}: nothing changes."
    n = sum(a != ACTION_KEEP for a in r.actions)
    changed = f"{n} tool result(s) changed; " if n else "No tool result changed; "
    if stage == STAGE_BELOW_HARD_CLEAR_RATIO:
        return changed + f"after soft trim {_pct(r.ratio_after)} < hardClearRatio {s.hard_clear_ratio:g}: no hard clear."
    if stage == STAGE_HARD_CLEAR_DISABLED:
        return changed + f"at {_pct(r.ratio_after)} hard clear would run, but hardClear.enabled is false."
    if stage == STAGE_BELOW_MIN_PRUNABLE_TOOL_CHARS:
        return changed + (
            f"prunable tool results total {r.prunable_tool_chars:,} chars < minPrunableToolChars "
            f"{s.min_prunable_tool_chars:,}: no hard clear."
        )
    if stage == STAGE_HARD_CLEARED:
        return changed + f"hard clear oldest first until under hardClearRatio {s.hard_clear_ratio:g}: now {_pct(r.ratio_after)}."
    return changed + stage


def expiry_label(info: ExpiryInfo | None) -> str:
    """`expired 55m 00s ago` (`· projected` when counted from the last assistant message), or `cache warm`."""
    if info is None:
        return "cache warm"
    projected = " · projected" if info.reference_source == SOURCE_LAST_ASSISTANT else ""
    return f"expired {format_duration_ms(info.expired_for_ms)} ago{projected}"


class PruningMessageList(OptionList):
    """Rows of the changed tool results (option id `msg-<context index>`); posts `Chosen` on highlight."""

    DEFAULT_CSS = """
    PruningMessageList {
        height: auto;
        max-height: 9;
        border: none;
        padding: 0;
        background: transparent;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        &:focus { border: none; background-tint: $foreground 5%; }
    }
    """

    class Chosen(Message):
        """The highlighted row changed: show context message `index`."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.indexes: list[int] = []

    def show(self, preview: PrunePreview, expiry: Mapping[int, ExpiryInfo], keep: int | None = None) -> int | None:
        """Fill the rows from `preview` and the expired tool results `expiry` (keyed by `Entry.index`); highlight
        `keep` when it is still changed, else the first row. Returns it."""
        guard = {g.index for g in preview.guard.truncated}
        r = preview.result
        options: list[Option] = []
        self.indexes = []
        for i, action in enumerate(preview.actions):
            if action == ACTION_KEEP:
                continue
            row = preview.context.messages[i]
            age = expiry_label(expiry.get(row.entry_index))
            label = Text(no_wrap=True, overflow="ellipsis")
            label.append(f"#{i:<4}")
            label.append(f"{one_line(row.tool_name or row.role, 10):<10} ")
            label.append(f"{ACTION_LABELS[action]:<10} ", "bold")
            label.append(f"{r.chars_before[i]:>8,} → {r.chars_after[i]:>7,}  ")
            label.append(age, "dim")
            if i in guard:
                label.append(" · guard cuts", "italic")
            options.append(Option(label, id=f"msg-{i}"))
            self.indexes.append(i)
        self.clear_options()
        self.add_options(options)
        if not self.indexes:
            return None
        target = keep if keep in self.indexes else self.indexes[0]
        self.highlighted = self.indexes.index(target)
        return target

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option.id and event.option.id.startswith("msg-"):
            self.post_message(self.Chosen(int(event.option.id[4:])))
