"""What a compaction run checks before it makes any summary call: `preflight(path, summarizer)`.

* `version`: the session header's format version. This tool writes only version 3 files (what pi 0.66.1 writes and
  migrates older files to when it opens them); a version 1 or 2 file is refused before anything is summarized
  (a dry run reports it and goes on, so the entry a version 3 copy would get can still be seen).
* `lock`: OpenClaw's session lock (`<file>.lock`) held by a live process now (the commit waits for it, then
  gives up: a warning, not a refusal).
* `summarizer`: a network summarizer's server reachable (a TCP connection to its base URL's host and port within
  `REACH_TIMEOUT_S`); a server that cannot be reached refuses the run before any request.

The runner adds `cap` (whether the summary keeps its sections within the 16,000-character cap, from the assembly)
and `quality` (OpenClaw's quality guard on the summary) after summarizing. Each is a `Check`.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson

from inspector.write.lock import inspect_lock
from inspector.write.sessionfile import CURRENT_VERSION

REACH_TIMEOUT_S = 3.0
_HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class Check:
    """One check: `name`, `ok`, what was found (`detail`), and whether it refuses the run (`blocking`)."""

    name: str
    ok: bool
    detail: str
    blocking: bool = False

    def to_json(self) -> dict[str, Any]:
        """Plain JSON."""
        return {"name": self.name, "ok": self.ok, "blocking": self.blocking, "detail": self.detail}


def header_version(path: Path) -> int | None:
    """The format version of the session header (a header without one is version 1); None: no session header."""
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD_BYTES)
    except OSError:
        return None
    try:
        obj = orjson.loads(head.split(b"\n", 1)[0])
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or obj.get("type") != "session":
        return None
    version = obj.get("version")
    return version if type(version) is int else 1


def version_check(path: Path) -> Check:
    """`version` (see the module docstring)."""
    version = header_version(path)
    if version is None or version == CURRENT_VERSION:
        return Check("version", True, f"version {CURRENT_VERSION}" if version else "no session header (the plan reports it)")
    return Check("version", False, f"session version {version}: this tool compacts only version {CURRENT_VERSION} files (pi migrates "
                                   f"older files to version {CURRENT_VERSION} when it opens them: open the session in pi first, or pass --migrate, which "
                                   "does the same under the lock after a checkpoint, undoable)", True)


def lock_check(path: Path) -> Check:
    """`lock` (see the module docstring)."""
    status = inspect_lock(path)
    if not status.blocking:
        return Check("lock", True, "free" if not status.exists else "stale (reclaimed at commit)")
    pid = status.inspection.pid if status.inspection else None
    return Check("lock", False, f"held by live process {pid}: the commit waits for it and gives up after the lock timeout")


def _endpoint(summarizer: Any) -> tuple[str, int] | None:
    config = getattr(summarizer, "config", None)
    url = getattr(config, "base_url", None)
    if not isinstance(url, str):
        return None
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    return parts.hostname, port


def summarizer_check(summarizer: Any, timeout_s: float = REACH_TIMEOUT_S) -> Check:
    """`summarizer` (see the module docstring)."""
    if not getattr(summarizer, "uses_network", False):
        return Check("summarizer", True, f"{summarizer.name}: offline, no call to make")
    endpoint = _endpoint(summarizer)
    if endpoint is None:
        return Check("summarizer", True, f"{summarizer.name}: no base URL to check")
    host, port = endpoint
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        return Check("summarizer", False, f"{summarizer.name}: {host}:{port} cannot be reached ({why}); no request was made", True)
    return Check("summarizer", True, f"{summarizer.name}: {host}:{port} reachable")


def preflight(path: Path, summarizer: Any) -> list[Check]:
    """The checks made before any summary call (see the module docstring)."""
    return [version_check(path), lock_check(path), summarizer_check(summarizer)]
