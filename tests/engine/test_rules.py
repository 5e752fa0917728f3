"""The release seam: `RuleSet` per release folder, and how a session's rule set is chosen (`choose_rules`)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from inspector.host.rules_choice import choose_rules, config_version, installed_openclaw_version, session_format_version
from inspector.rules.ruleset import (
    DEFAULT_RULES,
    RuleSet,
    UnknownRulesError,
    known_rule_ids,
    parse_version,
    release_for_version,
    rule_set,
)

ALL_PARTS = sorted(RuleSet.PARTS)
PARTS_SINCE_2026_9 = {"latest_request"}
"""Parts OpenClaw 2026.9.6 brought that older releases have no module for."""


def test_the_default_rule_set_is_openclaw_2026_4_12_with_pi_0_66_1() -> None:
    rules = rule_set()
    assert rules.id == DEFAULT_RULES == "openclaw-2026.4.12"
    assert rules.release.openclaw_version == "2026.4.12" and rules.release.pi_version == "0.66.1"
    assert DEFAULT_RULES in known_rule_ids()


@pytest.mark.parametrize("part", ALL_PARTS)
def test_every_part_of_every_rule_set_is_its_own_folder_s_or_the_inherited_release_s(part: str) -> None:
    for rules_id in known_rule_ids():
        rules = rule_set(rules_id)
        if not rules.has(part):  # a part new in a later release
            assert part in PARTS_SINCE_2026_9 and rules.release.openclaw_version != "2026.9.6", (rules_id, part)
            continue
        module = getattr(rules, part)
        if rules.owns(part):
            assert module.__name__.startswith(rules.package + "."), (rules_id, part, module.__name__)
        else:
            assert rules.release.inherits is not None, (rules_id, part)
            assert module is rule_set(rules.release.inherits).part(part), (rules_id, part)


def test_a_release_folder_holds_only_what_changed_the_rest_is_inherited_not_copied(tmp_path: Path) -> None:
    newer = rule_set("openclaw-2026.9.6")
    assert newer.release.inherits == DEFAULT_RULES
    # a part missing from the newer folder is the very module of the older one (not a copy)
    for part in ALL_PARTS:
        if not newer.owns(part):
            assert getattr(newer, part) is getattr(rule_set(DEFAULT_RULES), part)
    with pytest.raises(AttributeError):
        newer.no_such_part  # noqa: B018


def test_rule_set_parts_are_what_the_engine_uses() -> None:
    from inspector.rules.openclaw_2026_4_12.compaction import triggers
    from inspector.rules.openclaw_2026_4_12.pruning import settings

    rules = rule_set("openclaw-2026.4.12")
    assert rules.pruning_settings is settings
    assert rules.triggers.DEFAULT_EARLY_THRESHOLDS == triggers.DEFAULT_EARLY_THRESHOLDS
    with pytest.raises(AttributeError):
        rules.not_a_part  # noqa: B018


def test_estimators_are_named_and_in_index_order() -> None:
    rules = rule_set()
    assert [e.name for e in rules.estimators] == ["pi", "openclaw_prune", "openclaw_compaction", "tool_guard"]
    assert [e.field for e in rules.estimators] == [
        "pi_tokens", "openclaw_prune_chars", "openclaw_compaction_tokens", "tool_guard_chars"
    ]
    assert rules.estimator("pi").unit == "tok"
    with pytest.raises(KeyError):
        rules.estimator("nope")


def test_the_reader_computes_the_estimates_of_the_session_s_rule_set_and_the_cache_keys_by_it(tmp_path: Path) -> None:
    from inspector.read.estimates import reader_estimates
    from inspector.session.index_cache import index_entry_name
    from inspector.session.session import open_session

    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n'
        '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z",'
        '"message":{"role":"user","content":"hello there","timestamp":1}}\n'
    )
    for rules_id in known_rule_ids():
        est = reader_estimates(rules_id)
        assert est.rules_id == rules_id
        assert est.estimate_all is rule_set(rules_id).tokens.estimate_all
        session = open_session(path, rules_id)
        assert session.rules_id == rules_id and session.entries.layout is est.layout
    assert reader_estimates().rules_id == DEFAULT_RULES
    names = {index_entry_name(path, rules_id) for rules_id in known_rule_ids()}
    assert len(names) == len(known_rule_ids())  # one snapshot per rule set: never another rule set's estimates
    assert index_entry_name(path) == index_entry_name(path, DEFAULT_RULES)


def test_an_unknown_id_is_an_error_that_lists_the_known_ids() -> None:
    with pytest.raises(UnknownRulesError) as err:
        rule_set("openclaw-1999.1.1")
    assert "openclaw-1999.1.1" in str(err.value)
    for known in known_rule_ids():
        assert known in str(err.value)
    with pytest.raises(UnknownRulesError):
        choose_rules("openclaw-1999.1.1")


@pytest.mark.parametrize(
    ("text", "version"),
    [("2026.4.12", (2026, 4, 12)), ("v2026.9.6-beta.1", (2026, 9, 6)), ("OpenClaw 2026.4", (2026, 4)), ("", None), (None, None)],
)
def test_parse_version(text: object, version: tuple[int, ...] | None) -> None:
    assert parse_version(text) == version


def test_a_version_names_the_newest_release_not_newer_than_it() -> None:
    assert release_for_version((2026, 4, 12)) == (rule_set().release, True)
    assert release_for_version((2026, 4, 15))[0].id == "openclaw-2026.4.12"
    assert release_for_version((2026, 4, 15))[1] is False
    assert release_for_version((2025, 1, 1))[0].id == known_rule_ids()[0]  # older than all: the oldest


def _session(tmp_path: Path, version: int | None) -> Path:
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "id": "s1", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}
    if version is not None:
        header["version"] = version
    path.write_text(json.dumps(header) + "\n")
    return path


def _fake_openclaw(folder: Path, printed: str) -> dict[str, str]:
    """A real `openclaw` executable on PATH that prints `printed` for `--version`."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / "openclaw"
    exe.write_text(f"#!/bin/sh\necho '{printed}'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_the_choice_order_flag_session_config_installed_default(tmp_path: Path) -> None:
    env = _fake_openclaw(tmp_path / "bin", "OpenClaw 2026.4.12")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    v3 = _session(tmp_path / "a", 3)
    v4 = _session(tmp_path / "b", 4)
    config = {"meta": {"lastTouchedVersion": "2026.4.15"}}
    assert choose_rules("openclaw-2026.4.12", session_path=v4, config=config, env=env).source == "flag"
    by_session = choose_rules(None, session_path=v4, config=config, env=env)
    assert (by_session.source, by_session.id) == ("session", "openclaw-2026.9.6")
    assert "format v4" in by_session.reason
    by_config = choose_rules(None, session_path=v3, config=config, env=env)
    assert by_config.source == "config" and "2026.4.15" in by_config.reason and "nearest" in by_config.reason
    by_installed = choose_rules(None, session_path=v3, config={}, env=env)
    assert by_installed.source == "installed" and "2026.4.12" in by_installed.reason
    assert "nearest" not in by_installed.reason
    empty_path = {"PATH": str(tmp_path / "nothing-here")}
    default = choose_rules(None, session_path=v3, config={}, env=empty_path)
    assert default.to_json() == {"id": DEFAULT_RULES, "reason": "default"}


def test_an_installed_openclaw_that_prints_no_version_is_left_out(tmp_path: Path) -> None:
    env = _fake_openclaw(tmp_path / "bin", "usage: openclaw [options]")
    assert installed_openclaw_version(env) is None
    assert choose_rules(None, config={}, env=env).source == "default"


def test_session_and_config_facts(tmp_path: Path) -> None:
    assert session_format_version(_session(tmp_path, 3)) == 3
    (tmp_path / "x").mkdir()
    assert session_format_version(_session(tmp_path / "x", None)) is None
    assert session_format_version(tmp_path / "missing.jsonl") is None
    assert session_format_version(tmp_path) is None  # a directory
    assert config_version({"meta": {"lastTouchedVersion": "2026.9.6"}}) == "2026.9.6"
    assert config_version({"meta": {"lastTouchedVersion": 7}}) is None
    assert config_version(None) is None


def test_pi_0_73_1_is_pi_0_66_1_with_the_length_overflow_case(tmp_path: Path) -> None:
    """pi-0.73.1 inherits every part but the triggers and the prompts (its reasoning rule); its overflow check adds
    pi-ai 0.73.1's `length` case, which neither 2026.4.12 (pi 0.66.1) nor a session step ever picks by itself."""
    from inspector.samples.fixtures import SessionBuilder
    from inspector.session.session import open_session

    pi = rule_set("pi-0.73.1")
    assert pi.release.openclaw_version is None and pi.release.inherits == DEFAULT_RULES
    assert [p for p in ALL_PARTS if pi.owns(p)] == ["prompts", "triggers"]
    b = SessionBuilder(seed=1)
    b.header()
    b.user("go")
    b.assistant("", stop_reason="length", usage={"input": 99_000, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 99_000})
    path = b.write(tmp_path / "s.jsonl")
    session = open_session(path)
    ctx = session.context()
    assert pi.triggers.overflow_trigger(session, ctx, 100_000).kind == "length"
    assert rule_set(DEFAULT_RULES).triggers.overflow_trigger(session, ctx, 100_000).kind is None
    assert pi.triggers.overflow_trigger(session, ctx, 100_001 * 100 // 99).kind is None  # below 99% of the window
    v3 = tmp_path / "v3.jsonl"
    v3.write_text('{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n')
    assert choose_rules(None, session_path=v3, config=None, ask_installed=False).id == DEFAULT_RULES
