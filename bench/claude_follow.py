"""Live follow of a growing Claude Code transcript or Codex rollout (issues 26, 27): what one appended line costs,
from the file to what the screen shows.

Generates a file of about `--mb` MB, opens it as the app does (mirror sync, then the index, the transcript model and
the figures), then appends lines as the agent writes them and times each step as the app's live follow does it:
`sync_foreign` (the mirror), `Session.refresh` (the index), then the context, the transcript model that follows the
previous one (`TranscriptModel(previous=..., revised=...)`, its numbers prepared) and the figures (overview; the
breakdown reused on a large session, as `LiveFollower` does).

- `claude-code`: API messages of `--lines` lines (one content block each, the same `message.id`): a message's first
  line, then further lines (each moves the message's usage to the new line: a usage mark on it).
- `codex`: turns of a function call, its output, an assistant message and a `token_count` (the usage of the
  response before it: a usage mark on the `token_count` line).

Prints each step, then the p50 / p95 of each kind of line and the load average.

    PYTHONPATH=. python bench/claude_follow.py --mb 50 --format claude-code --steps 40
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

TS = "2026-01-01T00:00:00.000Z"


def _line(kind: str, uuid: str, parent: str | None, message: dict, **extra: object) -> str:
    obj = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s", "isSidechain": False, "timestamp": TS,
           "message": message, **extra}
    return json.dumps(obj, separators=(",", ":")) + "\n"


def _assistant(uuid: str, parent: str, mid: int, block: dict, prompt: int) -> str:
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 400, "cache_read_input_tokens": prompt, "output_tokens": 12}
    message = {"id": f"msg_{mid}", "model": "claude-opus-4-6", "role": "assistant", "content": [block], "stop_reason": None, "usage": usage}
    return _line("assistant", uuid, parent, message, requestId=f"req_{mid}")


def generate(path: Path, target_bytes: int) -> tuple[str, int]:
    """Write a Claude Code file; (the last line's uuid, the next message number)."""
    size, mid, parent = 0, 0, None
    with open(path, "w", encoding="utf-8") as f:
        first = _line("user", "u0", None, {"role": "user", "content": "work on the repository"})
        f.write(first)
        size, parent = len(first), "u0"
        while size < target_bytes:
            mid += 1
            lines = [
                _assistant(f"a{mid}t", parent, mid, {"type": "thinking", "thinking": "plan " * 60, "signature": "s" * 200}, 20_000 + mid),
                _assistant(f"a{mid}x", f"a{mid}t", mid, {"type": "text", "text": "Reading the files."}, 20_000 + mid),
            ]
            calls = [f"t{mid}_{k}" for k in range(3)]
            prev = f"a{mid}x"
            for k, call in enumerate(calls):
                block = {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": f"/src/file_{mid}_{k}.py"}}
                lines.append(_assistant(f"a{mid}c{k}", prev, mid, block, 20_000 + mid))
                prev = f"a{mid}c{k}"
            results = [{"type": "tool_result", "tool_use_id": call, "content": ("line of code\n" * 120)} for call in calls]
            lines.append(_line("user", f"r{mid}", prev, {"role": "user", "content": results}, toolUseResult={"type": "text"}))
            parent = f"r{mid}"
            chunk = "".join(lines)
            f.write(chunk)
            size += len(chunk)
    return parent, mid + 1


def claude_steps(parent: str, mid: int, lines: int):
    """(kind, line) of the appended lines, one API message of `lines` lines after another."""
    k = 0
    while True:
        for n in range(lines):
            uuid = f"live{k}"
            yield ("first line" if n == 0 else "further line"), _assistant(uuid, parent, mid, {"type": "text", "text": f"step {k}"}, 30_000 + k)
            parent, k = uuid, k + 1
        mid += 1


def _cx(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": TS, "type": kind, "payload": payload}, separators=(",", ":")) + "\n"


def _codex_turn(n: int) -> list[tuple[str, str]]:
    last = {"input_tokens": 20_000 + n, "cached_input_tokens": 18_000, "output_tokens": 40, "total_tokens": 20_040 + n}
    return [
        ("call", _cx("response_item", {"type": "function_call", "name": "shell", "call_id": f"c{n}", "arguments": json.dumps({"command": ["ls", f"/src/{n}"]})})),
        ("output", _cx("response_item", {"type": "function_call_output", "call_id": f"c{n}", "output": "file.py\n" * 120})),
        ("message", _cx("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": f"Done {n}."}]})),
        ("token_count", _cx("event_msg", {"type": "token_count", "info": {"last_token_usage": last, "model_context_window": 272_000}})),
    ]


