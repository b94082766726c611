"""Interrupts (resume values as validated JSON), the compare view and the state editor."""
from __future__ import annotations

import datetime
import json

import pytest
from panel_support import shot
from PySide6.QtCore import Qt

from engine.messages import AIMessage, HumanMessage
from studio.panels import CompareDialog, CompareView, InterruptPanel, StateEditorDialog
from studio.panels._common import ADDED, BadgeRole
from studio.core.records import InterruptInfo


@pytest.fixture
def interrupts(qtbot):
    p = InterruptPanel()
    qtbot.addWidget(p)
    p.resize(460, 520)
    p.show()
    p.set_interrupts([
        InterruptInfo(interrupt_id="i-1", node="approve", value={"question": "Send the email?", "to": "ada@x.org"}),
        InterruptInfo(interrupt_id="i-2", node="review", value="Any notes?"),
    ])
    return p


def test_each_interrupt_shows_its_value(interrupts):
    first, second = interrupts.cards()
    assert first.question.text() == "Send the email?"  # the question reads as prose, wrapped
    assert first.question.wordWrap() and first.question.isVisibleTo(interrupts)
    assert first.value.text() == '{\n  "to": "ada@x.org"\n}'  # the rest, pretty-printed
    assert first.value.wordWrap()
    assert second.question.text() == "Any notes?" and not second.value.isVisibleTo(interrupts)
    assert interrupts.title.text() == "Interrupts · 2 pending"
    assert not interrupts.resume_button.isEnabled()


def test_a_narrow_panel_wraps_instead_of_scrolling_sideways(qtbot, interrupts):
    from PySide6.QtWidgets import QScrollArea

    interrupts.resize(300, 520)
    long = {"question": "Refund $120.00 to Ada for the parcel that arrived damaged last Tuesday?",
            "reason": "parcel arrived damaged, photos attached, customer since 2019, two earlier refunds"}
    interrupts.set_interrupts([InterruptInfo(interrupt_id="0ebd780e7c1484279d0cd08ba" * 2, node="review",
                                             value=long)])
    scroll = interrupts.findChild(QScrollArea)
    qtbot.waitUntil(lambda: interrupts.cards()[0].width() <= scroll.viewport().width())
    assert not scroll.horizontalScrollBar().isVisible()
    card = interrupts.cards()[0]
    assert card.question.text().startswith("Refund $120.00")
    assert '"reason"' in card.value.text()
    assert card.value.width() <= scroll.viewport().width()


def test_read_only_disables_resume_and_says_why(interrupts):
    for card, text in zip(interrupts.cards(), ('{"approved": true}', '"ok"')):
        card.editor.setPlainText(text)
    assert interrupts.resume_button.isEnabled()
    interrupts.set_read_only("Viewing an older checkpoint (read-only).")
    assert not interrupts.resume_button.isEnabled()
    assert interrupts.resume_button.toolTip() == "Viewing an older checkpoint (read-only)."
    assert interrupts.why.isVisibleTo(interrupts) and "older checkpoint" in interrupts.why.text()
    assert all(card.editor.isReadOnly() for card in interrupts.cards())
    interrupts.set_read_only("")
    assert interrupts.resume_button.isEnabled() and not interrupts.why.isVisibleTo(interrupts)


def test_invalid_json_is_reported_inline_and_blocks_resume(qtbot, interrupts):
    first, second = interrupts.cards()
    qtbot.keyClicks(first.editor, '{"approved": tru')
    assert first.error.text() == "Line 1, column 14: Expecting value"
    assert first.error.isVisible() and not interrupts.resume_button.isEnabled()
    first.editor.setPlainText('{"approved": true}')
    assert first.error.text() == "" and not interrupts.resume_button.isEnabled()  # the second is empty
    interrupts.set_resume_text("i-2", '"looks good"')
    shot(interrupts, "interrupts")
    with qtbot.waitSignal(interrupts.resume_requested, timeout=1_000) as blocker:
        qtbot.mouseClick(interrupts.resume_button, Qt.MouseButton.LeftButton)
    assert blocker.args == [{"i-1": {"approved": True}, "i-2": "looks good"}]


def test_no_interrupts_shows_a_hint(interrupts):
    interrupts.set_interrupts([])
    assert interrupts.cards() == [] and interrupts.empty.isVisibleTo(interrupts)
    assert not interrupts.resume_button.isVisibleTo(interrupts)


