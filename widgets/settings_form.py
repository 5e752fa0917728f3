"""What the live settings panels share (pruning's `contextPruning` fields, the forecast's plan fields).

A `SettingsForm` shows one row per field (name, input or checkbox) with an inline error under an invalid one. While
every field is valid it posts its `Changed` message with the fields that differ from their start, debounced (a burst
of typing asks for one preview); an invalid field posts `Invalid` at once, so the screen keeps its last valid state.
A panel names its fields (`FIELDS`), how a text is read (`parse_field`), its DOM prefix (`PREFIX`) and its own
`Changed`/`Invalid` message classes (so handlers keep the panel's name).
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

from rich.text import Text
from textual import on
from textual.message import Message
from textual.timer import Timer
from textual.validation import ValidationResult, Validator
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Static

DEFAULT_DEBOUNCE = 0.25


class FormField(Protocol):
    """One editable field: `key` (its setting's name), `kind` (how its text is read; `bool` is a checkbox), `help`."""

    @property
    def key(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def help(self) -> str: ...

    @property
    def widget_id(self) -> str: ...


class FieldValidator(Validator):
    """Textual validation through a panel's reader of one field (gives the input its `-invalid` look)."""

    def __init__(self, form: type[SettingsForm], field: FormField) -> None:
        super().__init__()
        self.form = form
        self.field = field

    def validate(self, value: str) -> ValidationResult:
        try:
            self.form.parse_field(self.field, value)
        except ValueError as exc:
            return self.failure(str(exc))
        return self.success()


class SettingsForm(Widget):
    """Base of a live settings panel (see the module docstring); mix it before a container class."""

    FIELDS: ClassVar[tuple[FormField, ...]] = ()
    PREFIX: ClassVar[str] = "setting"
    """Start of the DOM ids and classes: `row-<widget id>`, `<prefix>-row`, `<prefix>-name`, `<prefix>-error`."""

    class Changed(Message):
        """Every field is valid: `edits` maps field keys to the values that differ from their start."""

        def __init__(self, edits: dict[str, Any]) -> None:
            super().__init__()
            self.edits = edits

    class Invalid(Message):
        """Some field is invalid: `errors` maps field keys to the reason."""

        def __init__(self, errors: dict[str, str]) -> None:
            super().__init__()
            self.errors = errors

    initial: dict[str, Any]
    """Each field's starting text (or bool)."""

    def __init__(self, *, debounce: float = DEFAULT_DEBOUNCE, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.debounce = debounce
        self.errors: dict[str, str] = {}
        self._timer: Timer | None = None

    @classmethod
    def parse_field(cls, field: FormField, text: str) -> Any:
        """The value typed into `field`; `ValueError` with a short reason when it is invalid."""
        raise NotImplementedError

    @classmethod
    def field_by_key(cls, key: str) -> FormField:
        """The field named `key`."""
        return next(f for f in cls.FIELDS if f.key == key)

    def same_as_start(self, field: FormField, value: Any) -> bool:
        """Whether `value` is the field's starting value (an unedited field is not sent)."""
        return bool(value == self.initial[field.key])

    def current(self, key: str) -> Any:
        """The field's current text (or bool for a checkbox)."""
        f = self.field_by_key(key)
        if f.kind == "bool":
            return self.query_one(f"#{f.widget_id}", Checkbox).value
        return self.query_one(f"#{f.widget_id}", Input).value

    def set_value(self, key: str, value: Any) -> None:
        """Set a field as if typed."""
        f = self.field_by_key(key)
        self.query_one(f"#{f.widget_id}", Checkbox if f.kind == "bool" else Input).value = value

    def edits(self) -> dict[str, Any]:
        """The values of the fields that differ from their start (`ValueError` if one is invalid)."""
        out: dict[str, Any] = {}
        for f in self.FIELDS:
            value = self.current(f.key)
            if not self.same_as_start(f, value):
                out[f.key] = value if f.kind == "bool" else self.parse_field(f, value)
        return out

    def field_input(self, field: FormField, value: Any) -> Input:
        """The input of a text field, validated as typed."""
        return Input(str(value), id=field.widget_id, compact=True, tooltip=field.help,
                     validators=[FieldValidator(type(self), field)], select_on_focus=False)

    def error_line(self, field: FormField) -> Static:
        """The (hidden) line under a field that shows why its text is invalid."""
        return Static("", classes=f"{self.PREFIX}-error", id=f"error-{field.widget_id}", markup=False)

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _field_changed(self, event: Input.Changed | Checkbox.Changed) -> None:
        event.stop()
        field = next((f for f in self.FIELDS if f.widget_id == event.control.id), None)
        if field is None:
            return
        self.check_field(field)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.errors:
            self.post_message(self.Invalid(dict(self.errors)))
            return
        self._timer = self.set_timer(self.debounce, self._post_changed)

    def check_field(self, f: FormField) -> None:
        """Mark the field edited or not, and show or clear its error."""
        value = self.current(f.key)
        self.query_one(f"#row-{f.widget_id}").set_class(not self.same_as_start(f, value), "-edited")
        if f.kind == "bool":
            return
        error = self.query_one(f"#error-{f.widget_id}", Static)
        try:
            self.parse_field(f, value)
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
