"""Edit a state as JSON before forking from it.

Messages show as `{"$message": "ai", "content": …}` objects: edit, add or delete them.
A value JSON cannot hold shows as a `{"$kept": n, …}` placeholder: left as it is, the
original object comes back (see studio.core.editable). With a planner (the session's
EditPlanner for the checkpoint) the dialog also shows how each changed key will be
written (through its reducer or replaced, the user's choice), which node the edit counts
as (the user's choice; by default one after which the run goes on) and what runs next,
all before the user confirms. Those previews are dry runs of the graph's code, made off
the UI thread (see preview.py): one that runs too long is said to be unavailable and
the user may fork anyway (the session checks the edit again as it applies it).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from studio.core.editable import EditError, check_json, to_editable
from studio.core.edits import EditPlan
from studio.core.valuefmt import preview
from studio.panels._common import MUTED, mono_font

from .preview import TIMEOUT_S, PreviewRunner

__all__ = ["StateEditorDialog"]

_REDUCE, _REPLACE = "through the reducer", "replace the value"


class StateEditorDialog(QDialog):
    """A JSON editor for a state; OK stays disabled while the edit cannot be applied.

    `StateEditorDialog(values, parent=None, planner=None)`; after `exec()` is accepted:
        changed_values() -> {key: value} of the keys added or edited (what to write);
        edited_values() -> every key, unedited ones with their original objects;
        how() -> {key: "reduce" | "replace"} for the keys with a reducer;
        as_node() -> the node the edit counts as (None without a planner).
    """

    def __init__(self, values: Mapping[str, Any], parent: QWidget | None = None, planner: Any = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit state and fork")
        self.resize(680, 620)
        self._editable = to_editable(values)
        self._planner = planner
        self._parsed: dict[str, Any] | None = dict(self._editable.data)
        self._changed: dict[str, Any] = {}
        self._how: dict[str, str] = {}
        self._as_node: str | None = None
        self.plan: Any = None
        """The last preview (an EditPlan), None before one is made."""
        self._plan_gen = -1
        self._runner = PreviewRunner(self)
        self._runner.ready.connect(self._on_plan_ready)
        self._runner.late.connect(self._on_plan_late)
        intro = QLabel("Edit the values as JSON. Saving writes them through update_state, which makes a new "
                       "checkpoint: a branch in the timeline; the original stays as it was.")
        intro.setWordWrap(True)
        self.editor = QPlainTextEdit()
        self.editor.setFont(mono_font())
        self.editor.setPlainText(self._editable.text())
        self.editor.textChanged.connect(self._on_text_changed)
        self.note = QLabel('Messages are {"$message": "human" | "ai" | "system" | "tool", "content": …} objects: '
                           'edit, add or delete them. {"$kept": n, …} stands for a value JSON cannot hold: leave it '
                           "as it is to keep it, or replace the whole object with a JSON value.")
        self.note.setStyleSheet(f"color: {MUTED}")
        self.note.setWordWrap(True)
        self.note.setVisible(bool(self._editable.kept or self._editable.messages))
        self.error = QLabel("")
        self.error.setObjectName("inlineError")
        self.error.setStyleSheet("color: #b91c1c")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.keys_box = QWidget()
        self.keys_form = QFormLayout(self.keys_box)
        self.keys_form.setContentsMargins(0, 0, 0, 0)
        self.keys_title = QLabel("<b>What the fork writes</b> (each changed key, and its value after)")
        self.keys_title.setVisible(planner is not None)
        self.as_node_box = QComboBox()
        self.as_node_box.setToolTip("The edit is recorded as this node's write: its edges decide what runs next")
        self.next_label = QLabel("")
        self.next_label.setWordWrap(True)
        self.next_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        node_form = QFormLayout()
        node_form.addRow("Counts as the write of", self.as_node_box)
        node_form.addRow("", self.next_label)
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
        layout.addWidget(self.keys_title)
        layout.addWidget(self.keys_box)
        layout.addLayout(node_form)
        layout.addWidget(self.buttons)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(200)
        self._timer.timeout.connect(self.refresh_plan)
        if planner is None:
            self.as_node_box.hide()
            self.next_label.hide()
            node_form.labelForField(self.as_node_box).hide()
        else:
            self.as_node_box.addItems(list(planner.choices))
            self.as_node_box.activated.connect(self._on_as_node_chosen)
            self.refresh_plan()

    # -- reading the text --------------------------------------------------------------
    def _on_text_changed(self) -> None:
        parsed, error = check_json(self.editor.toPlainText())
        if not error and not isinstance(parsed, dict):
            parsed, error = None, "The state must be a JSON object: { \"key\": value, … }"
        changed: dict[str, Any] = {}
        if not error:
            try:
                changed = self._editable.changed(parsed)
            except EditError as exc:
                parsed, error = None, str(exc)
        self._parsed = parsed
        self._changed = changed
        self.error.setText(error)
        self.ok_button.setEnabled(not error)
        if not error and self._planner is not None:
            self._timer.start()

    # -- the preview -------------------------------------------------------------------
    def refresh_plan(self) -> None:
        """Ask for a dry run of the edit (off the UI thread): how each key is written, the
        as_node, what runs next; shown when it comes (`preview_ready()` says when)."""
        self._timer.stop()
        if self._planner is None or self._parsed is None:
            return
        if not self._changed:  # no dry run (the graph's routers) before there is an edit
            self._runner.forget()
            self.plan = None
            self._show_keys(None)
            self.next_label.setText("Nothing changed yet: edit a value above.")
            self.next_label.setStyleSheet("")
            self.ok_button.setEnabled(not self.error.text())
            return
        planner, changed, how, as_node = self._planner, dict(self._changed), dict(self._how), self._as_node
        self._runner.submit(lambda report: planner.plan(changed, how, as_node, on_try=report))
        self.next_label.setText("Previewing the edit…")
        self.next_label.setStyleSheet(f"color: {MUTED}")

    def preview_ready(self) -> bool:
        """No preview is waiting or running for the text as it is now."""
        return self._planner is None or (not self._timer.isActive() and not self._runner.busy())

    def _fresh_plan(self) -> Any:
        """The preview of the text and choices as they are now (None if not there yet)."""
        return self.plan if self.plan is not None and self._plan_gen == self._runner.latest else None

    def _on_plan_ready(self, gen: int, plan: Any) -> None:
        if isinstance(plan, BaseException):  # the planner itself failed: shown, not raised
            plan = EditPlan(edits=(), as_node=self._as_node or "", next=(),
                            error=f"{type(plan).__name__}: {plan}")
        self.plan, self._plan_gen = plan, gen
        self._show_keys(plan)
        if plan.as_node and self.as_node_box.findText(plan.as_node) >= 0:
            self.as_node_box.setCurrentText(plan.as_node)
        self.next_label.setText(plan.next_text())
        warn = bool(plan.error) or (bool(plan.edits) and not plan.next)
        self.next_label.setStyleSheet("color: #b45309" if warn else "")
        self.ok_button.setEnabled(not plan.error and not self.error.text())

    def _on_plan_late(self, gen: int, label: str) -> None:
        self.next_label.setText(
            f"Preview unavailable: {label} is still running after {TIMEOUT_S:g} s. You can still "
            "fork: the edit is checked again as it is applied (and waits for that code).")
        self.next_label.setStyleSheet("color: #b45309")
        self.ok_button.setEnabled(not self.error.text())

    def _show_keys(self, plan: Any) -> None:
        while self.keys_form.rowCount():
            self.keys_form.removeRow(0)
        for edit in plan.edits if plan is not None else ():
            after = preview(edit.after, 70)
            if not edit.reducer:
                self.keys_form.addRow(f"{edit.key}:", QLabel(f"set → {after}"))
                continue
            row = QWidget()
            line = QVBoxLayout(row)
            line.setContentsMargins(0, 0, 0, 0)
            choice = QComboBox()
            choice.addItems([f"{_REDUCE} ({edit.reducer})", _REPLACE])
            choice.setCurrentIndex(1 if edit.how == "replace" else 0)
            choice.setObjectName(f"how:{edit.key}")
            choice.activated.connect(lambda index, key=edit.key: self._on_how_chosen(key, index))
            result = QLabel(f"→ {after}" + ("" if edit.exact else "   (not what was typed)"))
            result.setWordWrap(True)
            line.addWidget(choice)
            line.addWidget(result)
            self.keys_form.addRow(f"{edit.key}:", row)

    def _on_how_chosen(self, key: str, index: int) -> None:
        self._how[key] = "replace" if index == 1 else "reduce"
        self.refresh_plan()

    def _on_as_node_chosen(self, index: int) -> None:
        self._as_node = self.as_node_box.itemText(index)
        self.refresh_plan()

    def choose(self, *, as_node: str | None = None, how: Mapping[str, str] | None = None) -> None:
        """Pick the as_node and per-key modes as a user would in the combo boxes."""
        if as_node is not None:
            self._as_node = as_node
        self._how.update(how or {})
        self.refresh_plan()

    # -- results -----------------------------------------------------------------------
    def accept(self) -> None:
        if self._parsed is None:
            return
        plan = self._fresh_plan() if self._planner is not None and not self._timer.isActive() else None
        if plan is not None and plan.error:
            return
        super().accept()  # without a fresh preview the session plans (and checks) it as it applies it

    def done(self, result: int) -> None:
        self._timer.stop()
        self._runner.stop()
        super().done(result)

    def is_valid(self) -> bool:
        return self._parsed is not None

    def edited_values(self) -> dict[str, Any]:
        """The edited state: unchanged keys keep their original objects."""
        if self._parsed is None:
            raise ValueError(f"the state editor holds invalid JSON: {self.error.text()}")
        return self._editable.restore(self._parsed)

    values = edited_values

    def changed_values(self) -> dict[str, Any]:
        """Only the keys that were added or edited."""
        if self._parsed is None:
            raise ValueError(f"the state editor holds invalid JSON: {self.error.text()}")
        return dict(self._changed)

    def how(self) -> dict[str, str]:
        """{key: "reduce" | "replace"} as shown for each key with a reducer."""
        plan = self._fresh_plan()
        if plan is None:
            return dict(self._how)
        return {e.key: e.how for e in plan.edits if e.how != "set"}

    def as_node(self) -> str | None:
        plan = self._fresh_plan()
        return plan.as_node if plan is not None and plan.as_node else self._as_node
