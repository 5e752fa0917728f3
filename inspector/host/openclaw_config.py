"""OpenClaw's own state/config locations and its JSON5 config, plus this tool's own state dir.

Path rules follow OpenClaw ``src/config/paths.ts`` and ``src/infra/home-dir.ts`` (spec §1.1):

* home: ``$OPENCLAW_HOME`` (``~`` expands against the OS home), else ``$HOME``, else ``$USERPROFILE``,
  else the OS home;
* state dir: ``$OPENCLAW_STATE_DIR`` (``~`` expanded, made absolute), else ``<home>/.openclaw``; when that
  does not exist but the legacy ``<home>/.clawdbot`` does, the legacy dir;
* config file: ``$OPENCLAW_CONFIG_PATH`` when set (existing or not); otherwise the first existing of
  ``$OPENCLAW_STATE_DIR/{openclaw,clawdbot}.json``, ``<home>/.openclaw/{openclaw,clawdbot}.json``,
  ``<home>/.clawdbot/{openclaw,clawdbot}.json``; otherwise ``<stateDir>/openclaw.json``.

Every function takes ``env`` (a mapping, default ``os.environ``) and an optional ``home`` so tests never
touch the real home directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.base.safeio import FileTooLargeError, NotRegularFileError, read_regular_file
from inspector.js.jsjson import json_kind
from inspector.rules.ruleset import rule_set

NEW_STATE_DIRNAME = ".openclaw"
LEGACY_STATE_DIRNAMES: tuple[str, ...] = (".clawdbot",)
CONFIG_FILENAME = "openclaw.json"
LEGACY_CONFIG_FILENAMES: tuple[str, ...] = ("clawdbot.json",)

INSPECTOR_APP_NAME = "session-inspector"
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a real openclaw.json is a few KB; JSON5 in pure Python is slow on MBs


def _env_value(env: Mapping[str, str], name: str) -> str | None:
    """An env var trimmed, or None when unset or blank (OpenClaw's ``env.X?.trim()`` truthiness)."""
    raw = env.get(name)
    if raw is None:
        return None
    trimmed = raw.strip()
    return trimmed or None


def _os_home(env: Mapping[str, str]) -> str:
    return _env_value(env, "HOME") or _env_value(env, "USERPROFILE") or str(Path.home())


def resolve_home_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The home directory OpenClaw uses (``resolveRequiredHomeDir``).

    ``home`` (when given) replaces the OS home (``$HOME``), but ``$OPENCLAW_HOME`` still wins, as in OpenClaw.
    """
    env = os.environ if env is None else env
    os_home = str(home) if home is not None else _os_home(env)
    explicit = _env_value(env, "OPENCLAW_HOME")
    if explicit:
        if explicit == "~" or explicit.startswith("~/") or explicit.startswith("~\\"):
            explicit = os_home + explicit[1:]
        return Path(os.path.abspath(explicit))
    return Path(os.path.abspath(os_home))


def resolve_user_path(raw: str, env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """Expand a leading ``~`` against the OpenClaw home and make the path absolute (``resolveUserPath``)."""
    trimmed = raw.strip()
    if trimmed == "~" or trimmed.startswith("~/") or trimmed.startswith("~\\"):
        trimmed = str(resolve_home_dir(env, home)) + trimmed[1:]
    return Path(os.path.abspath(trimmed))


def new_state_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """``<home>/.openclaw``, whether it exists or not."""
    return resolve_home_dir(env, home) / NEW_STATE_DIRNAME


def legacy_state_dirs(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """The pre-rebrand state dirs (``<home>/.clawdbot``), whether they exist or not."""
    base = resolve_home_dir(env, home)
    return [base / name for name in LEGACY_STATE_DIRNAMES]


def openclaw_state_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """OpenClaw's state directory (``resolveStateDir``): sessions, config, credentials live below it."""
    env = os.environ if env is None else env
    override = _env_value(env, "OPENCLAW_STATE_DIR")
    if override:
        return resolve_user_path(override, env, home)
    new_dir = new_state_dir(env, home)
    if new_dir.exists():
        return new_dir
    for legacy in legacy_state_dirs(env, home):
        try:
            if legacy.exists():
                return legacy
        except OSError:
            continue
    return new_dir


def default_config_candidates(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Path]:
    """Config files OpenClaw probes, in order (``resolveDefaultConfigCandidates``)."""
    env = os.environ if env is None else env
    explicit = _env_value(env, "OPENCLAW_CONFIG_PATH")
    if explicit:
        return [resolve_user_path(explicit, env, home)]
    names = (CONFIG_FILENAME, *LEGACY_CONFIG_FILENAMES)
    candidates: list[Path] = []
    state_override = _env_value(env, "OPENCLAW_STATE_DIR")
    if state_override:
        resolved = resolve_user_path(state_override, env, home)
        candidates.extend(resolved / name for name in names)
    for directory in (new_state_dir(env, home), *legacy_state_dirs(env, home)):
        candidates.extend(directory / name for name in names)
    return candidates


def openclaw_config_path(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The config file OpenClaw would load (``resolveConfigPathCandidate``); it may not exist."""
    env = os.environ if env is None else env
    explicit = _env_value(env, "OPENCLAW_CONFIG_PATH")
    if explicit:
        return resolve_user_path(explicit, env, home)
    for candidate in default_config_candidates(env, home):
        try:
            if candidate.exists():
                return candidate
        except OSError:
            continue
    return openclaw_state_dir(env, home) / CONFIG_FILENAME


@dataclass
class LoadedConfig:
    """An OpenClaw config file as loaded: ``data`` is ``{}`` when the file is missing or broken.

    ``exists`` tells a missing file (not an error) from an empty one; ``error`` is a one-line, human-readable
    reason (with line and column for syntax errors) when the file exists but could not be used.
    """

    path: Path
    data: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    exists: bool = False

    @property
    def ok(self) -> bool:
        """True when there is no error (a missing file is fine)."""
        return self.error is None


_JSON5_ERROR_RE = re.compile(r"^<string>:(?P<line>\d+) (?P<msg>.*?)(?: at column (?P<col>\d+))?$", re.S)


def _describe_json5_error(path: Path, exc: ValueError) -> str:
    text = str(exc)
    match = _JSON5_ERROR_RE.match(text)
    if match:
        where = f"line {match['line']}"
        if match["col"]:
            where += f", column {match['col']}"
        return f"{path}: invalid JSON5 at {where}: {match['msg']}"
    return f"{path}: invalid JSON5: {text}"


def load_openclaw_config(
    path: Path | None = None,
    *,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> LoadedConfig:
    """Read OpenClaw's config (JSON5: comments, trailing commas, unquoted keys). Never raises.

    Without ``path`` the file is located with :func:`openclaw_config_path`. OpenClaw's ``$include`` and
    ``${ENV}`` substitution are not applied: the keys this tool reads (``models.providers``,
    ``agents.defaults``) are plain numbers in practice.
    """
    target = Path(path) if path is not None else openclaw_config_path(env, home)
    try:
        raw = read_regular_file(target, MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return LoadedConfig(path=target)
    except IsADirectoryError:
        return LoadedConfig(path=target, exists=True, error=f"{target}: is a directory, not a config file")
    except NotRegularFileError as exc:
        kind = str(exc).rpartition(": ")[2]
        return LoadedConfig(path=target, exists=True, error=f"{target}: {kind}; a config must be a regular file")
    except FileTooLargeError:
        limit = MAX_CONFIG_BYTES // (1024 * 1024)
        return LoadedConfig(path=target, exists=True, error=f"{target}: too large for a config (over {limit} MB); not read")
    except OSError as exc:
        return LoadedConfig(path=target, exists=True, error=f"{target}: cannot read: {exc.strerror or exc}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return LoadedConfig(path=target, exists=True, error=f"{target}: not UTF-8 (byte {exc.start})")
    if not text.strip():
        return LoadedConfig(path=target, exists=True)
    try:
        data = orjson.loads(text)  # plain JSON (most configs): fast; JSON5 below for comments and the like
    except (orjson.JSONDecodeError, RecursionError):
        data = _JSON5_FALLBACK
    if data is _JSON5_FALLBACK:
        try:
            import json5  # here: most runs find no config file to parse (it costs ~10 ms to import)

            data = json5.loads(text)
        except ValueError as exc:
            return LoadedConfig(path=target, exists=True, error=_describe_json5_error(target, exc))
        except RecursionError:
            return LoadedConfig(path=target, exists=True, error=f"{target}: invalid JSON5: nested too deeply")
    if not isinstance(data, dict):
        kind = json_kind(data)
        return LoadedConfig(path=target, exists=True, error=f"{target}: top level must be an object, got {kind}")
    problems = rule_set().config_schema.check_config_numbers(data)  # out-of-range numbers dropped: their defaults apply
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        error = f"{target}: {problems[0].message()}{more}; OpenClaw rejects such a config; ignored those values"
        return LoadedConfig(path=target, data=data, exists=True, error=error)
    return LoadedConfig(path=target, data=data, exists=True)


_JSON5_FALLBACK = object()


def inspector_state_dir() -> Path:
    """This tool's own state directory (``platformdirs`` user state dir); not created here."""
    import platformdirs  # here: only the commands that keep state need it

    return Path(platformdirs.user_state_dir(INSPECTOR_APP_NAME, appauthor=False))
