"""Where Claude Code and Codex CLI keep their transcripts (spec `other-formats.md` §1.1, §2.1), for discovery.

Claude Code: `<root>/projects/<encoded cwd>/<sessionId>.jsonl` for every root of `$CLAUDE_CONFIG_DIR` (several,
comma-separated), else `~/.claude` and `~/.config/claude`; subagents beside their parent, as `agent-<id>.jsonl`
(older) or `<sessionId>/subagents/agent-<id>.jsonl` (newer; listed with the project's `cwd_slug`, their
`session_id` the subagent's file stem). Codex: `${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-*.jsonl` and
the flat `archived_sessions/`; a rollout in both is listed once, from `sessions/`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from inspector.host.discovery.files import SessionFile
from inspector.host.discovery.names import FileName

CLAUDE_SOURCE = "claude-code"
CODEX_SOURCE = "codex"


def _home(env: Mapping[str, str], home: Path | None) -> Path:
    return Path(home) if home is not None else Path(env.get("HOME") or Path.home())


def _expand(raw: str, home: Path) -> Path:
    return home / raw[2:] if raw.startswith("~/") else (home if raw == "~" else Path(raw))


def claude_code_roots(env: Mapping[str, str], home: Path | None = None) -> list[Path]:
    """Claude Code's config roots that exist (each holds `projects/`)."""
    h = _home(env, home)
    raw = env.get("CLAUDE_CONFIG_DIR", "").strip()
    roots = [_expand(p.strip(), h) for p in raw.split(",") if p.strip()] if raw else [h / ".claude", h / ".config" / "claude"]
    return [r for r in roots if (r / "projects").is_dir()]


def codex_home(env: Mapping[str, str], home: Path | None = None) -> Path:
    """`$CODEX_HOME` (`~` expanded), else `~/.codex`."""
    raw = env.get("CODEX_HOME", "").strip()
    return _expand(raw, _home(env, home)) if raw else _home(env, home) / ".codex"


def _file(path: Path, source: str, warnings: list[str], slug: str | None = None) -> SessionFile | None:
    from inspector.host.discovery.scan import _stat_session

    found = _stat_session(path, FileName("live", path.stem), source, warnings)  # type: ignore[arg-type]
    if found is not None:
        found.cwd_slug = slug
    return found


def scan_claude_code(env: Mapping[str, str], home: Path | None, warnings: list[str]) -> list[SessionFile]:
    """Every Claude Code transcript (sessions and their subagents) under the config roots."""
    found: list[SessionFile] = []
    for root in claude_code_roots(env, home):
        for project in sorted((root / "projects").iterdir(), key=lambda p: p.name):
            if not project.is_dir():
                continue
            paths = sorted(project.glob("*.jsonl")) + sorted(project.glob("*/subagents/agent-*.jsonl"))
            for path in paths:
                if path.is_file() and (f := _file(path, CLAUDE_SOURCE, warnings, project.name)) is not None:
                    found.append(f)
    return found


def scan_codex(env: Mapping[str, str], home: Path | None, warnings: list[str]) -> list[SessionFile]:
    """Every Codex rollout under `sessions/` and `archived_sessions/` (a name in both: the `sessions/` one)."""
    base = codex_home(env, home)
    found: list[SessionFile] = []
    names: set[str] = set()
    for sub in ("sessions", "archived_sessions"):
        directory = base / sub
        if not directory.is_dir():
            continue
        for current, dirs, files in os.walk(directory):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".jsonl") and name not in names:
                    names.add(name)
                    f = _file(Path(current) / name, CODEX_SOURCE, warnings)
                    if f is not None:
                        if sub == "archived_sessions":
                            f.kind, f.archive_reason = "archive", "archived"
                        found.append(f)
    return found
