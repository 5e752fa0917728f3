"""The pruning settings panel: every `contextPruning` setting as an editable field, validated as you type.

Which settings there are is the session's rule set's (`rules.pruning_settings.CONFIG_KEYS`): OpenClaw 2026.4.12
has all of `SETTING_FIELDS`; 2026.9.6 accepts only `ttl`, `hardClear` and `tools` (`fields_for(rules)`).

Fields carry OpenClaw's own names (`ttl`, `keepLastAssistants`, `softTrim.maxChars`, `tools.deny`, ...) and start
from the effective settings of the user's config. While every field is valid the panel posts `Changed` with the
fields that differ from where they started (debounced, so a burst of typing asks for one preview); an invalid
field shows its error inline and the panel posts `Invalid` at once, so the screen can keep the last valid preview.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Checkbox, Label, Static

from inspector.js.utf16 import js_trim
from inspector.rules.durations import DurationError, duration_setting, parse_duration_ms
from inspector.rules.ruleset import RuleSet

from ..settings_form import DEFAULT_DEBOUNCE, FormField, SettingsForm

if TYPE_CHECKING:
    from inspector.rules.openclaw_2026_4_12.pruning.settings import ContextPruningSettings

_RATIO_RE = re.compile(r"^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_INT_RE = re.compile(r"^\d+$")
ROWS_PER_FRAME = 3
"""Setting rows the panel mounts per frame (see `PruningSettingsPanel.on_mount`)."""


@dataclass(frozen=True)
class SettingField:
    """One editable setting: `key` is OpenClaw's dotted name, `kind` how its text is read."""

    key: str
    kind: str  # "duration", "int", "ratio", "text", "globs", "bool"
    help: str

    @property
    def widget_id(self) -> str:
        """The DOM id of the field's input (dots are not allowed in ids)."""
        return "setting-" + self.key.replace(".", "-")


SETTING_FIELDS: tuple[SettingField, ...] = (
    SettingField("ttl", "duration", "cache TTL: prune once this long has passed since the last cache touch (5m, 1h, 90s; bare = minutes)"),
    SettingField("keepLastAssistants", "int", "tool results after the last N assistant messages are never pruned"),
    SettingField("softTrimRatio", "ratio", "soft trim when the context is at least this share of the char window (0-1)"),
    SettingField("hardClearRatio", "ratio", "hard clear while the context is at least this share of the char window (0-1)"),
    SettingField("minPrunableToolChars", "int", "no hard clear unless prunable tool results total at least this many chars"),
    SettingField("softTrim.maxChars", "int", "soft trim tool results longer than this (raw chars)"),
    SettingField("softTrim.headChars", "int", "chars kept from the start of a soft-trimmed result"),
    SettingField("softTrim.tailChars", "int", "chars kept from the end of a soft-trimmed result"),
    SettingField("hardClear.enabled", "bool", "replace old tool results with the placeholder"),
    SettingField("hardClear.placeholder", "text", "text of a hard-cleared result (empty: OpenClaw's default)"),
    SettingField("tools.allow", "globs", "only these tools are prunable (comma-separated globs; empty: all)"),
    SettingField("tools.deny", "globs", "never prune these tools (comma-separated globs; deny wins)"),
)
FIELDS_BY_KEY = {f.key: f for f in SETTING_FIELDS}


def fields_for(rules: RuleSet | None) -> tuple[SettingField, ...]:
    """The fields of the settings the rule set's OpenClaw accepts, in `SETTING_FIELDS` order (all without rules)."""
    if rules is None:
        return SETTING_FIELDS
    keys = set(rules.pruning_settings.CONFIG_KEYS)
    return tuple(f for f in SETTING_FIELDS if f.key in keys)


def parse_setting(field: SettingField, text: str) -> Any:
    """The config value for `text` typed into `field`; `ValueError` with a short reason when it is invalid.

    Stricter than OpenClaw (which ignores a bad ttl, clamps ratios and floors numbers): the panel asks for the value
    OpenClaw would use as typed, so what is previewed is what was written.
    """
    raw = js_trim(text)
    if field.kind == "duration":
        try:
            parse_duration_ms(raw, default_unit="m")
        except (DurationError, OverflowError):
            raise ValueError("a duration: 5m, 1h, 90s, 1.5h (bare = minutes)") from None
        return raw
    if field.kind == "int":
        if not _INT_RE.match(raw):
            raise ValueError("a whole number ≥ 0")
        return int(raw)
    if field.kind == "ratio":
        value = float(raw) if _RATIO_RE.match(raw) else math.nan
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise ValueError("a number from 0 to 1")
        return value
    if field.kind == "globs":
        return [g for g in (js_trim(part) for part in text.split(",")) if g]
    return text


def format_setting(field: SettingField, settings: ContextPruningSettings) -> Any:
    """The starting text (or bool) of `field` for effective `settings`."""
    s = settings
    tools = s.tools if isinstance(s.tools, dict) else {}
    values: dict[str, Any] = {
        "ttl": duration_setting(s.ttl_ms),
        "keepLastAssistants": str(s.keep_last_assistants),
        "softTrimRatio": str(s.soft_trim_ratio),
        "hardClearRatio": str(s.hard_clear_ratio),
        "minPrunableToolChars": str(s.min_prunable_tool_chars),
        "softTrim.maxChars": str(s.soft_trim.max_chars),
        "softTrim.headChars": str(s.soft_trim.head_chars),
        "softTrim.tailChars": str(s.soft_trim.tail_chars),
        "hardClear.enabled": s.hard_clear.enabled,
        "hardClear.placeholder": s.hard_clear.placeholder,
        "tools.allow": _globs_text(tools.get("allow")),
        "tools.deny": _globs_text(tools.get("deny")),
    }
    return values[field.key]


