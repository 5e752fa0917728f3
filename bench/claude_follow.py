"""Live follow of a growing Claude Code transcript (issue 26): what one appended line costs, end to end.

Generates a Claude Code file of about `--mb` MB (API messages split over several lines, parallel tool calls, their
results), opens it as the app does (mirror sync, then the index), then appends one API message a line at a time,
as Claude Code writes it: its first line (usage on it: the mirror is appended), then further lines of the same
message (the usage moves to the new last line: the row holding it is rewritten). Each step is timed as
`sync_foreign` (mirror) + `Session.refresh` (index), with what the refresh did (appended entries, or a re-index).

    PYTHONPATH=. python bench/claude_follow.py --mb 50
"""

from __future__ import annotations

import argparse
import json
import os
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
    """Write the file; (the last line's uuid, the next message number)."""
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


def main() -> None:
    from inspector.read.formats.mirror import sync_foreign
    from inspector.session.session import open_session

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50.0)
    ap.add_argument("--lines", type=int, default=4, help="lines of the appended API message")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("SESSION_INSPECTOR_CACHE_DIR", str(Path(tmp) / "cache"))
        path = Path(tmp) / "session.jsonl"
        parent, mid = generate(path, int(args.mb * 1024 * 1024))
        t0 = time.perf_counter()
        mirror = sync_foreign(path, "claude-code")
        t1 = time.perf_counter()
        session = open_session(mirror.path)
        t2 = time.perf_counter()
        print(f"file {path.stat().st_size / 1e6:.1f} MB, {len(session.entries):,} entries; "
              f"first sync {1000 * (t1 - t0):.0f} ms, index {1000 * (t2 - t1):.0f} ms")
        blocks = [{"type": "text", "text": f"step {k}"} for k in range(args.lines)]
        prev = parent
        for k, block in enumerate(blocks):
            uuid = f"live{k}"
            with open(path, "a", encoding="utf-8") as f:
                f.write(_assistant(uuid, prev, mid, block, 30_000 + k))
            prev = uuid
            t0 = time.perf_counter()
            mirror = sync_foreign(path, "claude-code", mirror)
            t1 = time.perf_counter()
            result = session.refresh()
            t2 = time.perf_counter()
            did = "re-indexed" if result.reset else f"+{len(result.new_entries)} entries"
            print(f"line {k + 1} of the message: sync {1000 * (t1 - t0):.0f} ms ({mirror.change}), "
                  f"refresh {1000 * (t2 - t1):.0f} ms ({did}); total {1000 * (t2 - t0):.0f} ms")
        last = session.entries[len(session.entries) - 1]
        assert last.usage is not None and [e.id for e in session.entries if e.usage is not None][-1] == last.id


if __name__ == "__main__":
    main()
