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
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Static

from ..settings_form import DEFAULT_DEBOUNCE, FormField, SettingsForm

__all__ = ["DEFAULT_DEBOUNCE", "FIELDS_BY_KEY", "PLAN_FIELDS", "PlanField", "PlanSettingsPanel", "format_fractions", "parse_plan_field"]
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


class PlanSettingsPanel(SettingsForm, Vertical):
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
    FIELDS = PLAN_FIELDS
    PREFIX = "plan-setting"

    class Changed(SettingsForm.Changed):
        """Every field is valid: `edits` maps field keys to the values that differ from their start."""

    class Invalid(SettingsForm.Invalid):
        """Some field is invalid: `errors` maps field keys to the reason (the view keeps its last plan)."""

    def __init__(self, initial: dict[str, str], *, debounce: float = DEFAULT_DEBOUNCE, id: str | None = None) -> None:
        """`initial` maps every key of `PLAN_FIELDS` to its starting text; `debounce` seconds before `Changed`."""
        super().__init__(debounce=debounce, id=id)
        self.initial = dict(initial)

    @classmethod
    def parse_field(cls, field: FormField, text: str) -> Any:
        return parse_plan_field(FIELDS_BY_KEY[field.key], text)

    def same_as_start(self, field: FormField, value: Any) -> bool:
        return bool(str(value).strip() == str(self.initial[field.key]).strip())

    def compose(self) -> ComposeResult:
        yield Static(Text("Settings (re-plans as you type)"), id="plan-settings-title")
        for f in PLAN_FIELDS:
            with Horizontal(classes="plan-setting-row", id=f"row-{f.widget_id}"):
                yield Label(Text(f.key), classes="plan-setting-name")
                yield self.field_input(f, self.initial[f.key])
            yield self.error_line(f)
