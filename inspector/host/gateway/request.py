"""Which store session the Gateway is asked to compact, and which Gateway: the checks both the `compact` command
(`inspector.cli.commands.compact_store.run_on_store`) and the app (`widgets.compaction.gateway_screen`) make before
anything is sent.

`gateway_session(store, session)` refuses (`NotCompactable`, one line saying why and what to do) a session without
a key (the Gateway compacts by key) and a store that is not the one of OpenClaw's state dir now (the Gateway owns the
stores of its own state dir only). `GatewaySession.compaction(config)` then names the Gateway the `openclaw` CLI
would call with that config and environment (`target.resolve_gateway_target`; `GatewayConfigError` when it cannot)
and returns the `StoreCompaction` to probe or send (`compact.probe_gateway`, `compact.compact_store_session`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspector.host.gateway.compact import StoreCompaction
from inspector.host.gateway.target import resolve_gateway_target
from inspector.read.store.rows import StoreSession


class NotCompactable(Exception):
    """This store session cannot be compacted through the Gateway: why, in one line, with what to do."""


def state_store(agent_id: str | None, env: Mapping[str, str] | None = None, home: Path | None = None) -> Path | None:
    """The store of `agent_id` in the state dir OpenClaw (and so its local Gateway) uses now."""
    from inspector.host.openclaw_config import openclaw_state_dir
    from inspector.read.store.locate import STORE_FILENAME

    if not agent_id:
        return None
    return openclaw_state_dir(env, home) / "agents" / agent_id / "agent" / STORE_FILENAME


def agent_of(store: Path, session_agent: str | None) -> str | None:
    """The agent owning `store` (`.../agents/<id>/agent/<store>`), else the one the session row names."""
    parts = store.resolve().parts
    if len(parts) >= 4 and parts[-2] == "agent" and parts[-4] == "agents":
        return parts[-3]
    return session_agent


@dataclass(frozen=True)
class GatewaySession:
    """A store session the Gateway may be asked to compact: its store, id, key and owning agent."""

    store: Path
    session_id: str
    session_key: str
    agent_id: str | None
    env: Mapping[str, str] | None = None
    """Where the Gateway's URL and credentials are read (None: the process's environment)."""

    def compaction(self, config: Mapping[str, Any] | None) -> StoreCompaction:
        """The compaction to probe or send, to the Gateway `config` (openclaw.json) and the environment designate;
        `GatewayConfigError` when they do not let it be reached."""
        target = resolve_gateway_target(config, self.env)
        return StoreCompaction(store=self.store, session_key=self.session_key, agent_id=self.agent_id, target=target)


def gateway_session(store: Path, session: StoreSession, env: Mapping[str, str] | None = None,
                    home: Path | None = None) -> GatewaySession:
    """`session` of `store` as the Gateway compacts it, or `NotCompactable` (see the module docstring)."""
    key = session.session_key
    if not key:
        raise NotCompactable(f"{store}: session {session.session_id} has no key; the Gateway compacts sessions by key")
    agent_id = agent_of(store, session.agent_id)
    expected = state_store(agent_id, env, home)
    if expected is None or os.path.realpath(expected) != os.path.realpath(store):
        raise NotCompactable(
            f"{store}: not the store of OpenClaw's state dir ({expected.parent.parent.parent.parent if expected else 'unknown'}); "
            "its Gateway compacts the sessions of its own state dir (set OPENCLAW_STATE_DIR to the one this store is in)")
    return GatewaySession(store=store, session_id=session.session_id, session_key=key, agent_id=agent_id, env=env)
