"""Fake LLM provider servers for tests: real HTTP on 127.0.0.1, streaming SSE, fault injection.

`OpenAIServer` speaks the chat-completions API (`POST /v1/chat/completions`, streamed chunks ending in a usage
chunk and `data: [DONE]`); `AnthropicServer` speaks the Messages API (`POST /v1/messages`, the event stream
`message_start` ... `message_stop`). Each records every request (`requests`: path, headers, JSON body) and
answers from a script of behaviours, one per request (`script([...])`), falling back to `default`:

* `ok` (stream `reply` in small pieces), `slow` (a pause before each piece), `http429`, `http500`,
  `malformed` (a broken SSE data line), `overflow` (400 with the provider's context-overflow message),
  `hang` (headers, then nothing until the server stops), `echo_key` (500 whose body repeats the Authorization /
  x-api-key header the client sent: a key must never leak from an error).

Use as a context manager: `with OpenAIServer() as srv: ... srv.base_url ...`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Behaviour = str


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        owner = self.server.owner
        with owner.lock:
            owner.requests.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
            behaviour = owner.queue.popleft() if owner.queue else owner.default
        owner.respond(self, behaviour, body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: FakeLLMServer


class FakeLLMServer:
    """Common machinery: a threaded HTTP server on 127.0.0.1 with a script of behaviours."""

    api_path = "/"

    def __init__(self, reply: str = "## Decisions\nsummary from the fake server", default: Behaviour = "ok", piece: int = 7) -> None:
        self.reply = reply
        self.default = default
        self.piece = piece
        self.requests: list[dict[str, Any]] = []
        self.queue: deque[Behaviour] = deque()
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.slow_delay = 0.05
        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.owner = self
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="fake-llm", daemon=True)

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    def script(self, behaviours: list[Behaviour]) -> None:
        """The behaviours of the next requests, in order."""
        with self.lock:
            self.queue.extend(behaviours)

    def __enter__(self) -> FakeLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- helpers for subclasses ---------------------------------------------------------------------------------

    def pieces(self) -> list[str]:
        return [self.reply[i : i + self.piece] for i in range(0, len(self.reply), self.piece)]

    def send_json(self, h: _Handler, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def start_sse(self, h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.end_headers()

    def write(self, h: _Handler, text: str) -> bool:
        try:
            h.wfile.write(text.encode())
            h.wfile.flush()
            return True
        except OSError:
            return False

    def hang(self, h: _Handler) -> None:
        self.start_sse(h)
        self.write(h, ": connected\n\n")
        self.stopping.wait(60)

    def secret_echo(self, h: _Handler) -> str:
        return f"invalid credentials: {h.headers.get('Authorization') or ''} {h.headers.get('x-api-key') or ''}"

    def respond(self, h: _Handler, behaviour: Behaviour, body: dict[str, Any]) -> None:
        raise NotImplementedError


class OpenAIServer(FakeLLMServer):
    """`POST /v1/chat/completions` (see the module docstring)."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _error(self, h: _Handler, status: int, message: str, etype: str) -> None:
        self.send_json(h, status, {"error": {"message": message, "type": etype, "param": None, "code": None}})

    def _chunk(self, model: str, delta: dict[str, Any], finish: str | None = None) -> str:
        obj = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1780000000, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(obj)}\n\n"

    def respond(self, h: _Handler, behaviour: Behaviour, body: dict[str, Any]) -> None:
        model = body.get("model", "fake")
        if behaviour == "http429":
            return self._error(h, 429, "Rate limit reached for requests", "rate_limit_error")
        if behaviour == "http500":
            return self._error(h, 500, "The server had an error while processing your request.", "server_error")
        if behaviour == "overflow":
            return self._error(h, 400, "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
                               "invalid_request_error")
        if behaviour == "echo_key":
            return self._error(h, 500, self.secret_echo(h), "server_error")
        if behaviour == "hang":
            return self.hang(h)
        self.start_sse(h)
        self.write(h, self._chunk(model, {"role": "assistant", "content": ""}))
        for i, piece in enumerate(self.pieces()):
            if behaviour == "slow":
                time.sleep(self.slow_delay)
            if behaviour == "malformed" and i == 1:
                self.write(h, 'data: {"id": "chatcmpl-fake", "choices": [{"delta": {"content": \n\n')
                return
            if not self.write(h, self._chunk(model, {"content": piece})):
                return
        self.write(h, self._chunk(model, {}, "stop"))
        usage = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1780000000, "model": model, "choices": [],
                 "usage": {"prompt_tokens": 321, "completion_tokens": 45, "total_tokens": 366}}
        self.write(h, f"data: {json.dumps(usage)}\n\n")
        self.write(h, "data: [DONE]\n\n")


class AnthropicServer(FakeLLMServer):
    """`POST /v1/messages` (see the module docstring)."""

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _error(self, h: _Handler, status: int, etype: str, message: str) -> None:
        self.send_json(h, status, {"type": "error", "error": {"type": etype, "message": message}})

    def _event(self, name: str, obj: dict[str, Any]) -> str:
        return f"event: {name}\ndata: {json.dumps(obj)}\n\n"

    def respond(self, h: _Handler, behaviour: Behaviour, body: dict[str, Any]) -> None:
        model = body.get("model", "fake")
        if behaviour == "http429":
            return self._error(h, 429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
        if behaviour == "http500":
            return self._error(h, 500, "api_error", "Internal server error")
        if behaviour == "overflow":
            return self._error(h, 400, "invalid_request_error", "prompt is too long: 213462 tokens > 200000 maximum")
        if behaviour == "echo_key":
            return self._error(h, 500, "api_error", self.secret_echo(h))
        if behaviour == "hang":
            return self.hang(h)
        self.start_sse(h)
        self.write(h, self._event("message_start", {"type": "message_start", "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": {"input_tokens": 321, "output_tokens": 1}}}))
        self.write(h, self._event("content_block_start", {"type": "content_block_start", "index": 0,
                                                          "content_block": {"type": "text", "text": ""}}))
        self.write(h, self._event("ping", {"type": "ping"}))
        for i, piece in enumerate(self.pieces()):
            if behaviour == "slow":
                time.sleep(self.slow_delay)
            if behaviour == "malformed" and i == 1:
                self.write(h, "event: content_block_delta\ndata: {\"type\": \"content_block_delta\", \"delta\": \n\n")
                return
            if not self.write(h, self._event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                                     "delta": {"type": "text_delta", "text": piece}})):
                return
        self.write(h, self._event("content_block_stop", {"type": "content_block_stop", "index": 0}))
        self.write(h, self._event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                                    "usage": {"output_tokens": 45}}))
        self.write(h, self._event("message_stop", {"type": "message_stop"}))
