"""The figures an open session shows, gathered from the engine in one call (run it in a thread worker).

Nothing is computed here: header, gauge and breakdown values are `inspector.figures` / `inspector.breakdown` /
`inspector.window` results, bundled so the screen can apply them in one go on the UI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector import model as m
from inspector.breakdown import ESTIMATOR_FIELDS, context_breakdown
from inspector.config import LoadedConfig, load_openclaw_config
from inspector.figures import WindowOptions, last_context_usage, window_for
from inspector.pruning.expiry import ExpiryInfo, expired_tool_results
from inspector.pruning.settings import resolve_settings
from inspector.session import Session
from inspector.window import evaluate_context_window_guard

from .gauge import GaugeData
from .options import InspectorOptions
from .session_header import HeaderData

BREAKDOWN_ESTIMATOR = {"pi": "pi_tokens", "prune": "openclaw_prune_chars"}
DAMAGE_KINDS = frozenset({"unparseable", "not_object", "bad_type", "bad_message", "bad_role", "bad_id", "bad_parent", "invalid_utf8"})
TOP_N = 10


@dataclass
class SessionFigures:
    """Header, gauge and breakdown data plus the diagnostics of one context."""

    header: HeaderData
    gauge: GaugeData
    breakdown: dict[str, Any]
    breakdown_note: str | None
    diagnostics: list[m.Diagnostic] = field(default_factory=list)

    @property
    def damaged_lines(self) -> list[int]:
        """Line numbers of lines pi would skip or could not use (shown in the notice bar)."""
        return sorted({d.line for d in self.diagnostics if d.severity == "error" and d.line is not None and d.kind in DAMAGE_KINDS})


def load_window_options(options: InspectorOptions) -> tuple[WindowOptions, LoadedConfig]:
    """OpenClaw's config (never fatal) and the `--context-window` override."""
    loaded = load_openclaw_config(options.config_path, env=options.env, home=options.home)
    return WindowOptions(config=loaded.data, override=options.context_window), loaded


def breakdown_for(session: Session, ctx: m.SessionContext, estimator: str) -> tuple[dict[str, Any], str | None]:
    """`context_breakdown` under the estimator when it has per-message fields, else pi chars/4 with a note."""
    field_name = BREAKDOWN_ESTIMATOR.get(estimator)
    note = None
    if field_name is None:
        field_name = "pi_tokens"
        note = f"breakdown by pi chars/4 ({estimator} has no per-tool totals)"
    assert field_name in ESTIMATOR_FIELDS
    return context_breakdown(session, ctx, field_name, top=TOP_N), note


def compute_figures(
    session: Session,
    ctx: m.SessionContext,
    window_options: WindowOptions,
    estimator: str,
    live: str = "",
    previous: SessionFigures | None = None,
) -> SessionFigures:
    """Everything the header, gauge and breakdown show for `ctx`.

    With `previous`, the breakdown and diagnostics (linear in the context's size) are taken from it and only the
    header and gauge are recomputed: the cheap path for frequent live refreshes of very large sessions.
    """
    window = window_for(ctx, window_options)
    model = ctx.model or {}
    guard = evaluate_context_window_guard(window, provider=model.get("provider"), model_id=model.get("modelId"))
    usage = last_context_usage(session, ctx)
    header_obj = session.header or {}
    header = HeaderData(
        path=Path(session.path),
        format=session.format,
        version=session.version,
        valid=session.valid,
        session_name=session.tree.session_name,
        session_id=header_obj.get("id") if isinstance(header_obj.get("id"), str) else None,
        model=ctx.model,
        thinking_level=ctx.thinking_level,
        window=window,
        guard=guard,
        entries=len(session.entries),
        size_bytes=session.file_size,
        live=live,
    )
    if previous is not None:
        return SessionFigures(header, GaugeData(usage, window, guard), previous.breakdown, previous.breakdown_note, previous.diagnostics)
    breakdown, note = breakdown_for(session, ctx, estimator)
    return SessionFigures(header, GaugeData(usage, window, guard), breakdown, note, session.all_diagnostics(ctx))


def is_unsupported(session: Session) -> bool:
    """A file that is not an OpenClaw / pi session at all (no header and no entry of a known type)."""
    return not session.valid and not any(e.known_type for e in session.entries)


def expired_markers(session: Session, ctx: m.SessionContext, window_options: WindowOptions | None, clock) -> dict[int, ExpiryInfo]:
    """Tool results of `ctx` whose prompt-cache TTL has expired at the clock's time (OpenClaw's pruning settings
    from the config, defaults otherwise), keyed by `Entry.index`: the transcript marks them with their age."""
    config = window_options.config if window_options is not None else None
    settings = resolve_settings(config).settings
    return expired_tool_results(session, ctx, settings, int(clock.now().timestamp() * 1000))
