"""The forecast's settings panel: `keepRecentTokens`, `reserveTokens`, the context window and the early thresholds.

Fields start from the effective values of the plan first shown (config, defaults). While every field is valid the
panel posts `Changed` with the fields that differ from their start (debounced: a burst of typing asks for one
plan); an invalid field shows its error inline and the panel posts `Invalid` at once, so the view keeps the last
valid plan. Unedited fields are not sent, so the engine keeps their source (config, pi default, OpenClaw's floor).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.validation import ValidationResult, Validator
from textual.widgets import Input, Label, Static

DEFAULT_DEBOUNCE = 0.25
_INT_RE = re.compile(r"^\d+$")
_FRACTION_RE = re.compile(r"^(\d+(\.\d*)?|\.\d+)$")


@dataclass(frozen=True)
class PlanField:
    """One editable input: `key` is OpenClaw's name (or ours for the window and thresholds), `kind` how it is read."""

    key: str
    kind: str  # "positive_int", "int", "fractions"
    help: str

    @property
    def widget_id(self) -> str:
        """The DOM id of the field's input."""
        return "plan-setting-" + self.key


PLAN_FIELDS: tuple[PlanField, ...] = (
    PlanField("keepRecentTokens", "positive_int", "tokens kept verbatim at the end (pi's findCutPoint walks back this far)"),
    PlanField("reserveTokens", "int", "tokens kept free for the reply: pi compacts when context > window − reserve"),
    PlanField("contextWindow", "positive_int", "the model's context window in tokens"),
    PlanField("earlyThresholds", "fractions", "early-warning thresholds as fractions of the window (comma-separated)"),
)
FIELDS_BY_KEY = {f.key: f for f in PLAN_FIELDS}


def parse_plan_field(field: PlanField, text: str) -> Any:
    """The value typed into `field`; `ValueError` with a short reason when it is invalid."""
    raw = text.strip()
    if field.kind in ("int", "positive_int"):
        if not _INT_RE.match(raw):
            raise ValueError("a whole number ≥ 0" if field.kind == "int" else "a whole number > 0")
        value = int(raw)
        if field.kind == "positive_int" and value <= 0:
            raise ValueError("a whole number > 0")
        return value
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    out = []
    for p in parts:
        if not _FRACTION_RE.match(p) or not 0 < float(p) <= 1:
            raise ValueError("fractions of the window, each in (0, 1]: 0.5, 0.7")
        out.append(float(p))
    return tuple(out)


def format_fractions(values: tuple[float, ...] | list[float]) -> str:
    """Thresholds as the field shows them (`0.5, 0.7`)."""
    return ", ".join(f"{v:g}" for v in values)


class _Validator(Validator):
    def __init__(self, field: PlanField) -> None:
        super().__init__()
        self.field = field

    def validate(self, value: str) -> ValidationResult:
        try:
            parse_plan_field(self.field, value)
        except ValueError as exc:
            return self.failure(str(exc))
        return self.success()


class PlanSettingsPanel(Vertical):
    """One row per field (name, input) and an inline error under an invalid one."""

    DEFAULT_CSS = """
    PlanSettingsPanel {
        height: auto;
        & > .plan-setting-row { height: 1; }
        & .plan-setting-name { width: 17; color: $text-muted; }
        & .plan-setting-row.-edited .plan-setting-name { color: $text-accent; text-style: bold; }
        & Input { width: 1fr; }
        & > .plan-setting-error { display: none; color: $text-error; padding-left: 2; }
        & > .plan-setting-error.-shown { display: block; }
        & > #plan-settings-title { text-style: bold; }
    }
    """

    class Changed(Message):
        """Every field is valid: `edits` maps field keys to the values that differ from their start."""

        def __init__(self, edits: dict[str, Any]) -> None:
            super().__init__()
            self.edits = edits

    class Invalid(Message):
        """Some field is invalid: `errors` maps field keys to the reason (the view keeps its last plan)."""

        def __init__(self, errors: dict[str, str]) -> None:
            super().__init__()
            self.errors = errors

    def __init__(self, initial: dict[str, str], *, debounce: float = DEFAULT_DEBOUNCE, id: str | None = None) -> None:
        """`initial` maps every key of `PLAN_FIELDS` to its starting text; `debounce` seconds before `Changed`."""
        super().__init__(id=id)
        self.initial = dict(initial)
        self.debounce = debounce
        self.errors: dict[str, str] = {}
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Settings (re-plans as you type)"), id="plan-settings-title")
        for f in PLAN_FIELDS:
            with Horizontal(classes="plan-setting-row", id=f"row-{f.widget_id}"):
                yield Label(Text(f.key), classes="plan-setting-name")
                yield Input(self.initial[f.key], id=f.widget_id, compact=True, tooltip=f.help,
                            validators=[_Validator(f)], select_on_focus=False)
            yield Static("", classes="plan-setting-error", id=f"error-{f.widget_id}", markup=False)

    def current(self, key: str) -> str:
        """The field's current text."""
        return self.query_one(f"#{FIELDS_BY_KEY[key].widget_id}", Input).value

    def set_value(self, key: str, value: str) -> None:
        """Set a field as if typed."""
        self.query_one(f"#{FIELDS_BY_KEY[key].widget_id}", Input).value = value

    def edits(self) -> dict[str, Any]:
        """The values of the fields that differ from their start (`ValueError` if one is invalid)."""
        out: dict[str, Any] = {}
        for f in PLAN_FIELDS:
            text = self.current(f.key)
            if text.strip() != self.initial[f.key].strip():
                out[f.key] = parse_plan_field(f, text)
        return out

    @on(Input.Changed)
    def _field_changed(self, event: Input.Changed) -> None:
        event.stop()
        field = next((f for f in PLAN_FIELDS if f.widget_id == event.control.id), None)
        if field is None:
            return
        self._check(field)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.errors:
            self.post_message(self.Invalid(dict(self.errors)))
            return
        self._timer = self.set_timer(self.debounce, self._post_changed)

    def _check(self, f: PlanField) -> None:
        value = self.current(f.key)
        self.query_one(f"#row-{f.widget_id}").set_class(value.strip() != self.initial[f.key].strip(), "-edited")
        error = self.query_one(f"#error-{f.widget_id}", Static)
        try:
            parse_plan_field(f, value)
        except ValueError as exc:
            self.errors[f.key] = str(exc)
            error.update(Text(f"↑ {exc}"))
            error.add_class("-shown")
        else:
            self.errors.pop(f.key, None)
            error.remove_class("-shown")

    def _post_changed(self) -> None:
        self._timer = None
        try:
            edits = self.edits()
        except ValueError:
            return
        self.post_message(self.Changed(edits))
