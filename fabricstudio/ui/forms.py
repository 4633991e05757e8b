"""Editors for pydantic fields (inspector, fabric settings): text boxes that parse on commit,
so a bad value reaches the model and is refused there with the model's own message."""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from pydantic.fields import FieldInfo
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

MIXED = object()


@runtime_checkable
class Labelled(Protocol):
    """An enum member with a display label (DeviceKind, GroupKind): combos show the label."""

    @property
    def label(self) -> str: ...

_UNITS = (("_gbps", "Gb/s"), ("_mbps", "Mb/s"), ("_bytes", "bytes"), ("_ns_per_m", "ns/m"),
          ("_ns", "ns"), ("_us", "µs"), ("_tb", "TB"), ("_m", "m"))
_WORDS = {"a": "A", "b": "B", "nic": "NIC", "nics": "NICs", "gpus": "GPUs", "mgmt": "management",
          "mtu": "MTU",
          "nvlink": "NVLink", "rai": "R_AI", "rhai": "R_HAI", "cnp": "CNP", "vl": "VL",
          "rto": "RTO", "dupack": "dup-ACK", "pmax": "P max", "kmin": "Kmin", "kmax": "Kmax",
          "g": "g (alpha gain)", "tb": "TB"}


def field_label(name: str) -> str:
    """'nic_speed_gbps' -> 'NIC speed (Gb/s)'."""
    unit = ""
    for suffix, text in _UNITS:
        if name.endswith(suffix):
            name, unit = name[: -len(suffix)], text
            break
    words = [_WORDS.get(w, w) for w in name.split("_")]
    label = " ".join(words)
    label = label[:1].upper() + label[1:]
    return f"{label} ({unit})" if unit else label


def _base_type(annotation: Any) -> tuple[type | None, bool]:
    """(the non-None type, optional?) of an annotation like ``float | None``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return (args[0] if len(args) == 1 else None), True
    if origin is typing.Annotated:
        return _base_type(typing.get_args(annotation)[0])
    return annotation, False


class FieldEditor(QObject):
    """One editable field: ``widget``; :meth:`value` parses (ValueError with a message);
    :meth:`show` displays a value or MIXED; ``committed`` fires when the user is done."""

    committed = Signal()

    def __init__(self, name: str, info: FieldInfo) -> None:
        super().__init__()
        self.name = name
        self.info = info
        self.kind, self.optional = _base_type(info.annotation)
        self.widget = self._make_widget()

    def _make_widget(self) -> QWidget:
        if self.kind is bool:
            box = QCheckBox()
            box.clicked.connect(lambda _=False: self.committed.emit())
            return box
        if isinstance(self.kind, type) and issubclass(self.kind, enum.Enum):
            combo = QComboBox()
            for member in self.kind:
                combo.addItem(member.label if isinstance(member, Labelled) else member.value,
                              member)
            combo.activated.connect(lambda _=0: self.committed.emit())
            return combo
        edit = QLineEdit()
        if self.info.description:
            edit.setToolTip(self.info.description)
        if self.optional:
            edit.setPlaceholderText("default")
        edit.editingFinished.connect(self._edit_finished)
        self._shown = ""
        return edit

    def _edit_finished(self) -> None:
        if self.widget.text() != self._shown:
            self.committed.emit()

    def show(self, value: Any) -> None:
        """Display ``value`` (MIXED shows an empty box with a 'mixed' hint)."""
        w = self.widget
        w.blockSignals(True)
        try:
            if isinstance(w, QCheckBox):
                w.setTristate(value is MIXED)
                w.setCheckState(_check_state(value))
            elif isinstance(w, QComboBox):
                w.setCurrentIndex(-1 if value is MIXED else w.findData(value))
            else:
                self._shown = "" if value is MIXED or value is None else _format(value)
                w.setText(self._shown)
                w.setPlaceholderText("mixed" if value is MIXED else
                                     ("default" if self.optional else ""))
        finally:
            w.blockSignals(False)

    def value(self) -> Any:
        """The entered value, converted to the field's type (ValueError if not parseable)."""
        w = self.widget
        if isinstance(w, QCheckBox):
            return w.isChecked()
        if isinstance(w, QComboBox):
            return w.currentData()
        text = w.text().strip()
        if not text and self.optional:
            return None
        if self.kind is int:
            try:
                return int(float(text)) if float(text).is_integer() else int(text)
            except ValueError:
                raise ValueError(f"{field_label(self.name)}: {text!r} is not a whole "
                                 "number") from None
        if self.kind is float:
            try:
                return float(text)
            except ValueError:
                raise ValueError(f"{field_label(self.name)}: {text!r} is not a number") from None
        return text


def _check_state(value: Any):
    from PySide6.QtCore import Qt

    if value is MIXED:
        return Qt.CheckState.PartiallyChecked
    return Qt.CheckState.Checked if value else Qt.CheckState.Unchecked


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}" if abs(value) < 1e6 else f"{value:.0f}"
    return str(value)


def validating_dialog_body(dialog: QDialog, form: QFormLayout | QWidget,
                           restore_defaults: Callable[[], None] | None = None) -> QLabel:
    """Lay out ``form`` (a form, or a widget such as a tab set), a hidden one-line error label
    and OK / Cancel (and Restore Defaults when ``restore_defaults`` is given) in ``dialog``;
    returns the label, which the dialog's ``accept`` shows ("Refused: ...") when a value is
    bad."""
    error = QLabel()
    error.setObjectName("errorLabel")
    error.setWordWrap(True)
    error.hide()
    standard = QDialogButtonBox.StandardButton
    extra = standard.RestoreDefaults if restore_defaults else standard.NoButton
    buttons = QDialogButtonBox(standard.Ok | standard.Cancel | extra)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    if restore_defaults is not None:
        buttons.button(standard.RestoreDefaults).clicked.connect(
            lambda _checked=False: restore_defaults())
    layout = QVBoxLayout(dialog)
    if isinstance(form, QWidget):
        layout.addWidget(form)
    else:
        layout.addLayout(form)
    layout.addWidget(error)
    layout.addWidget(buttons)
    return error
