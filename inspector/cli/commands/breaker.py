"""``session-inspector breaker [--reset [--session PATH] [--provider P]] [--json]``: the summarizer circuit breaker."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich import box
from rich.table import Table
from rich.text import Text

from inspector.base.textsafe import make_inert
from inspector.cli.commands._common import EXIT_ERROR, console, print_json
from inspector.write.breaker import BreakerReport, CircuitBreaker

DESCRIPTION = """\
Show the circuit breaker that guards LLM summarizer calls: one circuit per (session, provider). After 3
consecutive failures a circuit opens and no call is made for the cooldown (5 min); then one trial call is
allowed (half-open); a success closes it. The state lives in the user state dir
($SESSION_INSPECTOR_STATE_DIR overrides it).

--reset clears circuits: all of them, or only those of --session PATH and/or --provider P.
--json prints {"state_file", "problem", "removed", "circuits": [...]}.
"""


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``breaker`` subcommand."""
    p = subparsers.add_parser(
        "breaker",
        help="show or reset the summarizer circuit breaker",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--reset", action="store_true", help="clear circuits (all, or filtered by --session/--provider)")
    p.add_argument("--session", type=Path, default=None, metavar="PATH", help="only this session's circuits")
    p.add_argument("--provider", default=None, metavar="P", help="only this provider's circuits")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)
    return p


def _duration(ms: int) -> str:
    secs = (ms + 999) // 1000
    return f"{secs // 60}m{secs % 60:02d}s" if secs >= 60 else f"{secs}s"


def render(report: BreakerReport) -> Table | Text:
    """The report as a table (or one line when there is nothing to show); all cells are inert text."""
    if not report.circuits:
        return Text("No circuits recorded: every summarizer call is allowed.")
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    for col in ("provider", "session", "state", "failures", "cooldown", "last error"):
        table.add_column(col, no_wrap=col not in ("session", "last error"))
    for c in sorted(report.circuits, key=lambda c: (c.provider, c.session)):
        state = c.effective_state
        cooldown = _duration(c.cooldown_remaining_ms) if c.cooldown_remaining_ms else ("trial in flight" if c.trial_in_flight else "")
        table.add_row(
            Text(make_inert(c.provider, keep_newlines=False)),
            Text(make_inert(c.session, keep_newlines=False)),
            Text(state.replace("_", "-"), style={"open": "bold red", "half_open": "yellow"}.get(state, "green")),
            Text(str(c.failures)),
            Text(cooldown),
            Text(make_inert(c.last_error or "", keep_newlines=False)),
        )
    return table


def run(args: argparse.Namespace) -> int:
    """Print (and with --reset, clear) the breaker state."""
    if (args.session is not None or args.provider is not None) and not args.reset:
        filters = {"session": args.session, "provider": args.provider}
    else:
        filters = {}
    try:
        breaker = CircuitBreaker()
        report = breaker.reset(args.session, args.provider) if args.reset else breaker.report(**filters)
    except OSError as exc:
        print(f"session-inspector: cannot use the breaker state: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print_json(report.to_json())
        return 0
    out = console()
    if report.problem:
        out.print(Text(make_inert(report.problem, keep_newlines=False), style="yellow"))
    if args.reset:
        out.print(Text(f"Reset {report.removed} circuit{'s' if report.removed != 1 else ''}."))
    out.print(render(report))
    out.print(Text(f"state: {report.state_file}", style="dim"))
    return 0
