"""Key binding ids and the user's keymap (`[keymap]` of the app's config file, `widgets.user_config`)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from collections import Counter
from pathlib import Path

import pytest
from test_ui_support import basic_builder, settle, write_session
from textual.binding import Binding
from textual.dom import DOMNode
from textual.widgets._footer import FooterKey

import widgets
from widgets.keymap import BOUND_MODULES, binding_ids, remapped
from widgets.pruning.screen import PruningScreen
from widgets.screens.help import HelpScreen
from widgets.screens.inspector import InspectorScreen
from widgets.user_config import CONFIG_ENV, MAX_CONFIG_BYTES, config_path, load_user_config

ID_FORM = re.compile(r"[a-z][a-z_0-9]*(\.[a-z][a-z_0-9]*)+")


def config_file() -> Path:
    """The test's own config path (`tests/conftest.py` points `$SESSION_INSPECTOR_CONFIG` at it; absent at first)."""
    return Path(os.environ[CONFIG_ENV])


def bindings_by_module() -> dict[str, list[Binding]]:
    """Every `BINDINGS` declared by a class of any module of `widgets`, by module."""
    out: dict[str, list[Binding]] = {}
    for info in pkgutil.walk_packages(widgets.__path__, "widgets."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, DOMNode) and value.__module__ == info.name and "BINDINGS" in vars(value):
                out.setdefault(info.name, []).extend(value.BINDINGS)  # type: ignore[arg-type]
    return out


def test_every_binding_of_the_app_has_a_unique_id():
    found = bindings_by_module()
    assert set(found) == set(BOUND_MODULES), "widgets.keymap.BOUND_MODULES must name every module with bindings"
    bindings = [b for module in found.values() for b in module]
    assert len(bindings) > 80
    assert all(isinstance(b, Binding) for b in bindings), "bindings are Binding objects (a tuple has no id)"
    missing = [f"{b.key} → {b.action}" for b in bindings if not b.id]
    assert missing == [], "every binding needs an id (Binding(..., id=...)) so a keymap can remap it"
    ids = [str(b.id) for b in bindings]
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert [i for i in ids if not ID_FORM.fullmatch(i)] == []
    assert binding_ids() == frozenset(ids)


def footer_keys(screen) -> dict[str, str]:
    """Footer description → key shown."""
    return {key.description: key.key_display for key in screen.query(FooterKey)}


@pytest.mark.anyio
async def test_a_remapped_key_from_the_config_file_runs_the_action_and_the_old_key_does_not(tmp_path, ui):
    config_file().write_text('[keymap]\n"estimator.next" = "E"\npruning.preview = "P"\n', encoding="utf-8")
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, InspectorScreen)
    assert list(app._notifications) == []
    shown = footer_keys(screen)
    assert shown["Estimator"] == "E" and shown["Pruning"] == "P" and shown["Filter"] == "f"

    await pilot.press("e")
    await settle(pilot)
    assert screen.estimator == "pi"
    await pilot.press("E")
    await settle(pilot)
    assert screen.estimator == "prune"

    palette = {title: help_text for title, help_text, _cb in screen.palette_commands()}
    assert palette["Estimator"].endswith("(E)")

    await pilot.press("question_mark")
    await settle(pilot)
    assert isinstance(app.screen, HelpScreen)
    rows = {description: key for key, description, _t in app.screen.key_rows}
    assert rows["Estimator"] == "E" and rows["Pruning"] == "P" and rows["Search"] == "/"
    await pilot.press("escape")

    await pilot.press("p")
    await settle(pilot)
    assert app.screen is screen
    await pilot.press("P")
    await settle(pilot)
    assert isinstance(app.screen, PruningScreen)


BAD_FILES = [
    (b"[keymap\n", "not valid TOML"),
    (b'keymap = "E"\n', "[keymap] must be a table"),
    (b'[keymap]\n"estimator.next" = 5\n', "keys must be a string"),
    (b'[keymap]\n"estimator.next" = "E,"\n', "has an empty key"),
    (b'[keymap]\n"estimator.next" = "\xff"\n', "not UTF-8"),
    (b'[keys]\n"estimator.next" = "E"\n', "unknown setting(s) ignored: keys"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("content", "problem"), BAD_FILES)
async def test_a_bad_config_file_is_a_notice_and_the_defaults_stay(tmp_path, ui, content, problem):
    config_file().write_bytes(content)
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    screen = app.screen
    assert isinstance(screen, InspectorScreen)
    notices = [n for n in app._notifications if n.severity == "warning"]
    assert len(notices) == 1
    assert str(config_file()) in notices[0].message and problem in notices[0].message
    await pilot.press("e")
    await settle(pilot)
    assert screen.estimator == "prune"


@pytest.mark.anyio
async def test_unknown_ids_and_keys_taken_from_other_bindings_are_reported(tmp_path, ui):
    config_file().write_text('[keymap]\n"estimator.nxt" = "E"\n"jump.next_user" = "o"\n', encoding="utf-8")
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    pilot = await ui(path)
    app = pilot.app
    [notice] = list(app._notifications)
    assert "unknown binding id(s), ignored: estimator.nxt" in notice.message
    assert 'jump.next_user = "o" takes the key of transcript.off_path' in notice.message
    screen = app.screen
    assert isinstance(screen, InspectorScreen)
    await pilot.press("o")
    await settle(pilot)
    assert not screen.show_off_path  # `o` is the next user message's now
    await pilot.press("question_mark")
    await settle(pilot)
    rows = {description: key for key, description, _t in app.screen.key_rows}
    assert rows["Off-path"] == "no key" and rows["Next user"] == "o" and rows["Estimator"] == "e"


def test_remapped_gives_the_keymap_keys_and_takes_them_from_the_other_bindings():
    bindings = InspectorScreen.BINDINGS
    assert remapped(bindings, {}) == bindings
    keys = {b.id: b.key for b in remapped(bindings, {"estimator.next": "o", "transcript.off_path": "e"})}
    assert keys["estimator.next"] == "o" and keys["transcript.off_path"] == "e" and keys["filter.open"] == "f"
    keys = {b.id: b.key for b in remapped(bindings, {"search.open": "n,slash"})}
    assert keys["search.open"] == "n,slash" and keys["search.next"] == ""


def test_the_config_file_is_read_from_the_user_config_dir_or_the_override(tmp_path):
    assert config_path({}).parts[-2:] == ("session-inspector", "config.toml")
    assert config_path({CONFIG_ENV: str(tmp_path / "c.toml")}) == tmp_path / "c.toml"
    missing = load_user_config({CONFIG_ENV: str(tmp_path / "absent.toml")})
    assert missing.keymap == {} and missing.problems == ()
    unreadable = load_user_config({CONFIG_ENV: str(tmp_path)})  # a directory
    assert unreadable.keymap == {} and unreadable.problems[0] == "not read: a directory, not a regular file"
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)  # nobody writes it: reading it as a file would hang
    assert load_user_config({CONFIG_ENV: str(fifo)}).problems == ("not read: a FIFO (named pipe), not a regular file",)
    (tmp_path / "huge.toml").write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    assert load_user_config({CONFIG_ENV: str(tmp_path / "huge.toml")}).problems[0].startswith("not read: ")
    (tmp_path / "c.toml").write_text('[keymap]\nestimator.next = "E"\n"pruning.preview" = "ctrl+p, P"\n', encoding="utf-8")
    config = load_user_config({CONFIG_ENV: str(tmp_path / "c.toml")})
    assert config.keymap == {"estimator.next": "E", "pruning.preview": "ctrl+p, P"} and config.problems == ()
