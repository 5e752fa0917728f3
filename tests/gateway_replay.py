"""A Python Gateway replaying an exchange recorded from the real OpenClaw 2026.9.6 one
(`tests/oracle/gateway_exchange_2026_9_6.json`), for the `compact` command's tests and the app's: the recorded
`connect.challenge`, `hello-ok`, token refusal and `sessions.compact` answer; on `sessions.compact` it appends the
recorded compaction entry to the store (as the real Gateway does), or answers `response`, or holds the answer
(`hold`) until the test ends.

    with recorded_setup(tmp_path) as (store, gw):   # a store under tmp_path/.openclaw, openclaw.json naming gw's port
        ... env_for(tmp_path) ...                      # HOME and OPENCLAW_STATE_DIR at tmp_path, no other OPENCLAW_*
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from conftest import ROOT
from store_support import append_events, build_store, writer

DEMO = ROOT / "inspector" / "data" / "demo-session.jsonl"
KEY = "agent:main:main"
TOKEN = "recorded-token-7c9d"
EXCHANGE = json.loads((ROOT / "tests" / "oracle" / "gateway_exchange_2026_9_6.json").read_text())


def recorded(direction: str, predicate) -> dict[str, Any]:
    return next(f["frame"] for f in EXCHANGE["frames"] if f["dir"] == direction and predicate(f["frame"]))


CHALLENGE = recorded("server", lambda f: f.get("event") == "connect.challenge")
HELLO = recorded("server", lambda f: f.get("type") == "res" and f.get("ok") and f["payload"].get("type") == "hello-ok")
COMPACTED = recorded("server", lambda f: f.get("type") == "res" and (f.get("payload") or {}).get("compacted") is True)
BAD_TOKEN = recorded("server-to-bad-token", lambda f: f.get("type") == "res")
CONNECT_SENT = recorded("client", lambda f: f.get("method") == "connect")


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
    env.update({"HOME": str(home), "OPENCLAW_STATE_DIR": str(home / ".openclaw"), **extra})
    return env


def write_config(home: Path, port: int, token: str = TOKEN) -> None:
    (home / ".openclaw").mkdir(parents=True, exist_ok=True)
    config = {"gateway": {"mode": "local", "port": port, "auth": {"mode": "token", "token": token}}}
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(config))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class RecordedGateway:
    """A Gateway on 127.0.0.1 answering with the recorded frames; on `sessions.compact` it appends the recorded
    compaction entry to the store (as the real one does) unless told to answer `response` instead."""

    def __init__(self, store: Path, session_id: str, token: str = TOKEN, response: dict[str, Any] | None = None,
                 hold: bool = False, port: int = 0) -> None:
        from websockets.sync.server import serve

        self.store, self.session_id, self.token, self.response, self.hold = store, session_id, token, response, hold
        self.received: list[dict[str, Any]] = []
        self.released = threading.Event()
        """Set when the test ends: a held answer is never sent."""
        self.server = serve(self.handle, "127.0.0.1", port, compression=None)
        self.port = self.server.socket.getsockname()[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def handle(self, ws: Any) -> None:
        ws.send(json.dumps(CHALLENGE))
        connect = json.loads(ws.recv())
        self.received.append(connect)
        if connect["params"].get("auth", {}).get("token") != self.token:
            ws.send(json.dumps({**BAD_TOKEN, "id": connect["id"]}))
            return
        ws.send(json.dumps({**HELLO, "id": connect["id"]}))
        for raw in ws:
            req = json.loads(raw)
            self.received.append(req)
            if self.hold:
                self.released.wait()
                return
            payload = self.response
            if payload is None:
                payload = COMPACTED["payload"]
                entry = {"type": "compaction", "id": "gw-compaction-1", "parentId": None, "timestamp": "2026-11-27T19:29:20.792Z",
                         **payload["result"], "fromHook": True}
                conn = writer(self.store)
                append_events(conn, self.session_id, [json.dumps(entry).encode()])
                conn.close()
            ws.send(json.dumps({"type": "event", "event": "sessions.changed", "payload": {"sessionKey": KEY}}))
            ws.send(json.dumps({"type": "res", "id": req["id"], "ok": True, "payload": payload}))

    def __enter__(self) -> RecordedGateway:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self.server.shutdown()


@contextmanager
def recorded_setup(tmp_path: Path, **kw: Any) -> Iterator[tuple[Path, RecordedGateway]]:
    """A store under `tmp_path` holding the demo as `KEY`, a `RecordedGateway` on it (`kw`: its options) and
    `tmp_path/.openclaw/openclaw.json` naming the Gateway's port and `TOKEN`."""
    store, ids = build_store(tmp_path, {KEY: DEMO})
    with RecordedGateway(store, ids[KEY], **kw) as gw:
        write_config(tmp_path, gw.port)
        yield store, gw
