"""A circuit breaker for summarizer calls, per (session, provider), persisted across restarts.

States of one circuit:

* `closed`: calls go through; each failure adds one to `failures`, a success resets it.
* `open`: after `threshold` (3) consecutive failures. No call is made at all until `cooldown_ms` (5 min) has
  passed since it opened.
* `half_open`: once the cooldown has passed, the next `before_call` is granted a single trial call (recorded
  in the state, so a second app instance does not get one too). Success closes the circuit; failure opens it
  again for another cooldown. A trial whose process died without reporting is given up after one cooldown.
* `reset` clears circuits by hand (all, one session, one provider, or one pair).

The state is one JSON document in the user state dir (`statefile.state_dir() / "breaker.json"`), changed
read-modify-write under a sidecar `flock` and replaced atomically, so two instances of the app at once never
lose a failure. A corrupt document counts as "every circuit closed" and is reported (`BreakerReport.problem`),
never a crash; it is kept aside before being overwritten. Error texts are scrubbed of keys before they are
stored (`redact.scrub_secrets`) and cut to `MAX_ERROR_CHARS`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from inspector.base.clock import Clock, SystemClock, now_ms
from inspector.js.timeutil import iso_from_ms
from inspector.write.redact import scrub_secrets
from inspector.write.statefile import JsonStateFile, StateLoad, state_dir

BreakerState = Literal["closed", "open", "half_open"]

DEFAULT_THRESHOLD = 3
DEFAULT_COOLDOWN_MS = 5 * 60 * 1000
MAX_ERROR_CHARS = 500
STATE_FILE_NAME = "breaker.json"
_DOC_VERSION = 1


def session_key(session: Path | str) -> str:
    """The session part of a circuit's key: the file's absolute, resolved path."""
    return os.path.realpath(os.path.abspath(session))


@dataclass(frozen=True)
class CircuitStatus:
    """One circuit as seen at `now_ms`: its stored state and what a call would be told."""

    session: str
    provider: str
    state: BreakerState
    failures: int
    opened_at_ms: int | None
    retry_at_ms: int | None
    trial_in_flight: bool
    last_error: str | None
    last_failure_at_ms: int | None
    last_success_at_ms: int | None
    now_ms: int

    @property
    def effective_state(self) -> BreakerState:
        """`half_open` for an open circuit whose cooldown has passed (the next call is the trial)."""
        if self.state == "open" and self.retry_at_ms is not None and self.now_ms >= self.retry_at_ms:
            return "half_open"
        return self.state

    @property
    def cooldown_remaining_ms(self) -> int:
        """Milliseconds until a trial call is allowed (0 when it already is, or the circuit is closed)."""
        if self.state != "open" or self.retry_at_ms is None:
            return 0
        return max(0, self.retry_at_ms - self.now_ms)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for `breaker --json` and the UI."""
        return {
            "session": self.session,
            "provider": self.provider,
            "state": self.state,
            "effective_state": self.effective_state,
            "failures": self.failures,
            "opened_at": iso_from_ms(self.opened_at_ms),
            "retry_at": iso_from_ms(self.retry_at_ms),
            "cooldown_remaining_ms": self.cooldown_remaining_ms,
            "trial_in_flight": self.trial_in_flight,
            "last_error": self.last_error,
            "last_failure_at": iso_from_ms(self.last_failure_at_ms),
            "last_success_at": iso_from_ms(self.last_success_at_ms),
        }


@dataclass(frozen=True)
class BreakerChange:
    """A state transition of one circuit (the runner turns it into a `BreakerChanged` event)."""

    session: str
    provider: str
    old: BreakerState
    new: BreakerState
    failures: int
    retry_at_ms: int | None
    reason: str


@dataclass(frozen=True)
class BreakerDecision:
    """The answer to "may I call the provider now?"."""

    allowed: bool
    trial: bool
    status: CircuitStatus
    change: BreakerChange | None = None
    problem: str | None = None

    @property
    def message(self) -> str:
        """Why a call is refused (empty when allowed)."""
        if self.allowed:
            return ""
        s = self.status
        if s.state == "half_open" or s.trial_in_flight:
            return f"circuit breaker half-open for {s.provider}: a trial call is already in flight"
        secs = (s.cooldown_remaining_ms + 999) // 1000
        return (
            f"circuit breaker open for {s.provider} after {s.failures} consecutive failures; "
            f"no call is made for {secs} s more (reset with `session-inspector breaker --reset`)"
        )


