"""Claude Code and Codex files in the headless commands: read through their pi-format mirror
(`inspector.read.formats`), named as themselves in every output, never written; OpenClaw's pruning and compaction
said not to apply."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.cli.commands import _common as c
from inspector.cli.commands._common import EXIT_ERROR, WRITE_COMMANDS, CommandExit, print_json

if TYPE_CHECKING:
    from inspector.read.formats.mirror import ForeignMirror


FOREIGN_WRITE_REFUSAL = (
    "{path}: a {title} session is never written by session-inspector: `{command}` applies to OpenClaw sessions only "
    "({title} compacts its own sessions)"
)


def foreign_source() -> ForeignMirror | None:
    """The Claude Code / Codex file the running command reads (None: an OpenClaw session)."""
    return c._rules.foreign


def open_foreign_source(args: argparse.Namespace) -> None:
    """When PATH is a Claude Code or Codex transcript, bring its pi-format mirror up to date and read that instead
    (`args.path` becomes the mirror; `inspector.read.formats`). Write commands refuse with exit 2; a file that
    cannot be read or mirrored ends the command with exit 2 and one line."""
    path = getattr(args, "path", None)
    if not isinstance(path, Path) or c._rules.store is not None:
        return
    from inspector.read.detect import detect_format
    from inspector.read.formats.mirror import FORMAT_TITLES, TRANSLATORS, sync_foreign

    fmt = detect_format(path).name
    if fmt not in TRANSLATORS:
        return
    command = getattr(args, "command", None)
    if command in WRITE_COMMANDS:
        raise CommandExit(FOREIGN_WRITE_REFUSAL.format(path=path, title=FORMAT_TITLES[fmt], command=command), EXIT_ERROR)
    try:
        mirror = sync_foreign(path, fmt)
    except OSError as exc:
        raise CommandExit(f"{path}: cannot read it through its mirror: {exc.strerror or exc}", EXIT_ERROR) from None
    args.path = mirror.path
    c._rules.session_path = mirror.path
    c._rules.foreign = mirror
    if c._rules.explicit is None:
        from inspector.rules.ruleset import DEFAULT_RULES, RuleChoice

        c._rules.choice = RuleChoice(DEFAULT_RULES, mirror.rules_reason(DEFAULT_RULES), "session")
    if getattr(args, "context_window", "absent") is None:
        window, source = mirror.default_window()
        if window is not None:
            args.context_window = window
            c._rules.window_from_file = source
    memo = sys.modules.get("inspector.cli.output_memo")
    if memo is not None:
        memo.end()  # the memo is keyed by the file PATH names: a mirrored file's output is never replayed


PI_ONLY_DIAGNOSTICS = frozenset({"missing_header", "first_kept_not_found"})
"""Diagnostics about the mirror's pi form, not the file: a mirror has no session header, and a compaction keeps
nothing before it by design."""


def _without_pi_only(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: [d for d in v if not (isinstance(d, dict) and d.get("kind") in PI_ONLY_DIAGNOSTICS)] if k == "diagnostics" and isinstance(v, list)
            else _without_pi_only(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_without_pi_only(v) for v in value]
    return value


NOT_APPLICABLE = "{title} sessions: {what} does not apply (it is OpenClaw's; {title} manages its own context)"


def not_applicable(args: argparse.Namespace, what: str, extra: dict[str, Any] | None = None) -> bool:
    """On a Claude Code / Codex file, print that `what` (an OpenClaw feature) does not apply, as text or
    `{"applies": false, "format", "file", "reason"}` with `--json` (plus `extra`), and return True (the command ends
    with exit 0); False on an OpenClaw session."""
    mirror = c._rules.foreign
    if mirror is None:
        return False
    reason = NOT_APPLICABLE.format(title=mirror.title, what=what)
    if getattr(args, "json", False):
        print_json({"file": str(mirror.source), "format": mirror.format, "applies": False, "reason": reason, **(extra or {})})
    else:
        print(f"{mirror.source}: {reason}")
    return True


def for_foreign(data: dict[str, Any], mirror: ForeignMirror) -> dict[str, Any]:
    """A command's data on a Claude Code / Codex file: `file` the file itself, `format` its format, `source` first;
    compactions with their `trigger` and recorded `tokens_before` (null when not recorded); no diagnostic about the
    mirror's pi form; the window's source when the file gave it."""
    out: dict[str, Any] = {"source": mirror.source_json()}
    out.update(data)
    if "file" in out:
        out["file"] = str(mirror.source)
    if "format" in out:
        out["format"] = mirror.format
    if "version" in out:
        out["version"], out["valid"] = None, True
    recorded: dict[Any, dict[str, Any]] = dict(mirror.compactions)
    if isinstance(out.get("compactions"), list):
        out["compactions"] = [
            {**c, **recorded.get(c.get("line"), {"trigger": None, "tokens_before": None})} if isinstance(c, dict) else c
            for c in out["compactions"]
        ]
    out = _without_pi_only(out)
    window = out.get("context_window")
    if c._rules.window_from_file and isinstance(window, dict) and window.get("source") == "flag":
        out["context_window"] = {**window, "source": c._rules.window_from_file}
    return out


def shown_file(path: Any) -> str:
    """The file a text report names: a Claude Code / Codex file's own path, not its mirror's."""
    return str(c._rules.foreign.source) if c._rules.foreign is not None else str(path)


def shown_window_source(source: str) -> str:
    """A window's source as a text report says it (a Claude Code / Codex window is not a `flag`)."""
    return c._rules.window_from_file if c._rules.window_from_file and source == "flag" else source
