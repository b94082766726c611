"""The reducer-diff panel: before ⊕ writes → after, with the change highlighted."""
from __future__ import annotations

import pytest
from panel_support import shot
from PySide6.QtCore import QModelIndex, Qt

from engine.messages import AIMessage, HumanMessage
from studio.panels import DiffPanel
from studio.panels._common import ADDED, REMOVED, BadgeRole
from studio.core.records import UNSET, DiffRow, DiffWrite, StepDiff


@pytest.fixture
def panel(qtbot):
    p = DiffPanel()
    qtbot.addWidget(p)
    p.resize(700, 560)
    p.show()
    return p


def children(panel: DiffPanel, key_row: int) -> list[tuple[str, str]]:
    m = panel.model
    parent = m.index(key_row, 0)
    return [(m.index(r, 0, parent).data(), m.index(r, 2, parent).data()) for r in range(m.rowCount(parent))]


def step() -> StepDiff:
    hi = HumanMessage("hi", id="1")
    return StepDiff(step=3, checkpoint_id="cp3", rows=(
        DiffRow(key="messages", reducer="add_messages", before=[hi],
                writes=(DiffWrite(node="agent", value=[AIMessage("hello", id="2")]),
                        DiffWrite(node="tools", value=[AIMessage("more", id="3")])),
                after=[hi, AIMessage("hello", id="2"), AIMessage("more", id="3")]),
        DiffRow(key="status", reducer="last value", before="idle", writes=(DiffWrite(node="agent", value="busy"),),
                after="busy"),
        DiffRow(key="tags", reducer="operator.or_", before={"a": 1, "b": 2},
                writes=(DiffWrite(node="tools", value={"c": 3}),), after={"a": 1, "c": 3}),
        DiffRow(key="counter", reducer="operator.add", before=UNSET, writes=(DiffWrite(node="agent", value=1),),
                after=1),
        DiffRow(key="scratch", reducer="(not in the schema)", before=UNSET,
                writes=(DiffWrite(node="tools", value="tmp"),), after=UNSET, dropped=True),
    ))


def test_one_row_per_key_with_reducer_and_summary(panel):
    panel.set_diff(step())
    m = panel.model
    top = [(m.index(r, 0).data(), m.index(r, 1).data(), m.index(r, 2).data()) for r in range(m.rowCount())]
    assert top == [("messages", "add_messages", "+2 items"), ("status", "last value", '"idle" → "busy"'),
                   ("tags", "operator.or_", "+1 key, −1 key"), ("counter", "operator.add", "new: 1"),
                   ("scratch", "—", "not in the schema")]
    assert m.index(0, 2).data(BadgeRole) == ("changed", "changed")
    assert m.index(4, 2).data(BadgeRole) == ("dropped", "dropped")
    assert panel.title.text() == "Step 3 · 4 keys written"
    shot(panel, "diff")


def test_writes_in_reducer_order_between_before_and_after(panel):
    panel.set_diff(step())
    rows = children(panel, 0)
    assert [r[0] for r in rows] == ["before", "⊕ agent", "⊕ tools", "→ after", "+ [1]", "+ [2]"]
    assert rows[1][1] == "1 message · last ai: hello"
    parent = panel.model.index(0, 0)
    added = panel.model.index(4, 0, parent)
    assert added.data(Qt.ItemDataRole.BackgroundRole).color().name() == ADDED
    assert panel.tree.isExpanded(parent)


def test_dict_changes_and_dropped_keys(panel):
    panel.set_diff(step())
    tags = children(panel, 2)
    assert ("+ c", "3") in tags and ("− b", "2") in tags
    removed = panel.model.index(tags.index(("− b", "2")), 0, panel.model.index(2, 0))
    assert removed.data(Qt.ItemDataRole.BackgroundRole).color().name() == REMOVED
    assert children(panel, 3)[0] == ("before", "(no value yet)")
    assert children(panel, 4) == [("⊕ tools", '"tmp"')]
    assert panel.model.index(4, 0).data(Qt.ItemDataRole.ToolTipRole) == "dropped: not in the schema"


def test_big_lists_fold_with_counts(panel):
    before = list(range(10))
    after = before + list(range(100, 180))
    panel.set_diff(StepDiff(step=1, checkpoint_id="c", rows=(
        DiffRow(key="items", reducer="operator.add", before=before,
                writes=(DiffWrite(node="n", value=after[10:]),), after=after),)))
    assert panel.model.index(0, 2).data() == "+80 items"
    rows = children(panel, 0)
    assert rows[-1][0] == "+ … and 30 more" and len(rows) == 3 + 50 + 1


def test_selecting_a_row_shows_the_full_value(panel):
    panel.set_diff(step())
    parent = panel.model.index(1, 0)
    panel.tree.setCurrentIndex(panel.model.index(1, 0, parent))  # ⊕ agent
    assert panel.detail.toPlainText() == "busy"


def test_no_diff_shows_a_hint(panel):
    panel.set_diff(step())
    panel.set_diff(None)
    assert panel.model.rowCount() == 0 and panel.placeholder.isVisibleTo(panel)
    assert panel.placeholder.text() == "No superstep committed yet."
    assert panel.model.rowCount(QModelIndex()) == 0
