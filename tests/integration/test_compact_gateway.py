"""`compact` on a session of an OpenClaw 2026.9 SQLite store goes through the Gateway's `sessions.compact` and never
writes the store: against the real `openclaw gateway run` (its model a fake OpenAI-compatible server; skipped without
the oracle), and against a Python Gateway replaying an exchange recorded from the real one
(`tests/gateway_replay.py`): the connect frame, the result shown, refusals, no Gateway."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace

import pytest
from gateway_replay import COMPACTED, CONNECT_SENT, DEMO, KEY, TOKEN, env_for, recorded_setup, sha, write_config
from inprocess import run_cli
from llm_servers import OpenAIServer
from oracle.openclaw_2026_9 import openclaw_2026_9  # noqa: F401
from oracle.openclaw_gateway import free_port, running_gateway
from store_support import build_store, dump_session

from inspector.host.discovery.stores import choose_session
from inspector.host.gateway.compact import CANCELLED_REASON, CallCancel, compact_store_session
from inspector.host.gateway.request import NotCompactable, gateway_session


def test_compact_goes_through_the_gateway_and_shows_the_entry_it_wrote(tmp_path):
    with recorded_setup(tmp_path) as (store, gw):
        r = run_cli(["compact", store, "--session", KEY, "--yes", "--json"], env=env_for(tmp_path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["via"] == "gateway" and out["status"] == "committed" and out["changed"] is True
    assert out["gateway"] == {"url": f"ws://127.0.0.1:{gw.port}", "url_source": "local loopback", "auth": "token", "reachable": True,
                              "server_version": "2026.9.6", "has_method": True}
    assert out["request"] == {"method": "sessions.compact", "params": {"key": KEY}}
    result = COMPACTED["payload"]["result"]
    assert out["entry"]["id"] == "gw-compaction-1" and out["entry"]["summary"] == result["summary"]
    assert (out["tokens_before"], out["tokens_after"], out["first_kept_entry_id"]) == (122237, 11978, "2a3ebfa8")
    assert out["summary_chars"] == len(result["summary"]) and "summary" not in out["response"]["result"]
    connect = gw.received[0]["params"]
    assert connect["client"]["id"] == CONNECT_SENT["params"]["client"]["id"] == "cli"
    assert connect["client"]["mode"] == "cli" and connect["role"] == "operator" and connect["scopes"] == ["operator.admin"]
    assert connect["minProtocol"] == connect["maxProtocol"] == 4 and "device" not in connect
    assert connect["auth"] == {"token": TOKEN}
    assert gw.received[1]["method"] == "sessions.compact" and gw.received[1]["params"] == {"key": KEY}
    assert TOKEN not in r.stdout + r.stderr


def test_text_output_names_entry_tokens_and_summary(tmp_path):
    with recorded_setup(tmp_path) as (store, gw):
        r = run_cli(["compact", store, "--session", KEY, "--yes"], env=env_for(tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"Compacted {store} session {KEY} through the Gateway at ws://127.0.0.1:{gw.port}: entry gw-compaction-1, first kept 2a3ebfa8" in r.stdout
    assert "tokens before 122,237  after ~11,978  summary" in r.stdout and "(Gateway 2026.9.6)" in r.stdout


def test_no_gateway_is_exit_2_with_the_command_to_start_it_and_nothing_written(tmp_path):
    store, _ = build_store(tmp_path, {KEY: DEMO})
    port = free_port()
    write_config(tmp_path, port)
    before = sha(store)
    for extra in (["--yes"], ["--yes", "--json"], ["--dry-run"]):
        r = run_cli(["compact", store, "--session", KEY, *extra], env=env_for(tmp_path))
        assert r.returncode == 2, (extra, r.stdout, r.stderr)
        assert f"no Gateway is running at ws://127.0.0.1:{port}: start it with `openclaw gateway run`" in r.stderr
        assert TOKEN not in r.stdout + r.stderr
    assert sha(store) == before


def test_dry_run_tells_what_would_be_sent_and_sends_nothing(tmp_path):
    with recorded_setup(tmp_path) as (store, gw):
        before = sha(store)
        r = run_cli(["compact", store, "--dry-run", "--json"], env=env_for(tmp_path))
        text = run_cli(["compact", store, "--dry-run"], env=env_for(tmp_path))
    assert r.returncode == 0 and text.returncode == 0, r.stderr + text.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "dry_run" and out["gateway"]["reachable"] is True and out["request"]["params"] == {"key": KEY}
    assert out["entry"] is None and out["response"] is None
    assert [m.get("method") for m in gw.received] == ["connect", "connect"]  # connected, never called
    assert 'sessions.compact {"key": "agent:main:main"}' in text.stdout and "reachable (OpenClaw 2026.9.6)" in text.stdout
    assert sha(store) == before


def test_a_wrong_token_is_refused_clearly_without_showing_it(tmp_path):
    with recorded_setup(tmp_path, token="the-gateway-token") as (store, _gw):
        r = run_cli(["compact", store, "--yes"], env=env_for(tmp_path))
        dry = run_cli(["compact", store, "--dry-run", "--json"], env=env_for(tmp_path))
    assert r.returncode == 2 and dry.returncode == 2
    assert "refused: unauthorized: gateway token mismatch" in r.stderr
    assert json.loads(dry.stdout)["error"]["detail_code"] == "AUTH_TOKEN_MISMATCH"
    assert TOKEN not in r.stdout + r.stderr + dry.stdout + dry.stderr


def test_a_failed_gateway_compaction_is_nothing_written(tmp_path):
    failed = {"ok": False, "key": KEY, "compacted": False, "reason": "Already compacted"}
    with recorded_setup(tmp_path, response=failed) as (store, _gw):
        before = sha(store)
        r = run_cli(["compact", store, "--yes", "--json"], env=env_for(tmp_path))
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert out["status"] == "nothing_written" and "Already compacted" in out["reason"] and out["entry"] is None
    assert sha(store) == before


def test_refusals_before_anything_is_sent(tmp_path):
    with recorded_setup(tmp_path) as (store, gw):
        no_yes = run_cli(["compact", store], env=env_for(tmp_path))
        own = run_cli(["compact", store, "--yes", "--summarizer", "openai", "--truncate"], env=env_for(tmp_path))
        unknown = run_cli(["compact", store, "--session", "agent:main:gone", "--yes"], env=env_for(tmp_path))
        undo = run_cli(["undo", store], env=env_for(tmp_path))
        other_state = run_cli(["compact", store, "--yes"], env=env_for(tmp_path, OPENCLAW_STATE_DIR=str(tmp_path / "elsewhere")))
    assert no_yes.returncode == 2 and "pass --yes" in no_yes.stderr
    assert own.returncode == 2 and "--summarizer, --truncate: not for a store session" in own.stderr
    assert unknown.returncode == 2 and "no session 'agent:main:gone'" in unknown.stderr
    assert undo.returncode == 2 and "never written" in undo.stderr
    assert other_state.returncode == 2 and "not the store of OpenClaw's state dir" in other_state.stderr
    assert gw.received == []


def test_real_gateway_compacts_the_store_with_the_fake_model(tmp_path, openclaw_2026_9):  # noqa: F811
    """The real `openclaw gateway run` (2026.9.6): our `compact --yes --json` makes it summarize with the fake
    server, the store gets the compaction, and we show the entry read back from the store. ~20-40 s."""
    home = tmp_path / "home"
    home.mkdir()
    store = openclaw_2026_9.import_store({KEY: DEMO}, home)
    with OpenAIServer(reply="## Decisions\nSUMMARY-FROM-THE-FAKE-SERVER") as llm, running_gateway(openclaw_2026_9, home, llm.base_url) as gw:
        dry = run_cli(["compact", store, "--session", KEY, "--dry-run", "--json"], env=gw.client_env())
        r = run_cli(["compact", store, "--session", KEY, "--yes", "--json"], env=gw.client_env())
        again = run_cli(["compact", store, "--session", KEY, "--yes", "--json"], env=gw.client_env())
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["gateway"]["server_version"] == "2026.9.6"
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:], gw.log.read_text()[-3000:])
    out = json.loads(r.stdout)
    assert out["via"] == "gateway" and out["status"] == "committed" and out["gateway"]["url"] == gw.url
    assert llm.requests and all(q["path"] == "/v1/chat/completions" for q in llm.requests)
    assert "SUMMARY-FROM-THE-FAKE-SERVER" in out["entry"]["summary"]
    assert out["entry"]["firstKeptEntryId"] == out["first_kept_entry_id"] and out["tokens_before"] > out["tokens_after"] > 0
    dump = dump_session(store, choose_session(store, KEY).session_id, tmp_path / "after.jsonl")
    in_store = [json.loads(line) for line in dump.read_text().splitlines() if '"compaction"' in line]
    assert in_store[-1]["id"] == out["entry"]["id"] and "SUMMARY-FROM-THE-FAKE-SERVER" in in_store[-1]["summary"]
    assert again.returncode == 1 and json.loads(again.stdout)["status"] == "nothing_written"  # "Already compacted"
    assert gw.token not in r.stdout + r.stderr + dry.stdout + again.stdout


def test_a_cancelled_wait_closes_the_connection_and_says_the_gateway_may_still_compact(tmp_path):
    """`CallCancel` from another thread while the Gateway holds its answer: the call returns at once, `failed` with
    `error.kind` `cancelled`, and the store is untouched (the held Gateway wrote nothing)."""
    with recorded_setup(tmp_path, hold=True) as (store, gw):
        before = sha(store)
        where = gateway_session(store, choose_session(store, KEY), env=env_for(tmp_path))
        run = where.compaction(json.loads((tmp_path / ".openclaw" / "openclaw.json").read_text()))
        cancel = CallCancel()
        done = threading.Event()
        threading.Thread(target=lambda: (compact_store_session(run, 5, None, cancel), done.set()), daemon=True).start()
        for _ in range(200):
            if any(m.get("method") == "sessions.compact" for m in gw.received):
                break
            time.sleep(0.01)
        assert not done.is_set(), "the Gateway holds its answer: the call waits"
        started = time.monotonic()
        cancel.cancel()
        assert done.wait(5) and time.monotonic() - started < 3
    assert run.status == "failed" and run.error == {"kind": "cancelled"} and run.problem == CANCELLED_REASON
    assert "may still compact" in run.reason and sha(store) == before


def test_a_store_outside_the_state_dir_or_without_key_is_not_compactable(tmp_path):
    store, _ = build_store(tmp_path, {KEY: DEMO})
    session = choose_session(store, KEY)
    assert gateway_session(store, session, env=env_for(tmp_path)).session_key == KEY
    with pytest.raises(NotCompactable, match="not the store of OpenClaw's state dir"):
        gateway_session(store, session, env=env_for(tmp_path, OPENCLAW_STATE_DIR=str(tmp_path / "elsewhere")))
    with pytest.raises(NotCompactable, match="has no key"):
        gateway_session(store, replace(session, session_key=None), env=env_for(tmp_path))
