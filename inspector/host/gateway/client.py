"""The Gateway's WebSocket RPC (protocol 4), as the `openclaw` CLI speaks it for one call.

Ported from 2026.9.6 `packages/gateway-client/src/client.ts` and `src/gateway/call.ts` (docs/gateway/protocol/):
text frames of JSON; the Gateway first sends a `connect.challenge` event; the client answers with the `connect`
request (`minProtocol`/`maxProtocol` 4, `client` {id `cli`, mode `cli`}, role `operator`, the scopes the method
needs, `auth` {token | password}); `hello-ok` comes back; then requests `{type: "req", id, method, params}` are
answered by `{type: "res", id, ok, payload | error}` while events (`{type: "event"}`) flow past and are ignored.

Like the CLI on a loopback Gateway with a shared token or password (`shouldOmitDeviceIdentityForGatewayCall`), no
device identity is sent: nothing is paired and no key is stored. A Gateway that wants one (remote, or no shared
secret) refuses the connect, and the error says so. A retryable `UNAVAILABLE` connect error (`startup-sidecars`) is
retried after its `retryAfterMs` within the connect budget. The secret is never put in an exception's text.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from inspector.host.gateway.target import GatewayTarget

PROTOCOL_VERSION = 4
CLIENT_ID = "cli"
CLIENT_MODE = "cli"
CLIENT_DISPLAY_NAME = "session-inspector"
CONNECT_TIMEOUT_S = 15.0
"""The pre-auth handshake budget (the reference client's 15 s)."""
MAX_FRAME_BYTES = 25 * 1024 * 1024


class GatewayError(Exception):
    """A call that did not get an answer: the base of the errors below."""


class GatewayUnreachable(GatewayError):
    """Nothing answers at the URL (connection refused, no route, DNS, a timeout before the handshake)."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"no Gateway is running at {url} ({reason})")
        self.url = url
        self.reason = reason


class GatewayRequestError(GatewayError):
    """The Gateway answered `ok: false`: its `code`, `message` and `details`."""

    def __init__(self, code: str, message: str, details: Any = None, retryable: bool = False, retry_after_ms: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details = details
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms

    @property
    def detail_code(self) -> str | None:
        """`details.code` (`AUTH_TOKEN_MISMATCH`, `PAIRING_REQUIRED`...), the field clients branch on."""
        code = self.details.get("code") if isinstance(self.details, dict) else None
        return code if isinstance(code, str) else None


class GatewayProtocolError(GatewayError):
    """The peer spoke something else than the Gateway protocol, or closed the socket mid-call."""


@dataclass
class Hello:
    """What `hello-ok` told: the server version, the methods it has, the scopes granted."""

    server_version: str | None = None
    protocol: int | None = None
    methods: list[str] = field(default_factory=list)
    scopes: list[str] = field(default_factory=list)

    @classmethod
    def from_payload(cls, payload: Any) -> Hello:
        payload = payload if isinstance(payload, dict) else {}
        server = payload.get("server") if isinstance(payload.get("server"), dict) else {}
        features = payload.get("features") if isinstance(payload.get("features"), dict) else {}
        auth = payload.get("auth") if isinstance(payload.get("auth"), dict) else {}
        version = server.get("version")
        protocol = payload.get("protocol")
        return cls(
            server_version=version if isinstance(version, str) else None,
            protocol=protocol if isinstance(protocol, int) else None,
            methods=[m for m in features.get("methods") or [] if isinstance(m, str)],
            scopes=[s for s in auth.get("scopes") or [] if isinstance(s, str)],
        )


def scrub(text: str, target: GatewayTarget) -> str:
    """`text` with the target's secrets replaced by `***`."""
    for secret in target.secrets():
        text = text.replace(secret, "***")
    return text


class GatewayConnection:
    """One authenticated connection (`open_connection`); `request` calls a method; close it after use."""

    def __init__(self, ws: Any, target: GatewayTarget, hello: Hello) -> None:
        self.ws = ws
        self.target = target
        self.hello = hello

    def __enter__(self) -> GatewayConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:  # closing a broken socket is no error worth reporting
            pass

    def request(self, method: str, params: dict[str, Any], timeout_s: float | None) -> Any:
        """Send one request and wait (at most `timeout_s`; None: no limit) for its response's payload."""
        rid = str(uuid.uuid4())
        _send(self.ws, {"type": "req", "id": rid, "method": method, "params": params})
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            frame = _recv(self.ws, self.target, deadline, f"{method} got no answer")
            if frame.get("type") == "res" and frame.get("id") == rid:
                return _payload(frame, self.target)


def _send(ws: Any, frame: dict[str, Any]) -> None:
    from websockets.exceptions import WebSocketException

    try:
        ws.send(json.dumps(frame, ensure_ascii=False))
    except (WebSocketException, OSError) as exc:
        raise GatewayProtocolError(f"the Gateway closed the connection ({type(exc).__name__})") from None


def _recv(ws: Any, target: GatewayTarget, deadline: float | None, late: str) -> dict[str, Any]:
    from websockets.exceptions import ConnectionClosed, WebSocketException

    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        raw = ws.recv(timeout=timeout)
    except TimeoutError:
        raise GatewayProtocolError(f"{late} in time") from None
    except ConnectionClosed as exc:
        reason = scrub(f" ({exc.rcvd.code}: {exc.rcvd.reason})" if exc.rcvd else "", target)
        raise GatewayProtocolError(f"the Gateway closed the connection{reason}") from None
    except (WebSocketException, OSError) as exc:
        raise GatewayProtocolError(f"the Gateway connection failed ({type(exc).__name__})") from None
    try:
        frame = json.loads(raw)
    except (TypeError, ValueError):
        raise GatewayProtocolError("the peer sent a frame that is not JSON: not an OpenClaw Gateway") from None
    if not isinstance(frame, dict):
        raise GatewayProtocolError("the peer sent a frame that is not an object: not an OpenClaw Gateway")
    return frame


def _payload(frame: dict[str, Any], target: GatewayTarget) -> Any:
    if frame.get("ok") is True:
        return frame.get("payload")
    got = frame.get("error")
    error: dict[str, Any] = got if isinstance(got, dict) else {}
    retry_after = error.get("retryAfterMs")
    raise GatewayRequestError(
        str(error.get("code") or "ERROR"), scrub(str(error.get("message") or "request failed"), target), error.get("details"),
        error.get("retryable") is True, retry_after if isinstance(retry_after, int) else None,
    )


def connect_params(target: GatewayTarget, scopes: list[str], version: str) -> dict[str, Any]:
    """The `connect` request's params (no device identity; the secret in `auth`)."""
    import platform

    auth: dict[str, str] = {}
    if target.token:
        auth["token"] = target.token
    if target.password:
        auth["password"] = target.password
    return {
        "minProtocol": PROTOCOL_VERSION,
        "maxProtocol": PROTOCOL_VERSION,
        "client": {"id": CLIENT_ID, "displayName": CLIENT_DISPLAY_NAME, "version": version, "platform": platform.system().lower(),
                   "mode": CLIENT_MODE, "instanceId": str(uuid.uuid4())},
        "caps": [],
        "auth": auth,
        "role": "operator",
        "scopes": scopes,
    }


def _open_socket(target: GatewayTarget, timeout_s: float) -> Any:
    from websockets.exceptions import InvalidHandshake, InvalidURI
    from websockets.sync.client import connect

    try:
        ws = connect(target.url, open_timeout=timeout_s, close_timeout=1, max_size=MAX_FRAME_BYTES, compression=None,
                     proxy=None if target.loopback else True, user_agent_header=f"{CLIENT_DISPLAY_NAME} (OpenClaw Gateway client)")
        return ws.__enter__()  # used as its context manager (`GatewayConnection.close` ends it)
    except (ConnectionRefusedError, ConnectionResetError) as exc:
        raise GatewayUnreachable(target.url, "connection refused" if isinstance(exc, ConnectionRefusedError) else "connection reset") from None
    except TimeoutError:
        raise GatewayUnreachable(target.url, f"no answer in {timeout_s:.0f} s") from None
    except InvalidURI:
        raise GatewayUnreachable(target.url, "not a WebSocket URL") from None
    except InvalidHandshake as exc:
        raise GatewayUnreachable(target.url, f"not a WebSocket server: {scrub(str(exc), target)[:200]}") from None
    except OSError as exc:
        raise GatewayUnreachable(target.url, exc.strerror or type(exc).__name__) from None


def open_connection(target: GatewayTarget, scopes: list[str], version: str, timeout_s: float = CONNECT_TIMEOUT_S) -> GatewayConnection:
    """Connect and authenticate (see the module docstring); `GatewayUnreachable`, `GatewayRequestError` (the connect
    refused: bad token, pairing required...) or `GatewayProtocolError` otherwise."""
    deadline = time.monotonic() + timeout_s
    while True:
        ws = _open_socket(target, max(1.0, deadline - time.monotonic()))
        try:
            frame = _recv(ws, target, deadline, "the Gateway's connect.challenge came")
            if frame.get("type") != "event" or frame.get("event") != "connect.challenge":
                raise GatewayProtocolError("the peer did not start with connect.challenge: not an OpenClaw 2026.9 Gateway")
            rid = str(uuid.uuid4())
            _send(ws, {"type": "req", "id": rid, "method": "connect", "params": connect_params(target, scopes, version)})
            while True:
                frame = _recv(ws, target, deadline, "the Gateway's hello came")
                if frame.get("type") == "res" and frame.get("id") == rid:
                    break
            return GatewayConnection(ws, target, Hello.from_payload(_payload(frame, target)))
        except GatewayRequestError as exc:
            _close(ws)
            wait = (exc.retry_after_ms or 500) / 1000
            if not (exc.retryable and exc.code == "UNAVAILABLE") or time.monotonic() + wait >= deadline:
                raise
            time.sleep(wait)
        except BaseException:
            _close(ws)
            raise


def _close(ws: Any) -> None:
    try:
        ws.close()
    except Exception:  # the socket is being given up anyway
        pass
