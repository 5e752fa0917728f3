"""OpenClaw state/config path rules and JSON5 config loading (inspector/host/openclaw_config.py)."""

from __future__ import annotations

from pathlib import Path

from inspector.host.openclaw_config import (
    LoadedConfig,
    inspector_state_dir,
    load_openclaw_config,
    openclaw_config_path,
    openclaw_state_dir,
    resolve_home_dir,
)


def test_state_dir_defaults_to_dot_openclaw_when_nothing_exists(tmp_path: Path) -> None:
    assert openclaw_state_dir({}, tmp_path) == tmp_path / ".openclaw"


def test_state_dir_uses_legacy_clawdbot_only_when_openclaw_is_missing(tmp_path: Path) -> None:
    (tmp_path / ".clawdbot").mkdir()
    assert openclaw_state_dir({}, tmp_path) == tmp_path / ".clawdbot"
    (tmp_path / ".openclaw").mkdir()
    assert openclaw_state_dir({}, tmp_path) == tmp_path / ".openclaw"


def test_state_dir_env_override_wins_and_expands_tilde(tmp_path: Path) -> None:
    (tmp_path / ".openclaw").mkdir()
    env = {"OPENCLAW_STATE_DIR": "  ~/elsewhere/state  "}
    assert openclaw_state_dir(env, tmp_path) == tmp_path / "elsewhere" / "state"
    env = {"OPENCLAW_STATE_DIR": str(tmp_path / "abs")}
    assert openclaw_state_dir(env, tmp_path) == tmp_path / "abs"


def test_blank_state_dir_env_is_ignored(tmp_path: Path) -> None:
    assert openclaw_state_dir({"OPENCLAW_STATE_DIR": "   "}, tmp_path) == tmp_path / ".openclaw"


def test_home_comes_from_env_home_and_openclaw_home_overrides_it(tmp_path: Path) -> None:
    assert resolve_home_dir({"HOME": str(tmp_path / "h")}) == tmp_path / "h"
    env = {"HOME": str(tmp_path / "h"), "OPENCLAW_HOME": "~/oc-home"}
    assert resolve_home_dir(env) == tmp_path / "h" / "oc-home"
    assert openclaw_state_dir(env) == tmp_path / "h" / "oc-home" / ".openclaw"


def test_config_path_env_override_even_when_missing(tmp_path: Path) -> None:
    (tmp_path / ".openclaw").mkdir()
    (tmp_path / ".openclaw" / "openclaw.json").write_text("{}")
    env = {"OPENCLAW_CONFIG_PATH": "~/cfg/my.json5"}
    assert openclaw_config_path(env, tmp_path) == tmp_path / "cfg" / "my.json5"


def test_config_path_prefers_existing_candidates_in_openclaw_order(tmp_path: Path) -> None:
    # Nothing exists: the canonical <stateDir>/openclaw.json.
    assert openclaw_config_path({}, tmp_path) == tmp_path / ".openclaw" / "openclaw.json"
    # A legacy file name in the legacy dir is found...
    (tmp_path / ".clawdbot").mkdir()
    (tmp_path / ".clawdbot" / "clawdbot.json").write_text("{}")
    assert openclaw_config_path({}, tmp_path) == tmp_path / ".clawdbot" / "clawdbot.json"
    # ...but ~/.openclaw/*.json comes first.
    (tmp_path / ".openclaw").mkdir()
    (tmp_path / ".openclaw" / "clawdbot.json").write_text("{}")
    assert openclaw_config_path({}, tmp_path) == tmp_path / ".openclaw" / "clawdbot.json"
    (tmp_path / ".openclaw" / "openclaw.json").write_text("{}")
    assert openclaw_config_path({}, tmp_path) == tmp_path / ".openclaw" / "openclaw.json"


def test_config_path_state_dir_override_candidates_come_first(tmp_path: Path) -> None:
    (tmp_path / ".openclaw").mkdir()
    (tmp_path / ".openclaw" / "openclaw.json").write_text("{}")
    state = tmp_path / "state"
    state.mkdir()
    env = {"OPENCLAW_STATE_DIR": str(state)}
    # No config in the override dir: OpenClaw still finds the home one.
    assert openclaw_config_path(env, tmp_path) == tmp_path / ".openclaw" / "openclaw.json"
    (state / "openclaw.json").write_text("{}")
    assert openclaw_config_path(env, tmp_path) == state / "openclaw.json"


JSON5_CONFIG = """\
// OpenClaw config with JSON5 extras
{
  models: {
    providers: {
      'local': {
        models: [
          { id: "qwen", contextWindow: 32768, }, /* trailing comma above */
        ],
      },
    },
  },
  agents: { defaults: { contextTokens: 100000 } },
}
"""


