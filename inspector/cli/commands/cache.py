"""`session-inspector cache info|clear [--json]`: the persistent index cache (where, how big, empty it)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table
from rich.text import Text

from inspector.cli.commands._common import add_width_option, console, print_json
from inspector.storage.cache.cache_dir import CacheUnavailable, cache_dir, checked_dir, clear, max_bytes, owned_files
from inspector.storage.cache.code_version import code_version


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `cache` subcommand with its `info` and `clear` actions."""
    p = sub.add_parser("cache", help="the index cache: `info` (where, size, entries) or `clear` (remove its files)")
    p.add_argument("action", choices=("info", "clear"), help="info: where the cache is and what it holds; clear: empty it")
    p.add_argument("--json", action="store_true", help="print machine-readable JSON (stable field names)")
    add_width_option(p)
    p.set_defaults(func=run)


def cache_info() -> dict[str, Any]:
    """`cache info --json`: `dir`, `usable` (and `reason` when not), `max_bytes`, `total_bytes`, `files`,
    `entries` by kind (`index`: session snapshots, `memo`: memoized outputs, `mirror`: the JSONL mirrors of store
    sessions, their sidecars and locks, `temp`: writes in progress),
    `code_version` (entries of another one are ignored)."""
    directory = cache_dir()
    reason = None
    try:
        checked_dir(create=False)
    except CacheUnavailable as exc:
        reason = str(exc)
    files = owned_files(directory) if reason is None else []
    kinds = {"index": 0, "memo": 0, "mirror": 0, "temp": 0}
    for f in files:
        kinds[f.kind] += 1
    return {
        "dir": str(directory),
        "usable": reason is None,
        "reason": reason,
        "max_bytes": max_bytes(),
        "total_bytes": sum(f.size for f in files),
        "files": len(files),
        "entries": kinds,
        "code_version": code_version(),
    }


def cache_clear() -> dict[str, Any]:
    """`cache clear --json`: `dir`, `removed` (files), `freed_bytes`; only files the cache owns are removed."""
    directory = cache_dir()
    try:
        checked_dir(create=False)
    except CacheUnavailable as exc:
        return {"dir": str(directory), "removed": 0, "freed_bytes": 0, "reason": str(exc)}
    removed, freed = clear(directory)
    return {"dir": str(directory), "removed": removed, "freed_bytes": freed, "reason": None}


def run(args: argparse.Namespace) -> int:
    """Print the cache's state, or empty it."""
    data = cache_info() if args.action == "info" else cache_clear()
    if args.json:
        print_json(data)
        return 0
    c = console()
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    if args.action == "info":
        rows = [
            ("dir", data["dir"]),
            ("usable", "yes" if data["usable"] else f"no: {data['reason']}"),
            ("size", f"{data['total_bytes']:,} of {data['max_bytes']:,} bytes"),
            ("entries", ", ".join(f"{k} {v}" for k, v in data["entries"].items())),
        ]
    else:
        rows = [("dir", data["dir"]), ("removed", f"{data['removed']:,} files, {data['freed_bytes']:,} bytes")]
        if data["reason"]:
            rows.append(("note", data["reason"]))
    for k, v in rows:
        t.add_row(Text(k), Text(str(v)))
    c.print(t)
    return 0
