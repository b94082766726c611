"""Edit a state as JSON before forking from it.

Values JSON cannot hold (messages, dataclasses, datetimes…) are shown as a readable
placeholder string, "⟨kept #1: AIMessage(…)⟩"; left as they are, the original object comes
back unchanged. A key whose JSON is not edited keeps its original value, so a tuple stays a
tuple and a message stays a message.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from studio.core.valuefmt import preview
from studio.panels._common import MUTED, mono_font

__all__ = ["StateEditorDialog", "to_editable", "from_editable", "check_json"]

_KEPT = "⟨kept #"


def to_editable(values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(JSON-able copy of `values`, {placeholder: original object})."""
    kept: dict[str, Any] = {}

    def convert(value: Any, depth: int) -> Any:
        if isinstance(value, (str, int, float, bool, type(None))):
            if isinstance(value, float) and value != value:  # NaN has no JSON form
                return keep(value)
            return value
        if depth < 60 and isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
            return {k: convert(v, depth + 1) for k, v in value.items()}
        if depth < 60 and isinstance(value, list):
            return [convert(v, depth + 1) for v in value]
        return keep(value)

    def keep(value: Any) -> str:
        shown = preview(value, 80)
        name = type(value).__name__
        if not shown.startswith(name):
            shown = f"{name}: {shown}"
        token = f"{_KEPT}{len(kept) + 1}: {shown}⟩"
        kept[token] = value
        return token

    return {str(k): convert(v, 0) for k, v in values.items()}, kept


def from_editable(edited: Any, kept: Mapping[str, Any]) -> Any:
    """Put the kept objects back where their placeholders still stand."""
    if isinstance(edited, str) and edited.startswith(_KEPT) and edited in kept:
        return kept[edited]
    if isinstance(edited, dict):
        return {k: from_editable(v, kept) for k, v in edited.items()}
    if isinstance(edited, list):
        return [from_editable(v, kept) for v in edited]
    return edited


def check_json(text: str) -> tuple[Any, str]:
    """(parsed, "") or (None, "Line 3, column 5: Expecting ',' delimiter")."""
    try:
        return json.loads(text), ""
    except json.JSONDecodeError as exc:
        return None, f"Line {exc.lineno}, column {exc.colno}: {exc.msg}"


class StateEditorDialog(QDialog):
    """A JSON editor for a state; OK stays disabled while the text is not a JSON object.

    `StateEditorDialog(values, parent=None)`; after `exec()` is accepted:
        edited_values() -> dict: every key, unedited ones with their original objects.
        changed_values() -> dict: only the keys whose value changed (what to pass to
            update_state: passing unchanged keys through an appending reducer would add
            their items again).
    `values()` is the same as `edited_values()`.
    """

    def __init__(self, values: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit state and fork")
        self.resize(640, 560)
        self._original = dict(values)
        self._editable, self._kept = to_editable(values)
        self._parsed: dict[str, Any] | None = dict(self._editable)
        intro = QLabel("Edit the values as JSON. Saving writes them through update_state, which makes a new "
                       "checkpoint: a branch in the timeline; the original stays as it was.")
        intro.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setFont(mono_font())
        self.editor.setPlainText(json.dumps(self._editable, indent=2, ensure_ascii=False))
        self.editor.textChanged.connect(self._on_text_changed)
        self.note = QLabel("Values shown as ⟨kept #n: …⟩ are not JSON; leave them as they are to keep them.")
        self.note.setStyleSheet(f"color: {MUTED}")
        self.note.setWordWrap(True)
        self.note.setVisible(bool(self._kept))
        self.error = QLabel("")
        self.error.setObjectName("inlineError")
        self.error.setStyleSheet("color: #b91c1c")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Fork with these values")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.editor, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def _on_text_changed(self) -> None:
        parsed, error = check_json(self.editor.toPlainText())
        if not error and not isinstance(parsed, dict):
            parsed, error = None, "The state must be a JSON object: { \"key\": value, … }"
        self._parsed = parsed
        self.error.setText(error)
        self.ok_button.setEnabled(not error)

    def accept(self) -> None:
        if self._parsed is not None:
            super().accept()

    def is_valid(self) -> bool:
        return self._parsed is not None

    def edited_values(self) -> dict[str, Any]:
        """The edited state: unchanged keys keep their original objects."""
        if self._parsed is None:
            raise ValueError(f"the state editor holds invalid JSON: {self.error.text()}")
        out: dict[str, Any] = {}
        for key, value in self._parsed.items():
            if key in self._original and key in self._editable and value == self._editable[key]:
                out[key] = self._original[key]
            else:
                out[key] = from_editable(value, self._kept)
        return out

    values = edited_values

    def changed_values(self) -> dict[str, Any]:
        """Only the keys that were added or edited."""
        edited = self.edited_values()
        return {k: v for k, v in edited.items() if k not in self._original or v is not self._original[k]}
