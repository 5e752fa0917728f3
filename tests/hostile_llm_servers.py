"""Hostile fake LLM servers for tests: `llm_servers`' OpenAI and Anthropic servers with behaviours an attacker (or a
broken proxy) would use against the summarizers, still real HTTP on 127.0.0.1:

* `cut_short`: the stream stops after a few text pieces, without its end (no `finish_reason` and no `[DONE]` for
  OpenAI, no `message_delta` / `message_stop` for Anthropic);
* `echo_key_summary`: a well-formed stream whose summary text repeats the Authorization and x-api-key headers the
  client sent, split over several pieces;
* `inject_error`: HTTP 500 whose error message holds terminal escapes (`INJECTION`);
* `inject_summary`: a well-formed stream whose summary holds the same escapes;
* `endless`: a stream of text pieces (`endless_piece` characters each) that never ends on its own; the server
  stops it after `endless_seconds` (bounded in the test itself);
* `endless_line`: one SSE data line that never ends (same bound);
  for both, `endless_log` records how long the client kept reading: `(behaviour, seconds, bytes written)`;
* `huge_error`: HTTP 500 with an error message of `huge_bytes` characters;
* `gzip_stream`: a well-formed stream, gzip-compressed although the client accepted no compression;
* `done_without_finish` (OpenAI): the text, then `data: [DONE]`, with no `finish_reason` anywhere.
"""

from __future__ import annotations

import gzip
import io
import time
from typing import Any

from llm_servers import AnthropicServer, FakeLLMServer, OpenAIServer, _Handler

INJECTION = (
    "boom \x1b]0;PWNED-TITLE\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J \x9b31m red \u202eevil\u202c \u2066iso\u2069 \u200fmark\u061c"
    " \x1b[31m"
)
"""An OSC window title, an OSC 52 clipboard write, clear-screen, a C1 CSI, bidi override, isolate and marks, an SGR
colour."""

RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\u202c", "\u2066", "\u2069", "\u200f", "\u061c")
"""Characters none of which may reach a terminal (or a JSON text) unescaped."""


class _Hostile(FakeLLMServer):
    """The extra behaviours (see the module docstring); `huge_bytes`, `endless_piece`, `endless_seconds` tune them."""

    huge_bytes = 6_000_000
    endless_piece = 60_000
    endless_seconds = 8.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.endless_log: list[tuple[str, float, int]] = []

    def pour(self, h: _Handler, behaviour: str, data: str) -> None:
        """Write `data` again and again until the client stops reading or `endless_seconds` have passed."""
        start = time.monotonic()
        written = 0
        while time.monotonic() - start < self.endless_seconds and not self.stopping.is_set() and self.write(h, data):
            written += len(data)
        with self.lock:
            self.endless_log.append((behaviour, time.monotonic() - start, written))

    def key_echo(self, h: _Handler) -> str:
        return f"## Decisions\nthe client authenticated with {h.headers.get('Authorization') or ''} and {h.headers.get('x-api-key') or ''}."

    def respond(self, h: _Handler, behaviour: str, body: dict[str, Any]) -> None:
        if behaviour == "echo_key_summary":
            return self.stream_text(h, body, self.key_echo(h), piece=5)
        if behaviour == "inject_summary":
            return self.stream_text(h, body, "## Decisions\n" + INJECTION, piece=9)
        if behaviour == "inject_error":
            return self.error(h, 500, INJECTION)
        if behaviour == "huge_error":
            return self.error(h, 500, "E" * self.huge_bytes)
        if behaviour in ("cut_short", "endless", "endless_line", "done_without_finish"):
            return self.hostile_stream(h, body, behaviour)
        if behaviour == "gzip_stream":
            return self.gzip_stream(h, body)
        return super().respond(h, behaviour, body)

    def gzip_stream(self, h: _Handler, body: dict[str, Any]) -> None:
        """The `ok` stream, recorded, then sent gzip-compressed with `Content-Encoding: gzip`."""

        class Recorder:
            def __init__(self) -> None:
                self.wfile = io.BytesIO()
                self.headers = h.headers

            def send_response(self, status: int) -> None:
                pass

            def send_header(self, name: str, value: str) -> None:
                pass

            def end_headers(self) -> None:
                pass

        rec = Recorder()
        super().respond(rec, "ok", body)  # type: ignore[arg-type]
        data = gzip.compress(rec.wfile.getvalue())
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Content-Encoding", "gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def stream_text(self, h: _Handler, body: dict[str, Any], text: str, piece: int) -> None:
        saved = self.reply, self.piece
        self.reply, self.piece = text, piece
        try:
            super().respond(h, "ok", body)
        finally:
            self.reply, self.piece = saved

    def error(self, h: _Handler, status: int, message: str) -> None:
        raise NotImplementedError

    def hostile_stream(self, h: _Handler, body: dict[str, Any], behaviour: str) -> None:
        raise NotImplementedError


def _send_json(server: FakeLLMServer, h: _Handler, status: int, obj: Any) -> None:
    try:
        server.send_json(h, status, obj)
    except OSError:
        pass  # the client stopped reading (as it should, of a huge body)


class HostileOpenAIServer(_Hostile, OpenAIServer):
    """`OpenAIServer` with the hostile behaviours."""

    def error(self, h: _Handler, status: int, message: str) -> None:
        _send_json(self, h, status, {"error": {"message": message, "type": "server_error", "param": None, "code": None}})

    def hostile_stream(self, h: _Handler, body: dict[str, Any], behaviour: str) -> None:
        model = body.get("model", "fake")
        self.start_sse(h)
        self.write(h, self._chunk(model, {"role": "assistant", "content": ""}))
        if behaviour in ("cut_short", "done_without_finish"):
            for piece in ("## Decisions\n", "half of a sum", "mary and then"):
                self.write(h, self._chunk(model, {"content": piece}))
            if behaviour == "done_without_finish":
                self.write(h, "data: [DONE]\n\n")
            return
        if behaviour == "endless_line":
            self.write(h, 'data: {"id": "chatcmpl-fake", "choices": [{"index": 0, "delta": {"content": "')
            return self.pour(h, behaviour, "y" * 1_048_576)
        self.pour(h, behaviour, self._chunk(model, {"content": "z" * self.endless_piece}))


class HostileAnthropicServer(_Hostile, AnthropicServer):
    """`AnthropicServer` with the hostile behaviours."""

    def error(self, h: _Handler, status: int, message: str) -> None:
        _send_json(self, h, status, {"type": "error", "error": {"type": "api_error", "message": message}})

    def _start(self, h: _Handler, model: str) -> None:
        self.start_sse(h)
        self.write(h, self._event("message_start", {"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": {"input_tokens": 321, "output_tokens": 1}}}))
        self.write(h, self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                                          "content_block": {"type": "text", "text": ""}}))

    def _delta(self, text: str) -> str:
        return self._event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})

    def hostile_stream(self, h: _Handler, body: dict[str, Any], behaviour: str) -> None:
        self._start(h, body.get("model", "fake"))
        if behaviour in ("cut_short", "done_without_finish"):  # (no `[DONE]` in this protocol: a stream cut short)
            for piece in ("## Decisions\n", "half of a sum", "mary and then"):
                self.write(h, self._delta(piece))
            self.write(h, self._event("content_block_stop", {"type": "content_block_stop", "index": 0}))
            return
        if behaviour == "endless_line":
            self.write(h, 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "')
            return self.pour(h, behaviour, "y" * 1_048_576)
        self.pour(h, behaviour, self._delta("z" * self.endless_piece))
