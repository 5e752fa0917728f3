"""The compaction screen's summarizer picker: who writes the summary, and for a model, which provider, model and server.

`SummarizerForm(config=..., env=..., session_model=...)` shows the summarizer (`rules`, `openai`, `anthropic`: the
compact command's `--summarizer`), a list of the models it can use without typing (the session's own, those
`openclaw.json` lists: `inspector.write.summarizers.keys.model_choices`), and the provider, model and base URL
inputs (`--provider`, `--model`, `--base-url`; empty: resolved as the command resolves them, from `openclaw.json` and
the environment). Under them, what `resolve_provider` makes of it: each value and where it came from, whether a key
was found and where (never the key itself), or why the choice cannot be used. `make()` builds the summarizer with
`make_summarizer`, as the command does. Every change posts `Changed`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Select, Static

from inspector.base.textsafe import make_inert
from inspector.write.summarizers import (
    SUMMARIZER_NAMES,
    ProviderConfig,
    ProviderConfigError,
    Summarizer,
    make_summarizer,
    resolve_provider,
)
from inspector.write.summarizers.keys import model_choices

INPUTS = (("provider", "default: the session's, else openai / anthropic"), ("model", "default: the session's or openclaw.json's"),
          ("base_url", "default: openclaw.json, the environment, or known"))


@dataclass(frozen=True)
class SummarizerChoice:
    """What the form says: the summarizer's name and the typed provider, model and base URL (None: resolved)."""

    name: str = "rules"
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None


class SummarizerForm(Vertical):
    """The summarizer picker (see the module docstring)."""

    class Changed(Message):
        """The choice changed (`choice`)."""

        def __init__(self, choice: SummarizerChoice) -> None:
            super().__init__()
            self.choice = choice

    def __init__(self, *, config: Mapping[str, Any] | None = None, env: Mapping[str, str] | None = None,
                 session_model: tuple[str | None, str | None] | None = None, initial: SummarizerChoice | None = None,
                 id: str | None = None) -> None:
        """`config` is the parsed openclaw.json, `env` the environment keys and URLs are read from (None: the
        process's), `session_model` the (provider, model) in force at the session's leaf; `initial` the first choice."""
        super().__init__(id=id)
        self.config = config or {}
        self.env = env
        self.session_model = session_model
        self.initial = initial or SummarizerChoice()
        self._known: list[str] = []

    def compose(self) -> ComposeResult:
        i = self.initial
        with Horizontal(classes="summarizer-row"):
            yield Label(Text("summarizer"), classes="summarizer-name")
            yield Select([(n, n) for n in SUMMARIZER_NAMES], value=i.name, allow_blank=False, compact=True, id="summarizer-name")
        with Horizontal(classes="summarizer-row summarizer-endpoint", id="summarizer-known-row"):
            yield Label(Text("known models"), classes="summarizer-name")
            yield Select([], prompt="session / openclaw.json", compact=True, id="summarizer-known")
        for key, placeholder in INPUTS:
            with Horizontal(classes="summarizer-row summarizer-endpoint"):
                yield Label(Text(key.replace("_", " ")), classes="summarizer-name")
                yield Input(getattr(i, key) or "", placeholder=placeholder, compact=True, id=f"summarizer-{key.replace('_', '-')}")
        yield Static("", id="summarizer-resolved", markup=False)

    def on_mount(self) -> None:
        if self.app.animation_level == "none":
            for field in self.query(Input):
                field.cursor_blink = False
        self.refresh_choice()

    def choice(self) -> SummarizerChoice:
        """The current choice."""
        name = self.query_one("#summarizer-name", Select).value
        values = {key: self.query_one(f"#summarizer-{key.replace('_', '-')}", Input).value.strip() or None for key, _ in INPUTS}
        return SummarizerChoice(str(name) if isinstance(name, str) else "rules", **values)

    def resolve(self) -> ProviderConfig | None:
        """The endpoint the choice resolves to (None for `rules`); `ProviderConfigError` when it cannot be used."""
        c = self.choice()
        if c.name == "rules":
            return None
        return resolve_provider(c.name, provider=c.provider, model=c.model, base_url=c.base_url, config=self.config,  # type: ignore[arg-type]
                                env=self.env, session_model=self.session_model)

    def make(self) -> Summarizer:
        """The summarizer of the current choice, built as the compact command builds it (`ProviderConfigError` or
        `ValueError` when it cannot be used)."""
        c = self.choice()
        return make_summarizer(c.name, provider=c.provider, model=c.model, base_url=c.base_url, config=self.config,  # type: ignore[arg-type]
                               env=self.env, session_model=self.session_model if c.name != "rules" else None)

    def set_choice(self, choice: SummarizerChoice) -> None:
        """Put `choice` in the form (as if typed)."""
        self.query_one("#summarizer-name", Select).value = choice.name
        for key, _ in INPUTS:
            self.query_one(f"#summarizer-{key.replace('_', '-')}", Input).value = getattr(choice, key) or ""
        self.refresh_choice()

    @on(Select.Changed, "#summarizer-name")
    def _name_changed(self, event: Select.Changed) -> None:
        event.stop()
        self.refresh_choice()

    @on(Select.Changed, "#summarizer-known")
    def _known_chosen(self, event: Select.Changed) -> None:
        event.stop()
        if isinstance(event.value, str) and "\n" in event.value:
            provider, model = event.value.split("\n", 1)
            self.query_one("#summarizer-provider", Input).value = provider
            self.query_one("#summarizer-model", Input).value = model
            self.query_one("#summarizer-base-url", Input).value = ""
            self.refresh_choice()

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self.refresh_choice()

    def refresh_choice(self) -> None:
        """Show or hide the endpoint rows, fill the known models, say what the choice resolves to, post `Changed`."""
        c = self.choice()
        self.set_class(c.name == "rules", "-rules")
        known = self.query_one("#summarizer-known", Select)
        if c.name != "rules":
            options = [(make_inert(f"{p}/{m} ({where})", keep_newlines=False), f"{p}\n{m}")
                       for p, m, where in model_choices(c.name, self.config, self.session_model)]  # type: ignore[arg-type]
            if [v for _, v in options] != self._known:
                self._known = [v for _, v in options]
                known.set_options(options)
        self.query_one("#summarizer-resolved", Static).update(self._resolved_text())
        self.post_message(self.Changed(c))

    def _resolved_text(self) -> Text:
        try:
            cfg = self.resolve()
        except ProviderConfigError as exc:
            return Text(make_inert(f"cannot use this: {exc}", keep_newlines=False), style="bold red")
        if cfg is None:
            return Text("rules: offline and deterministic, no model call, no key", style="dim")
        shown = cfg.to_json()
        sources = shown["sources"]
        out = Text()
        for label, key in (("provider", "provider"), ("model", "model"), ("base URL", "base_url")):
            out.append(f"{label} ", style="dim")
            out.append(make_inert(str(shown[key]), keep_newlines=False))
            out.append(f" ({sources.get(key, '-')})\n", style="dim")
        out.append("key ", style="dim")
        key_source = sources.get("api_key", "")
        out.append(("found: " + make_inert(key_source, keep_newlines=False)) if shown["has_key"] else (key_source or "none"))
        return out