def generate_codex(path: Path, target_bytes: int) -> int:
    """Write a Codex rollout; the next turn number."""
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        head = _cx("session_meta", {"id": "s", "model_provider": "openai", "base_instructions": {"text": "be brief"}}) + _cx(
            "turn_context", {"model": "gpt-5.1"})
        f.write(head)
        size = len(head)
        while size < target_bytes:
            n += 1
            user = _cx("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"task {n}"}]})
            chunk = user + "".join(line for _, line in _codex_turn(n))
            f.write(chunk)
            size += len(chunk)
    return n + 1


def codex_steps(n: int):
    while True:
        yield from _codex_turn(n)
        n += 1


def main() -> None:
    from inspector.figures.session_figures import WindowOptions, session_figures
    from inspector.read.formats.mirror import sync_foreign
    from inspector.session.session import open_session
    from widgets.transcript.model import TranscriptModel

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--format", choices=("claude-code", "codex"), default="claude-code")
    ap.add_argument("--lines", type=int, default=4, help="lines of each appended API message (claude-code)")
    ap.add_argument("--steps", type=int, default=24, help="lines appended")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("SESSION_INSPECTOR_CACHE_DIR", str(Path(tmp) / "cache"))
        path = Path(tmp) / "session.jsonl"
        if args.format == "claude-code":
            steps = claude_steps(*generate(path, int(args.mb * 1024 * 1024)), args.lines)
        else:
            steps = codex_steps(generate_codex(path, int(args.mb * 1024 * 1024)))
        t0 = time.perf_counter()
        mirror = sync_foreign(path, args.format)
        t1 = time.perf_counter()
        session = open_session(mirror.path)
        t2 = time.perf_counter()
        window = WindowOptions(override=mirror.default_window()[0] or 200_000, agent=args.format)
        ctx = session.context()
        model = TranscriptModel(session, ctx)
        model.prepare("pi")
        model.prepare("usage")
        figures = session_figures(session, ctx, window)
        print(f"{args.format}: file {path.stat().st_size / 1e6:.1f} MB, {len(session.entries):,} entries; "
              f"first sync {1000 * (t1 - t0):.0f} ms, index {1000 * (t2 - t1):.0f} ms")
        times: dict[str, list[float]] = {}
        for _ in range(args.steps):
            kind, line = next(steps)
            with open(path, "a", encoding="utf-8") as f:
                f.write(line)
            t0 = time.perf_counter()
            mirror = sync_foreign(path, args.format, mirror)
            t1 = time.perf_counter()
            result = session.refresh()
            t2 = time.perf_counter()
            ctx = session.context()
            previous = figures if ctx.continues(model.ctx, result.revised) and not result.reset else None
            model = TranscriptModel(session, ctx, previous=None if result.reset else model, revised=result.revised)
            model.prepare("pi")
            model.prepare("usage")
            figures = session_figures(session, ctx, window, previous=previous)
            t3 = time.perf_counter()
            did = "re-indexed" if result.reset else f"+{len(result.new_entries)} entries, {len(result.revised)} revised"
            print(f"{kind:>12}: sync {1000 * (t1 - t0):4.0f} ms ({mirror.change}, {mirror.revised} marks), refresh "
                  f"{1000 * (t2 - t1):4.0f} ms ({did}), screen {1000 * (t3 - t2):4.0f} ms; total {1000 * (t3 - t0):4.0f} ms")
            times.setdefault(kind, []).append(1000 * (t3 - t0))
        for kind, values in times.items():
            values.sort()
            p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
            print(f"{kind}: n={len(values)} p50 {statistics.median(values):.0f} ms, p95 {p95:.0f} ms, max {values[-1]:.0f} ms")
        print("load average: " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
        cold = open_session(mirror.path)
        assert [e.usage for e in cold.entries] == [e.usage for e in session.entries], "the followed index differs from a cold read"


if __name__ == "__main__":
    main()
