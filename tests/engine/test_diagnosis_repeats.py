"""Repeats and loops: file re-reads, repeated commands, repeated errors, retries after a failure."""

from __future__ import annotations

from test_diagnosis_fixtures import CWD, build_runaway

from inspector.figures.diagnosis.repeats import find_repeats, normalize_error
from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session


def repeats_of(path):
    s = open_session(path)
    return [r.to_json() for r in find_repeats(s, s.context().path)]


def call(b: SessionBuilder, name: str, args: dict) -> str:
    b.assistant([b.tool_call(name, args)])
    return b.last_tool_call_ids[0]


def test_runaway_repeats_ranked(tmp_path):
    ids = build_runaway(tmp_path / "s.jsonl")
    reps = repeats_of(tmp_path / "s.jsonl")
    assert [(r["kind"], r["count"], r["tokens"], r["entry_ids"]) for r in reps] == [
        ("file_reread", 2, 2000, [ids["R1"], ids["R2"]]),
        ("retry_after_failure", 2, 8, [ids["A3"], ids["A4"]]),
        ("command_repeat", 2, 8, [ids["R3"], ids["R4"]]),
        ("error_repeat", 2, 8, [ids["R3"], ids["R4"]]),
    ]
    assert reps[0]["subject"] == f"{CWD}/src/app.py" and reps[0]["occurrence_tokens"] == [2000, 2000]
    assert reps[2]["subject"] == "npm test" and reps[3]["subject"] == "Error: exit code # at line #"
    assert reps[1]["tool_name"] == "exec"


def test_a_write_between_reads_is_not_a_reread(tmp_path):
    b = SessionBuilder(seed=1)
    b.header(cwd=CWD)
    b.user("go")
    b.tool_result(call(b, "read", {"path": "a.py"}), "read", "same text")
    b.tool_result(call(b, "edit", {"path": f"{CWD}/a.py", "oldText": "x", "newText": "x"}), "edit", "ok")
    b.tool_result(call(b, "read", {"path": "a.py"}), "read", "same text")
    b.tool_result(call(b, "apply_patch", {"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+x\n*** End Patch"}), "apply_patch", "ok")
    b.tool_result(call(b, "read", {"path": "./a.py"}), "read", "same text")
    b.assistant("done")
    b.write(tmp_path / "w.jsonl")
    assert [r for r in repeats_of(tmp_path / "w.jsonl") if r["kind"] == "file_reread"] == []


def test_reread_needs_the_same_content_and_counts_every_occurrence(tmp_path):
    b = SessionBuilder(seed=2)
    b.header(cwd=CWD)
    b.user("go")
    first = b.tool_result(call(b, "read", {"path": "b.py"}), "read", "v1" * 40)
    b.tool_result(call(b, "read", {"path": "b.py", "offset": 10}), "read", "other part")
    second = b.tool_result(call(b, "read", {"path": f"{CWD}/b.py"}), "read", "v1" * 40)
    b.tool_result(call(b, "read", {"path": "b.py"}), "read", "missing", is_error=True)
    third = b.tool_result(call(b, "read", {"path": "sub/../b.py"}), "read", "v1" * 40)
    b.assistant("done")
    b.write(tmp_path / "r.jsonl")
    rereads = [r for r in repeats_of(tmp_path / "r.jsonl") if r["kind"] == "file_reread"]
    assert len(rereads) == 1
    assert rereads[0]["entry_ids"] == [first, second, third]
    assert rereads[0]["tokens"] == 2 * 20  # "v1" * 40 = 80 chars = 20 tokens, twice after the first


def test_images_count_in_the_result_hash(tmp_path):
    b = SessionBuilder(seed=3)
    b.header(cwd=CWD)
    b.user("go")
    img1 = b.image()
    img2 = b.image(data=img1["data"][:-4] + "AAA=")
    b.tool_result(call(b, "read", {"path": "p.png"}), "read", [img1])
    b.tool_result(call(b, "read", {"path": "p.png"}), "read", [img2])
    b.assistant("done")
    b.write(tmp_path / "i.jsonl")
    assert [r for r in repeats_of(tmp_path / "i.jsonl") if r["kind"] == "file_reread"] == []


