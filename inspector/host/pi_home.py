"""Where pi keeps its state (`getAgentDir` of pi's `config.ts`): sessions, `settings.json`. Only `os` at import
time, so the output memo's replay can check pi's files without importing `pathlib`."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the output memo's replay imports as little as it can
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

PI_SETTINGS = "settings.json"
"""pi's global settings file in its agent dir (`lastChangelogVersion`: the last pi version that ran)."""


def pi_agent_path(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """pi's agent dir (``getAgentDir``) as a string: ``$PI_CODING_AGENT_DIR`` (``~`` expanded) or
    ``<home>/.pi/agent``."""
    env = os.environ if env is None else env
    os_home = home if home is not None else (env.get("HOME") or os.path.expanduser("~"))
    override = env.get("PI_CODING_AGENT_DIR")
    if override:
        if override == "~":
            return os_home
        if override.startswith("~/"):
            return os.path.join(os_home, override[2:])
        return override
    return os.path.join(os_home, ".pi", "agent")


def pi_agent_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """pi's agent dir (``getAgentDir``): ``$PI_CODING_AGENT_DIR`` (``~`` expanded) or ``<home>/.pi/agent``."""
    from pathlib import Path

    return Path(pi_agent_path(env, None if home is None else str(home)))