@dataclass(frozen=True)
class BreakerReport:
    """Every circuit (optionally filtered) and the state file's problem, if any."""

    state_file: Path
    circuits: tuple[CircuitStatus, ...]
    problem: str | None = None
    removed: int = 0

    def to_json(self) -> dict[str, Any]:
        """Plain JSON for `breaker --json`."""
        return {
            "state_file": str(self.state_file),
            "problem": self.problem,
            "removed": self.removed,
            "circuits": [c.to_json() for c in self.circuits],
        }


@dataclass
class _Circuit:
    session: str
    provider: str
    state: BreakerState = "closed"
    failures: int = 0
    opened_at_ms: int | None = None
    trial_started_at_ms: int | None = None
    last_error: str | None = None
    last_failure_at_ms: int | None = None
    last_success_at_ms: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, raw: Any) -> _Circuit | None:
        if not isinstance(raw, dict) or not isinstance(raw.get("session"), str) or not isinstance(raw.get("provider"), str):
            return None
        raw_state = raw.get("state")
        state: BreakerState = raw_state if raw_state in ("closed", "open", "half_open") else "closed"

        def num(name: str) -> int | None:
            v = raw.get(name)
            return v if type(v) is int else None

        return cls(
            session=raw["session"],
            provider=raw["provider"],
            state=state,
            failures=max(0, num("failures") or 0),
            opened_at_ms=num("opened_at_ms"),
            trial_started_at_ms=num("trial_started_at_ms"),
            last_error=raw.get("last_error") if isinstance(raw.get("last_error"), str) else None,
            last_failure_at_ms=num("last_failure_at_ms"),
            last_success_at_ms=num("last_success_at_ms"),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "provider": self.provider,
            "state": self.state,
            "failures": self.failures,
            "opened_at_ms": self.opened_at_ms,
            "trial_started_at_ms": self.trial_started_at_ms,
            "last_error": self.last_error,
            "last_failure_at_ms": self.last_failure_at_ms,
            "last_success_at_ms": self.last_success_at_ms,
        }


def _key(session: str, provider: str) -> str:
    return f"{provider}\u0000{session}"