def test_compare_lists_added_removed_and_changed_keys(qtbot):
    view = CompareView()
    qtbot.addWidget(view)
    view.resize(700, 480)
    view.show()
    view.set_states({"messages": [HumanMessage("hi", id="1")], "status": "idle", "old": 1, "same": True},
                    {"messages": [HumanMessage("hi", id="1"), AIMessage("hello", id="2")], "status": "done",
                     "new": [1, 2], "same": True}, "step 1", "step 3")
    m = view.model
    top = [(m.index(r, 0).data(), m.index(r, 1).data(BadgeRole)[0], m.index(r, 2).data()) for r in range(m.rowCount())]
    assert top == [("messages", "changed", "+1 item"), ("status", "changed", '"idle" → "done"'),
                   ("old", "removed", "removed"), ("new", "added", "new: [1, 2]")]
    assert view.title.text() == "step 1 → step 3 · 4 keys differ"
    messages = m.index(0, 0)
    labels = [m.index(r, 0, messages).data() for r in range(m.rowCount(messages))]
    assert labels == ["step 1", "step 3", "+ [1]"]
    assert m.index(2, 0, messages).data(Qt.ItemDataRole.BackgroundRole).color().name() == ADDED
    view.show_same.setChecked(True)
    assert m.rowCount() == 5
    shot(view, "compare")


def test_compare_dialog_reads_a_session_record(qtbot):
    class Record:
        left_id, right_id = "1ef-aaaa-0001", "1ef-bbbb-0002"
        left_values, right_values = {"n": 1}, {"n": 2}

    dialog = CompareDialog.for_record(Record())
    qtbot.addWidget(dialog)
    assert dialog.view.changes()[0].status == "changed"
    assert "…aaa-0001 → …bbb-0002" in dialog.view.title.text()


class Opaque:
    def __repr__(self) -> str:
        return "Opaque(7)"


def test_state_editor_round_trips_and_keeps_what_json_cannot_hold(qtbot):
    when = datetime.date(2025, 1, 2)
    values = {"messages": [HumanMessage("hi", id="1")], "pair": (1, 2), "n": 1, "meta": {"at": when, "k": "v"}}
    dialog = StateEditorDialog(values)
    qtbot.addWidget(dialog)
    text = dialog.editor.toPlainText()
    data = json.loads(text)
    assert data["messages"] == [{"$message": "human", "content": "hi", "id": "1"}]
    assert data["pair"] == {"$kept": 1, "was": "tuple: (1, 2)"}
    assert dialog.note.isVisibleTo(dialog)
    assert dialog.edited_values() == values and dialog.edited_values()["pair"] == (1, 2)
    assert dialog.changed_values() == {}
    dialog.editor.setPlainText(text.replace('"n": 1', '"n": 5').replace('"k": "v"', '"k": "w"'))
    edited = dialog.edited_values()
    assert edited["n"] == 5 and edited["meta"] == {"at": when, "k": "w"}  # the date is kept as a date
    assert edited["messages"] is values["messages"]
    assert set(dialog.changed_values()) == {"n", "meta"}
    shot(dialog, "state-editor")


def test_state_editor_names_the_line_and_column_of_bad_json(qtbot):
    dialog = StateEditorDialog({"a": 1, "b": Opaque()})
    qtbot.addWidget(dialog)
    original = dialog.editor.toPlainText()
    dialog.editor.setPlainText('{\n  "a": 1,\n  "b" 2\n}')
    assert dialog.error.text() == "Line 3, column 7: Expecting ':' delimiter"
    assert not dialog.ok_button.isEnabled() and not dialog.is_valid()
    with pytest.raises(ValueError, match="invalid JSON"):
        dialog.edited_values()
    dialog.editor.setPlainText("[1, 2]")
    assert "must be a JSON object" in dialog.error.text()
    assert json.loads(original)["b"] == {"$kept": 1, "was": "Opaque(7)"}
    dialog.editor.setPlainText('{"a": 2, "b": {"$kept": 1, "was": "Opaque(7)"}}')
    assert dialog.ok_button.isEnabled()
    assert isinstance(dialog.edited_values()["b"], Opaque)
    dialog.editor.setPlainText('{"a": 2, "b": {"$kept": 1, "was": "Opaque(8)"}}')  # not the editor's: refused
    assert dialog.error.text().startswith("b: ") and not dialog.ok_button.isEnabled()
