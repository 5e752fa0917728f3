"""Claude Code and Codex transcripts (issue 26): each quirk of the formats with exact figures on hand-written files,
the JSON contract (`format`, `compactions` with `trigger` / `tokens_before`, `assistant_calls`, `usage_tokens`,
`context_window.tokens`), line numbers that are the file's, files appended to, and every corpus file through every
headless command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assistant, corpus_file, header, msg, user, write_lines
from inprocess import run_cli

from inspector.read.formats.mirror import sync_foreign
from inspector.session.session import open_session

TS = "2026-01-01T00:00:00.000Z"
USAGE = {"input_tokens": 3, "cache_creation_input_tokens": 200, "cache_read_input_tokens": 5000, "output_tokens": 4}


def cli(*args):
    return run_cli([str(a) for a in args])


def stats(path: Path) -> dict:
    r = cli("stats", path, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def cc(uuid, parent, kind, content=None, **extra):
    line = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, "timestamp": TS, **extra}
    if content is not None:
        line["message"] = {"role": kind, "content": content}
    return line


def ca(uuid, parent, blocks, mid, usage=USAGE, **extra):
    line = cc(uuid, parent, "assistant", **extra)
    line["requestId"] = f"req-{mid}"
    line["message"] = {"id": mid, "model": "claude-opus-4-6", "role": "assistant", "content": blocks, "stop_reason": None, "usage": usage}
    return line


def write(path: Path, objs) -> Path:
    path.write_text("".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs), encoding="utf-8")
    return path


def text(t):
    return [{"type": "text", "text": t}]


# --- Claude Code ---------------------------------------------------------------------------------------------

def test_split_api_message_is_one_call_with_the_prompt_of_its_usage(tmp_path):
    p = write(tmp_path / "s.jsonl", [
        {"type": "file-history-snapshot", "messageId": "u1", "snapshot": {}, "isSnapshotUpdate": False},
        cc("u1", None, "user", "run it"),
        ca("a1", "u1", [{"type": "thinking", "thinking": "hmm", "signature": "sig"}], "m1"),
        ca("a2", "a1", text("Running."), "m1"),
        ca("a3", "a2", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}], "m1"),
        cc("r1", "a3", "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}], toolUseResult={"stdout": "a.txt"}),
    ])
    d = stats(p)
    assert d["format"] == "claude-code" and d["file"] == str(p)
    assert d["usage"]["active_path"]["assistant_calls"] == 1  # three lines, one API message
    assert d["context"]["estimate_context_tokens"]["usage_tokens"] == 3 + 200 + 5000
    assert d["entries"]["by_role"] == {"assistant": 3, "toolResult": 1, "user": 1}
    ctx = json.loads(cli("context", p, "--json").stdout)
    rows = [(r["line"], r["role"], r.get("tool_name")) for r in ctx["messages"]]
    assert rows == [(2, "user", None), (3, "assistant", None), (4, "assistant", None), (5, "assistant", "Bash"), (6, "toolResult", "Bash")]


def test_compact_boundary_starts_the_context_and_is_listed_with_trigger_and_tokens_before(tmp_path):
    p = write(tmp_path / "s.jsonl", [
        cc("u1", None, "user", "x" * 4000),
        ca("a1", "u1", text("long answer"), "m1"),
        {**cc("cb", None, "system"), "subtype": "compact_boundary", "logicalParentUuid": "a1", "content": "Conversation compacted",
         "compactMetadata": {"trigger": "manual", "preTokens": 123456}},
        cc("cs", "cb", "user", "This session is being continued. Summary: twelve chars", isCompactSummary=True, isVisibleInTranscriptOnly=True),
        cc("u2", "cs", "user", "go on"),
        ca("a2", "u2", text("ok"), "m2", usage={"input_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 990, "output_tokens": 1}),
    ])
    d = stats(p)
    assert [(c["line"], c["trigger"], c["tokens_before"], c["boundary_line"], c["in_force"]) for c in d["compactions"]] == [(4, "manual", 123456, 3, True)]
    assert d["tree"]["path_length"] == 6  # the history before the boundary stays on the path (logicalParentUuid) ...
    ctx = json.loads(cli("context", p, "--json").stdout)
    assert [(r["line"], r["role"]) for r in ctx["messages"]] == [(4, "compactionSummary"), (5, "user"), (6, "assistant")]  # ... not in the context
    assert d["context"]["estimate_context_tokens"]["usage_tokens"] == 1000
    assert d["usage"]["active_path"]["assistant_calls"] == 2


def test_rewind_keeps_the_later_branch_and_sidechains_stay_off_the_context(tmp_path):
    p = write(tmp_path / "s.jsonl", [
        cc("u1", None, "user", "start"),
        ca("a1", "u1", text("ready"), "m1"),
        cc("b1", "a1", "user", "first try"),
        ca("b1a", "b1", text("first answer"), "m2"),
        {**cc("s1", None, "user", "subagent prompt"), "isSidechain": True},
        {**ca("s1a", "s1", text("subagent answer"), "m3"), "isSidechain": True},
        cc("b2", "a1", "user", "second try"),
        ca("b2a", "b2", text("second answer"), "m4"),
        {**cc("p1", "b2a", "progress"), "data": {"type": "hook_progress"}},
        {"type": "queue-operation", "operation": "enqueue", "content": "typed meanwhile"},
    ])
    d = stats(p)
    ctx = json.loads(cli("context", p, "--json").stdout)
    assert [r["line"] for r in ctx["messages"]] == [1, 2, 7, 8]
    assert d["usage"]["active_path"]["assistant_calls"] == 2
    assert d["usage"]["all_entries"]["assistant_calls"] == 3  # the sidechain's assistant is no call of this conversation
    assert d["entries"]["by_type"]["custom"] == 4  # sidechain x2, progress, queue-operation kept and shown


def test_older_files_with_null_parents_read_in_file_order_and_unknown_lines_are_kept(tmp_path):
    p = write(tmp_path / "s.jsonl", [
        cc("m1", None, "user", "hello"),
        ca("m2", None, text("hi"), "x1"),
        "",
        "not json at all",
        {"type": "brand-new-line-type", "payload": {"x": 1}},
        cc("m3", None, "user", "again"),
        {"type": "summary", "summary": "a title for another session", "leafUuid": "elsewhere"},
    ])
    d = stats(p)
    ctx = json.loads(cli("context", p, "--json").stdout)
    assert [r["line"] for r in ctx["messages"]] == [1, 2, 6]  # the file's line numbers, blank and broken lines counted
    assert d["entries"]["by_type"] == {"custom": 2, "message": 3}
    assert any(x["line"] == 4 and x["kind"] == "unparseable" for x in d["diagnostics"])
    s = open_session(sync_foreign(p, "claude-code").path)
    kept = {e.line: e.data["customType"] for e in s.entries if e.type == "custom"}
    assert kept == {5: "claude-code:brand-new-line-type", 7: "claude-code:summary"}


def test_a_file_is_never_written_and_openclaw_features_do_not_apply(tmp_path):
    p = write(tmp_path / "s.jsonl", [cc("u1", None, "user", "hi"), ca("a1", "u1", text("yo"), "m1")])
    before = p.read_bytes()
    for command in ("compact", "undo"):
        r = cli(command, p)
        assert r.returncode == 2 and "never written" in r.stderr, (command, r.stderr)
    for command in ("prune", "plan"):
        r = cli(command, p, "--json")
        assert r.returncode == 0
        data = json.loads(r.stdout)
        assert data["applies"] is False and "does not apply" in data["reason"] and data["format"] == "claude-code"
        r = cli(command, p)
        assert r.returncode == 0 and "does not apply" in r.stdout
    assert p.read_bytes() == before


def test_attachments_sent_to_the_model_count_and_the_others_are_metadata_rows(tmp_path):
    def att(uuid, parent, attachment):
        return {**cc(uuid, parent, "attachment"), "attachment": attachment}

    p = write(tmp_path / "s.jsonl", [
        cc("u1", None, "user", "hi"),
        att("h1", "u1", {"type": "hook_additional_context", "content": ["x" * 200, "y" * 199], "hookName": "SessionStart"}),
        att("h2", "h1", {"type": "hook_success", "content": "z" * 4000, "hookName": "Stop", "exitCode": 0}),
        att("e1", "h2", {"type": "edited_text_file", "filename": "/a.py", "snippet": "w" * 200}),
        att("k1", "e1", {"type": "some_future_kind", "content": "v" * 4000}),
        ca("a1", "k1", text("ok"), "m1"),
    ])
    ctx = json.loads(cli("context", p, "--json").stdout)
    rows = [(r["line"], r["role"], r["estimates"]["pi_tokens"]) for r in ctx["messages"]]
    edited = len(json.dumps({"type": "edited_text_file", "filename": "/a.py", "snippet": "w" * 200}, separators=(",", ":")))
    assert rows == [(1, "user", 1), (2, "custom", 100), (4, "custom", -(-edited // 4)), (6, "assistant", 1)]
    d = stats(p)
    assert d["entries"]["by_type"] == {"message": 2, "custom_message": 2, "custom": 2}  # hook output and the unknown kind: shown, not sent
    assert d["tree"]["path_length"] == 6 and d["tree"]["off_path_entries"] == 0  # every row kept in the chain, in place


# --- Codex -------------------------------------------------------------------------------------------------------

def cx(kind, payload, ts=TS):
    return {"timestamp": ts, "type": kind, "payload": payload}


def cmsg(role, t):
    return cx("response_item", {"type": "message", "role": role, "content": [{"type": "input_text" if role != "assistant" else "output_text", "text": t}]})


def token_count(inp, cached, out, window=258400):
    last = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out, "reasoning_output_tokens": 0, "total_tokens": inp + out}
    return cx("event_msg", {"type": "token_count", "info": {"total_token_usage": last, "last_token_usage": last, "model_context_window": window}})


def test_codex_token_count_is_the_call_usage_and_the_window(tmp_path):
    p = write(tmp_path / "rollout.jsonl", [
        cx("session_meta", {"id": "x", "model_provider": "openai", "base_instructions": {"text": "be brief"}}),
        cx("turn_context", {"model": "gpt-5.1", "cwd": "/w"}),
        cmsg("user", "list files"),
        cx("response_item", {"type": "function_call", "name": "shell", "arguments": "{\"command\": [\"ls\"]}", "call_id": "c1"}),
        token_count(1000, 800, 20),
        cx("response_item", {"type": "function_call_output", "call_id": "c1", "output": "a.txt"}),
        cmsg("assistant", "a.txt"),
        token_count(1100, 1000, 5),
        cx("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        cx("something_new", {"x": 1}),
    ])
    d = stats(p)
    assert d["format"] == "codex" and d["context_window"]["tokens"] == 258400
    assert d["context_window"]["source"] == "session file (model_context_window)"
    assert d["usage"]["active_path"]["assistant_calls"] == 2
    assert d["context"]["estimate_context_tokens"]["usage_tokens"] == 1100  # cached is part of input
    assert d["usage"]["active_path"]["cacheRead"] == 1800 and d["usage"]["active_path"]["input"] == 300
    assert d["model"] == {"provider": "openai", "modelId": "gpt-5.1"}
    ctx = json.loads(cli("context", p, "--json").stdout)
    assert [(r["line"], r["role"], r.get("tool_name")) for r in ctx["messages"]] == [  # real messages only: no empty rows
        (3, "user", None), (4, "assistant", "shell"), (6, "toolResult", "shell"), (7, "assistant", None)]
    t = json.loads(cli("timeline", p, "--json").stdout)
    assert [(c["line"], c["prompt_tokens"]) for c in t["calls"]] == [(4, 1000), (7, 1100)]  # on the responses they measure
    s = open_session(sync_foreign(p, "codex").path)
    kinds = {e.line: (e.type, e.data.get("customType")) for e in s.entries if e.type != "message"}
    assert kinds[5] == kinds[8] == ("custom", "codex:event_msg/token_count") and kinds[2][0] == "model_change"


def test_codex_base_instructions_are_a_metadata_row_named_in_the_overhead_not_the_transcript(tmp_path):
    from inspector.read.formats.mirror import sync_foreign as mirror_of
    from widgets.transcript.previews import entry_preview_text

    p = write(tmp_path / "rollout.jsonl", [
        cx("session_meta", {"id": "x", "model_provider": "openai", "base_instructions": {"text": "You are Codex. " * 400}}),
        cx("turn_context", {"model": "gpt-5.1", "cwd": "/w"}),
        cmsg("user", "list files"),
        cmsg("assistant", "a.txt"),
        token_count(9000, 0, 5),
        cmsg("user", "and more"),
        cmsg("assistant", "b.txt"),
        token_count(9100, 9000, 5),
    ])
    t = json.loads(cli("timeline", p, "--json").stdout)["attribution"]
    assert (t["recorded_system_prompt_tokens"], t["recorded_system_prompt_chars"], t["recorded_system_prompt_line"]) == (1500, 6000, 1)
    assert t["baseline_overhead_beyond_recorded_prompt"] == t["baseline_overhead"] - 1500
    ctx = json.loads(cli("context", p, "--json").stdout)
    assert [r["line"] for r in ctx["messages"]] == [3, 4, 6, 7]  # the system prompt is no transcript message
    assert "recorded system prompt (session_meta.base_instructions, line 1): 6,000 chars ≈ 1,500 tokens" in cli("timeline", p).stdout
    meta_row = open_session(mirror_of(p, "codex").path).entries[0]
    assert entry_preview_text(meta_row).startswith("codex:session_meta: system prompt (base_instructions) 6,000 chars ≈ 1,500 tok")
    u = {"input": 9000, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 9005}
    oc = write_lines(tmp_path / "openclaw.jsonl", [header(), msg("m1", None, user("hi")), msg("m2", "m1", assistant(usage=u))])
    openclaw = json.loads(cli("timeline", oc, "--json").stdout)["attribution"]
    assert "baseline_overhead" in openclaw and not [k for k in openclaw if "recorded" in k]  # an OpenClaw file records none


def test_codex_compacted_with_replacement_history_is_the_new_context(tmp_path):
    history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "R" * 400}]},
               {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "S" * 400}]}]
    p = write(tmp_path / "rollout.jsonl", [
        cx("turn_context", {"model": "gpt-5.1"}),
        cmsg("user", "u" * 8000),
        token_count(5000, 0, 10),
        cx("compacted", {"message": "summary", "replacement_history": history}),
        cx("event_msg", {"type": "context_compacted"}),
        cmsg("user", "next"),
    ])
    d = stats(p)
    assert [(c["line"], c["trigger"], c["tokens_before"]) for c in d["compactions"]] == [(4, None, None)]
    ctx = json.loads(cli("context", p, "--json").stdout)
    assert [(r["line"], r["role"]) for r in ctx["messages"]] == [(4, "compactionSummary"), (6, "user")]
    summary = ctx["messages"][0]["estimates"]["pi_tokens"]
    assert 200 <= summary < 400  # the 800 characters of the replacement history (plus pi's summary wrapper), not the 8000 before


def test_codex_compacted_without_history_keeps_the_recent_user_messages(tmp_path):
    p = write(tmp_path / "rollout.jsonl", [
        cmsg("user", "<environment_context>cwd</environment_context>"),
        cmsg("user", "a" * 400),
        cmsg("assistant", "b" * 4000),
        cx("compacted", {"message": "c" * 40}),
    ])
    s = open_session(sync_foreign(p, "codex").path)
    comp = next(e for e in s.entries if e.type == "compaction")
    assert comp.line == 4 and comp.data["summary"] == "a" * 400 + "\n\n" + "c" * 40


# --- files that grow -----------------------------------------------------------------------------------------

def test_a_mirror_follows_appends_and_waits_for_a_line_s_newline(tmp_path):
    p = write(tmp_path / "s.jsonl", [cc("u1", None, "user", "hi"), ca("a1", "u1", text("yo"), "m1")])
    m = sync_foreign(p, "claude-code")
    assert m.change == "created" and m.lines == 2
    line3 = json.dumps(cc("u2", "a1", "user", "more"))
    with p.open("a") as f:
        f.write(line3[:20])
    m = sync_foreign(p, "claude-code", m)
    assert m.change == "unchanged" and m.lines == 2  # half a line: not yet
    with p.open("a") as f:
        f.write(line3[20:] + "\n" + json.dumps(ca("a2", "u2", text("sure"), "m1")) + "\n")
    m = sync_foreign(p, "claude-code", m)
    assert m.change == "appended" and m.revised == 1 and m.lines == 4  # line 4 continues the API message of line 2: its usage moves there
    assert m.path.read_bytes().count(b"\n") == 4
    s = open_session(m.path)
    assert [e.line for e in s.entries] == [1, 2, 3, 4]
    assert s.entries[1].usage is None and s.entries[3].usage is not None  # one call (message.id m1, same request), on its last line
    p.write_text(json.dumps(cc("z", None, "user", "new file")) + "\n")
    m = sync_foreign(p, "claude-code", m)
    assert m.change == "rewritten" and m.lines == 1


# --- the corpus ----------------------------------------------------------------------------------------------

CORPUS = [("claude-code", f) for f in (
    "cc-01-spotter-short.jsonl", "cc-02-spotter-tool_heavy.jsonl", "cc-03-spotter-subagent.jsonl",
    "cc-04-spotter-258c7280-compact-excerpt.jsonl", "cc-05-spotter-agent-acompact-fffbd0.jsonl",
    "cc-06-claude-code-log-representative_messages.jsonl", "cc-07-claude-code-log-dag_compact_after_rewind.jsonl",
    "cc-08-spotter-subagent-file-agent-a2898e3.jsonl",
)] + [("codex", f) for f in (
    "codex-01-claude-code-log-rollout-2026-01-02T03-04-05-11111111.jsonl",
    "codex-02-agent-history-session_with_compaction.jsonl", "codex-03-agent-history-real-codex-session-01.jsonl",
)]


@pytest.mark.parametrize(("fmt", "name"), CORPUS)
def test_every_corpus_file_through_every_headless_command(fmt, name):
    path = corpus_file(fmt, name)
    before = path.read_bytes()
    for command in ("stats", "context", "timeline", "plan", "prune", "ls"):
        for extra in ((), ("--json",)):
            r = cli(command, path, *extra)
            assert r.returncode == 0, (command, extra, r.stderr)
            assert "mirror-" not in r.stdout, (command, extra)
            if extra:
                data = json.loads(r.stdout)
                if command in ("plan", "prune"):
                    assert data["applies"] is False
                elif command == "ls":
                    assert [s["format"] for s in data["sessions"]] == [fmt] and data["sessions"][0]["glance"]["error"] is None
                else:
                    assert data["source"] == {"kind": fmt, "file": str(path)}
    assert path.read_bytes() == before


EXPECTED = {
    # (file, assistant_calls on the active path, usage_tokens, [(line, trigger, tokens_before)], window)
    "cc-01-spotter-short.jsonl": (1, 3 + 13835 + 11515, [], 200000),
    "cc-03-spotter-subagent.jsonl": (12, None, [], 200000),
    "cc-04-spotter-258c7280-compact-excerpt.jsonl": (4, 3 + 12497 + 21460, [(22, "auto", 167094)], 200000),
    "cc-07-claude-code-log-dag_compact_after_rewind.jsonl": (4, 10, [(10, "auto", 150000)], 200000),
    "codex-02-agent-history-session_with_compaction.jsonl": (1, 2000, [(13, None, None)], 128000),
    "codex-03-agent-history-real-codex-session-01.jsonl": (1, 22539, [], 258400),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_figures(name):
    fmt = "codex" if name.startswith("codex") else "claude-code"
    d = stats(corpus_file(fmt, name))
    calls, usage_tokens, compactions, window = EXPECTED[name]
    assert d["format"] == fmt
    assert d["usage"]["active_path"]["assistant_calls"] == calls
    if usage_tokens is not None:
        assert d["context"]["estimate_context_tokens"]["usage_tokens"] == usage_tokens
    assert [(c["line"], c["trigger"], c["tokens_before"]) for c in d["compactions"]] == compactions
    assert d["context_window"]["tokens"] == window


# --- discovery -----------------------------------------------------------------------------------------------

def test_ls_finds_claude_code_projects_subagents_and_codex_rollouts(tmp_path):
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-w-proj"
    (project / "sid1" / "subagents").mkdir(parents=True)
    write(project / "sid1.jsonl", [{**cc("u1", None, "user", "hi"), "cwd": "/w/proj"}, ca("a1", "u1", text("yo"), "m1"),
                                   {"type": "custom-title", "customTitle": "Fix the server", "sessionId": "sid1"}])
    write(project / "sid1" / "subagents" / "agent-a1.jsonl", [{**cc("s1", "u1", "user", "sub"), "isSidechain": True, "agentId": "a1"}])
    rollouts = home / "cx" / "sessions" / "2026" / "01" / "01"
    rollouts.mkdir(parents=True)
    (home / "cx" / "archived_sessions").mkdir()
    lines = [cx("turn_context", {"model": "gpt-5.1"}), cmsg("user", "hello"), cmsg("assistant", "hi"), token_count(700, 0, 3, window=272000)]
    write(rollouts / "rollout-a.jsonl", lines)
    write(home / "cx" / "archived_sessions" / "rollout-a.jsonl", lines)  # the same rollout archived: listed once
    env = {"HOME": str(home), "CODEX_HOME": str(home / "cx"), "PATH": "/usr/bin:/bin", "SESSION_INSPECTOR_CACHE_DIR": str(tmp_path / "cache")}
    r = run_cli(["ls", "--all", "--json"], env=env)
    assert r.returncode == 0, r.stderr
    rows = {Path(s["path"]).name: s for s in json.loads(r.stdout)["sessions"]}
    assert set(rows) == {"sid1.jsonl", "agent-a1.jsonl", "rollout-a.jsonl"}
    assert rows["sid1.jsonl"]["source"] == "claude-code" and rows["sid1.jsonl"]["cwd_slug"] == "-w-proj"
    assert rows["sid1.jsonl"]["glance"]["session_name"] == "Fix the server"
    assert rows["sid1.jsonl"]["glance"]["context_tokens"] == 3 + 200 + 5000 and rows["sid1.jsonl"]["glance"]["model"]["modelId"] == "claude-opus-4-6"
    codex = rows["rollout-a.jsonl"]
    assert codex["source"] == "codex" and "/sessions/" in codex["path"] and codex["glance"]["context_tokens"] == 700


# --- the agents' own compaction forecast -----------------------------------------------------------------------

def test_plan_forecasts_claude_code_s_own_auto_compaction():
    r = cli("plan", corpus_file("claude-code", "cc-04-spotter-258c7280-compact-excerpt.jsonl"), "--json")
    f = json.loads(r.stdout)["agent_forecast"]
    assert (f["threshold_tokens"], f["context_tokens"], f["window_tokens"]) == (200_000 - 20_000 - 13_000, 33_960, 200_000)
    assert f["tokens_left"] == 167_000 - 33_960 and f["would_compact"] is False and "#31806" in f["rule"]


def test_plan_forecasts_codex_from_its_configured_limit(tmp_path):
    (tmp_path / "cx").mkdir()
    (tmp_path / "cx" / "config.toml").write_text("model_auto_compact_token_limit = 20000\n")
    p = write(tmp_path / "rollout.jsonl", [cx("turn_context", {"model": "gpt-5.1"}), cmsg("user", "hi"), cmsg("assistant", "yo"), token_count(22000, 0, 3)])
    env = {"HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "cx"), "PATH": "/usr/bin:/bin", "SESSION_INSPECTOR_CACHE_DIR": str(tmp_path / "cache")}
    f = json.loads(run_cli(["plan", p, "--json"], env=env).stdout)["agent_forecast"]
    assert (f["threshold_tokens"], f["context_tokens"], f["would_compact"]) == (20000, 22000, True)
    (tmp_path / "cx" / "config.toml").write_text("model = 'gpt-5.1'\n")
    f = json.loads(run_cli(["plan", p, "--json"], env=env).stdout)["agent_forecast"]
    assert f["threshold_tokens"] is None and f["would_compact"] is None and "model_auto_compact_token_limit" in f["note"]
