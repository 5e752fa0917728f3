"""Running under pytest-xdist as in one process (a pytest plugin loaded by `tests/conftest.py`).

The terminal size: an xdist worker starts with `COLUMNS=80` and `LINES=24` in its environment, which the CLI's
tables (and every subprocess a test starts) would take for the terminal width. The controller sends the values
it had (or their absence) and each worker restores them before any test runs.

Unused snapshots still fail the run. syrupy 4.8 (pinned by pytest-textual-snapshot 1.1.0) stops looking for unused snapshots when tests run in more
than one process: each worker only knows the tests it ran. `make test` runs `pytest -n auto --dist loadfile`, so
every test module runs whole in one worker, and that worker's syrupy report is exact for the module's snapshots
(its `__snapshots__/<module>/` files and `__snapshots__/<module>.ambr`); the other workers' reports call them
all unused. Each worker sends the unused snapshots of its report and the test modules it ran to the controller
(`workeroutput`), which keeps those of modules the reporting worker ran, lists them and fails the run as syrupy
does in one process (exit status 1; `--snapshot-warn-unused` only warns). Deleting them (`--snapshot-update`) is left
to a run without `-n`, where syrupy does it itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

KEY = "unused_snapshots"
_ran = pytest.StashKey[set[str]]()
TERMINAL_SIZE = ("COLUMNS", "LINES")
_found = pytest.StashKey[list[tuple[str, str]]]()


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _is_controller(config: pytest.Config) -> bool:
    return not _is_worker(config) and getattr(config.option, "dist", "no") != "no"


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """On the controller: tell a starting worker the terminal size variables of the run (None: unset)."""
    node.workerinput["terminal_size_env"] = {name: os.environ.get(name) for name in TERMINAL_SIZE}


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if _is_worker(config):
        for name, value in config.workerinput.get("terminal_size_env", {}).items():  # type: ignore[attr-defined]
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    config.stash[_found] = []
    config.stash[_ran] = set()
    if _is_controller(config) and config.option.dist != "loadfile":
        raise pytest.UsageError("tests/xdist_support.py needs `--dist loadfile` under xdist (a module's snapshots in one worker)")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if _is_worker(config):
        report = getattr(getattr(config, "_syrupy", None), "report", None)
        if report is None:
            return
        unused: list[tuple[str, str]] = []
        for collection in report.unused:
            location = Path(collection.location)
            if _module_of(location, config.rootpath) not in config.stash[_ran]:
                continue  # another worker's module: this report cannot tell
            names = [snapshot.name for snapshot in collection] or ["(the whole file)"]
            unused += [(str(location), name) for name in names]
        config.workeroutput[KEY] = unused  # type: ignore[attr-defined]
    elif _is_controller(config) and config.stash[_found] and not config.option.warn_unused_snapshots:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _module_of(location: Path, root: Path) -> str:
    """The test module (rootdir-relative, as in node ids) whose snapshots live at `location`."""
    parts = location.parts
    if "__snapshots__" not in parts:
        return ""
    at = len(parts) - 1 - parts[::-1].index("__snapshots__")
    stem = Path(parts[at + 1]).stem if at + 1 < len(parts) else ""
    module = Path(*parts[:at]) / f"{stem}.py"
    try:
        return module.relative_to(root).as_posix()
    except ValueError:
        return module.as_posix()


def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """The test modules that ran in this process, skipped tests included."""
    item.config.stash[_ran].add(item.nodeid.split("::", 1)[0])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the controller: a worker finished; keep the unused snapshots it reported."""
    found = node.config.stash[_found]
    found += [tuple(x) for x in getattr(node, "workeroutput", {}).get(KEY, [])]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    found = config.stash.get(_found, [])
    if not _is_controller(config) or not found:
        return
    terminalreporter.section("unused snapshots (found by the xdist workers)", red=True)
    for location, name in sorted(set(found)):
        terminalreporter.line(f"unused: {name} in {location}")
    terminalreporter.line("run `pytest --snapshot-update` without -n to delete them (syrupy deletes only in one process)")
