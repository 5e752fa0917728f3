"""Which release's rules a session gets, and why: `choose_rules`.

In this order: `--rules ID`; what the session itself shows (an OpenClaw SQLite store: the release that wrote it, at
least the first release carried that keeps stores; a file: its format version); for a file in pi's own sessions
folder (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`, `sessions/`), the pi that wrote it (`pi --version`, else pi's
`settings.json` `lastChangelogVersion`), since OpenClaw's config says nothing of it; the user's `openclaw.json`
(`meta.lastTouchedVersion`, the version of OpenClaw that last wrote it); the `openclaw` on PATH
(`openclaw --version`); the default. A version names the newest release the product carries that is not newer
than it; the reason says when that is not the exact release.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.rules.ruleset import (
    DEFAULT_RULES,
    RuleChoice,
    UnknownRulesError,
    known_rule_ids,
    openclaw_releases,
    parse_version,
    release_for_version,
    releases,
)

if TYPE_CHECKING:
    import argparse

    from inspector.read.store.events import EventsSnapshot
    from inspector.read.store.mirror import Mirror

VERSION_TIMEOUT_S = 5.0
"""How long `openclaw --version` may take before the installed OpenClaw is left out of the choice."""
_HEAD_BYTES = 64 * 1024
STORE_RULES = "openclaw-2026.9.6"
"""The first release carried that keeps sessions in a SQLite store (OpenClaw 2026.7+): a store session's rules at least."""


def session_format_version(path: Path | str) -> int | None:
    """The `version` of the session header on the file's first line (None: no header, or not readable)."""
    import orjson

    from inspector.base.safeio import NotRegularFileError, open_regular

    try:
        fd = open_regular(path)  # a FIFO or a device would block the read: no version, the opening reports it
    except (OSError, ValueError, NotRegularFileError):
        return None
    with os.fdopen(fd, "rb") as f:
        head = f.read(_HEAD_BYTES)
    first = head.split(b"\n", 1)[0]
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or obj.get("type") != "session":
        return None
    version = obj.get("version")
    return version if type(version) is int else None


def config_version(config: Mapping[str, Any] | None) -> str | None:
    """`meta.lastTouchedVersion` of a loaded `openclaw.json` (None when it has none)."""
    meta = config.get("meta") if isinstance(config, Mapping) else None
    version = meta.get("lastTouchedVersion") if isinstance(meta, Mapping) else None
    return version if isinstance(version, str) and parse_version(version) is not None else None


_installed: dict[tuple[str, int, int], str | None] = {}


def installed_openclaw_version(env: Mapping[str, str] | None = None) -> str | None:
    """The version `openclaw --version` prints for the `openclaw` on PATH (None: none, or it did not answer in
    time). Asked once per binary (path, size, mtime) in a process."""
    return installed_version("openclaw", env)


