"""Our write's budget of the appended sections (`inspector.write.summary_budget`) on hand-built sections of known
sizes: the oldest verbatim messages are cut first, then the oldest tool failures, then the file lists, each cut said
by a marker line with the right count and characters; the summary starts the entry, whole; nothing changes where the
release's assembly keeps the summary, nor under 2026.9.6, which budgets itself."""

from __future__ import annotations

import pytest

from inspector.js.jsjson import js_len
from inspector.rules.ruleset import rule_set
from inspector.write import summary_budget
from inspector.write.summary_budget import assemble, body_room, summary_checks

APRIL = rule_set("openclaw-2026.4.12")
LINE = 500


def _turns(n: int) -> list[dict]:
    return [{"role": "user" if i % 2 == 0 else "assistant", "content": [{"type": "text", "text": f"{i:03d}" + "m" * (LINE - 3)}]} for i in range(n)]


def _failures(n: int) -> list[dict]:
    return [{"role": "toolResult", "toolCallId": f"c{i}", "toolName": "bash", "isError": True,
             "content": [{"type": "text", "text": f"fail{i:02d} " + "f" * 200}]} for i in range(n)]


def test_the_oldest_verbatim_messages_are_cut_and_the_marker_counts_them() -> None:
    history = "## Decisions\n- " + "s" * 5985
    turns = _turns(30)
    failures = APRIL.assembly.format_tool_failures_section(_failures(3))
    files = APRIL.assembly.format_file_operations(["/srv/a.py", "/srv/b.py"], ["/srv/c.py"])
    out = assemble(APRIL, history, None, turns, failures, files)
    assert not out.openclaw.startswith(history)  # OpenClaw 2026.4.12 keeps the last 16,000 characters of the suffix only
    assert out.budgeted and js_len(out.written) <= 16_000 and out.written.startswith(history + "\n\n## Recent turns preserved verbatim\n[")
    (cut,) = out.cuts
    lines = [js_len(f"- {'User' if i % 2 == 0 else 'Assistant'}: ") + LINE for i in range(30)]
    assert cut.what == "earlier messages" and cut.chars == sum(lines[: cut.count])
    kept = [f"{i:03d}" for i in range(30) if f"- {'User' if i % 2 == 0 else 'Assistant'}: {i:03d}m" in out.written]
    assert kept == [f"{i:03d}" for i in range(cut.count, 30)]  # exactly the oldest ones went
    assert f"[{cut.count} earlier messages, {cut.chars:,} characters, cut to fit the 16,000-character cap by Session Inspector]" in out.written
    assert js_len(out.written) + lines[cut.count - 1] + 1 > 16_000  # one message fewer cut would not fit
    assert out.written.endswith(failures + files)  # failures and file lists whole
    checks = {c.name: c for c in summary_checks(APRIL, history, None, out, [], [], [], False)}
    assert "lose the summary" in checks["cap"].detail and f"{cut.count} earlier messages ({cut.chars:,} characters)" in checks["budget"].detail


@pytest.mark.parametrize(("cap", "body", "cut"), [(6000, 3000, 2), (3000, 1500, 3)])
def test_then_the_tool_failures_then_the_file_lists(cap: int, body: int, cut: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # Under the real cap the tool failures and file lists (at most ~2,200 and 2,000 characters) always fit beside the
    # half the summary keeps: a smaller cap shows the order.
    monkeypatch.setattr(summary_budget, "MAX_CHARS", cap)
    history = "## Decisions\n- " + "s" * (body - 15)
    failures = APRIL.assembly.format_tool_failures_section(_failures(8))
    files = APRIL.assembly.format_file_operations([f"/srv/read_{i}.py" for i in range(40)], [f"/srv/mod_{i}.py" for i in range(40)])
    out = assemble(APRIL, history, None, _turns(4), failures, files)
    assert out.written.startswith(history + "\n\n## Recent turns preserved verbatim\n[4 earlier messages") and js_len(out.written) <= cap
    assert [c.what for c in out.cuts] == ["earlier messages", "tool failures", "listed files"][:cut]
    failure_lines = failures.strip("\n").split("\n")[1:]
    fails = out.cuts[1]
    assert fails.chars == sum(js_len(x) for x in failure_lines[: fails.count]) and failure_lines[fails.count - 1] not in out.written
    assert all(x in out.written for x in failure_lines[fails.count :])
    if cut == 3:
        assert fails.count == 8 and out.cuts[2].count == 80 and out.cuts[2].chars == js_len(files.strip("\n")) and "<read-files>" not in out.written
    else:
        assert 0 < fails.count < 8 and out.written.endswith(files)
        assert js_len(out.written) + js_len(failure_lines[fails.count - 1]) + 1 > cap  # one failure fewer cut would not fit
    for c in out.cuts:
        assert c.marker in out.written and f"cut to fit the {cap:,}-character cap" in c.marker


def test_a_long_split_turn_summary_is_cut_after_the_summary() -> None:
    history = "## Decisions\n- " + "s" * 6985
    prefix = "p" * 30_000
    out = assemble(APRIL, history, prefix, _turns(4), "", "")
    assert not out.openclaw.startswith(history[:80])  # OpenClaw: the split turn in its suffix fills the cap
    marker = APRIL.assembly.SUMMARY_TRUNCATED_MARKER
    assert out.written.startswith(history + "\n\n" + APRIL.assembly.SPLIT_TURN_HEADING + "ppp") and js_len(out.written) == 16_000
    assert out.written.index(marker) < out.written.index("## Recent turns preserved verbatim") and not out.cuts
    checks = {c.name: c for c in summary_checks(APRIL, history, prefix, out, [], [], [], True)}
    assert "the split turn's summary after it cut to fit" in checks["budget"].detail


def test_nothing_changes_where_the_release_keeps_the_summary() -> None:
    history = "## Decisions\n- short"
    out = assemble(APRIL, history, None, _turns(4), "", "")
    assert not out.budgeted and out.written == out.openclaw == APRIL.assembly.finalize_summary(history, None, _turns(4), "", "")
    september = rule_set("openclaw-2026.9.6")
    out9 = assemble(september, "## Decisions\n- " + "s" * 6000, None, _turns(40), "", "")
    assert not out9.budgeted and out9.written == september.assembly.finalize_summary("## Decisions\n- " + "s" * 6000, None, _turns(40), "", "")


def test_the_rules_summarizer_gets_at_least_half_the_cap_under_2026_4_12() -> None:
    assert body_room(APRIL, _turns(40), "", "") == 8_000  # OpenClaw's own room is 0: the appended turns fill the cap
    assert body_room(APRIL, _turns(2), "", "") > 8_000
