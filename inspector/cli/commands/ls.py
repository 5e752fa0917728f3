"""``session-inspector ls [DIR|FILE] [--json] [--all]``: list session transcripts found on disk."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from inspector.base.textsafe import make_inert
from inspector.cli.commands._common import EXIT_ERROR, add_width_option, console, print_json
from inspector.figures.file_summary import SessionSummary, summarize_session
from inspector.host.discovery import Discovery, SessionFile, discover_sessions
from inspector.host.discovery.names import ms_to_datetime
from inspector.host.discovery.stores import StoreListing
from inspector.host.listing import SessionGlance, glance_files

DESCRIPTION = """\
List session transcripts, newest first.

Without DIR: OpenClaw's agent session dirs (<stateDir>/agents/*/sessions, stateDir = $OPENCLAW_STATE_DIR
or ~/.openclaw, plus the legacy ~/.clawdbot) and pi's sessions (~/.pi/agent/sessions or
$PI_CODING_AGENT_DIR/sessions). With DIR: every transcript below DIR (for an OpenClaw state dir,
only its agents/*/sessions dirs).

With FILE (a session file): that one session.

OpenClaw 2026.7+ keeps sessions in one SQLite store per agent (<stateDir>/agents/<id>/agent/openclaw-agent.sqlite):
each store found (or the store FILE names) is listed with its sessions in a table of its own (key, name: label or
display name, updated, archived, events, token counters, compaction count; `stores` in --json). Open one with any
command: `session-inspector stats STORE --session KEY`. The JSONL an import archived
(session-sqlite-import-archive/*.jsonl.imported-<ms>) is listed with the archives (--all).

Only live transcripts are listed unless --all is given; --all adds archives (.reset./.deleted./.bak
siblings) and pre-compaction checkpoints (<sessionId>.checkpoint.<uuid>.jsonl) in a second table.
--json prints {"sessions": [...], "warnings": [...]} with the same selection (live only without --all).

Each listed file is glanced at, never indexed: its header, and its last lines back to the last assistant reply
with usage (`glance` in --json: the model, pi's context-now estimate, the last activity; files up to 64 KB are
read whole for their line count, compactions and session name). What the bytes read cannot decide is `unknown`.

--figures opens every listed file (read only) and adds what the session browser shows: messages in the
context, pi's context-now estimate, compaction entries and the session name (`figures` in --json).
"""


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``ls`` subcommand to the CLI."""
    parser = subparsers.add_parser(
        "ls",
        help="list session transcripts (OpenClaw, pi, or a directory)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dir", nargs="?", type=Path, metavar="DIR", help="directory to scan recursively")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--all",
        action="store_true",
        help="also list archives (.reset/.deleted/.bak) and compaction checkpoints",
    )
    parser.add_argument(
        "--figures",
        action="store_true",
        help="open each file and add messages, context tokens, compactions and name (slower: indexes every file)",
    )
    add_width_option(parser)
    parser.set_defaults(func=run)
    return parser


def _cell(value: object | None) -> Text:
    """A table cell from untrusted text: a plain ``Text`` (no markup), controls made visible, one line."""
    return Text(make_inert(str(value), keep_newlines=False) if value is not None else "")


def _when(moment: datetime | None) -> str:
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment else ""


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    value = size / 1024
    for unit in ("KB", "MB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _owner(session: SessionFile) -> str | None:
    return session.agent_id or session.cwd_slug


def _display_path(path: Path, root: Path | None) -> str:
    """Path relative to DIR when given, else with the home directory shown as ``~``."""
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            return str(path)
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except (ValueError, RuntimeError):
        return str(path)


def _session_label(session: SessionFile) -> str | None:
    """The session id, unless it only repeats the file name (plain directories)."""
    if session.session_id is None or session.path.name == f"{session.session_id}.jsonl":
        return None
    return session.session_id


Column = tuple[str, Callable[[SessionFile], object | None], dict[str, Any]]
Figures = dict[Path, SessionSummary]
Glances = dict[Path, SessionGlance]


def _glance_columns(glances: Glances, figures: Figures | None) -> list[Column]:
    """Model and context-now from each file's glance (`?`: not decided from the bytes read); with `--figures` the
    context column is the figures' instead."""

    def model(s: SessionFile) -> str | None:
        g = glances.get(s.path)
        if g is None or g.error or not g.known("model"):
            return None if g is None or g.error else "?"
        return g.model.get("modelId") if g.model and isinstance(g.model.get("modelId"), str) else None

    def context(s: SessionFile) -> str | None:
        g = glances.get(s.path)
        if g is None or g.error:
            return None
        return f"{g.context_tokens:,}" if g.context_tokens is not None else "?"

    columns: list[Column] = [("Model", model, {"overflow": "fold"})]
    if figures is None:
        columns.append(("Context", context, {"justify": "right", "no_wrap": True}))
    return columns


def _figure_columns(figures: Figures | None) -> list[Column]:
    """The `--figures` columns (none without it); a file that is not a readable session shows `—` and its error."""
    if figures is None:
        return []

    def pick(attr: str) -> Callable[[SessionFile], object | None]:
        def get(s: SessionFile) -> object | None:
            summary = figures.get(s.path)
            if summary is None:
                return None
            if summary.error:
                return {"messages": "—", "name": summary.error}.get(attr)
            value = getattr(summary, attr)
            return f"{value:,}" if isinstance(value, int) else value

        return get

    return [
        ("Msgs", pick("messages"), {"justify": "right", "overflow": "fold"}),
        ("Context", pick("context_tokens"), {"justify": "right", "no_wrap": True}),
        ("Compact.", pick("compactions"), {"justify": "right", "no_wrap": True}),
        ("Name", pick("name"), {"overflow": "fold"}),
    ]


def _table(title: str, sessions: list[SessionFile], columns: list[Column]) -> Table:
    """A table of ``sessions``; columns that are empty for every row are left out."""
    rows = [[getter(s) for _, getter, _ in columns] for s in sessions]
    keep = [i for i in range(len(columns)) if any(row[i] not in (None, "") for row in rows)]
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False, expand=False
    )
    for i in keep:
        header, _, kwargs = columns[i]
        table.add_column(header, **kwargs)
    for row in rows:
        table.add_row(*(_cell(row[i]) for i in keep))
    return table


def _live_table(sessions: list[SessionFile], root: Path | None, glances: Glances, figures: Figures | None = None) -> Table:
    columns: list[Column] = [
        ("Updated", lambda s: _when(s.sort_time), {"no_wrap": True}),
        ("Source", lambda s: s.source, {"no_wrap": True}),
        ("Agent/cwd", _owner, {"overflow": "fold", "min_width": 9}),
        ("Session", _session_label, {"overflow": "fold"}),
        ("Key", lambda s: s.session_key, {"overflow": "fold"}),
        ("Size", lambda s: _size(s.size), {"justify": "right", "no_wrap": True}),
        ("Format", lambda s: s.format, {"no_wrap": True}),
        *_glance_columns(glances, figures),
        *_figure_columns(figures),
        ("Path", lambda s: _display_path(s.path, root), {"overflow": "fold"}),
    ]
    return _table("Sessions", sessions, columns)


def _others_table(sessions: list[SessionFile], root: Path | None, figures: Figures | None = None) -> Table:
    columns: list[Column] = [
        ("Kind", lambda s: f"archive:{s.archive_reason}" if s.kind == "archive" else s.kind, {"no_wrap": True}),
        ("When", lambda s: _when(s.archived_at or s.mtime), {"no_wrap": True}),
        ("Agent/cwd", _owner, {"overflow": "fold", "min_width": 9}),
        ("Session", lambda s: s.session_id, {"overflow": "fold"}),
        ("Size", lambda s: _size(s.size), {"justify": "right", "no_wrap": True}),
        ("Format", lambda s: s.format, {"no_wrap": True}),
        *_figure_columns(figures),
        ("Path", lambda s: _display_path(s.path, root), {"overflow": "fold"}),
    ]
    return _table("Archives and checkpoints", sessions, columns)


def _stores_table(stores: list[StoreListing], root: Path | None) -> Table:
    """One row per session of each store (a store that cannot be read: one row with its error)."""
    table = Table(title="SQLite stores (OpenClaw 2026.7+)", title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), pad_edge=False)
    for header, kwargs in (
        ("Updated", {"no_wrap": True}), ("Agent", {"overflow": "fold"}), ("Key", {"overflow": "fold"}),
        ("Session", {"overflow": "fold"}), ("Name", {"overflow": "fold"}), ("Archived", {"no_wrap": True}),
        ("Events", {"justify": "right", "no_wrap": True}), ("Tokens ctx/total", {"justify": "right", "no_wrap": True}),
        ("Compact.", {"justify": "right", "no_wrap": True}), ("Store", {"overflow": "fold"}),
    ):
        table.add_column(header, **kwargs)
    for listing in stores:
        where = _display_path(listing.path, root)
        if listing.error:
            table.add_row(*(_cell(v) for v in ("", listing.agent_id, "", "", listing.error, "", "", "", "", where)))
        for s in listing.sessions:
            tokens = s.tokens
            counters = "" if not tokens or all(v is None for v in tokens.values()) else (
                f"{tokens.get('context') or 0:,}/{tokens.get('total') or 0:,}"
            )
            table.add_row(*(_cell(v) for v in (
                _when(ms_to_datetime(s.updated_at)), s.agent_id, s.session_key, s.session_id, s.name,
                _when(ms_to_datetime(s.archived_at)), f"{s.events:,}", counters,
                "" if s.compaction_count is None else s.compaction_count, where,
            )))
    return table


def _json_payload(discovery: Discovery, include_all: bool, glances: Glances, figures: Figures | None = None) -> dict[str, Any]:
    chosen = discovery.sessions if include_all else discovery.live
    sessions = []
    for s in chosen:
        row = s.to_json()
        row["glance"] = glances[s.path].to_json()
        if figures is not None:
            row["figures"] = figures[s.path].to_json()
        sessions.append(row)
    payload: dict[str, Any] = {"sessions": sessions, "warnings": list(discovery.warnings)}
    if discovery.stores:  # only when there are: a listing without stores stays as it was
        payload["stores"] = [listing.to_json() for listing in discovery.stores]
    return payload


def discovery_is_store(path: Path) -> bool:
    """Whether `ls FILE` names an OpenClaw SQLite store (listed with its sessions, not as a transcript)."""
    from inspector.host.discovery.stores import store_of

    return store_of(path) is not None


def session_figures(sessions: list[SessionFile]) -> Figures:
    """`summarize_session` of every file (the session browser's figures)."""
    return {s.path: summarize_session(s.path) for s in sessions}


def run(args: argparse.Namespace) -> int:
    """Run ``ls``; returns 0, or 2 when DIR is missing or not a directory."""
    root: Path | None = getattr(args, "dir", None)
    include_all = bool(getattr(args, "all", False))
    discovery = discover_sessions(Path(root) if root is not None else None, formats=False)
    single = root is not None and Path(root).is_file()
    status = EXIT_ERROR if root is not None and not Path(root).is_dir() and not single else 0
    if single and root is not None:
        root = Path(root).parent
    shown = discovery.sessions if include_all else discovery.live
    glances = glance_files([s.path for s in shown])
    for s in discovery.sessions:
        s.format = glances[s.path].format if s.path in glances else None
    figures = session_figures(shown) if getattr(args, "figures", False) else None

    if getattr(args, "json", False):
        print_json(_json_payload(discovery, include_all, glances, figures))
        return status

    out = console()
    err = Console(stderr=True, markup=False, emoji=False, highlight=False)
    for warning in discovery.warnings:
        err.print(Text(f"warning: {make_inert(warning, keep_newlines=False)}", style="yellow"))

    live, others = discovery.live, discovery.others
    if live:
        out.print(_live_table(live, root, glances, figures))
    elif status == 0 and not discovery.stores:
        where = make_inert(str(root), keep_newlines=False) if root is not None else "OpenClaw's or pi's session dirs"
        out.print(Text(f"No live sessions found in {where}."))
    if discovery.stores:
        out.print(_stores_table(discovery.stores, root))
    if others:
        if include_all:
            out.print(_others_table(others, root, figures))
        else:
            out.print(Text(f"{len(others)} archive/checkpoint file(s) not shown (use --all).", style="dim"))
    return status