def installed_version(program: str, env: Mapping[str, str] | None = None) -> str | None:
    """The version `PROGRAM --version` prints for the one on PATH (None: none, it did not answer in time, or its
    first line is not a version). Asked once per binary (path, size, mtime) in a process."""
    import shutil
    import subprocess

    found = shutil.which(program, path=(env if env is not None else os.environ).get("PATH"))
    if found is None:
        return None
    try:
        st = os.stat(found)
    except OSError:
        return None
    key = (os.path.realpath(found), st.st_size, st.st_mtime_ns)
    if key not in _installed:
        try:
            out = subprocess.run(
                [found, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT_S,
                stdin=subprocess.DEVNULL, check=False,
            ).stdout
        except (OSError, subprocess.SubprocessError, ValueError):
            out = ""
        _installed[key] = out.strip().splitlines()[0][:100] if out.strip() else None
    got = _installed[key]
    return got if parse_version(got) is not None else None


def _by_version(version: str, where: str, source: str) -> RuleChoice:
    release, exact = release_for_version(parse_version(version) or ())
    if exact:
        return RuleChoice(release.id, f"{where} says OpenClaw {version}", source)
    return RuleChoice(release.id, f"{where} says OpenClaw {version}; the nearest release carried is {release.id}", source)


def store_rules(store: Mirror | EventsSnapshot) -> RuleChoice:
    """The rules of a session read from an OpenClaw SQLite store: the release that wrote the store
    (`schema_meta.app_version`), never older than `STORE_RULES`."""
    written = f"written by {store.app_version}" if store.app_version else "writer unknown"
    reason = f"the session is in an OpenClaw SQLite store (agent schema {store.schema_version}, {written})"
    rules_id = STORE_RULES
    version = parse_version(store.app_version)
    if version is not None:
        release, _ = release_for_version(version)
        floor = parse_version(rule_set_version(STORE_RULES)) or ()
        if (parse_version(release.openclaw_version) or ()) > floor:
            rules_id = release.id
    return RuleChoice(rules_id, reason, "session")


def rule_set_version(rules_id: str) -> str | None:
    """The OpenClaw version of a carried release."""
    return next((r.openclaw_version for r in releases() if r.id == rules_id), None)


def choose_rules(
    explicit: str | None,
    *,
    session_path: Path | str | None = None,
    config: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    ask_installed: bool = True,
    store: Mirror | EventsSnapshot | None = None,
) -> RuleChoice:
    """The rule set for a session, and why (`UnknownRulesError` for an `explicit` id the product lacks).

    `store`: the session is read from an OpenClaw SQLite store (through this mirror of it, or what a read of it found)."""
    if explicit is not None:
        if explicit not in known_rule_ids():
            raise UnknownRulesError(explicit)
        return RuleChoice(explicit, "--rules", "flag")
    if store is not None:
        return store_rules(store)
    if session_path is not None:
        version = session_format_version(session_path)
        if version is not None:
            carried = openclaw_releases()
            writers = [r for r in carried if r.max_session_version >= version]
            if not writers:
                newest = carried[-1]
                return RuleChoice(
                    newest.id,
                    f"the session is format v{version}, newer than any release carried; the newest is {newest.id}",
                    "session",
                )
            first = writers[0]
            if first is not carried[0]:
                return RuleChoice(first.id, f"the session is format v{version}, first written by {first.id}", "session")
    if session_path is not None:
        pi_choice = pi_session_rules(session_path, env, ask_installed=ask_installed)
        if pi_choice is not None:
            return pi_choice
    version_text = config_version(config)
    if version_text is not None:
        return _by_version(version_text, "openclaw.json (meta.lastTouchedVersion)", "config")
    if ask_installed:
        installed = installed_openclaw_version(env)
        if installed is not None:
            return _by_version(installed, "the installed openclaw --version", "installed")
    return RuleChoice(DEFAULT_RULES, "default")


PI_RULES = (("0.73.1", "pi-0.73.1"), ("0.0.0", DEFAULT_RULES))
"""pi versions and the rule set of each, newest first: pi 0.73.1 and later get pi 0.73.1's rules, older ones pi
0.66.1's (carried as part of `openclaw-2026.4.12`)."""


def pi_session_rules(
    session_path: Path | str, env: Mapping[str, str] | None = None, *, ask_installed: bool = True,
) -> RuleChoice | None:
    """The rules of a file in pi's own sessions folder, by the pi that wrote it (None: not in that folder, or no pi
    version known)."""
    from inspector.host.pi_home import PI_SETTINGS, pi_agent_dir

    env = os.environ if env is None else env
    agent_dir = pi_agent_dir(env)
    try:
        inside = Path(os.path.realpath(session_path)).is_relative_to(os.path.realpath(agent_dir / "sessions"))
    except (OSError, ValueError):
        return None
    if not inside:
        return None
    version, where = None, ""
    if ask_installed:
        version, where = installed_version("pi", env), "the installed pi --version"
    if version is None:
        version, where = _pi_settings_version(agent_dir / PI_SETTINGS), "pi's settings.json (lastChangelogVersion)"
    parsed = parse_version(version)
    if parsed is None:
        return None
    rules_id = next(rid for floor, rid in PI_RULES if parsed >= (parse_version(floor) or ()))
    return RuleChoice(rules_id, f"a pi session; {where} says pi {version}", "session")


def _pi_settings_version(path: Path) -> str | None:
    import orjson

    try:
        if path.stat().st_size > 1 << 20:
            return None
        settings = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    version = settings.get("lastChangelogVersion") if isinstance(settings, dict) else None
    return version if isinstance(version, str) and parse_version(version) is not None else None


def rules_arg(text: str) -> str:
    """argparse type of `--rules ID`: a known rule set id (exit 2 with the known ids otherwise)."""
    import argparse

    if text not in known_rule_ids():
        raise argparse.ArgumentTypeError(str(UnknownRulesError(text)))
    return text


def add_rules_option(p: argparse.ArgumentParser) -> None:
    """`--rules ID`: the release whose rules the command follows (every command and the app have it; the known ids in
    its help)."""
    if any("--rules" in action.option_strings for action in p._actions):
        return
    p.add_argument(
        "--rules", type=rules_arg, default=None, metavar="ID",
        help=f"follow this release's rules (known: {', '.join(known_rule_ids())}; default: chosen from the session, "
        "openclaw.json's meta.lastTouchedVersion, the installed openclaw, in that order)",
    )
