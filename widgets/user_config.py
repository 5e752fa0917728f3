"""The app's own config file: `<user config dir>/config.toml`, read once at start, never written, never fatal.

The file is `platformdirs.user_config_dir("session-inspector")/config.toml`, or `$SESSION_INSPECTOR_CONFIG` when set
(tests). It holds one table for now:

    [keymap]
    "estimator.next" = "E"        # binding id = keys (comma-separated), see `widgets.keymap`
    pruning.preview = "P"         # unquoted, a dotted key: the same thing

A missing file is no config. A file that cannot be read or parsed, or a setting of the wrong shape, is a problem
(`UserConfig.problems`, shown as a notice naming the file); what could not be read keeps its default.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from inspector.base.safeio import FileTooLargeError, NotRegularFileError, read_regular_file

CONFIG_ENV = "SESSION_INSPECTOR_CONFIG"
MAX_CONFIG_BYTES = 1024 * 1024
"""A config file larger than this is not read (it is a few lines of TOML)."""
APP_NAME = "session-inspector"
SECTIONS = ("keymap",)


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the config file is (it need not exist): `$SESSION_INSPECTOR_CONFIG`, else the user config dir's."""
    env = os.environ if env is None else env
    override = env.get(CONFIG_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs  # here: only a start without the override needs it

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


@dataclass(frozen=True)
class UserConfig:
    """The settings read from `path`: the keymap (binding id → keys), and every problem met reading them."""

    path: Path
    keymap: dict[str, str]
    problems: tuple[str, ...] = ()


def load_user_config(env: Mapping[str, str] | None = None) -> UserConfig:
    """Read the config file; never raises (a problem leaves the defaults and is listed in `problems`)."""
    path = config_path(env)
    try:
        text = read_regular_file(path, MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        return UserConfig(path, {})
    except UnicodeDecodeError as exc:
        return UserConfig(path, {}, (f"not UTF-8 text ({exc.reason} at byte {exc.start})",))
    except (NotRegularFileError, FileTooLargeError) as exc:
        return UserConfig(path, {}, (f"not read: {str(exc).rpartition(': ')[2]}",))
    except OSError as exc:
        return UserConfig(path, {}, (f"cannot be read: {exc.strerror or exc}",))
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return UserConfig(path, {}, (f"not valid TOML: {exc}",))
    problems = []
    unknown = sorted(set(document) - set(SECTIONS))
    if unknown:
        problems.append(f"unknown setting(s) ignored: {', '.join(unknown)} (known: {', '.join(f'[{s}]' for s in SECTIONS)})")
    keymap, keymap_problems = _keymap(document.get("keymap", {}))
    return UserConfig(path, keymap, (*problems, *keymap_problems))


def _keymap(table: object) -> tuple[dict[str, str], list[str]]:
    """The `[keymap]` table's well-formed entries, and a problem for each other one."""
    if not isinstance(table, dict):
        return {}, ['[keymap] must be a table of binding id = "keys" (e.g. "estimator.next" = "E")']
    keymap: dict[str, str] = {}
    problems = []
    for binding_id, keys in _flat(table):
        if not isinstance(keys, str):
            problems.append(f'[keymap] {binding_id}: keys must be a string such as "E" or "ctrl+e,E", not {type(keys).__name__}')
        elif not all(key.strip() for key in keys.split(",")):
            problems.append(f'[keymap] {binding_id}: "{keys}" has an empty key (keys are comma-separated, e.g. "ctrl+e,E")')
        else:
            keymap[binding_id] = keys
    return keymap, problems


def _flat(table: dict[str, object], prefix: str = "") -> list[tuple[str, object]]:
    """(dotted key, value) of a table: `estimator.next = "E"` unquoted is TOML's nested table, the same binding id."""
    out: list[tuple[str, object]] = []
    for key, value in table.items():
        if isinstance(value, dict):
            out.extend(_flat(value, f"{prefix}{key}."))
        else:
            out.append((f"{prefix}{key}", value))
    return out
