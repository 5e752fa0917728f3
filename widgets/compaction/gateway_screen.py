"""The compaction run of a session of an OpenClaw SQLite store (`X` on it): the Gateway compacts, the app never
writes the store.

`GatewayCompactScreen` reaches the engine the `compact` command reaches on a store
(`inspector.cli.commands.compact_store.run_on_store`), with the same calls: `host.gateway.request.gateway_session`
(the session has a key, the store is the state dir's), `GatewaySession.compaction` (the Gateway the `openclaw` CLI
would call with the app's openclaw.json and environment), `host.gateway.compact.probe_gateway` and
`compact_store_session`.

* checking, then setup: where the Gateway is (URL and where it came from; which secret is sent, never the secret),
  whether it answers (a probe in a thread worker), what would be sent, and the forecast: the plan of the session as
  the app reads it (a read-only figure under the session's rules; the Gateway compacts with its own model and
  settings). Without a Gateway: "no Gateway is running at URL: start it with `openclaw gateway run`", and nothing
  is sent; Enter checks again.
* confirm (Enter): what is sent to which URL; Enter again sends `sessions.compact` in a thread worker. Esc while it
  waits stops waiting (`CallCancel` closes the connection; the Gateway may still compact, which a re-read shows).
* done: the result at the top, as a file compaction's (the entry, tokens before → after, first kept entry, summary
  length), the summary below; `follow` (the inspector's live follow) re-reads the store, so the new compaction entry
  appears in the transcript.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from inspector.figures.forecast.plan import CompactionPlan, PlanOptions, plan_compaction
from inspector.host.gateway.compact import CallCancel, StoreCompaction, compact_store_session, probe_gateway
from inspector.host.gateway.request import GatewaySession, NotCompactable, gateway_session
from inspector.host.gateway.target import GatewayConfigError
from inspector.read.store.connection import StoreError
from inspector.session.session import open_session
from widgets.compaction.gateway_text import gateway_headline, gateway_panel, summary_text
from widgets.compaction.run_screen import STYLES
from widgets.compaction.run_text import plan_text

CONNECT_TIMEOUT_S = 15.0


class GatewayChecked(Message):
    """The session checked and the Gateway probed: `where` and `probe`, or `refusal` (why it cannot be compacted)."""

    def __init__(self, where: GatewaySession | None, probe: StoreCompaction | None, refusal: str | None) -> None:
        super().__init__()
        self.where = where
        self.probe = probe
        self.refusal = refusal


class GatewayFinished(Message):
    """`sessions.compact` returned (or failed, or was cancelled): the run."""

    def __init__(self, run: StoreCompaction) -> None:
        super().__init__()
        self.run = run


class ForecastShown(Message):
    """The plan of the session as the app reads it (None and `error` when it could not be made)."""

    def __init__(self, plan: CompactionPlan | None, error: str | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.error = error


class GatewayCompactScreen(Screen[None]):
    """Check the Gateway, confirm, let it compact, show the result (see the module docstring)."""

    CSS_PATH = str(STYLES)
    AUTO_FOCUS = None

    BINDINGS = [
        Binding("enter", "start", "Confirm / send", tooltip="Confirm, then send sessions.compact to the Gateway", id="compaction_gateway.start"),
        Binding("escape", "cancel_or_close", "Stop waiting / back / close", tooltip="Stop waiting for the Gateway, leave the confirmation, or close",
                id="compaction_gateway.cancel_or_close"),
        Binding("ctrl+c", "cancel_or_close", "Stop waiting", show=False, priority=True, id="compaction_gateway.cancel"),
    ]

    def __init__(self, store: Path, session_id: str, mirror: Path, *, plan_options: PlanOptions | None = None, rules_id: str | None = None,
                 env: Mapping[str, str] | None = None, home: Path | None = None, follow: Callable[[], None] | None = None) -> None:
        """Compact session `session_id` of `store` through its Gateway; `mirror` is the session's JSONL mirror (the
        forecast is planned on it with `plan_options` under `rules_id`); `env` and `home` are where OpenClaw's state
        dir, the Gateway's URL and its credentials are read (None: the process's); `plan_options.config` is the
        openclaw.json in force. `follow` re-reads the store after a compaction (the inspector's live follow)."""
        super().__init__()
        self.store = Path(store)
        self.session_id = session_id
        self.mirror = Path(mirror)
        self.plan_options = plan_options or PlanOptions()
        self.rules_id = rules_id
        self.env = env
        self.home = home
        self.follow = follow
        self.where: GatewaySession | None = None
        self.refusal: str | None = None
        self.probe: StoreCompaction | None = None
        self.run: StoreCompaction | None = None
        self.plan: CompactionPlan | None = None
        self.cancel = CallCancel()
        self.phase = "checking"

    def compose(self) -> ComposeResult:
        yield Static(id="gateway-headline")
        with VerticalScroll(id="gateway-body"):
            yield Static(id="gateway-target")
            yield Static(Text("planning…", style="dim"), id="gateway-plan")
            yield Static(id="gateway-summary")
        yield Footer()

    def on_mount(self) -> None:
        self._show()
        self._check()
        self._forecast()

    # -- workers ------------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="compaction-gateway-check", description="Gateway check")
    def _check(self) -> None:
        """The session's checks and a probe of the Gateway (connect and authenticate only)."""
        from inspector.host.discovery.stores import choose_session

        try:
            where = gateway_session(self.store, choose_session(self.store, self.session_id), self.env, self.home)
            probe = probe_gateway(where.compaction(self.plan_options.config), CONNECT_TIMEOUT_S)
        except (NotCompactable, GatewayConfigError, StoreError, OSError) as exc:
            self.post_message(GatewayChecked(None, None, str(exc)))
            return
        self.post_message(GatewayChecked(where, probe, None))

    @work(thread=True, exclusive=True, group="compaction-gateway-plan", description="compaction forecast")
    def _forecast(self) -> None:
        try:
            session = open_session(self.mirror, self.rules_id)
            plan = plan_compaction(session, session.context(), self.plan_options)
        except Exception as exc:
            self.post_message(ForecastShown(None, f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(ForecastShown(plan))

    @work(thread=True, exclusive=True, group="compaction-gateway-run", description="Gateway compaction")
    def _send(self, run: StoreCompaction, cancel: CallCancel) -> None:
        self.post_message(GatewayFinished(compact_store_session(run, CONNECT_TIMEOUT_S, None, cancel)))

    # -- messages -----------------------------------------------------------------------------------

    @on(GatewayChecked)
    def _checked(self, message: GatewayChecked) -> None:
        self.where, self.probe, self.refusal = message.where, message.probe, message.refusal
        if self.phase == "checking":
            self.phase = "setup"
        self._show()

    @on(ForecastShown)
    def _forecast_shown(self, message: ForecastShown) -> None:
        self.plan = message.plan
        shown = Text()
        shown.append("Forecast", style="bold")
        shown.append(f" under the rules {self.rules_id or 'in force'}: the Gateway compacts with its own model and settings\n", style="dim")
        if message.plan is None:
            shown.append(f"planning failed: {message.error}", style="bold red")
        else:
            shown.append_text(plan_text(message.plan))
        self.query_one("#gateway-plan", Static).update(shown)

    @on(GatewayFinished)
    def _finished(self, message: GatewayFinished) -> None:
        self.run = message.run
        if message.run.status == "committed":
            self.phase = "done"  # even after Esc: the Gateway answered first
            if self.follow is not None:
                self.follow()
        elif self.phase != "cancelled":
            self.phase = "failed"
        self._show()

    # -- drawing ------------------------------------------------------------------------------------

    def _show(self) -> None:
        self.refresh_bindings()
        self.query_one("#gateway-headline", Static).update(gateway_headline(
            self.phase, session_key=self.where.session_key if self.where else None, refusal=self.refusal, probe=self.probe, run=self.run))
        target = self.query_one("#gateway-target", Static)
        shown = self.run or self.probe
        target.display = shown is not None
        if shown is not None:
            target.update(gateway_panel(shown.target, shown.params, str(self.store), self.probe, self.phase == "checking"))
        done = self.phase == "done" and self.run is not None
        self.query_one("#gateway-plan").display = not done
        summary = self.query_one("#gateway-summary", Static)
        summary.display = done
        if done:
            assert self.run is not None
            summary.update(summary_text(self.run))

    # -- keys ---------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Enter is offered only when it does something (not while checking or waiting, nor after the result)."""
        if action == "start":
            return self.refusal is None and self.phase not in ("checking", "running", "done")
        return True

    def action_start(self) -> None:
        """Setup: confirm (the Gateway answers) or check again (it does not). Confirm: send."""
        if self.refusal is not None or self.phase in ("checking", "running", "done"):
            return
        if self.phase == "confirm" and self.where is not None:
            self.phase, self.cancel = "running", CallCancel()
            self.run = self.where.compaction(self.plan_options.config)
            self._show()
            self._send(self.run, self.cancel)
        elif self.phase == "setup" and self.probe is not None and not self.probe.problem:
            self.phase = "confirm"
            self._show()
        else:
            self.phase = "checking"
            self._show()
            self._check()

    def action_cancel_or_close(self) -> None:
        """Stop waiting for the Gateway, leave the confirmation, or close."""
        if self.phase == "running":
            self.cancel.cancel()
            self.phase = "cancelled"
            self._show()
        elif self.phase == "confirm":
            self.phase = "setup"
            self._show()
        else:
            self.dismiss(None)


def open_gateway_compact_screen(screen: Screen[Any], mirror: Any, config: Mapping[str, Any] | None, context_window: int | None,
                                rules_id: str | None, inspector_options: Any, follow: Callable[[], None] | None) -> None:
    """Push the Gateway compaction screen for the store session whose mirror is `mirror` (`inspector.read.store.mirror.Mirror`)."""
    env = inspector_options.env if inspector_options is not None else None
    home = inspector_options.home if inspector_options is not None else None
    screen.app.push_screen(GatewayCompactScreen(
        mirror.store, mirror.session_id, mirror.path, plan_options=PlanOptions(config=dict(config) if config is not None else None,
                                                                             context_window=context_window),
        rules_id=rules_id, env=env, home=home, follow=follow))