def test_retry_chain_is_one_pattern(tmp_path):
    b = SessionBuilder(seed=4)
    b.header(cwd=CWD)
    b.user("go")
    attempts = []
    for i in range(3):
        b.tool_result(call(b, "bash", {"timeout": 5, "command": "make"}), "bash", f"make: *** [all] Error {i}", is_error=True)
        attempts.append(b.leaf_id)
    # re-issued with the arguments in another key order: the same call
    b.assistant([b.tool_call("bash", {"command": "make", "timeout": 5})])
    ok_call = b.leaf_id
    b.tool_result(b.last_tool_call_ids[0], "bash", "built")
    b.assistant("done")
    b.write(tmp_path / "c.jsonl")
    s = open_session(tmp_path / "c.jsonl")
    reps = {r.kind: r for r in find_repeats(s, s.context().path)}
    retry = reps["retry_after_failure"]
    callers = [s.entry_by_id(e) for e in retry.entry_ids]
    assert retry.count == 4 and retry.entry_ids[-1] == ok_call
    assert all(c is not None and c.role == "assistant" for c in callers)
    assert reps["error_repeat"].count == 3 and reps["error_repeat"].subject == "make: *** [all] Error #"
    assert reps["command_repeat"].count == 4


def test_not_a_retry_when_something_else_comes_first(tmp_path):
    b = SessionBuilder(seed=6)
    b.header(cwd=CWD)
    b.user("go")
    b.tool_result(call(b, "exec", {"command": "deploy"}), "exec", "denied", is_error=True)
    b.tool_result(call(b, "read", {"path": "README.md"}), "read", "how to deploy")
    b.tool_result(call(b, "exec", {"command": "deploy"}), "exec", "done")
    b.assistant("ok")
    b.write(tmp_path / "n.jsonl")
    kinds = [r["kind"] for r in repeats_of(tmp_path / "n.jsonl")]
    assert "retry_after_failure" not in kinds and "command_repeat" in kinds


def test_retry_of_one_of_parallel_calls(tmp_path):
    b = SessionBuilder(seed=7)
    b.header(cwd=CWD)
    b.user("go")
    b.assistant([b.tool_call("read", {"path": "x"}), b.tool_call("exec", {"command": "ls /nope"})])
    first = b.leaf_id
    read_id, exec_id = b.last_tool_call_ids
    b.tool_result(read_id, "read", "x content")
    b.tool_result(exec_id, "exec", "ls: cannot access '/nope'", is_error=True)
    b.assistant([b.tool_call("exec", {"command": "ls /nope"})])
    second = b.leaf_id
    b.tool_result(b.last_tool_call_ids[0], "exec", "ls: cannot access '/nope'", is_error=True)
    b.assistant("giving up")
    b.write(tmp_path / "p.jsonl")
    retry = [r for r in repeats_of(tmp_path / "p.jsonl") if r["kind"] == "retry_after_failure"]
    assert len(retry) == 1 and retry[0]["entry_ids"] == [first, second]


def test_only_the_active_path_counts(tmp_path):
    b = SessionBuilder(seed=8)
    b.header(cwd=CWD)
    root = b.user("go")
    b.tool_result(call(b, "exec", {"command": "date"}), "exec", "Mon")
    b.branch(root)
    b.tool_result(call(b, "exec", {"command": "date"}), "exec", "Tue")
    b.assistant("done")
    b.write(tmp_path / "b.jsonl")
    assert repeats_of(tmp_path / "b.jsonl") == []


def test_normalize_error():
    assert normalize_error("Error  at\n line 12:7\tcol 3") == "Error at line #:# col #"
    assert len(normalize_error("x" * 2000)) == 500


def test_repeats_know_whether_the_earlier_copy_was_summarized_away(tmp_path):
    """Three reads of one unchanged file: the second after a compaction that kept only what follows it (the first
    copy was summarized away: not waste), the third with the second still in the context (waste)."""
    b = SessionBuilder(seed=3)
    b.header(cwd=CWD)
    b.user("go")
    first = b.tool_result(call(b, "read", {"path": "a.py"}), "read", "z" * 4000)
    b.assistant("looked")
    kept = b.user("now again")
    b.compaction("summary of the first read", kept, 5000)
    second = b.tool_result(call(b, "read", {"path": "a.py"}), "read", "z" * 4000)
    third = b.tool_result(call(b, "read", {"path": "a.py"}), "read", "z" * 4000)
    b.write(tmp_path / "s.jsonl")
    (rep,) = repeats_of(tmp_path / "s.jsonl")
    assert rep["entry_ids"] == [first, second, third]
    assert rep["earlier_in_context"] == [None, False, True]
    assert rep["summarized_away"] == 1
    assert rep["tokens"] == 2000 and rep["wasted_tokens"] == 1000
    assert "range" in rep["suggestion"]