def edits_from_texts(texts: dict[str, Any]) -> dict[str, Any]:
    """The config edits of fields typed as `texts` (field key -> text, or bool); invalid texts are left out."""
    out: dict[str, Any] = {}
    for key, text in texts.items():
        f = FIELDS_BY_KEY.get(key)
        if f is None:
            continue
        if f.kind == "bool":
            out[key] = bool(text)
            continue
        try:
            out[key] = parse_setting(f, str(text))
        except ValueError:
            continue
    return out


def _globs_text(globs: Any) -> str:
    return ", ".join(str(g) for g in globs) if isinstance(globs, list) else ""


class PruningSettingsPanel(SettingsForm, VerticalScroll):
    """One row per setting (name, input), an inline error under an invalid one; `values()` reads them all."""

    DEFAULT_CSS = """
    PruningSettingsPanel {
        padding: 0 1;
        & > .setting-row { height: 1; }
        & .setting-name { width: 22; color: $text-muted; }
        & .setting-row.-edited .setting-name { color: $text-accent; text-style: bold; }
        & Input { width: 1fr; }
        & Checkbox { width: 1fr; }
        & > .setting-error { display: none; color: $text-error; padding-left: 2; }
        & > .setting-error.-shown { display: block; }
        & > #settings-title { text-style: bold; }
    }
    """
    FIELDS = SETTING_FIELDS
    PREFIX = "setting"

    class Changed(SettingsForm.Changed):
        """Every field is valid: `edits` maps OpenClaw's dotted names to the values that differ from the start."""

    class Invalid(SettingsForm.Invalid):
        """Some field is invalid: `errors` maps dotted names to the reason (the preview keeps its last valid state)."""

    def __init__(self, settings: ContextPruningSettings, *, debounce: float = DEFAULT_DEBOUNCE, values: dict[str, Any] | None = None,
                 id: str | None = None, classes: str | None = None, fields: tuple[SettingField, ...] = SETTING_FIELDS,
                 later: Callable[[Callable[[], Any]], object] | None = None) -> None:
        """`settings` are the effective settings the fields start from; `values` are field texts typed before (the
        fields open with them, marked edited); `debounce` seconds of quiet before `Changed`; `fields` the settings
        the session's OpenClaw accepts (`fields_for(rules)`)."""
        super().__init__(debounce=debounce, id=id, classes=classes)
        self.FIELDS = fields  # type: ignore[misc]  # this panel's fields: the class default is every field
        self.initial = {f.key: format_setting(f, settings) for f in fields}
        self.values = {k: v for k, v in (values or {}).items() if k in self.initial}
        self._unmounted: list[SettingField] = list(fields)
        """The fields whose rows are not mounted yet (`on_mount`)."""
        self._later = later
        """Runs a job after the next frame (the overlay's `FrameJobs.add`; None: after the screen's next refresh)."""

    @classmethod
    def parse_field(cls, field: FormField, text: str) -> Any:
        return parse_setting(FIELDS_BY_KEY[field.key], text)

    def compose(self) -> ComposeResult:
        yield Static(Text("Settings (contextPruning)"), id="settings-title")

    def _row(self, f: SettingField) -> tuple[Widget, Widget]:
        value = self.values.get(f.key, self.initial[f.key])
        if f.kind == "bool":
            control: Widget = Checkbox("enabled", bool(value), id=f.widget_id, compact=True, tooltip=f.help)
        else:
            control = self.field_input(f, value)
            if self.app.animation_level == "none":
                control.cursor_blink = False
        row = Horizontal(Label(Text(f.key), classes="setting-name"), control, classes="setting-row", id=f"row-{f.widget_id}")
        return row, self.error_line(f)

    def on_mount(self) -> None:
        """The fields are mounted after the screen's first frame, `ROWS_PER_FRAME` at a time: the ~50 widgets at
        once held the UI thread over 100 ms when the overlay opened."""
        self._unmounted = list(self.FIELDS)
        self._after_frame(self._mount_rows)

    def _after_frame(self, job: Callable[[], Any]) -> None:
        if self._later is not None:
            self._later(job)
        else:
            self.screen.call_after_refresh(job)

    @property
    def complete(self) -> bool:
        """Every field is mounted."""
        return not self._unmounted

    def current(self, key: str) -> Any:
        """The field's current text (or bool); a field not mounted yet has the text it opens with."""
        f = self.field_by_key(key)
        if not self.query(f"#{f.widget_id}"):  # not mounted yet, or being mounted (`_mount_rows`)
            return self.values.get(key, self.initial[key])
        return super().current(key)

    async def _mount_rows(self, everything: bool = False) -> None:
        batch = self._unmounted if everything else self._unmounted[:ROWS_PER_FRAME]
        if not batch:
            return
        self._unmounted = self._unmounted[len(batch):]
        await self.mount_all([w for f in batch for w in self._row(f)])
        for f in batch:
            if f.key in self.values:
                self.check_field(f)
        if self._unmounted:
            self._after_frame(self._mount_rows)

    def edited_texts(self) -> dict[str, Any]:
        """The fields that differ from their starting text, as typed (text, or bool for `hardClear.enabled`)."""
        return {f.key: self.current(f.key) for f in self.FIELDS if self.current(f.key) != self.initial[f.key]}

    async def focus_first(self) -> None:
        """Focus the first field (`ttl`), every field mounted first."""
        await self._mount_rows(everything=True)
        self.query_one(f"#{self.FIELDS[0].widget_id}").focus()
