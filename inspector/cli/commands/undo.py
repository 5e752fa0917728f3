"""``session-inspector undo PATH [--json]``: revert the last compaction this tool wrote into a session."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.text import Text

from inspector.base.textsafe import make_inert
from inspector.cli.commands._common import EXIT_ERROR, console, print_json
from inspector.write.lock import LockHeld
from inspector.write.sessionfile import SessionWriteError
from inspector.write.undo import undo_last_compaction

DESCRIPTION = """\
Revert the last compaction session-inspector wrote into PATH, under OpenClaw's session lock. Run again, it
reverts the previous one, newest first. A symlinked PATH reverts its target (the link stays a link).

An appended compaction entry is removed and entries appended after it are re-parented onto its parent; a
truncating compaction is reverted by restoring its checkpoint (the file as it was before the compaction, kept as a
hard link, or a copy where the file system has none) plus everything appended since. The file as it was before
the undo is kept as <file>.bak-<pid>-<ms>. Nothing is changed when the file no longer matches
what was written, or while another process holds the lock.
A truncating compaction's checkpoint must still hold exactly the bytes recorded when it was made (size and
SHA-256); a truncated, edited or replaced checkpoint is refused (exit 2). Lines written late into a file a
rewrite replaced are carried over first and reported ("recovered").
--json prints {"path", "mode", "entry_id", "backup", "size_before", "size_after", "reparented", "restored_from",
"recovered"}.
"""


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``undo`` subcommand."""
    p = subparsers.add_parser(
        "undo",
        help="revert the last compaction this tool wrote into a session",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", type=Path, help="session .jsonl file")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--lock-timeout", type=float, default=10.0, metavar="SECONDS", help="wait this long for the session lock (default 10)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Undo, print what was done; one clear line on stderr and exit 2 when it cannot."""
    from inspector.write.faults import install_from_env

    install_from_env()
    if not args.path.is_file():
        print(f"session-inspector: {args.path}: no such session file", file=sys.stderr)
        return EXIT_ERROR
    try:
        result = undo_last_compaction(args.path, lock_timeout_ms=int(max(0.0, args.lock_timeout) * 1000))
    except LockHeld as exc:
        print(f"session-inspector: {exc.hint}", file=sys.stderr)
        return EXIT_ERROR
    except (SessionWriteError, OSError) as exc:
        print(f"session-inspector: {make_inert(str(exc), keep_newlines=False)}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print_json(result.to_json())
        return 0
    out = console()
    for note in result.recovered:
        out.print(Text(make_inert(f"recovered: {note}", keep_newlines=False), style="yellow"))
    if result.mode == "migrate":
        out.print(Text("Undid the migration to version 3: restored the file as it was from the checkpoint."))
    else:
        how = "restored the checkpoint" if result.mode == "truncate" else "removed the appended entry"
        out.print(Text(f"Undid compaction {result.entry_id}: {how}; {result.reparented} later entries re-parented."))
    if result.restored_from:
        out.print(Text(f"checkpoint: {result.restored_from}", style="dim"))
    out.print(Text(f"backup of the file before the undo: {result.backup}", style="dim"))
    return 0
