"""Compacting a session of an OpenClaw 2026.9 SQLite store through its Gateway (`sessions.compact`), never writing
the store: the Gateway summarizes with its own model and settings and appends the compaction entry itself.

`compact_store_session` connects (`client.open_connection`), calls `sessions.compact {key[, agentId]}` as
`openclaw sessions compact KEY` does, then re-reads the session read-only (its JSONL mirror brought up to date,
`host.discovery.stores.open_store_session`) to show the compaction entry the Gateway wrote. `probe_gateway` only
connects (`--dry-run`). The result (`StoreCompaction`) is rendered by `compact` like a file compaction's, and by the
app's compaction screen; `StoreCompaction.problem` is what both say went wrong. A `CallCancel` lets another thread
stop the wait (the app's Esc): the connection is closed, the run is `failed` with `error.kind` `cancelled` (the
Gateway may still finish the compaction it started; a re-read of the store shows it).

The Gateway's answer (2026.9.6 `src/gateway/server-methods/sessions-compact.ts`): `{ok, key, compacted, reason?,
result?: {summary, firstKeptEntryId, tokensBefore, tokensAfter, details}}`; `ok: false` is a failed compaction
("Already compacted", a summary that failed the quality guard), `compacted: false` with `ok: true` a no-op ("no
transcript", "no sessionId"): both are `nothing_written`. Transport and request errors are `failed`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.host.gateway.client import GatewayConnection, GatewayError, Hello, open_connection
from inspector.host.gateway.target import START_COMMAND, GatewayTarget

METHOD = "sessions.compact"
SCOPES = ["operator.admin"]
"""What `sessions.compact` needs (2026.9.6 `method-scopes.ts`: `operator.admin`)."""
CLIENT_VERSION = "0.1.0"
CANCELLED_REASON = ("cancelled: stopped waiting for the Gateway (the request may have been sent: the Gateway may still "
                    "compact the session, and a re-read of the store shows it)")


def compact_params(session_key: str, agent_id: str | None) -> dict[str, Any]:
    """The RPC's params: the key, and the owning agent for a key that does not name one (`global`...)."""
    params: dict[str, Any] = {"key": session_key}
    if agent_id and not session_key.startswith("agent:"):
        params["agentId"] = agent_id
    return params


@dataclass
class StoreCompaction:
    """One compaction through the Gateway: `status` is `committed`, `dry_run`, `nothing_written` or `failed`."""

    store: Path
    session_key: str
    agent_id: str | None
    target: GatewayTarget
    status: str = "failed"
    reason: str = ""
    reachable: bool | None = None
    hello: Hello | None = None
    response: dict[str, Any] | None = None
    entry: dict[str, Any] | None = None
    """The compaction entry the Gateway wrote, as re-read from the store (None when not found)."""
    error: dict[str, Any] = field(default_factory=dict)

    @property
    def params(self) -> dict[str, Any]:
        return compact_params(self.session_key, self.agent_id)

    @property
    def result(self) -> dict[str, Any]:
        got = (self.response or {}).get("result")
        return got if isinstance(got, dict) else {}

    def _number(self, key: str) -> int | float | None:
        for source in (self.entry or {}, self.result):
            value = source.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return value
        return None

    @property
    def tokens_before(self) -> int | float | None:
        return self._number("tokensBefore")

    @property
    def tokens_after(self) -> int | float | None:
        return self._number("tokensAfter")

    @property
    def first_kept_entry_id(self) -> str | None:
        for source in (self.entry or {}, self.result):
            value = source.get("firstKeptEntryId")
            if isinstance(value, str):
                return value
        return None

    @property
    def summary_chars(self) -> int | None:
        for source in (self.entry or {}, self.result):
            value = source.get("summary")
            if isinstance(value, str):
                return len(value)
        return None

    @property
    def problem(self) -> str | None:
        """What went wrong, in one line with what to do (None when nothing did): no Gateway (and the command that
        starts one), a refusal (and why this client may be refused where `openclaw` is not), a failure."""
        if self.reachable is False:
            return f"no Gateway is running at {self.target.url}: start it with `{START_COMMAND}`"
        if self.error:
            return self.reason + self._device_hint()
        if self.status == "failed":
            return self.reason
        return None

    def _device_hint(self) -> str:
        """Why a Gateway may refuse this client where `openclaw` gets in: it sends no device identity."""
        if self.error.get("kind") != "request" or (self.target.loopback and self.target.auth_kind != "none"):
            return ""
        return (f" (session-inspector sends no device identity, which only a loopback Gateway with a token or password "
                f"accepts: run `openclaw sessions compact {self.session_key}` instead)")

    def to_json(self) -> dict[str, Any]:
        """`compact --json` on a store session (the file result's fields where they apply, plus the Gateway's)."""
        response = dict(self.response) if isinstance(self.response, dict) else None
        if response is not None and self.result:
            response["result"] = {k: v for k, v in self.result.items() if k != "summary"}  # the summary is in `entry`
        return {
            "via": "gateway",
            "path": str(self.store),
            "session": self.session_key,
            "agent_id": self.agent_id,
            "status": self.status,
            "changed": self.status == "committed",
            "reason": self.reason,
            "gateway": {
                **self.target.to_json(),
                "reachable": self.reachable,
                "server_version": self.hello.server_version if self.hello else None,
                "has_method": (METHOD in self.hello.methods) if self.hello and self.hello.methods else None,
            },
            "request": {"method": METHOD, "params": self.params},
            "response": response,
            "entry": self.entry,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "first_kept_entry_id": self.first_kept_entry_id,
            "summary_chars": self.summary_chars,
            "error": self.error,
        }


