"""Typed figures of one session context, shared by the CLI's `--json` and the UI.

`ContextOverview` is what the inspector's header and gauge show and what `stats --json` / `context --json` print
as `context_window`, `guard`, `context_fill` and `estimate_context_tokens`; `SessionFigures` adds the breakdown
and the diagnostics. Both are built by `inspector.figures.session_figures.session_figures` / `context_overview` (one engine call
per figure): a number on screen and the same number in JSON come from the same object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from inspector.figures.breakdown import Breakdown
from inspector.model import entries as m
from inspector.rules.context_basis import basis_of
from inspector.session.session import Session

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.window_guard import ContextWindow, Guard

DAMAGE_KINDS = frozenset({"unparseable", "not_object", "bad_type", "bad_message", "bad_role", "bad_id", "bad_parent", "invalid_utf8"})
"""Diagnostic kinds of lines pi would skip or could not use (the "damaged lines" the UI names)."""


@dataclass(frozen=True, slots=True)
class ContextUsage:
    """The context's size now (the rules' `context_usage.context_now`): pi's `estimateContextTokens` (the last valid
    assistant usage plus chars/4 of what follows), except that a usage recorded before the latest compaction never
    counts: every message is then estimated.

    `tokens = usage_tokens + trailing_tokens`; `last_usage_index` is the context position of that assistant
    message (None: no usable usage, everything is estimated). `basis` says which (`inspector.rules.context_basis`:
    `recorded_usage`, `estimate_plus_trailing`, `estimate`); `stale_usage_tokens` is the recorded usage left out
    because it predates the latest compaction (None when none was).
    """

    tokens: int
    usage_tokens: int
    trailing_tokens: int
    last_usage_index: int | None
    basis: str = ""
    stale_usage_tokens: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ContextUsage:
        """From the rules' `context_usage.context_now` dict (or `last_context_usage`'s: its basis then derived)."""
        basis = data.get("basis") or basis_of(data)
        return cls(data["tokens"], data["usage_tokens"], data["trailing_tokens"], data["last_usage_index"], basis, data.get("stale_usage_tokens"))

    def to_json(self) -> dict[str, Any]:
        """`estimate_context_tokens`: `tokens`, `usage_tokens`, `trailing_tokens`, `last_usage_index`, `basis`,
        `stale_usage_tokens`."""
        return {
            "tokens": self.tokens,
            "usage_tokens": self.usage_tokens,
            "trailing_tokens": self.trailing_tokens,
            "last_usage_index": self.last_usage_index,
            "basis": self.basis,
            "stale_usage_tokens": self.stale_usage_tokens,
        }

    def describe(self) -> str:
        """What the figure rests on, in words: the recorded usage and the estimate after it, or the estimate alone
        (and the usage left out, when it predates the latest compaction)."""
        if self.stale_usage_tokens is None:
            return f"last recorded usage {self.usage_tokens:,} + {self.trailing_tokens:,} estimated after it"
        return f"estimate: no usage recorded since the latest compaction; the last, {self.stale_usage_tokens:,}, predates it"


def window_to_json(window: ContextWindow) -> dict[str, Any]:
    """`context_window`: `tokens`, `source` and, when a cap lowered it, `capped_by` (2026.4.12: `agents.defaults.contextTokens`;
    2026.9.6: a row's `contextWindow`, `anthropic-1m` or a model's `contextTokens`)."""
    out: dict[str, Any] = {"tokens": window.tokens, "source": window.source}
    if window.capped_by:
        out["capped_by"] = window.capped_by
    return out


def guard_to_json(guard: Guard) -> dict[str, Any]:
    """`guard`: `level` (ok / warn / block), `warn_below`, `hard_min` and OpenClaw's own `message`."""
    return {"level": guard.level, "warn_below": guard.warn_below, "hard_min": guard.hard_min, "message": guard.message}


@dataclass(frozen=True, slots=True)
class ContextOverview:
    """The headline figures of one context: which file, which model, the window and its guard, how full it is."""

    file: str
    format: str
    version: int
    valid: bool
    size_bytes: int
    entries: int
    session_name: str | None
    session_id: str | None
    leaf_id: str | None
    model: dict[str, str] | None
    thinking_level: str
    window: ContextWindow
    guard: Guard
    usage: ContextUsage

    @property
    def fill(self) -> float | None:
        """The context now as a fraction of the window, rounded to 4 places (None for a zero window)."""
        return round(self.usage.tokens / self.window.tokens, 4) if self.window.tokens else None

    def to_json(self) -> dict[str, Any]:
        """Every figure under the names `stats --json` uses (`context_fill`, `estimate_context_tokens`, ...)."""
        return {
            "file": self.file,
            "format": self.format,
            "version": self.version,
            "valid": self.valid,
            "size_bytes": self.size_bytes,
            "entries": self.entries,
            "session_name": self.session_name,
            "session_id": self.session_id,
            "leaf_id": self.leaf_id,
            "model": self.model,
            "thinking_level": self.thinking_level,
            "context_window": window_to_json(self.window),
            "guard": guard_to_json(self.guard),
            "estimate_context_tokens": self.usage.to_json(),
            "context_fill": self.fill,
        }


def damaged_lines(diagnostics: list[m.Diagnostic] | tuple[m.Diagnostic, ...]) -> list[int]:
    """Line numbers of lines pi would skip or could not use, sorted (errors of a `DAMAGE_KINDS` kind)."""
    return sorted({d.line for d in diagnostics if d.severity == "error" and d.line is not None and d.kind in DAMAGE_KINDS})


@dataclass(frozen=True, slots=True)
class SessionFigures:
    """Everything the inspector shows about a context besides its rows: overview, breakdown, diagnostics."""

    overview: ContextOverview
    breakdown: Breakdown
    diagnostics: tuple[m.Diagnostic, ...]

    @property
    def damaged_lines(self) -> list[int]:
        """Line numbers of lines pi would skip or could not use (shown in the notice bar)."""
        return damaged_lines(self.diagnostics)

    def to_json(self) -> dict[str, Any]:
        """The overview's fields plus `breakdown`, `diagnostics` and `damaged_lines`."""
        return {
            **self.overview.to_json(),
            "breakdown": self.breakdown.to_json(),
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "damaged_lines": self.damaged_lines,
        }


def is_unsupported(session: Session) -> bool:
    """A file that is not an OpenClaw / pi session at all (no header and no entry of a known type)."""
    return not session.valid and not any(e.known_type for e in session.entries)