def test_load_json5_config_with_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text(JSON5_CONFIG)
    loaded = load_openclaw_config(path)
    assert loaded.ok and loaded.exists and loaded.error is None
    assert loaded.data["models"]["providers"]["local"]["models"][0] == {"id": "qwen", "contextWindow": 32768}
    assert loaded.data["agents"]["defaults"]["contextTokens"] == 100000


def test_load_missing_config_is_not_an_error(tmp_path: Path) -> None:
    loaded = load_openclaw_config(tmp_path / "nope.json")
    assert loaded == LoadedConfig(path=tmp_path / "nope.json", data={}, error=None, exists=False)


def test_load_broken_config_reports_line_and_never_raises(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text('{\n  a: 1,\n  b: [1, 2,, ],\n}\n')
    loaded = load_openclaw_config(path)
    assert loaded.data == {} and loaded.exists
    assert loaded.error is not None
    assert "line 3" in loaded.error and str(path) in loaded.error


def test_load_config_whose_top_level_is_not_an_object(tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text("[1, 2]")
    loaded = load_openclaw_config(path)
    assert loaded.error is not None and "object" in loaded.error and loaded.data == {}


def test_load_empty_config_and_bom(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text("  \n")
    assert load_openclaw_config(empty).ok
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf{a: 1}")
    assert load_openclaw_config(bom).data == {"a": 1}


def test_load_directory_or_non_utf8_gives_error(tmp_path: Path) -> None:
    assert load_openclaw_config(tmp_path).error is not None
    binary = tmp_path / "bin.json"
    binary.write_bytes(b"{a: '\xff'}")
    assert "UTF-8" in (load_openclaw_config(binary).error or "")


def test_load_without_path_uses_the_resolved_config_file(tmp_path: Path) -> None:
    (tmp_path / ".openclaw").mkdir()
    (tmp_path / ".openclaw" / "openclaw.json").write_text("{gateway: {port: 1}}")
    loaded = load_openclaw_config(env={}, home=tmp_path)
    assert loaded.path == tmp_path / ".openclaw" / "openclaw.json"
    assert loaded.data == {"gateway": {"port": 1}}


def test_inspector_state_dir_is_this_tools_own() -> None:
    assert "session-inspector" in str(inspector_state_dir())


# --- numbers out of OpenClaw's schema ranges (issue 14) ------------------------------------------------------------

def test_huge_numbers_are_reported_and_dropped(tmp_path: Path) -> None:
    from inspector.host.openclaw_config import load_openclaw_config

    cfg = tmp_path / "openclaw.json"
    cfg.write_text(
        '{"agents": {"defaults": {"contextTokens": 1e400, "contextPruning": {"keepLastAssistants": 99999999999999999999,'
        ' "softTrimRatio": 2, "softTrim": {"headChars": -5, "maxChars": 4000}}, "compaction": {"reserveTokens": 1.5}}},'
        ' "models": {"providers": {"p": {"models": [{"id": "m", "contextWindow": 1e400, "maxTokens": 8192}]}}}}'
    )
    loaded = load_openclaw_config(cfg)
    assert loaded.error is not None and "contextTokens must be a positive integer, not Infinity" in loaded.error
    assert "(and 5 more)" in loaded.error
    defaults = loaded.data["agents"]["defaults"]
    assert "contextTokens" not in defaults and defaults["contextPruning"] == {"softTrim": {"maxChars": 4000}}
    assert loaded.data["models"]["providers"]["p"]["models"][0] == {"id": "m", "maxTokens": 8192}


def test_huge_config_numbers_never_crash_a_command(tmp_path: Path) -> None:
    from conftest import ROOT, assistant, header, msg, user, write_lines
    from inprocess import run_cli

    cfg = tmp_path / "openclaw.json"
    cfg.write_text(
        '{"agents": {"defaults": {"contextTokens": 99999999999999999999999, "contextPruning": {"mode": "cache-ttl",'
        ' "ttl": "99999999999999999999h", "keepLastAssistants": 1e400, "minPrunableToolChars": 1e300},'
        ' "compaction": {"reserveTokens": 1e400, "keepRecentTokens": -1}}}}'
    )
    ts = {**user("q"), "timestamp": 1e300}
    p = write_lines(tmp_path / "s.jsonl", [header(), msg("u1", None, ts), msg("a1", "u1", {**assistant("a"), "timestamp": -1e17})])
    for command in ("stats", "context", "prune", "timeline"):
        r = run_cli([command, p, "--config", cfg, "--no-tiktoken"], cwd=ROOT)
        assert r.returncode == 0 and "Traceback" not in r.stderr, (command, r.stderr)
