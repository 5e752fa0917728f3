"""The LLM path under attack (issue 28), against hostile servers on 127.0.0.1 through the official `openai` and
`anthropic` SDKs: a stream cut short is an error (never a summary), the key a server echoes back never reaches the
session, a file, the output or an event, and a server's terminal escapes are shown inert in the CLI's lines, in
`--json` (as `\\u` escapes) and in the UI's run log."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from hostile_llm_servers import RAW_CONTROLS, HostileAnthropicServer, HostileOpenAIServer
from inprocess import run_cli
from rich.console import Console

from inspector.rules.openclaw_2026_4_12.compaction.prompts import history_prompt
from inspector.write.calls import RetryPolicy
from inspector.write.events import RunEvent, TextStreamed
from inspector.write.runner import RunOptions, run_compaction
from inspector.write.summarizers import ProviderError, SummaryRequest, make_summarizer, summarize
from widgets.compaction.progress_state import RunProgress, render_progress

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
KEYS = {"openai": "sk-proj-Hq3vX9tLeakCanary7Ow2", "anthropic": "sk-ant-api03-Wb8kLeakCanary5Rz"}
SERVERS = [(HostileOpenAIServer, "openai"), (HostileAnthropicServer, "anthropic")]
IDS = ["openai", "anthropic"]
FAST = RetryPolicy(min_delay_ms=1, max_delay_ms=1, jitter=0)
REQ = SummaryRequest("history", ({"role": "user", "content": "hi", "timestamp": 1},),
                     history_prompt([{"role": "user", "content": "hi", "timestamp": 1}], 16384))


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    p = tmp_path / "demo" / DEMO.name
    p.parent.mkdir()
    shutil.copy(DEMO, p)
    return p


def _env(home: Path, kind: str) -> dict[str, str]:
    """A clean environment: this HOME for every state, cache and config file, the key in the provider's variable."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SESSION_INSPECTOR_", "XDG_", "OPENAI_", "ANTHROPIC_", "OPENCLAW_"))}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), COLUMNS="120")
    env[f"{kind.upper()}_API_KEY"] = KEYS[kind]
    return env


