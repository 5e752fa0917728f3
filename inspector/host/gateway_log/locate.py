"""Where OpenClaw 2026.9.6's Gateway writes its log, and which session key a transcript file has.

As dist `logger-*.mjs` resolves it (`//#region src/logging/log-file-path.ts`, `resolveDefaultRollingLogFile`,
`resolveActiveLogFileWithMode`; `logger-file-transport.ts`, `rotatedLogPath` / `rotateLogFile`):

- without `logging.file`, one file per local day, `openclaw-YYYY-MM-DD.log` in `/tmp/openclaw` (or, when that is
  unsafe, a user-scoped `openclaw-<uid>` under the OS temp dir: `resolvePreferredOpenClawTmpDir`); a profile
  (`OPENCLAW_PROFILE`, not "default") names `openclaw-<profile>-YYYY-MM-DD.log` (`encodeLogProfileSegment`);
- `logging.file` names one fixed file; a configured name of the legacy rolling shape (`openclaw-YYYY-MM-DD.log`
  literally, or `openclaw-<date>.log`) stays rolling in that file's directory;
- a file about to pass `logging.maxFileBytes` is renamed to `<name>.1.log` (older ones shift up to `.5.log`).

`gateway_log_files` lists the existing files of that family, oldest first (rotations `.5` to `.1`, then the active
file; dated files by date). A JSONL session's key is the `sessions.json` entry beside it that points at it
(`session_key_for`); a store session's key is in its rows (`inspector.read.store`).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspector.base.digests import sha256

DEFAULT_LOG_DIR = Path("/tmp/openclaw")
ROLLING_RE = re.compile(r"^(openclaw(?:-[a-z0-9-]+)?)-(\d{4}-\d{2}-\d{2})\.log$")
MAX_ROTATED_LOG_FILES = 5
MAX_PROFILE_SEGMENT_LENGTH = 220


def profile_segment(env: Mapping[str, str]) -> str | None:
    """`resolveLogProfileSegment`: the file-name form of `OPENCLAW_PROFILE` (None for none or "default")."""
    profile = (env.get("OPENCLAW_PROFILE") or "").strip()
    if not profile or profile.lower() == "default":
        return None
    out = []
    for char in profile:
        if re.fullmatch(r"[a-z0-9]", char):
            out.append(char)
        elif char == "-":
            out.append("--")
        elif char == "_":
            out.append("-0")
        elif re.fullmatch(r"[A-Z]", char):
            out.append(f"-1{char.lower()}")
        else:
            out.append(f"-2{ord(char):x}-")
    encoded = "".join(out)
    if len(encoded) <= MAX_PROFILE_SEGMENT_LENGTH:
        return encoded
    return "-3" + sha256(profile.encode("utf-8", "surrogatepass")).hexdigest()


def default_log_dirs() -> list[Path]:
    """The directories OpenClaw's default log may be in: `/tmp/openclaw`, then the user-scoped fallback."""
    dirs = [DEFAULT_LOG_DIR]
    uid = getattr(os, "getuid", lambda: None)()
    if uid is not None:
        fallback = Path(tempfile.gettempdir()) / f"openclaw-{uid}"
        if fallback not in dirs:
            dirs.append(fallback)
    return dirs


def rotations(file: Path) -> list[Path]:
    """`file`'s numbered archives that exist (`rotatedLogPath`), oldest first, then `file` itself if it exists."""
    stem, ext = (file.name[: -len(file.suffix)], file.suffix) if file.suffix else (file.name, "")
    out = [file.with_name(f"{stem}.{n}{ext}") for n in range(MAX_ROTATED_LOG_FILES, 0, -1)]
    return [p for p in [*out, file] if p.is_file()]


def _rolling_family(directory: Path, family: str) -> list[Path]:
    pattern = re.compile(rf"^{re.escape(family)}-(\d{{4}}-\d{{2}}-\d{{2}})(?:\.(\d+))?\.log$")
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    found = []
    for name in names:
        match = pattern.match(name)
        if match and (directory / name).is_file():
            found.append((match[1], -int(match[2] or 0), directory / name))
    return [p for *_, p in sorted(found)]


def _is_legacy_rolling(path: Path) -> bool:
    match = ROLLING_RE.match(path.name)
    return path.name == "openclaw-YYYY-MM-DD.log" or (match is not None and match[1] == "openclaw")


def gateway_log_files(
    config: Mapping[str, Any] | None = None,
    explicit: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    dirs: list[Path] | None = None,
) -> list[Path]:
    """The Gateway log files to read, oldest first: `explicit` (a file and its rotations, or a directory's
    `openclaw*.log` files), else the config's `logging.file`, else the default rolling family in `dirs`
    (default: `default_log_dirs()`). Files that do not exist are left out: no log is an empty list."""
    env = os.environ if env is None else env
    if explicit is not None:
        if explicit.is_dir():
            return sorted(p for p in explicit.iterdir() if p.name.startswith("openclaw") and p.name.endswith(".log") and p.is_file())
        return rotations(explicit)
    logging = (config or {}).get("logging")
    configured = logging.get("file") if isinstance(logging, dict) else None
    if isinstance(configured, str) and configured.strip():
        path = Path(os.path.expanduser(configured.strip()))
        if _is_legacy_rolling(path):
            return _rolling_family(path.parent, "openclaw")
        return rotations(path)
    segment = profile_segment(env)
    family = "openclaw" + (f"-{segment}" if segment else "")
    out: list[Path] = []
    for directory in dirs if dirs is not None else default_log_dirs():
        out.extend(_rolling_family(directory, family))
    return out


def gateway_log_dirs(config: Mapping[str, Any] | None = None, explicit: Path | None = None) -> list[tuple[Path, str]]:
    """The directories `gateway_log_files` lists and the prefix of the names it reads there (what a memo of an
    output that read them depends on)."""
    def fixed(path: Path) -> tuple[Path, str]:
        return path.parent, path.name[: -len(path.suffix)] if path.suffix else path.name

    if explicit is not None:
        return [(explicit, "openclaw") if explicit.is_dir() else fixed(explicit)]
    logging = (config or {}).get("logging")
    configured = logging.get("file") if isinstance(logging, dict) else None
    if isinstance(configured, str) and configured.strip():
        path = Path(os.path.expanduser(configured.strip()))
        return [(path.parent, "openclaw")] if _is_legacy_rolling(path) else [fixed(path)]
    return [(d, "openclaw") for d in default_log_dirs()]


def session_key_for(path: Path) -> str | None:
    """The session key `sessions.json` beside `path` gives it (the entry pointing at it, the latest if several),
    or None (no index, or no entry points at it)."""
    from inspector.host.discovery.sessions_json import load_session_store, store_targets

    directory = path.parent
    index = directory / "sessions.json"
    if not index.is_file():
        return None
    store = load_session_store(index, [])
    agent = directory.parent.name if directory.name == "sessions" else None
    target = store_targets(store, directory, agent).get(os.path.realpath(path))
    return target[0] if target else None
