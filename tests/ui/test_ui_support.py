"""Shared helpers of the UI tests: fixture sessions (built with `SessionBuilder`), app factory, settling.

Also checks the fixtures themselves, so a helper that stops producing what the UI tests rely on fails here.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from inspector.samples.fixtures import SessionBuilder
from inspector.session.session import open_session
from widgets.app import InspectorApp
from widgets.browser.watch import ManualWatcher
from widgets.options import FixedClock, InspectorOptions
from widgets.screenshots import settle as _settle

NOW = datetime(2026, 1, 2, 12, 0, 0, tzinfo=UTC)
HOSTILE = "literal [bold]markup[/bold] [link=http://evil.example]link[/link] \x1b[31mred\x1b[0m \x1b]8;;http://x\x07osc\x1b]8;;\x07 end"
SIZE = (120, 36)


def basic_builder(seed: int = 7) -> SessionBuilder:
    """A small session with every block kind: text, thinking, tool calls, results, an image, hostile text, a branch."""
    b = SessionBuilder(seed=seed)
    b.header(cwd="/home/mara/project")
    b.model_change("anthropic", "claude-sonnet-4-5")
    b.thinking_level_change("medium")
    b.user("List the files in the project and read the README")
    b.assistant([b.thinking("The user wants a listing first."), "Let me look.", b.tool_call("exec", {"command": "ls -la"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "README.md\nsrc\npackage.json\n" + "drwxr-xr-x  entry\n" * 200)
    b.assistant([b.tool_call("read", {"path": "README.md"})])
    b.tool_result(b.last_tool_call_ids[0], "read", "# Lumen\n\nA needle in the haystack: the rate limiter.\n" + "lorem ipsum " * 400)
    b.assistant("The README describes the rate limiter.")
    b.user(["Here is a screenshot of the failure", b.image()])
    mirror_parent = b.leaf_id
    b.assistant([b.thinking(redacted=True), "I see a 429 page.", b.tool_call("browser", {"action": "snapshot"})])
    b.delivery_mirror("status: looking into the 429", parent=b.leaf_id)
    b.tool_result(b.last_tool_call_ids[0], "browser", [b.text_block("page snapshot " + "x" * 300), b.image()])
    b.assistant("Done looking.")
    b.user(HOSTILE)
    b.assistant("That text is inert here.")
    del mirror_parent
    return b


def compaction_builder(seed: int = 11) -> SessionBuilder:
    """A session with a compaction in force and an abandoned branch with a branch summary."""
    b = SessionBuilder(seed=seed)
    b.header(cwd="/home/mara/project")
    first = b.user("Start: profile the limiter")
    b.assistant([b.tool_call("exec", {"command": "npm run profile"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "profile output\n" * 300)
    b.assistant("The hot path is the key hash.")
    kept = b.user("Now make it faster")
    b.assistant("Using a cheaper hash.")
    b.compaction("User profiled the limiter; the key hash was hot.", kept, 41000)
    fork = b.leaf_id
    b.user("Try swapping the client library")
    b.assistant("Swapping to ioredis-lite.")
    b.branch_summary(fork, "Tried ioredis-lite; abandoned because of missing cluster support.")
    b.user("Write the design doc")
    b.assistant([b.tool_call("write", {"path": "docs/design.md", "content": "# Design\n" + "text " * 500})])
    b.tool_result(b.last_tool_call_ids[0], "write", "Successfully wrote docs/design.md")
    b.assistant("Written.")
    del first
    return b


def write_session(directory: Path, name: str, builder: SessionBuilder) -> Path:
    """Write `builder` to `directory/name` and return the path."""
    return builder.write(directory / name)


def options(path: Path | None = None, **overrides) -> InspectorOptions:
    """Deterministic options: fixed clock, no poll timer, no animations, an empty home and environment."""
    base = dict(path=path, clock=FixedClock(NOW), poll_interval=None, animations=False, env={}, home=Path("/nonexistent-home"),
                watcher_factory=lambda paths: ManualWatcher(paths))
    base.update(overrides)
    return InspectorOptions(**base)


def make_app(path: Path | None = None, **overrides) -> InspectorApp:
    """An app on `path` with deterministic options."""
    return InspectorApp(options(path, **overrides))


async def settle(pilot, timeout: float = 15.0) -> None:
    """Wait until no worker (other than the directory watcher) is running and pending messages are handled."""
    await _settle(pilot, timeout)


def test_basic_fixture_has_every_block_kind(tmp_path):
    path = write_session(tmp_path, "s.jsonl", basic_builder())
    session = open_session(path)
    kinds = {k for e in session.entries for k in e.block_kinds}
    assert {"text", "thinking", "toolCall", "image"} <= kinds
    assert session.tree.branch_points(), "the delivery mirror makes a branch point"
    ctx = session.context()
    assert [r.role for r in ctx.messages][-2:] == ["user", "assistant"]


def test_compaction_fixture_has_compaction_and_branch_summary(tmp_path):
    session = open_session(write_session(tmp_path, "c.jsonl", compaction_builder()))
    ctx = session.context()
    assert ctx.compaction_index is not None
    roles = [r.role for r in ctx.messages]
    assert roles[0] == "compactionSummary" and "branchSummary" in roles
