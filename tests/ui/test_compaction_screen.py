"""The app's compaction screen (`X`), complete: the summarizer picked in the app (a model on a fake OpenAI server on
127.0.0.1, configured in openclaw.json), the plan and the before/after preview before anything is written, the
streamed text, the breaker panel opened by failures and reset with `r`, Esc cancelling a run, the result at the top,
undo, reopening the compacted file, the demo's temp copy removed when the app quits, and snapshots at 80x24 and
120x40 (fixed clock, run timings and the new entry's id pinned)."""

from __future__ import annotations

import json
import shutil
import types
import uuid
from pathlib import Path

import pytest
from conftest import ROOT
from llm_servers import AnthropicServer, OpenAIServer
from test_ui_support import SIZE, basic_builder, make_app, settle

from inspector.session.session import open_session
from inspector.write.calls import RetryPolicy
from inspector.write.summarizers.keys import model_choices
from widgets.compaction.progress_state import NARROW_TABLE_WIDTH, RunProgress, render_progress
from widgets.compaction.run_screen import CompactRunScreen
from widgets.compaction.summarizer_form import SummarizerChoice, SummarizerForm
from widgets.screens.inspector import InspectorScreen

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
SECRET = "sk-test-never-shown-0123456789"
REPLY = "## Decisions\n- the fake model kept the rate limiter in Redis [bold]not markup[/bold]"


def _screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def _config(directory: Path, base_url: str) -> Path:
    config = directory / "openclaw.json"
    config.write_text(json.dumps({"models": {"providers": {"local": {
        "baseUrl": base_url, "api": "openai-completions", "models": [{"id": "fake-model"}]}}}}))
    return config


async def _open(ui, path: Path, config: Path, size=SIZE):
    pilot = await ui(path, config_path=config, env={"LOCAL_API_KEY": SECRET}, size=size)
    await pilot.press("X")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompactRunScreen) and screen.plan is not None
    return pilot, screen


async def _choose_known_model(pilot, screen: CompactRunScreen) -> None:
    """Pick openai, then the model openclaw.json lists (the form's two selects, as a user would)."""
    form = screen.query_one(SummarizerForm)
    form.query_one("#summarizer-name").value = "openai"
    await pilot.pause()
    form.query_one("#summarizer-known").value = "local\nfake-model"
    await settle(pilot)


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


@pytest.mark.anyio
async def test_compacts_with_a_model_on_a_fake_server_preview_then_write(tmp_path: Path, ui, state: Path) -> None:
    path = shutil.copy(DEMO, tmp_path / "demo.jsonl")
    before = Path(path).read_bytes()
    with OpenAIServer(reply=REPLY, piece=5) as srv:
        pilot, screen = await _open(ui, Path(path), _config(tmp_path, srv.base_url))
        await _choose_known_model(pilot, screen)
        shown = _screen_text(pilot.app)
        assert "provider local (explicit)" in shown and "model fake-model (explicit)" in shown
        assert "found: env LOCAL_API_KEY" in shown and SECRET not in shown
        assert "circuit breaker: closed  local  failures 0" in shown
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "preview" and screen.outcome == "dry_run"
        assert Path(path).read_bytes() == before, "the preview writes nothing"
        assert srv.requests and all(r["body"]["model"] == "fake-model" for r in srv.requests)
        headers = {k.lower(): v for k, v in srv.requests[0]["headers"].items()}
        assert headers["authorization"] == f"Bearer {SECRET}", "the key from the environment reached the server"
        assert REPLY[-20:] in screen.progress.streamed, "the streamed text reached the screen"
        shown = _screen_text(pilot.app)
        assert shown.splitlines()[0].startswith(" Preview: nothing written yet.")
        assert "Before " in shown and "After  ~" in shown and "[bold]not markup[/bold]" in shown and SECRET not in shown
        calls = len(srv.requests)
        await pilot.press("enter")
        await settle(pilot)
        assert len(srv.requests) == calls, "writing the preview makes no second model call"
    assert screen.phase == "done" and screen.outcome == "committed"
    entries = open_session(Path(path)).entries
    last = json.loads(Path(path).read_text().splitlines()[-1])
    assert last["type"] == "compaction" and last["summary"] == screen.result.entry["summary"] and REPLY in last["summary"]
    assert entries[-1].id == screen.result.commit.entry_id
    assert _screen_text(pilot.app).splitlines()[0].startswith(f" Committed {last['id']}: tokens before ")
    await pilot.press("u")
    await pilot.pause()
    assert Path(path).read_bytes() == before