class CircuitBreaker:
    """Persistent per-(session, provider) circuit breaker (see the module docstring)."""

    def __init__(
        self,
        *,
        state_file: Path | None = None,
        clock: Clock | None = None,
        threshold: int = DEFAULT_THRESHOLD,
        cooldown_ms: int = DEFAULT_COOLDOWN_MS,
    ) -> None:
        if threshold < 1:
            raise ValueError("threshold must be at least 1")
        if cooldown_ms < 0:
            raise ValueError("cooldown_ms must not be negative")
        self.file = JsonStateFile(state_file or state_dir() / STATE_FILE_NAME)
        self.clock = clock or SystemClock()
        self.threshold = threshold
        self.cooldown_ms = cooldown_ms

    @property
    def state_file(self) -> Path:
        """Where the state is kept."""
        return self.file.path

    # -- reading -------------------------------------------------------------------------------------------

    @staticmethod
    def _circuits(loaded: StateLoad) -> dict[str, _Circuit]:
        raw = loaded.data.get("circuits")
        out: dict[str, _Circuit] = {}
        if isinstance(raw, list):
            for item in raw:
                c = _Circuit.from_json(item)
                if c is not None:
                    out[_key(c.session, c.provider)] = c
        return out

    def _status(self, c: _Circuit, now: int) -> CircuitStatus:
        retry_at = c.opened_at_ms + self.cooldown_ms if c.state == "open" and c.opened_at_ms is not None else None
        in_flight = c.state == "half_open" and c.trial_started_at_ms is not None and now - c.trial_started_at_ms < self.cooldown_ms
        return CircuitStatus(
            session=c.session,
            provider=c.provider,
            state=c.state,
            failures=c.failures,
            opened_at_ms=c.opened_at_ms,
            retry_at_ms=retry_at,
            trial_in_flight=in_flight,
            last_error=c.last_error,
            last_failure_at_ms=c.last_failure_at_ms,
            last_success_at_ms=c.last_success_at_ms,
            now_ms=now,
        )

    def report(self, session: Path | str | None = None, provider: str | None = None) -> BreakerReport:
        """Every stored circuit (filtered by session and/or provider), without changing anything."""
        loaded = self.file.read()
        now = now_ms(self.clock)
        skey = session_key(session) if session is not None else None
        circuits = tuple(
            self._status(c, now)
            for c in self._circuits(loaded).values()
            if (skey is None or c.session == skey) and (provider is None or c.provider == provider)
        )
        return BreakerReport(self.file.path, circuits, loaded.problem)

    def status(self, session: Path | str, provider: str) -> CircuitStatus:
        """One circuit (a fresh closed one when nothing is stored)."""
        skey = session_key(session)
        loaded = self.file.read()
        c = self._circuits(loaded).get(_key(skey, provider)) or _Circuit(skey, provider)
        return self._status(c, now_ms(self.clock))

    # -- changing --------------------------------------------------------------------------------------------

    def _update(self, session: Path | str, provider: str, fn: Callable[[_Circuit, int], str | None]) -> tuple[CircuitStatus, BreakerChange | None, str | None]:
        skey = session_key(session)
        with self.file.locked() as loaded:
            circuits = self._circuits(loaded)
            key = _key(skey, provider)
            c = circuits.get(key) or _Circuit(skey, provider)
            now = now_ms(self.clock)
            old_state = c.state
            reason = fn(c, now)
            circuits[key] = c
            if c.state == "closed" and c.failures == 0 and c.last_error is None:
                circuits.pop(key, None)
            doc = dict(loaded.data) if loaded.problem is None else {}
            doc["version"] = _DOC_VERSION
            doc["circuits"] = [x.to_json() for x in circuits.values()]
            self.file.save(doc, loaded)
            status = self._status(c, now)
            change = None
            if c.state != old_state:
                change = BreakerChange(skey, provider, old_state, c.state, c.failures, status.retry_at_ms, reason or "")
            return status, change, loaded.problem

    def before_call(self, session: Path | str, provider: str) -> BreakerDecision:
        """Ask before each LLM call; when `allowed` is False, make no call. A half-open trial is claimed here."""
        granted = {"allowed": True, "trial": False}

        def fn(c: _Circuit, now: int) -> str | None:
            if c.state == "closed":
                return None
            if c.state == "open":
                if c.opened_at_ms is not None and now < c.opened_at_ms + self.cooldown_ms:
                    granted["allowed"] = False
                    return None
                c.state = "half_open"
                c.trial_started_at_ms = now
                granted["trial"] = True
                return "cooldown elapsed: one trial call allowed"
            # half_open
            if c.trial_started_at_ms is not None and now - c.trial_started_at_ms < self.cooldown_ms:
                granted["allowed"] = False
                return None
            c.trial_started_at_ms = now
            granted["trial"] = True
            return None

        status, change, problem = self._update(session, provider, fn)
        return BreakerDecision(granted["allowed"], granted["trial"], status, change, problem)

    def record_success(self, session: Path | str, provider: str) -> tuple[CircuitStatus, BreakerChange | None]:
        """A call succeeded: close the circuit and forget the failures."""

        def fn(c: _Circuit, now: int) -> str | None:
            c.state = "closed"
            c.failures = 0
            c.opened_at_ms = None
            c.trial_started_at_ms = None
            c.last_error = None
            c.last_success_at_ms = now
            return "call succeeded"

        status, change, _ = self._update(session, provider, fn)
        return status, change

    def record_failure(self, session: Path | str, provider: str, error: str) -> tuple[CircuitStatus, BreakerChange | None]:
        """A call failed: count it; open the circuit at the threshold, or again after a failed trial."""
        text = scrub_secrets(str(error))
        if len(text) > MAX_ERROR_CHARS:
            text = text[: MAX_ERROR_CHARS - 1] + "…"

        def fn(c: _Circuit, now: int) -> str | None:
            c.failures += 1
            c.last_error = text
            c.last_failure_at_ms = now
            if c.state == "half_open":
                c.state = "open"
                c.opened_at_ms = now
                c.trial_started_at_ms = None
                return "trial call failed"
            if c.state == "closed" and c.failures >= self.threshold:
                c.state = "open"
                c.opened_at_ms = now
                return f"{c.failures} consecutive failures"
            if c.state == "open":
                c.opened_at_ms = now
            return None

        status, change, _ = self._update(session, provider, fn)
        return status, change

    def reset(self, session: Path | str | None = None, provider: str | None = None) -> BreakerReport:
        """Forget circuits: all of them, or those of one session and/or one provider."""
        skey = session_key(session) if session is not None else None
        with self.file.locked() as loaded:
            circuits = self._circuits(loaded)
            keep = {
                k: c
                for k, c in circuits.items()
                if not ((skey is None or c.session == skey) and (provider is None or c.provider == provider))
            }
            removed = len(circuits) - len(keep)
            if removed or loaded.problem:
                doc = dict(loaded.data) if loaded.problem is None else {}
                doc["version"] = _DOC_VERSION
                doc["circuits"] = [c.to_json() for c in keep.values()]
                self.file.save(doc, loaded)
            now = now_ms(self.clock)
            return BreakerReport(self.file.path, tuple(self._status(c, now) for c in keep.values()), loaded.problem, removed)
