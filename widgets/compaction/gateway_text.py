"""The texts of the Gateway compaction screen (`gateway_screen.GatewayCompactScreen`): the headline of each phase
(the result at the top once the Gateway compacted), where the Gateway is and whether it answers, and the summary
it wrote.

Every figure is the engine's (`inspector.host.gateway.compact.StoreCompaction`: the target, the probe, the
Gateway's answer and the entry re-read from the store); these functions only format. The token or password is never
shown (only which kind is sent); reasons, keys, paths and the summary are untrusted: `make_inert` into `Text`.
"""

from __future__ import annotations

import json

from rich.text import Text

from inspector.base.textsafe import make_inert
from inspector.host.gateway.compact import METHOD, StoreCompaction
from inspector.host.gateway.target import GatewayTarget


def _inert(text: object) -> str:
    return make_inert(str(text), keep_newlines=False)


def _count(value: int | float | None, prefix: str = "") -> str:
    return f"{prefix}{value:,}" if isinstance(value, (int, float)) else "unknown"


def _version(run: StoreCompaction | None) -> str:
    return (run.hello.server_version if run is not None and run.hello is not None else None) or "unknown version"


def gateway_headline(phase: str, *, session_key: str | None, refusal: str | None = None, probe: StoreCompaction | None = None,
                     run: StoreCompaction | None = None) -> Text:
    """The line(s) at the top: what the screen is doing, what the keys do now, and the result once there is one.

    `phase`: `checking` (the probe runs), `setup` (probed), `confirm`, `running`, `cancelled`, `done` or `failed`;
    `refusal`: why this session cannot be compacted through the Gateway at all; `probe`: the last probe; `run`: the
    last `sessions.compact` sent."""
    out = Text()
    key = _inert(session_key or "this session")
    if refusal is not None:
        out.append(_inert(f"Cannot compact through the Gateway: {refusal}"), style="bold red")
        out.append("\nesc: close", style="dim")
        return out
    if phase == "checking":
        out.append(f"Compact {key} through the Gateway? ", style="bold")
        out.append("checking the Gateway… · esc: close", style="dim")
    elif phase == "setup" and probe is not None and probe.problem:
        out.append(_inert(probe.problem), style="bold red")
        out.append("\nnothing is sent · enter: check again · esc: close", style="dim")
    elif phase == "setup":
        out.append(f"Compact {key} through the Gateway? ", style="bold")
        out.append("enter: confirm · esc: close", style="dim")
    elif phase == "confirm" and probe is not None:
        out.append(_inert(f"Send {METHOD} {json.dumps(probe.params)} to {probe.target.url}? "), style="bold")
        out.append("The Gateway's model writes the summary and the Gateway appends it to the store.\n", style="bold")
        out.append("enter: send · esc: back", style="dim")
    elif phase == "running":
        out.append("Waiting for the Gateway to compact… ", style="bold")
        out.append("esc: stop waiting", style="dim")
    elif phase == "done" and run is not None:
        _result(out, run)
    elif phase == "cancelled":
        out.append(_inert(run.reason if run is not None and run.reason else "cancelled: stopped waiting for the Gateway"), style="bold yellow")
        out.append("\nenter: check the Gateway again · esc: close", style="dim")
    else:
        problem = (run.problem or run.reason) if run is not None else "the Gateway did not compact"
        prefix = "Nothing written: " if run is not None and run.status == "nothing_written" else ""
        out.append(_inert(prefix + (problem or "no reason given")), style="bold red")
        out.append("\nenter: check again · esc: close", style="dim")
    return out


def _result(out: Text, run: StoreCompaction) -> None:
    """The result, as the file compaction's: the entry, tokens before → after, first kept entry, summary length."""
    entry_id = (run.entry or {}).get("id")
    out.append("Compacted through the Gateway: ", style="bold green")
    out.append(f"tokens before {_count(run.tokens_before)} → after {_count(run.tokens_after, '~')}", style="bold green")
    out.append(f"\nentry {_inert(entry_id or '(not found in the store)')} · first kept entry {_inert(run.first_kept_entry_id or 'unknown')}"
               f" · summary {_count(run.summary_chars)} characters")
    if run.reason:
        out.append("\n" + _inert(run.reason), style="yellow")
    out.append(f"\nOpenClaw {_inert(_version(run))} · the transcript re-reads the store · esc: close", style="dim")


def gateway_panel(target: GatewayTarget, params: dict[str, object], store: str, probe: StoreCompaction | None, checking: bool) -> Text:
    """Where the Gateway is (URL, where it came from, which secret is sent; never the secret), whether it answers,
    what would be sent."""
    out = Text()
    out.append("Gateway\n", style="bold")
    out.append("  url       ", style="dim")
    out.append(_inert(f"{target.url} ({target.url_source})") + "\n")
    out.append("  auth      ", style="dim")
    out.append(f"{target.auth_kind}" + (" (sent, never shown)" if target.auth_kind != "none" else "") + "\n")
    out.append("  status    ", style="dim")
    if checking or probe is None:
        out.append("checking…\n", style="dim")
    elif probe.reachable and not probe.error:
        offered = "" if not probe.hello or not probe.hello.methods or METHOD in probe.hello.methods else f" · no {METHOD} method"
        out.append(f"reachable · OpenClaw {_inert(_version(probe))}{offered}\n", style="green")
    elif probe.reachable is False:
        out.append("not reachable\n", style="red")
    else:
        out.append("refused\n" if probe.error.get("kind") == "request" else "unusable\n", style="red")
    out.append("  request   ", style="dim")
    out.append(_inert(f"{METHOD} {json.dumps(params)}") + "\n")
    out.append("  store     ", style="dim")
    out.append(_inert(store) + " (written by the Gateway only)")
    return out


def summary_text(run: StoreCompaction) -> Text:
    """The summary the Gateway wrote, as re-read from the store (else as it answered)."""
    entry = run.entry or run.result
    out = Text()
    out.append("Summary", style="bold")
    out.append(f" (firstKeptEntryId {_inert(run.first_kept_entry_id)})\n", style="dim")
    out.append(make_inert(str(entry.get("summary", ""))))
    return out