@pytest.mark.anyio
async def test_compacts_with_anthropic_typed_in_the_form(tmp_path: Path, ui, state: Path) -> None:
    """The Anthropic summarizer, its base URL and model typed (not configured); the key from ANTHROPIC_API_KEY."""
    path = Path(shutil.copy(DEMO, tmp_path / "demo.jsonl"))
    config = tmp_path / "openclaw.json"
    config.write_text("{}")
    with AnthropicServer(reply=REPLY) as srv:
        pilot = await ui(path, config_path=config, env={"ANTHROPIC_API_KEY": SECRET})
        await pilot.press("X")
        await settle(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, CompactRunScreen)
        form = screen.query_one(SummarizerForm)
        form.query_one("#summarizer-name").value = "anthropic"
        await pilot.pause()
        form.query_one("#summarizer-model").focus()
        await pilot.press(*"claude-fake")
        form.query_one("#summarizer-base-url").focus()
        await pilot.press(*srv.base_url)
        await pilot.pause()
        shown = _screen_text(pilot.app)
        assert "model claude-fake (explicit)" in shown and "found: env ANTHROPIC_API_KEY" in shown and SECRET not in shown
        await pilot.press("enter")  # in the field: starts the run
        await settle(pilot)
        assert screen.phase == "preview" and srv.requests and all(r["path"] == "/v1/messages" for r in srv.requests)
        assert {r["body"]["model"] for r in srv.requests} == {"claude-fake"}
        await pilot.press("enter")
        await settle(pilot)
    assert screen.outcome == "committed" and REPLY in json.loads(path.read_text().splitlines()[-1])["summary"]


@pytest.mark.anyio
async def test_breaker_opens_on_failures_is_shown_and_reset(tmp_path: Path, ui, state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("widgets.compaction.run_screen.RetryPolicy", lambda: RetryPolicy(min_delay_ms=5, max_delay_ms=20))
    path = Path(shutil.copy(DEMO, tmp_path / "demo.jsonl"))
    before = path.read_bytes()
    with OpenAIServer(default="http500") as srv:
        pilot, screen = await _open(ui, path, _config(tmp_path, srv.base_url), size=(80, 24))
        await _choose_known_model(pilot, screen)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "failed" and screen.outcome == "failed" and len(srv.requests) == 3
        lines = _screen_text(pilot.app).splitlines()
        assert lines[0].startswith(" Nothing written (failed):"), "the result is at the top at 80x24"
        assert any(line.startswith(" circuit breaker: open  local  failures 3  cooldown") for line in lines)
        await pilot.press("enter")  # open: refused with no request
        await settle(pilot)
        assert screen.outcome == "failed" and len(srv.requests) == 3 and "circuit" in screen.result.reason
        await pilot.press("r")
        await pilot.pause()
        assert any(line.startswith(" circuit breaker: closed  local  failures 0") for line in _screen_text(pilot.app).splitlines())
        srv.default = "ok"
        await pilot.press("enter")
        await settle(pilot)
        assert screen.phase == "preview" and len(srv.requests) == 3 + screen.plan.llm_calls
    assert path.read_bytes() == before


@pytest.mark.anyio
async def test_escape_cancels_a_running_model_call(tmp_path: Path, ui, state: Path) -> None:
    path = Path(shutil.copy(DEMO, tmp_path / "demo.jsonl"))
    before = path.read_bytes()
    with OpenAIServer(default="hang") as srv:
        pilot, screen = await _open(ui, path, _config(tmp_path, srv.base_url))
        await _choose_known_model(pilot, screen)
        await pilot.press("enter")
        for _ in range(200):
            await pilot.pause(0.02)
            if srv.requests:
                break
        assert screen.phase == "running" and srv.requests
        assert _screen_text(pilot.app).splitlines()[0].startswith(" Summarizing…")
        await pilot.press("escape")
        await settle(pilot)
    assert screen.phase == "failed" and screen.outcome == "nothing_written" and "cancelled" in screen.result.reason
    assert path.read_bytes() == before and isinstance(pilot.app.screen, CompactRunScreen)


@pytest.mark.anyio
async def test_an_unusable_choice_says_why_and_runs_nothing(tmp_path: Path, ui, state: Path) -> None:
    path = Path(shutil.copy(DEMO, tmp_path / "demo.jsonl"))
    pilot, screen = await _open(ui, path, _config(tmp_path, "https://models.example.invalid/v1"))
    screen.query_one(SummarizerForm).set_choice(SummarizerChoice("openai", provider="elsewhere", model="m"))
    await pilot.pause()
    assert "cannot use this: no base URL for provider 'elsewhere'" in _screen_text(pilot.app)
    await pilot.press("enter")
    await settle(pilot)
    assert screen.phase == "setup" and screen.result is None
    assert "cannot use this summarizer" in _screen_text(pilot.app).splitlines()[2]


@pytest.mark.anyio
async def test_the_compacted_file_is_offered_and_reopened(tmp_path: Path, ui, state: Path) -> None:
    path = Path(shutil.copy(DEMO, tmp_path / "demo.jsonl"))
    pilot, screen = await _open(ui, path, _config(tmp_path, "http://127.0.0.1:9/v1"))
    await pilot.press("enter")
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot)
    assert screen.outcome == "committed" and "o: open the compacted file" in _screen_text(pilot.app)
    await pilot.press("o")
    await settle(pilot)
    top = pilot.app.screen
    assert isinstance(top, InspectorScreen) and top.path == path and top is not screen
    assert top.session is not None and top.session.entries[-1].id == screen.result.commit.entry_id


