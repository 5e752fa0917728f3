"""Golden digests of every headless read-only command's output, to prove a refactor changes no byte of it.

    python tests/golden/record_outputs.py             # (re)record tests/golden/outputs.json
    python tests/golden/record_outputs.py --check     # recompute; print each differing case; exit 1 on any
    python tests/golden/record_outputs.py --dump DIR  # write each normalized output to DIR/<case>.txt

(from the repository root, with `PYTHONPATH=.`). `--check --baseline DIR` diffs a differing case against DIR/<case>.txt
from an earlier `--dump`; `--extra ARG` (repeatable) appends ARG to every command line (`--extra=--rules --extra=X`).

Inputs, each copied or written into a fresh scratch directory (the copy is what the commands get; ../shared is only
read): every file of `<repo>/../shared/corpus/{pi,claude-code,codex}` (skipped when the corpus is absent), the
bundled demo session, sessions written with `inspector.samples.fixtures.SessionBuilder` (`FIXTURES`), and three
directory layouts for `ls` (`dir-own`, `dir-corpus`, `discovery`: an OpenClaw state dir and a pi agent dir).

Each command runs with a pinned environment (`command_env`: HOME, XDG dirs, OpenClaw / pi state dirs and the index
cache inside the scratch dir, TZ=UTC, COLUMNS=160, no API keys), `--now` pinned where a command has it (`prune`),
files with fixed mtimes; twice, with the index cache cold and then warm (the same cache dir), and both runs must give
the same output. Commands run in this process (`tests/inprocess.run_cli`, checked against a real subprocess by
`verify_runners`), except those in `SUBPROCESS_COMMANDS`.

Normalization (`normalize_stdout`): the scratch dir's path (and realpath) becomes `<DIR>`; `--json` output is parsed
and every `"rules": {"id": ..., "reason": ...}` dict is deleted at any depth, then re-serialized with `orjson.dumps`;
text output loses the lines starting with `rules:` / `Rules:`. A case's record is its exit code and the sha256 of the
normalized stdout, plus of the normalized stderr unless the command's stderr is not deterministic (`compact`: its
progress lines carry elapsed milliseconds). Each input also has an `<input>__input` case: the digest of the input
files themselves, so a changed fixture builder shows up as such.

History of the recording (what changed on purpose, and nothing else, checked with `--check --baseline` against a
`--dump` of the code before each change):
1. Recorded at bcce042, before the engine was regrouped into layered folders. The regrouped engine, with `--rules`
   and the `rules` field, gave all 409 cases identical (also with `--rules openclaw-2026.4.12` appended).
2. Re-recorded after two deliberate changes, which are the only differences: the reserve rule has one home
   (`timeline --json`'s `compaction_reserve.source` is the plan's `floor` / `pi default` /
   `config:agents.defaults.compaction.reserveTokens`, with a new `floor_source`; its text line says
   `(floor: openclaw default 20,000)`), 24 cases; `compact --json` gains `recovered` (what a run carried over from an
   interrupted rewrite), 23 cases.
3. Re-recorded after one deliberate change (issue 24 part 3, honest figures after a compaction), 76 cases, values
   unchanged on every recorded input: the context-now figure carries its basis: `--json` gains `basis` and
   `stale_usage_tokens` (`estimate_context_tokens` of `stats`/`context`), `context_basis`,
   `context_stale_usage_tokens` and `tokens_before_basis` (`plan`), `fill.basis` (`timeline`); the text of `plan`
   (`context now ... (recorded)`, `tokensBefore ... (recorded)`) and `timeline` (`context now (recorded): ...`) names it.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_FORMATS = ("pi", "claude-code", "codex")
GOLDEN = Path(__file__).resolve().with_name("outputs.json")

for _path in (ROOT / "tests", ROOT):  # this checkout's `inspector` (not an installed one) and `tests/inprocess.py`
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from inprocess import run_cli

from inspector.samples.demo import demo_session_path
from inspector.samples.fixtures import SessionBuilder, make_usage, png_base64, zero_usage

NOW = "2026-01-02T12:00:00.000Z"
"""The fixed instant of `--now`: after every input's last cache-TTL touch (the pruning gates open as the TTLs expire)."""
DEMO_WARM_NOW = "2026-01-02T10:53:00.000Z"
"""Two minutes after the demo's last cache-TTL touch (10:51:15.550Z): its gate is closed, the cache still warm."""
FILE_MTIME = 1_767_400_000  # 2026-01-03T00:26:40Z; the n-th file of an input gets FILE_MTIME + n seconds
INPUT_DIR = "in"
"""Where an input's files are, relative to the scratch dir (the commands' working directory: paths are relative)."""

SUBPROCESS_COMMANDS: frozenset[str] = frozenset()
"""Commands run as a real `python -m inspector` subprocess, because the in-process runner differs for them."""
NONDETERMINISTIC_STDERR = frozenset({"compact"})
"""Commands whose stderr is not part of the digest (`compact`'s progress lines carry elapsed milliseconds)."""
VOLATILE_JSON_KEYS: dict[str, frozenset[str]] = {"compact": frozenset({"elapsed_ms"})}
"""Per command, JSON keys whose values are wall-clock measurements: set to 0 at any depth before the digest (`compact`'s
`stages[].elapsed_ms`, the summarizer stages' run time; the only field that differs run to run)."""

# ---------------------------------------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Command:
    """One command line of a case: `name` (`stats__json`) and its argv, with `{file}` / `{dir}` / `{...}` placeholders."""

    name: str
    argv: tuple[str, ...]

    @property
    def program(self) -> str:
        return self.argv[0]


def _cmds(*rows: tuple[str, Sequence[str]]) -> tuple[Command, ...]:
    return tuple(Command(name, tuple(argv)) for name, argv in rows)