def _compact(session: Path, kind: str, base_url: str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`compact` in this process (`inprocess.run_cli`: the same output, no second import of the SDKs)."""
    return run_cli(["compact", session, "--summarizer", kind, "--base-url", base_url, "--model", "m1", *args], env=_env(home, kind))


# ----------------------------------------------------------------------------------------------- 6. cut short


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_a_stream_cut_short_is_an_error_retried_and_never_written(server_cls: Any, kind: str, demo: Path) -> None:
    before = demo.read_bytes()
    with server_cls(default="cut_short") as srv:
        s = make_summarizer(kind, base_url=srv.base_url, api_key=KEYS[kind], model="m1", env={})  # type: ignore[arg-type]
        with pytest.raises(ProviderError) as info:
            summarize(s, REQ)
        assert (info.value.kind, info.value.retryable) == ("incomplete", True)
        assert "cut short" in info.value.message
        # A run: every call is retried (3 attempts), then the fallback chain; the half summary is never written.
        n = len(srv.requests)
        res = run_compaction(demo, RunOptions(summarizer=s, retry_policy=FAST))
        assert res.status == "nothing_written" and "summary_unavailable" in res.fallbacks
        assert len(srv.requests) - n >= 3 and res.retries >= 2
        assert demo.read_bytes() == before
        # the same server, streams whole: the run commits (the check does not refuse good streams)
        srv.default = "ok"
        res = run_compaction(demo, RunOptions(summarizer=s, retry_policy=FAST))
        assert res.status == "committed" and res.entry is not None and res.entry["summary"].startswith(srv.reply)
        if kind == "openai":  # `data: [DONE]` ends a chat-completions stream too, even with no finish_reason
            srv.default = "done_without_finish"
            assert summarize(s, REQ).text == "## Decisions\nhalf of a summary and then"


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_no_compression_is_asked_and_a_compressed_reply_is_refused(server_cls: Any, kind: str) -> None:
    with server_cls(default="gzip_stream") as srv:
        s = make_summarizer(kind, base_url=srv.base_url, api_key=KEYS[kind], model="m1", env={})  # type: ignore[arg-type]
        with pytest.raises(ProviderError) as info:
            summarize(s, REQ)
        headers = {k.lower(): v for k, v in srv.requests[0]["headers"].items()}
    assert headers["accept-encoding"] == "identity"
    assert (info.value.kind, info.value.retryable) == ("malformed", False) and "Content-Encoding: gzip" in info.value.message


# ----------------------------------------------------------------------------------------------- 10. error text


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_an_error_text_is_kept_short_and_marked_as_cut(server_cls: Any, kind: str) -> None:
    with server_cls(default="huge_error") as srv:
        srv.huge_bytes = 20_000  # a whole (JSON) error body, with a 20,000-character message
        s = make_summarizer(kind, base_url=srv.base_url, api_key=KEYS[kind], model="m1", env={})  # type: ignore[arg-type]
        with pytest.raises(ProviderError) as info:
            summarize(s, REQ)
    e = info.value
    assert (e.status, e.retryable) == (500, True)
    assert "EEEE\u2026 [" in e.message and e.message.endswith(" more characters cut]")
    assert len(e.message) < 400 and len(str(e.to_json())) < 600


# ----------------------------------------------------------------------------------------------- 7. the key


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_streamed_pieces_and_events_never_carry_the_key(server_cls: Any, kind: str, demo: Path) -> None:
    key = KEYS[kind]
    events: list[RunEvent] = []
    with server_cls(default="echo_key_summary") as srv:
        s = make_summarizer(kind, base_url=srv.base_url, api_key=key, model="m1", env={})  # type: ignore[arg-type]
        res = run_compaction(demo, RunOptions(summarizer=s, retry_policy=FAST, dry_run=True), events.append)
    assert res.status == "dry_run"
    streamed = "".join(e.text for e in events if isinstance(e, TextStreamed))
    assert key not in streamed and key[-12:] not in streamed  # the key came split over pieces: no piece, nor their join
    assert "the client authenticated with" in streamed and "[redacted]" in streamed
    dumped = json.dumps([e.to_json() for e in events]) + json.dumps(res.to_json())
    assert key not in dumped and key[-12:] not in dumped


# ----------------------------------------------------------------------------------------------- 9. escapes


def _no_raw_controls(text: str, where: str) -> None:
    raw = sorted({f"U+{ord(c):04X}" for c in text if c in RAW_CONTROLS or 0x80 <= ord(c) <= 0x9F})
    assert raw == [], f"{where}: {raw}"


@pytest.mark.parametrize(("server_cls", "kind"), SERVERS, ids=IDS)
def test_server_escapes_are_inert_in_the_cli_lines_the_json_and_the_ui_log(server_cls: Any, kind: str, demo: Path,
                                                                             tmp_path: Path) -> None:
    before = demo.read_bytes()
    with server_cls(default="inject_error") as srv:
        # retry lines, the breaker, the fallback line: all carry the server's error text
        text = _compact(demo, kind, srv.base_url, tmp_path / "h1", "--yes")
        # the UI's run log, folded from the same events
        s = make_summarizer(kind, base_url=srv.base_url, api_key=KEYS[kind], model="m1", env={})  # type: ignore[arg-type]
        progress = RunProgress()
        res = run_compaction(demo, RunOptions(summarizer=s, retry_policy=FAST), progress.apply)
        srv.default = "inject_summary"
        as_json = _compact(demo, kind, srv.base_url, tmp_path / "h2", "--dry-run", "--json")
        dry_text = _compact(demo, kind, srv.base_url, tmp_path / "h3", "--dry-run")
    assert demo.read_bytes() == before
    err = text.stderr
    assert "retry 1/3" in err and "fallback summary_unavailable" in err and "PWNED-TITLE" in err  # the lines were shown
    assert re.search(r"\\x1b\]0;PWNED-TITLE", err)  # ... with the escapes visible, not obeyed
    for name, data in (("text stdout", text.stdout), ("text stderr", text.stderr), ("json stdout", as_json.stdout),
                       ("json stderr", as_json.stderr), ("dry-run stdout", dry_text.stdout), ("dry-run stderr", dry_text.stderr)):
        _no_raw_controls(data, name)
    assert as_json.returncode == 0, as_json.stderr
    summary = json.loads(as_json.stdout)["entry"]["summary"]
    assert "\x1b]0;PWNED-TITLE\x07" in summary and "\u202e" in summary and "\x9b" in summary  # the data is intact, only escaped
    assert "\\u009b" in as_json.stdout and "\\u202e" in as_json.stdout and "\\u200f" in as_json.stdout
    # the UI: every note and the outcome, rendered
    assert res.status in ("nothing_written", "failed") and progress.notes
    console = Console(width=120, record=True, color_system=None, force_terminal=False, file=open(os.devnull, "w"))
    console.print(render_progress(progress))
    shown = console.export_text()
    assert "PWNED-TITLE" in shown
    _no_raw_controls(shown, "UI run log")