@pytest.mark.anyio
async def test_the_demo_copy_is_removed_when_the_app_quits(tmp_path: Path, state: Path) -> None:
    demo_before = DEMO.read_bytes()
    app = make_app(None, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("X")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompactRunScreen) and screen.target != DEMO and screen.target.is_file()
        assert "the bundled demo: compacting a copy" in _screen_text(app)
        copy_dir = screen.target.parent
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert screen.outcome == "committed" and copy_dir.is_dir()
    assert not copy_dir.exists(), "the temp copy went with the app"
    assert DEMO.read_bytes() == demo_before


def test_model_choices_session_first_then_openclaw_json() -> None:
    config = {"models": {"providers": {
        "local": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "models": [{"id": "a"}, {"id": "b"}]},
        "claude": {"baseUrl": "https://x.example", "api": "anthropic-messages", "models": [{"id": "c"}]},
        "bare": {"models": [{"id": "d"}]},
    }}}
    assert model_choices("openai", config, ("openrouter", "z")) == [
        ("openrouter", "z", "session"), ("local", "a", "openclaw.json models.providers.local"),
        ("local", "b", "openclaw.json models.providers.local")]
    assert model_choices("anthropic", config, ("openrouter", "z")) == [("claude", "c", "openclaw.json models.providers.claude")]
    assert model_choices("openai", None, None) == []


def test_the_stage_table_fits_80_columns() -> None:
    from rich.console import Console

    from inspector.write.events import StageFinished, StageStarted

    p = RunProgress()
    p.apply(StageStarted(at_ms=1, stage="split_turn_prefix", index=1, total=2, label="prefix", calls=3, tokens_in=123_456))
    p.apply(StageFinished(at_ms=2, stage="split_turn_prefix", status="fallback", tokens_in=123_456, tokens_out=9_999, elapsed_ms=12_345))
    console = Console(width=76, record=True, color_system=None)
    console.print(render_progress(p, 80))
    lines = console.export_text().splitlines()
    assert 80 < NARROW_TABLE_WIDTH and all(len(line) <= 76 for line in lines)
    assert any("split_turn_prefix" in line and "fallback" in line and "123,456" in line and "12.3s" in line for line in lines)


# -- snapshots ---------------------------------------------------------------------------------------------------


def _pinned(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A small session in the cwd; run timings and the new entry's id pinned, the breaker state in tmp."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SESSION_INSPECTOR_STATE_DIR", str(tmp_path / "state"))
    fixed = types.SimpleNamespace(monotonic=lambda: 100.0, time=lambda: 1_767_350_000.0, sleep=lambda s: None)
    monkeypatch.setattr("inspector.write.runner.time", fixed)
    monkeypatch.setattr("inspector.write.staged.time", fixed)
    monkeypatch.setattr("inspector.write.sessionfile.uuid", types.SimpleNamespace(uuid4=lambda: uuid.UUID(int=0xC0FFEE)))
    basic_builder().write(Path("s.jsonl"))
    Path("openclaw.json").write_text(json.dumps({
        "agents": {"defaults": {"compaction": {"keepRecentTokens": 300}}},
        "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "models": [{"id": "fake-model"}]}}},
    }))
    return Path("s.jsonl")


def _keys(*keys: str, model: bool = False):
    async def run_before(pilot) -> None:
        await settle(pilot)
        await pilot.press("X")
        await settle(pilot)
        if model:
            await _choose_known_model(pilot, pilot.app.screen)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run_before


def _snap(snap_compare, path: Path, size: tuple[int, int], run_before) -> bool:
    return bool(snap_compare(make_app(path, config_path=Path("openclaw.json"), env={"LOCAL_API_KEY": SECRET}), terminal_size=size,
                             run_before=run_before))


def test_snapshot_setup_with_a_model_80x24(snap_compare, monkeypatch, tmp_path):
    """80x24, openai picked with openclaw.json's local/fake-model: the headline at the top, the breaker closed for
    `local`, the form (provider, model, base URL and where each came from, the key found in LOCAL_API_KEY, never shown),
    then the plan below."""
    assert _snap(snap_compare, _pinned(monkeypatch, tmp_path), (80, 24), _keys(model=True))


def test_snapshot_preview_120x40(snap_compare, monkeypatch, tmp_path):
    """120x40 after Enter with `rules`: "Preview: nothing written yet" at the top, the full stage table, Before/After
    (summarized, kept, the summary's characters) and the summary text."""
    assert _snap(snap_compare, _pinned(monkeypatch, tmp_path), (120, 40), _keys("enter"))


def test_snapshot_result_at_top_120x40(snap_compare, monkeypatch, tmp_path):
    """120x40 after the write: "Committed 00000000: tokens before … → after ~…" first, u/o/esc under it."""
    assert _snap(snap_compare, _pinned(monkeypatch, tmp_path), (120, 40), _keys("enter", "enter"))


def test_snapshot_result_at_top_80x24(snap_compare, monkeypatch, tmp_path):
    """80x24 after the write: the result first, the narrow stage table (no column cut), the preview below."""
    assert _snap(snap_compare, _pinned(monkeypatch, tmp_path), (80, 24), _keys("enter", "enter"))