FILE_COMMANDS = _cmds(
    ("stats__text", ["stats", "{file}"]),
    ("stats__json", ["stats", "{file}", "--json"]),
    ("context__text", ["context", "{file}"]),
    ("context__json", ["context", "{file}", "--json"]),
    ("timeline__text", ["timeline", "{file}"]),
    ("timeline__json", ["timeline", "{file}", "--json"]),
    ("timeline__csv", ["timeline", "{file}", "--csv"]),
    ("plan__text", ["plan", "{file}"]),
    ("plan__json", ["plan", "{file}", "--json"]),
    ("prune__text", ["prune", "{file}", "--now", NOW]),
    ("prune__json", ["prune", "{file}", "--json", "--now", NOW]),
    ("prune-all-force__json", ["prune", "{file}", "--json", "--all", "--force", "--now", NOW]),
    ("ls-file__text", ["ls", "{file}"]),
    ("ls-file__json", ["ls", "{file}", "--json"]),
    # Last: the only ones that take the session lock (a dry run writes nothing, which `run_input` checks).
    ("compact-dry__json", ["compact", "{file}", "--dry-run", "--json"]),
    ("compact-dry__text", ["compact", "{file}", "--dry-run"]),
)
"""Every session-file input gets these."""

CONFIG_COMMANDS = _cmds(
    ("stats-config__json", ["stats", "{file}", "--json", "--config", "{config}"]),
    ("plan-config__json", ["plan", "{file}", "--json", "--config", "{config}"]),
    ("prune-config__json", ["prune", "{file}", "--json", "--all", "--config", "{config}", "--now", NOW]),
    ("prune-config__text", ["prune", "{file}", "--all", "--config", "{config}", "--now", NOW]),
    ("timeline-config__json", ["timeline", "{file}", "--json", "--config", "{config}"]),
)
"""Inputs that write `{config}` (an openclaw.json) get these too."""

DIR_COMMANDS = _cmds(
    ("ls-dir__text", ["ls", "{dir}"]),
    ("ls-dir__json", ["ls", "{dir}", "--json"]),
    ("ls-dir-all__json", ["ls", "{dir}", "--json", "--all"]),
    ("ls-dir-figures__json", ["ls", "{dir}", "--json", "--figures"]),
    ("ls-dir-figures__text", ["ls", "{dir}", "--figures"]),
)

DISCOVERY_COMMANDS = _cmds(
    ("ls__text", ["ls"]),
    ("ls__json", ["ls", "--json"]),
    ("ls-all__text", ["ls", "--all"]),
    ("ls-all__json", ["ls", "--json", "--all"]),
    ("ls-statedir__json", ["ls", "{statedir}", "--json", "--all"]),
    ("breaker__text", ["breaker"]),
    ("breaker__json", ["breaker", "--json"]),
)


@dataclass(frozen=True)
class Input:
    """One input: `build(dest)` writes its files under `dest` (the scratch dir's `in/`) and returns the placeholders
    of its command lines (paths relative to the scratch dir)."""

    name: str
    build: Callable[[Path], dict[str, str]]
    commands: tuple[Command, ...]
    corpus: bool = False

    def case(self, command: Command) -> str:
        return f"{self.name}__{command.name}"

    def case_names(self) -> list[str]:
        return [f"{self.name}__input", *(self.case(c) for c in self.commands)]


# ------------------------------------------------------------------------------------------------- fixture sessions

CWD = "/home/mara/.openclaw/workspace"


