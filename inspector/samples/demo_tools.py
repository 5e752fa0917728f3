"""The demo's tool-call helpers: each returns (toolCall block, tool_result keyword arguments); `DemoTools.step` writes
one assistant message and the results of its calls (`inspector.samples.demo_story`)."""

from __future__ import annotations

import random
from typing import Any

from inspector.samples.demo_text import PROJECT
from inspector.samples.fixtures import SessionBuilder


class DemoTools:
    """Builds OpenClaw tool calls and their results for one builder."""

    def __init__(self, b: SessionBuilder, rng: random.Random) -> None:
        self.b, self.rng = b, rng

    def read(self, path: str, text: str, **args) -> tuple[dict, dict]:
        return self.b.tool_call("read", {"path": path, **args}), {"content": text, "duration_ms": 40}

    def exec(self, command: str, output: str, *, code: int = 0, ms: int = 1800, cwd: str = PROJECT) -> tuple[dict, dict]:
        call = self.b.tool_call("exec", {"command": command, "workdir": cwd})
        if code != 0:  # the tool throws; pi's agent loop stores the error text with empty details
            text = output.rstrip("\n") + f"\n\nCommand exited with code {code}"
            return call, {"content": text, "details": {}, "is_error": True, "duration_ms": ms}
        details = {"status": "completed", "exitCode": 0, "durationMs": ms, "aggregated": output, "cwd": cwd}
        return call, {"content": output or "(no output)", "details": details, "duration_ms": ms}

    def edit(self, path: str, old: str, new: str, line: int) -> tuple[dict, dict]:
        diff = "\n".join([f"{line - 1:>4}   ...", *(f"{line + i:>4} - {x}" for i, x in enumerate(old.splitlines())),
                          *(f"{line + i:>4} + {x}" for i, x in enumerate(new.splitlines()))])
        call = self.b.tool_call("edit", {"path": path, "oldText": old, "newText": new})
        return call, {"content": f"Successfully replaced text in {path}.", "details": {"diff": diff, "firstChangedLine": line},
                      "duration_ms": 25}

    def write(self, path: str, content: str) -> tuple[dict, dict]:
        size = len(content.encode("utf-8"))
        return self.b.tool_call("write", {"path": path, "content": content}), \
            {"content": f"Successfully wrote {size} bytes to {path}", "duration_ms": 20}

    def web_fetch(self, url: str, page: str) -> tuple[dict, dict]:
        call = self.b.tool_call("web_fetch", {"url": url, "extractMode": "markdown"})
        details = {"status": 200, "extractor": "readability", "truncated": False, "tookMs": 612}
        return call, {"content": page, "details": details, "duration_ms": 640}

    def browser(self, args: dict, content: str | list, details: dict | None = None, ms: int = 900) -> tuple[dict, dict]:
        result: dict[str, Any] = {"content": content, "duration_ms": ms}
        if details is not None:
            result["details"] = details
        return self.b.tool_call("browser", args), result

    def message(self, args: dict, reply: str) -> tuple[dict, dict]:
        return self.b.tool_call("message", args), {"content": reply, "details": {"ok": True}, "duration_ms": 480}

    def step(self, *items) -> str:
        """One assistant message (thinking/text strings or blocks, then tool pairs) followed by its tool results."""
        blocks, results = [], []
        for item in items:
            if isinstance(item, tuple):
                blocks.append(item[0])
                results.append((item[0], item[1]))
            else:
                blocks.append(item)
        aid = self.b.assistant(blocks)
        for call, kwargs in results:
            self.b.tool_result(call["id"], call["name"], **kwargs)
        return aid

    def think(self, text: str) -> dict:
        return self.b.thinking(text)