def compaction_ids(store: Path, session_key: str) -> tuple[set[str], Path | None]:
    """The ids of the session's compaction entries now (re-read read-only through its mirror), and the mirror."""
    from inspector.host.discovery.stores import open_store_session

    mirror = open_store_session(store, session_key)
    return {str(e.get("id")) for e in _compactions(mirror.path)}, mirror.path


def _compactions(path: Path) -> list[dict[str, Any]]:
    found = []
    with open(path, "rb") as f:
        for line in f:
            if b'"compaction"' not in line:
                continue
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(entry, dict) and entry.get("type") == "compaction":
                found.append(entry)
    return found


def new_compaction(store: Path, session_key: str, before: set[str]) -> dict[str, Any] | None:
    """The last compaction entry of the session that was not there `before` (read-only re-read), or None."""
    from inspector.host.discovery.stores import open_store_session

    mirror = open_store_session(store, session_key)
    fresh = [e for e in _compactions(mirror.path) if str(e.get("id")) not in before]
    return fresh[-1] if fresh else None


class CallCancel:
    """Stops a `compact_store_session` wait from another thread: `cancel()` closes the connection in use (at once,
    or as soon as it is open); the blocked call then returns the run `failed` (`error.kind` `cancelled`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: GatewayConnection | None = None
        self.cancelled = False

    def cancel(self) -> None:
        """Stop waiting (never blocks: the connection is closed in a thread of its own)."""
        with self._lock:
            self.cancelled = True
            conn = self._conn
        if conn is not None:
            threading.Thread(target=conn.close, name="gateway-cancel", daemon=True).start()

    def attach(self, conn: GatewayConnection | None) -> None:
        """The connection in use now (None: none); closed at once when the wait was already cancelled."""
        with self._lock:
            self._conn = conn
            cancelled = self.cancelled
        if cancelled and conn is not None:
            conn.close()


def probe_gateway(run: StoreCompaction, timeout_s: float) -> StoreCompaction:
    """Connect and authenticate only (`--dry-run`): `reachable`, `hello`, or the error; nothing is called."""
    run.status = "dry_run"
    try:
        with open_connection(run.target, SCOPES, CLIENT_VERSION, timeout_s) as conn:
            run.reachable, run.hello = True, conn.hello
    except GatewayError as exc:
        _failed(run, exc)
        run.status = "dry_run"
    return run


def compact_store_session(run: StoreCompaction, connect_timeout_s: float, call_timeout_s: float | None,
                          cancel: CallCancel | None = None) -> StoreCompaction:
    """Call `sessions.compact` and read back what the Gateway wrote (see the module docstring); `cancel` lets
    another thread stop the wait."""
    from inspector.read.store.connection import StoreError

    try:
        before, _ = compaction_ids(run.store, run.session_key)
    except (StoreError, OSError) as exc:
        run.status, run.reason = "failed", f"cannot read the session before compacting: {exc}"
        return run
    try:
        with open_connection(run.target, SCOPES, CLIENT_VERSION, connect_timeout_s) as conn:
            run.reachable, run.hello = True, conn.hello
            if cancel is not None:
                cancel.attach(conn)
            _call(run, conn, call_timeout_s)
    except GatewayError as exc:
        if cancel is not None and cancel.cancelled:
            run.status, run.reason, run.error = "failed", CANCELLED_REASON, {"kind": "cancelled"}
            return run
        return _failed(run, exc)
    finally:
        if cancel is not None:
            cancel.attach(None)
    if run.status != "committed":
        return run
    try:
        run.entry = new_compaction(run.store, run.session_key, before)
    except (StoreError, OSError) as exc:
        run.reason = f"compacted, but the store could not be re-read: {exc}"
        return run
    if run.entry is None:
        run.reason = "the Gateway reported a compaction, but no new compaction entry is in this store"
    return run


def _call(run: StoreCompaction, conn: GatewayConnection, timeout_s: float | None) -> None:
    if conn.hello.methods and METHOD not in conn.hello.methods:
        run.status, run.reason = "failed", f"the Gateway ({conn.hello.server_version or 'unknown version'}) has no {METHOD} method"
        return
    payload = conn.request(METHOD, run.params, timeout_s)
    run.response = payload if isinstance(payload, dict) else {"ok": False, "reason": "the Gateway's answer is not an object"}
    reason = run.response.get("reason")
    run.reason = reason if isinstance(reason, str) else ""
    if run.response.get("ok") is not True:
        run.status = "nothing_written"  # `openclaw sessions compact` exits 1 too: the Gateway wrote nothing
        run.reason = f"the Gateway's compaction failed: {run.reason or 'no reason given'}"
    elif run.response.get("compacted") is True:
        run.status = "committed"
    else:
        run.status = "nothing_written"
        run.reason = run.reason or "the Gateway found nothing to compact"


def _failed(run: StoreCompaction, exc: GatewayError) -> StoreCompaction:
    from inspector.host.gateway.client import GatewayRequestError, GatewayUnreachable

    run.status = "failed"
    run.reason = str(exc)
    if isinstance(exc, GatewayUnreachable):
        run.reachable = False
        run.error = {"kind": "unreachable", "reason": exc.reason}
    elif isinstance(exc, GatewayRequestError):
        run.reachable = True
        run.reason = f"the Gateway at {run.target.url} refused: {exc.message}"
        run.error = {"kind": "request", "code": exc.code, "detail_code": exc.detail_code, "message": exc.message}
    else:
        run.error = {"kind": "protocol", "message": str(exc)}
    return run