def fixture_tools(b: SessionBuilder) -> dict[str, str]:
    """Reads, an exec error, edits and writes with `details`, labels, session name, cache-TTL touches; automatic usage."""
    b.header(cwd=CWD)
    b.model_change("anthropic", "claude-sonnet-4-5")
    b.thinking_level_change("low")
    b.session_info("  fix the parser  ")
    b.user("The config parser chokes on trailing commas. Can you fix it?")
    b.assistant(["Let me look at the parser.", b.tool_call("read", {"path": "src/config/parse.ts"})])
    source = "\n".join(
        f"export const rule{i} = (s: string) => s.trim().split(',').map(x => x.trim()); // {i}" for i in range(120)
    )
    b.tool_result(b.last_tool_call_ids[0], "read", source)
    b.assistant([b.tool_call("exec", {"command": "npm test -- parse", "timeout": 120})])
    b.tool_result(
        b.last_tool_call_ids[0],
        "exec",
        "FAIL src/config/parse.test.ts\n  ✕ trailing comma (12 ms)\n\nexit code 1",
        details={"exitCode": 1, "durationMs": 2400, "aggregated": "FAIL src/config/parse.test.ts\nexit code 1"},
        is_error=True,
        duration_ms=2400,
    )
    edit = b.assistant(
        [b.tool_call("edit", {"path": "src/config/parse.ts", "oldText": "split(',')", "newText": "split(/,\\s*(?=\\S)/)"})]
    )
    b.tool_result(
        b.last_tool_call_ids[0],
        "edit",
        "Successfully replaced text in src/config/parse.ts.",
        details={"diff": "-  split(',')\n+  split(/,\\s*(?=\\S)/)", "firstChangedLine": 3},
    )
    b.label(edit, "the fix")
    b.assistant([b.tool_call("write", {"path": "src/config/parse.test.ts", "content": "it('trailing comma', () => {});\n" * 20})])
    b.tool_result(b.last_tool_call_ids[0], "write", "Successfully wrote 640 bytes to src/config/parse.test.ts")
    b.assistant([b.tool_call("exec", {"command": "npm test -- parse"})])
    b.tool_result(
        b.last_tool_call_ids[0],
        "exec",
        "PASS src/config/parse.test.ts\n  ✓ trailing comma (3 ms)\n" + "ok\n" * 300,
        details={"exitCode": 0, "durationMs": 1900},
    )
    last = b.assistant("Fixed: the split now ignores a trailing comma, and the new test passes.")
    b.cache_ttl()
    b.wait(90_000)
    b.user("Thanks! Also run the linter.")
    b.assistant([b.tool_call("exec", {"command": "npm run lint"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "\n".join(f"src/file{i}.ts: warning: unused import" for i in range(200)))
    b.assistant("The linter reports 200 unused-import warnings, none in the parser.")
    b.cache_ttl()
    b.label(last, None)
    return {}


def _filler(tag: str, n: int) -> str:
    return "\n".join(f"{tag} line {i}: " + "lorem ipsum dolor sit amet " * 3 for i in range(n))


def fixture_compactions(b: SessionBuilder) -> dict[str, str]:
    """Two compactions (a split-turn one from pi with file-op details, then one from a hook), big tool results."""
    b.header(cwd=CWD)
    first_user = b.user("Profile the importer and make it faster.")
    for i in range(6):
        b.assistant([b.thinking(f"Step {i}: read the next module."), b.tool_call("read", {"path": f"src/import/step{i}.py"})])
        b.tool_result(b.last_tool_call_ids[0], "read", _filler(f"step{i}", 150))
    b.user("Keep going, then summarize.")
    turn = b.assistant([b.tool_call("exec", {"command": "python -m cProfile -s cumtime import.py"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", _filler("profile", 400))
    kept = b.assistant(
        [
            b.tool_call(
                "edit", {"path": "src/import/step3.py", "oldText": "for row in rows:", "newText": "for row in batch(rows):"}
            )
        ]
    )
    b.tool_result(b.last_tool_call_ids[0], "edit", "Successfully replaced text in src/import/step3.py.")
    b.compaction(
        "## Goal\nSpeed up the importer.\n\n## Progress\n- Read steps 0-5\n- Profiled: step3 dominates\n\n## Next\nBatch step3.",
        kept,
        48_210,
        details={"readFiles": [f"src/import/step{i}.py" for i in range(6)], "modifiedFiles": ["src/import/step3.py"]},
        from_hook=False,
    )
    b.assistant("Batched step 3; re-running the profile.")
    b.user("Good. Now the exporter.")
    for i in range(4):
        b.assistant([b.tool_call("read", {"path": f"src/export/part{i}.py"})])
        b.tool_result(b.last_tool_call_ids[0], "read", _filler(f"part{i}", 200))
    second_user = b.user("Summarize again please.")
    b.assistant("Summarizing.")
    b.compaction("Exporter read; nothing changed yet.", second_user, 61_004, from_hook=True)
    b.user("What did we do so far?")
    b.assistant("We batched the importer's step 3 and read the exporter.")
    b.cache_ttl()
    return {"first_user": first_user, "turn": turn}


def fixture_branches(b: SessionBuilder) -> dict[str, str]:
    """An abandoned sibling branch with a branch summary, a delivery mirror, a model switch to OpenAI, custom entries."""
    b.header(cwd=CWD)
    b.custom("openclaw:bootstrap-context:full", {"files": ["AGENTS.md", "MEMORY.md"], "chars": 5120})
    b.user("Try swapping the HTTP client to undici.")
    fork = b.assistant([b.tool_call("read", {"path": "package.json"})])
    b.tool_result(b.last_tool_call_ids[0], "read", '{"dependencies": {"axios": "^1.7.0"}}')
    b.assistant([b.tool_call("exec", {"command": "npm i undici"})])
    b.tool_result(b.last_tool_call_ids[0], "exec", "added 1 package\n" + "npm WARN deprecated x\n" * 50)
    abandoned = b.assistant("Swapped to undici; 14 call sites still need changes.")
    b.branch_summary(
        fork, "Tried undici: 14 call sites to change, abandoned.", details={"readFiles": ["package.json"], "modifiedFiles": []}
    )
    b.user("Never mind, keep axios. Post a status update instead.")
    b.assistant([b.tool_call("message", {"action": "send", "channel": "slack", "text": "axios stays"})])
    result = b.tool_result(b.last_tool_call_ids[0], "message", "sent", details={"ok": True, "messageId": "m-1"})
    b.delivery_mirror("axios stays", parent=result)
    b.model_change("openai", "gpt-5.1-codex", api="openai-responses")
    b.thinking_level_change("high")
    b.assistant("Posted. Switching models for the review.")
    b.custom_message("openclaw.system-event", "Heartbeat: 3 pending reviews.", display=False, details={"source": "cron"})
    b.user("Review the last diff.")
    b.assistant([b.thinking("The diff touches retry logic only."), "Looks good: only the retry logic changed."])
    b.cache_ttl()
    return {"abandoned": abandoned, "fork": fork}


def fixture_media(b: SessionBuilder) -> dict[str, str]:
    """Thinking (one redacted), images in a user message and in a tool result, CJK and emoji, a bash execution, a
    custom-role message and an error reply."""
    b.header(cwd="/home/mara/项目")
    pixels = [[(x + y) % 4 for x in range(24)] for y in range(16)]
    png = png_base64(24, 16, pixels, [(255, 255, 255), (0, 0, 0), (200, 30, 30), (30, 200, 30)])
    b.user(["这个截图里的按钮为什么是红色的？🤔", b.image(png)])
    b.assistant(
        [
            b.thinking("The user asks about the red button in the screenshot."),
            b.thinking(redacted=True),
            b.tool_call("browser", {"action": "screenshot", "url": "http://localhost:3000"}),
        ]
    )
    b.tool_result(
        b.last_tool_call_ids[0],
        "browser",
        ["Screenshot of http://localhost:3000", b.image(png)],
        details={"width": 24, "height": 16},
    )
    b.assistant("按钮是红色的，因为 `isError` 为真。✅")
    b.message(
        {
            "role": "bashExecution",
            "command": "git status --short",
            "output": " M src/button.tsx\n?? notes.md\n",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": b.now_ms,
        }
    )
    b.message(
        {
            "role": "custom",
            "customType": "note",
            "content": "Remember: the design system uses #c81e1e.",
            "display": True,
            "timestamp": b.now_ms,
        }
    )
    b.user("Fix it.")
    b.assistant("", usage=zero_usage(), stop_reason="error", error_message="529 overloaded_error: Overloaded", response_id=None)
    b.wait(30_000)
    b.assistant([b.tool_call("edit", {"path": "src/button.tsx", "oldText": "isError", "newText": "hasError"})])
    b.tool_result(b.last_tool_call_ids[0], "edit", "Successfully replaced text in src/button.tsx.")
    b.assistant("Done — 修好了。")
    b.cache_ttl()
    return {}


def fixture_usage(b: SessionBuilder) -> dict[str, str]:
    """Explicit usage and cost: re-reads, a retried failing command, a gap past the prompt-cache TTL, a zero-usage
    gateway message, an aborted reply and a prompt over the context window (a runaway session)."""
    b.header(cwd=CWD)
    b.user("u" * 400)
    b.assistant([b.tool_call("read", {"path": "src/app.py"})], usage=make_usage(5000, 50))
    b.tool_result(b.last_tool_call_ids[0], "read", "x" * 8000)
    b.assistant([b.tool_call("read", {"path": "src/app.py"})], usage=make_usage(7, 50, 5000, 2100))
    b.tool_result(b.last_tool_call_ids[0], "read", "x" * 8000)
    b.assistant([b.tool_call("exec", {"command": "npm test"})], usage=make_usage(14, 50, 7100, 2000))
    b.tool_result(b.last_tool_call_ids[0], "exec", "Error: exit code 1 at line 12", is_error=True)
    b.assistant([b.tool_call("exec", {"command": "npm test"})], usage=make_usage(15, 50, 9000, 114))
    b.tool_result(b.last_tool_call_ids[0], "exec", "Error: exit code 1 at line 13", is_error=True)
    b.wait(400_000)
    b.assistant([b.tool_call("exec", {"command": "cat big.log"})], usage=make_usage(10, 50, 0, 9134))
    b.tool_result(b.last_tool_call_ids[0], "exec", "y" * 40000)
    b.assistant("d", usage=make_usage(2, 20, 9144, 10006))
    b.assistant("g" * 8, usage=zero_usage(), provider="openclaw", model="gateway-injected", response_id=None)
    u2 = b.user("v" * 200)
    b.compaction("s" * 400, u2, 19200)
    b.assistant("k" * 20, usage=make_usage(5150, 30))
    b.assistant("partial", usage=zero_usage(), stop_reason="aborted")
    b.user("w" * 40)
    b.assistant("abandoned", usage=make_usage(5160, 5), advance_leaf=False)
    b.assistant("final", usage=make_usage(15, 10, 5150, 0))
    b.user("now paste the whole log")
    b.assistant(
        "Here it is.",
        usage=make_usage(100, 20, 129_900, 0, prices={"input": 1.25, "output": 10, "cacheRead": 0.125, "cacheWrite": 0}),
        provider="openai",
        model="gpt-5",
        api="openai-responses",
    )
    return {}


def fixture_prunable(b: SessionBuilder) -> dict[str, str]:
    """Many big tool results (soft trim and hard clear material) before a cache-TTL touch an hour before `NOW`; ships an
    openclaw.json with context pruning, compaction settings and a model's context window."""
    b.header(cwd=CWD)
    b.user("Audit every module for SQL injection.")
    for i in range(14):
        name = "exec" if i % 3 == 0 else "read"
        args = {"command": f"rg -n 'execute\\(' src/mod{i}"} if name == "exec" else {"path": f"src/mod{i}/db.py"}
        b.assistant([b.tool_call(name, args)])
        b.tool_result(b.last_tool_call_ids[0], name, _filler(f"mod{i}", 60 + 25 * i))
    b.assistant("Modules 3, 7 and 11 build queries with f-strings.")
    b.cache_ttl()
    b.wait(600_000)
    b.user("Show me module 11 again.")
    b.assistant([b.tool_call("read", {"path": "src/mod11/db.py"})])
    b.tool_result(b.last_tool_call_ids[0], "read", _filler("mod11", 300))
    b.assistant("Here is module 11; line 40 is the f-string.")
    b.cache_ttl()
    return {}


PRUNING_CONFIG = {
    "agents": {
        "defaults": {
            "contextPruning": {
                "mode": "cache-ttl",
                "ttl": "30m",
                "keepLastAssistants": 2,
                "softTrimRatio": 0.1,
                "hardClearRatio": 0.3,
                "minPrunableToolChars": 2000,
                "softTrim": {"maxChars": 3000, "headChars": 800, "tailChars": 800},
                "tools": {"deny": ["exec"]},
            },
            "compaction": {"reserveTokens": 8000, "keepRecentTokens": 4000, "recentTurnsPreserve": 1},
            "contextTokens": 120_000,
        }
    },
    "models": {"providers": {"anthropic": {"models": [{"id": "claude-sonnet-4-5", "contextWindow": 200_000}]}}},
}


def fixture_damaged(b: SessionBuilder) -> dict[str, str]:
    """A corrupt line, a blank line, a stray second header, an entry of an unknown type, an orphan and a custom entry
    without data: what the diagnostics and the lenient reader report."""
    b.header(cwd=CWD)
    b.user("hello")
    b.assistant("hi")
    b.raw_line('{"type":"message","id":"broken"')
    b.raw_line("")
    b.raw_line(
        json.dumps({"type": "session", "version": 3, "id": "stray-header", "timestamp": "2026-01-02T03:05:00.000Z", "cwd": "/x"})
    )
    b.entry("future_entry_kind", {"payload": {"x": 1}})
    b.custom("my-extension.state")
    orphan = {"role": "user", "content": [{"type": "text", "text": "orphaned"}], "timestamp": b.now_ms}
    b.raw_line(
        json.dumps(
            {
                "type": "message",
                "id": "0rphan00",
                "parentId": "missing0",
                "timestamp": "2026-01-02T03:06:00.000Z",
                "message": orphan,
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )
    )
    b.user("are you there?")
    b.assistant("yes", stop_reason="length")
    return {}


START = "2026-01-02T03:04:05.678Z"
FIXTURES: dict[str, tuple[int, str, Callable[[SessionBuilder], dict[str, str]]]] = {
    "fixture-tools": (101, START, fixture_tools),
    "fixture-compactions": (102, START, fixture_compactions),
    "fixture-branches": (103, START, fixture_branches),
    "fixture-media": (104, START, fixture_media),
    "fixture-usage": (105, START, fixture_usage),
    "fixture-prunable": (106, "2026-01-02T07:00:00.000Z", fixture_prunable),
    "fixture-damaged": (107, START, fixture_damaged),
}
"""name -> (seed, clock start, builder body); the session is `<name>.jsonl`."""


def build_fixture(name: str) -> tuple[bytes, dict[str, str]]:
    """The bytes of one fixture session and its named entry ids."""
    seed, start, body = FIXTURES[name]
    b = SessionBuilder(seed=seed, start=start)
    ids = body(b)
    return b.text().encode("utf-8"), ids


# ------------------------------------------------------------------------------------------------------------ inputs


def _write(path: Path, data: bytes, index: int = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.chmod(path, 0o644)
    os.utime(path, (FILE_MTIME + index, FILE_MTIME + index))
    return path


def _rel(path: Path, dest: Path) -> str:
    return str(Path(INPUT_DIR) / path.relative_to(dest))


def corpus_files() -> list[tuple[str, Path]]:
    """(format, file) of every corpus file, in a fixed order; [] without the corpus."""
    found = []
    for fmt in CORPUS_FORMATS:
        folder = CORPUS / fmt
        if folder.is_dir():
            found.extend((fmt, p) for p in sorted(folder.iterdir()) if p.is_file())
    return found


def _file_input(
    name: str,
    filename: str,
    data: Callable[[], tuple[bytes, dict[str, str]]],
    *,
    corpus: bool = False,
    config: dict | None = None,
    extra: tuple[Command, ...] = (),
) -> Input:
    def build(dest: Path) -> dict[str, str]:
        content, ids = data()
        places = {"file": _rel(_write(dest / filename, content), dest), **ids}
        if config is not None:
            places["config"] = _rel(_write(dest / "openclaw.json", orjson.dumps(config, option=orjson.OPT_INDENT_2), 1), dest)
        return places

    return Input(name, build, FILE_COMMANDS + (CONFIG_COMMANDS if config is not None else ()) + extra, corpus=corpus)


def _own_sessions() -> list[tuple[str, bytes]]:
    return [("demo.jsonl", demo_session_path().read_bytes()), *((f"{n}.jsonl", build_fixture(n)[0]) for n in FIXTURES)]


def _build_dir_own(dest: Path) -> dict[str, str]:
    sub = dest / "own"
    for i, (filename, data) in enumerate(_own_sessions()):
        _write(sub / ("nested" if i % 3 == 2 else "") / filename, data, i)
    _write(sub / "demo.jsonl.bak.2026-01-02T10-00-00.000Z", demo_session_path().read_bytes(), 20)
    _write(sub / "demo.checkpoint.0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d.jsonl", demo_session_path().read_bytes(), 21)
    return {"dir": _rel(sub, dest)}


def _build_dir_corpus(dest: Path) -> dict[str, str]:
    sub = dest / "corpus"
    for i, (fmt, path) in enumerate(corpus_files()):
        _write(sub / fmt / path.name, path.read_bytes(), i)
    return {"dir": _rel(sub, dest)}


SESSION_ID = "5b0c8e1e-3f4a-4c55-9a8e-2d7c1f0e9b6a"


def _build_discovery(dest: Path) -> dict[str, str]:
    """`$OPENCLAW_STATE_DIR` (two agents, a `sessions.json` naming sessions by key, a reset archive, a checkpoint)
    and pi's `$PI_CODING_AGENT_DIR/sessions/--slug--/`, both in `$HOME` (`in/home`): what `ls` without DIR lists."""
    state = dest / "home" / ".openclaw"
    main = state / "agents" / "main" / "sessions"
    demo = demo_session_path().read_bytes()
    tools, _ = build_fixture("fixture-tools")
    branches, _ = build_fixture("fixture-branches")
    _write(main / f"{SESSION_ID}.jsonl", demo, 0)
    _write(main / f"{SESSION_ID}.jsonl.reset.2026-01-02T07-00-00.000Z", tools, 1)
    _write(main / f"{SESSION_ID}.checkpoint.11111111-2222-4333-8444-555555555555.jsonl", tools, 2)
    _write(main / "0d9f1c2b-7a6e-4f5d-8c3b-2a1908f7e6d5.jsonl", branches, 3)
    store = {
        "agent:main:main": {"sessionId": SESSION_ID, "updatedAt": 1_767_346_000_000, "chatType": "direct"},
        "agent:main:slack:c123": {"sessionId": "0d9f1c2b-7a6e-4f5d-8c3b-2a1908f7e6d5", "updatedAt": 1_767_340_000_000},
        "agent:main:gone": {"sessionId": "does-not-exist", "updatedAt": 1_767_000_000_000},
    }
    _write(main / "sessions.json", orjson.dumps(store, option=orjson.OPT_INDENT_2), 4)
    ops = state / "agents" / "ops" / "sessions"
    _write(ops / "7e6d5c4b-3a29-4180-9f8e-7d6c5b4a3928.jsonl", build_fixture("fixture-usage")[0], 5)
    _write(state / "workspace" / "notes.jsonl", b'{"not": "a session"}\n', 6)  # outside agents/*/sessions: not listed
    pi = dest / "home" / ".pi" / "agent" / "sessions" / "--home-mara-project--"
    _write(pi / f"2026-01-02T03-04-05-678Z_{SESSION_ID}.jsonl", build_fixture("fixture-media")[0], 7)
    _write(pi / "2026-01-02T04-00-00-000Z_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl", build_fixture("fixture-damaged")[0], 8)
    return {"statedir": _rel(state, dest)}


def inputs(*, with_corpus: bool = True) -> list[Input]:
    """Every input, corpus ones first (only those present; none when `with_corpus` is false)."""
    found: list[Input] = []
    if with_corpus:
        for fmt, path in corpus_files():
            stem = path.name.removesuffix(".jsonl")
            found.append(_file_input(f"corpus-{fmt}-{stem}", path.name, lambda p=path: (p.read_bytes(), {}), corpus=True))
    found.append(
        _file_input(
            "demo",
            "demo.jsonl",
            lambda: (demo_session_path().read_bytes(), {}),
            extra=_cmds(
                ("context-leaf-branch__json", ["context", "{file}", "--json", "--leaf", "387c3749"]),
                ("prune-warm__text", ["prune", "{file}", "--all", "--now", DEMO_WARM_NOW]),
            ),
        )
    )
    for name in FIXTURES:
        extra: tuple[Command, ...] = ()
        if name == "fixture-branches":
            extra = _cmds(
                ("stats-leaf-abandoned__json", ["stats", "{file}", "--json", "--leaf", "{abandoned}"]),
                ("context-leaf-abandoned__text", ["context", "{file}", "--leaf", "{abandoned}"]),
                ("plan-leaf-abandoned__json", ["plan", "{file}", "--json", "--leaf", "{abandoned}"]),
            )
        if name == "fixture-compactions":
            extra = _cmds(
                (
                    "plan-keep-recent__json",
                    ["plan", "{file}", "--json", "--keep-recent-tokens", "3000", "--context-window", "64000"],
                ),
                ("context-leaf-turn__json", ["context", "{file}", "--json", "--leaf", "{turn}"]),
                ("compact-keep-recent__json", ["compact", "{file}", "--dry-run", "--json", "--keep-recent-tokens", "3000"]),
            )
        if name == "fixture-usage":
            extra = _cmds(
                (
                    "timeline-top__text",
                    ["timeline", "{file}", "--top", "2", "--early-thresholds", "0.2,0.9", "--context-window", "100000"],
                ),
                ("stats-window__json", ["stats", "{file}", "--json", "--context-window", "100000", "--no-tiktoken"]),
            )
        found.append(
            _file_input(
                name,
                f"{name}.jsonl",
                lambda n=name: build_fixture(n),
                config=PRUNING_CONFIG if name == "fixture-prunable" else None,
                extra=extra,
            )
        )
    found.append(Input("dir-own", _build_dir_own, DIR_COMMANDS))
    if with_corpus and corpus_files():
        found.append(Input("dir-corpus", _build_dir_corpus, DIR_COMMANDS, corpus=True))
    found.append(Input("discovery", _build_discovery, DISCOVERY_COMMANDS))
    return found


# ------------------------------------------------------------------------------------------------------ running one


def command_env(scratch: Path, cache: Path) -> dict[str, str]:
    """The whole environment of a command: every state, cache and config location inside `scratch`, no keys.

    `$HOME` is `in/home` (where the `discovery` input puts its OpenClaw and pi dirs: `ls` shows them as `~/...`);
    the XDG dirs, written by the commands, are outside `in/`."""
    home = scratch / INPUT_DIR / "home"
    xdg = scratch / "xdg"
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "COLUMNS": "160",
        "TERM": "dumb",
        "PYTHONPATH": str(ROOT),
        "PYTHONHASHSEED": "0",
        "PYTHONIOENCODING": "utf-8",
        "HOME": str(home),
        "XDG_CACHE_HOME": str(xdg / "cache"),
        "XDG_STATE_HOME": str(xdg / "state"),
        "XDG_CONFIG_HOME": str(xdg / "config"),
        "XDG_DATA_HOME": str(xdg / "data"),
        "SESSION_INSPECTOR_CACHE_DIR": str(cache),
        "SESSION_INSPECTOR_STATE_DIR": str(scratch / "inspector-state"),
        "OPENCLAW_STATE_DIR": str(home / ".openclaw"),
        "PI_CODING_AGENT_DIR": str(home / ".pi" / "agent"),
    }


@contextmanager
def pinned_timezone() -> Iterator[None]:
    """TZ=UTC for this process's C library while commands run in it (`run_cli` swaps the environment, not tzset)."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = saved
        time.tzset()


@dataclass
class Result:
    """A command's normalized outcome."""

    exit: int
    stdout: str
    stderr: str | None  # None: not digested
    is_json: bool = False  # stdout is normalized JSON (shown indented by `text`)

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"exit": self.exit, "stdout": _sha(self.stdout)}
        if self.stderr is not None:
            rec["stderr"] = _sha(self.stderr)
        return rec

    def text(self) -> str:
        """What `--dump` writes and the diffs compare (JSON indented, so that a diff shows the changed fields)."""
        stdout = (
            orjson.dumps(orjson.loads(self.stdout), option=orjson.OPT_INDENT_2).decode("utf-8") if self.is_json else self.stdout
        )
        out = f"exit: {self.exit}\n--- stdout\n{stdout}"
        if self.stderr is not None:
            out += f"\n--- stderr\n{self.stderr}"
        return out


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def drop_rules(value: Any, volatile: frozenset[str] = frozenset()) -> Any:
    """`value` without any `"rules"` key whose value is a dict with `id` and `reason` (at any depth); the values of
    the `volatile` keys become 0."""
    if isinstance(value, dict):
        return {
            k: 0 if k in volatile else drop_rules(v, volatile)
            for k, v in value.items()
            if not (k == "rules" and isinstance(v, dict) and "id" in v and "reason" in v)
        }
    if isinstance(value, list):
        return [drop_rules(v, volatile) for v in value]
    return value


def replace_dir(text: str, scratch: Path) -> str:
    for form in sorted({str(scratch), os.path.realpath(scratch)}, key=len, reverse=True):
        text = text.replace(form, "<DIR>")
    return text


def normalize_text(text: str, scratch: Path) -> str:
    lines = replace_dir(text, scratch).split("\n")
    return "\n".join(line for line in lines if not line.startswith(("rules:", "Rules:")))


def normalize_stdout(text: str, scratch: Path, is_json: bool, volatile: frozenset[str] = frozenset()) -> tuple[str, bool]:
    """See the module docstring; JSON that does not parse (an error run) is normalized as text. Also says whether
    the result is JSON."""
    if is_json:
        try:
            data = orjson.loads(replace_dir(text, scratch))
        except orjson.JSONDecodeError:
            pass
        else:
            return orjson.dumps(drop_rules(data, volatile)).decode("utf-8"), True
    return normalize_text(text, scratch), False


def run_raw(argv: Sequence[str], env: dict[str, str], cwd: Path, *, subprocess_run: bool) -> subprocess.CompletedProcess[str]:
    if subprocess_run:
        return subprocess.run(
            [sys.executable, "-m", "inspector", *argv],
            capture_output=True,
            text=True,
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
    return run_cli(argv, env=env, cwd=cwd)


def run_command(
    command: Command,
    places: dict[str, str],
    scratch: Path,
    cache: Path,
    extra: Sequence[str] = (),
    *,
    subprocess_run: bool | None = None,
) -> Result:
    """Run one command line (placeholders filled, `extra` appended) in `scratch` with the index cache at `cache`."""
    argv = [a.format(**places) for a in command.argv] + list(extra)
    if subprocess_run is None:
        subprocess_run = command.program in SUBPROCESS_COMMANDS
    done = run_raw(argv, command_env(scratch, cache), scratch, subprocess_run=subprocess_run)
    stderr = None if command.program in NONDETERMINISTIC_STDERR else normalize_text(done.stderr, scratch)
    volatile = VOLATILE_JSON_KEYS.get(command.program, frozenset())
    stdout, is_json = normalize_stdout(done.stdout, scratch, "--json" in argv, volatile)
    return Result(done.returncode, stdout, stderr, is_json)


@dataclass
class Outcome:
    """The outputs of one input: case -> result, and the problems met (a warm run unlike the cold one, a written input)."""

    results: dict[str, Result] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _input_digest(dest: Path) -> Result:
    lines = []
    for path in sorted(p for p in dest.rglob("*") if p.is_file()):
        lines.append(f"{path.relative_to(dest)} {hashlib.sha256(path.read_bytes()).hexdigest()}")
    return Result(0, "\n".join(lines) + "\n", None)


def run_input(inp: Input, extra: Sequence[str] = (), *, warm: bool = True, scratch_root: Path | None = None) -> Outcome:
    """Build `inp` in a fresh scratch dir and run each of its commands, cold then warm (each command its own cache dir)."""
    outcome = Outcome()
    scratch = Path(tempfile.mkdtemp(prefix="golden-", dir=scratch_root))
    try:
        dest = scratch / INPUT_DIR
        dest.mkdir()
        places = inp.build(dest)
        outcome.results[f"{inp.name}__input"] = before = _input_digest(dest)
        with pinned_timezone():
            for i, command in enumerate(inp.commands):
                case = inp.case(command)
                cache = scratch / "cache" / str(i)
                result = run_command(command, places, scratch, cache, extra)
                outcome.results[case] = result
                if warm:
                    again = run_command(command, places, scratch, cache, extra)
                    if again.record() != result.record():
                        outcome.problems.append(
                            f"{case}: the warm-cache run differs from the cold one\n" + diff_text(result, again, "cold", "warm")
                        )
        if _input_digest(dest).stdout != before.stdout:
            outcome.problems.append(f"{inp.name}: a command changed the input files")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return outcome


def diff_text(a: Result, b: Result, a_name: str, b_name: str, limit: int = 80) -> str:
    lines = list(difflib.unified_diff(a.text().splitlines(), b.text().splitlines(), a_name, b_name, lineterm="", n=2))
    if len(lines) > limit:
        lines = [*lines[:limit], f"... ({len(lines) - limit} more diff lines)"]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------------- whole runs


def load_golden(path: Path = GOLDEN) -> dict[str, dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def describe(want: dict[str, Any] | None, got: dict[str, Any] | None) -> str:
    """What differs between two records, briefly (`stdout differs (recorded 8f03591…, now 1a2b3c4…)`)."""
    if want is None or got is None:
        return "not recorded" if want is None else "recorded, but not produced now"
    parts = []
    for key in ("exit", "stdout", "stderr"):
        a, b = want.get(key), got.get(key)
        if a != b:
            show = (lambda v: v) if key == "exit" else (lambda v: f"{v[:12]}…" if isinstance(v, str) else "not digested")
            parts.append(f"{key} differs (recorded {show(a)}, now {show(b)})")
    return "; ".join(parts)


def compare(inp: Input, outcome: Outcome, golden: dict[str, dict[str, Any]], baseline: Path | None = None) -> list[str]:
    """One message per case of `inp` whose record differs from `golden` (or is missing on either side), with a diff
    against `baseline/<case>.txt` (an earlier `--dump`) when there is one."""
    messages = list(outcome.problems)
    for case in inp.case_names():
        want = golden.get(case)
        result = outcome.results.get(case)
        got = result.record() if result is not None else None
        if want == got:
            continue
        msg = f"{case}: {describe(want, got)}"
        if result is not None and baseline is not None and (baseline / f"{case}.txt").is_file():
            old = parse_dump((baseline / f"{case}.txt").read_text(encoding="utf-8", errors="surrogatepass"))
            msg += "\n" + diff_text(old, result, f"{baseline.name}/{case}.txt", "now")
        messages.append(msg)
    return messages


def parse_dump(text: str) -> Result:
    head, _, rest = text.partition("\n--- stdout\n")
    stdout, sep, stderr = rest.partition("\n--- stderr\n")
    return Result(int(head.removeprefix("exit: ")), stdout, stderr if sep else None)


RUNNER_SAMPLES: tuple[tuple[str, str | None], ...] = (
    ("demo", None),
    ("fixture-prunable", None),
    ("fixture-damaged", "stats__text"),
    ("fixture-media", "context__text"),
    ("dir-own", None),
    ("discovery", None),
    ("corpus-claude-code-cc-01-spotter-short", "stats__json"),
    ("corpus-pi-large-session.v1", "timeline__text"),
)
"""(input, command; None: all of them) run both ways by `verify_runners`."""


def verify_runners(samples: Sequence[tuple[str, str | None]] = RUNNER_SAMPLES) -> tuple[int, list[str]]:
    """Run `samples` (absent corpus inputs skipped) in this process and as a `python -m inspector` subprocess, each
    with a cold cache: how many were compared, and the differing cases with their diffs."""
    by_name = {i.name: i for i in inputs()}
    compared, differ = 0, []
    for input_name, command_name in samples:
        inp = by_name.get(input_name)
        if inp is None:
            continue
        scratch = Path(tempfile.mkdtemp(prefix="golden-"))
        try:
            dest = scratch / INPUT_DIR
            dest.mkdir()
            places = inp.build(dest)
            with pinned_timezone():
                for i, command in enumerate(inp.commands):
                    if command_name is not None and command.name != command_name:
                        continue
                    here = run_command(command, places, scratch, scratch / "cache" / f"{i}-here", subprocess_run=False)
                    real = run_command(command, places, scratch, scratch / "cache" / f"{i}-real", subprocess_run=True)
                    compared += 1
                    if here.record() != real.record():
                        differ.append(f"{inp.case(command)}\n" + diff_text(real, here, "subprocess", "in-process"))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return compared, differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="recompute and compare with outputs.json; exit 1 on any difference")
    mode.add_argument("--dump", type=Path, metavar="DIR", help="write each normalized output to DIR/<case>.txt")
    mode.add_argument(
        "--verify-runners", action="store_true", help="compare the in-process runner with a subprocess on some cases"
    )
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR", help="with --check: diff against DIR/<case>.txt (an earlier --dump)"
    )
    parser.add_argument(
        "--extra", action="append", default=[], metavar="ARG", help="append ARG to every command line (repeatable)"
    )
    parser.add_argument("--no-warm", action="store_true", help="run each command once (cold cache) instead of twice")
    parser.add_argument("--only", default=None, metavar="TEXT", help="only the inputs whose name contains TEXT")
    parser.add_argument("--output", type=Path, default=GOLDEN, help="the digest file (default tests/golden/outputs.json)")
    args = parser.parse_args(argv)

    if args.verify_runners:
        compared, differ = verify_runners()
        for d in differ:
            print(d)
        print(f"{compared} cases run both ways: {len(differ)} differ" if differ else f"{compared} cases run both ways: identical")
        return 1 if differ else 0

    started = time.perf_counter()
    chosen = [i for i in inputs() if args.only is None or args.only in i.name]
    if not corpus_files():
        print(f"corpus not available at {CORPUS}: its cases are skipped", file=sys.stderr)
    golden = load_golden(args.output) if args.check else {}
    records: dict[str, dict[str, Any]] = {}
    failures: list[str] = []
    cases = 0
    for inp in chosen:
        outcome = run_input(inp, args.extra, warm=not args.no_warm)
        cases += len(outcome.results)
        if args.check:
            failures.extend(compare(inp, outcome, golden, args.baseline))
        else:
            failures.extend(outcome.problems)
        records.update((case, r.record()) for case, r in outcome.results.items())
        if args.dump:
            args.dump.mkdir(parents=True, exist_ok=True)
            for case, r in outcome.results.items():
                (args.dump / f"{case}.txt").write_text(r.text(), encoding="utf-8", errors="surrogatepass")
    elapsed = time.perf_counter() - started

    if args.check and args.only is None:
        produced = {case for inp in chosen for case in inp.case_names()}
        corpus_absent = not corpus_files()
        for case in sorted(set(golden) - produced):
            if not (corpus_absent and case.startswith(("corpus-", "dir-corpus__"))):
                failures.append(f"{case}: recorded, but no input makes this case any more")
    for failure in failures:
        print(failure)
    if args.check and failures and args.baseline is None:
        print("(for diffs: --dump DIR with the old code, then --check --baseline DIR)")
    if args.check:
        print(f"{cases} cases checked in {elapsed:.1f} s: {'all identical' if not failures else f'{len(failures)} differ'}")
        return 1 if failures else 0
    if failures:
        print(f"not recorded: {len(failures)} problems", file=sys.stderr)
        return 1
    if args.dump:
        print(f"{cases} cases written to {args.dump} in {elapsed:.1f} s")
        return 0
    if args.only is not None:
        records = {**(load_golden(args.output) if args.output.exists() else {}), **records}
    args.output.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(records)} cases recorded to {args.output} in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
