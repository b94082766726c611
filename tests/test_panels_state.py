"""The state panel: a lazy tree, folded strings, conversations, search, refresh speed."""
from __future__ import annotations

import statistics
import time

import pytest
from panel_support import shot
from PySide6.QtCore import QModelIndex, Qt

from engine.messages import AIMessage, HumanMessage, ToolMessage
from studio.panels import StatePanel
from studio.panels._common import BadgeRole
from studio.panels.state.model import CHUNK_AT


def conversation(n: int) -> list:
    out = []
    for i in range(n // 3):
        out += [HumanMessage(f"question {i}: weather in Paris?\nplease", id=f"h{i}"),
                AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": f"c{i}"}],
                          id=f"a{i}"),
                ToolMessage("18°C and sunny", tool_call_id=f"c{i}", id=f"t{i}")]
    return out + [AIMessage("It is 18°C and sunny.", id="final")] * (n - len(out))


@pytest.fixture
def panel(qtbot):
    p = StatePanel()
    qtbot.addWidget(p)
    p.resize(720, 600)
    p.show()
    return p


def rows(panel: StatePanel, parent: QModelIndex = QModelIndex()) -> list[tuple[str, str, str]]:
    m = panel.model
    return [tuple(m.index(r, c, parent).data() for c in range(3)) for r in range(m.rowCount(parent))]


def test_keys_values_and_types(panel):
    panel.set_state({"question": "What is the weather?\nBe brief.", "count": 3, "docs": [{"t": "a"}],
                     "long": "x" * 5_000}, title="Head · step 4", read_only=False)
    assert rows(panel) == [("question", '"What is the weather?…"', "str[30]"), ("count", "3", "int"),
                           ("docs", '[{t: "a"}]', "list[1]"), ("long", '"' + "x" * 157 + '…"', "str[5000]")]
    tip = panel.model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)
    assert tip == "What is the weather?\nBe brief."
    assert panel.title.text() == "Head · step 4" and panel.edit_button.isEnabled()
    panel.tree.setCurrentIndex(panel.model.index(0, 0))
    assert panel.detail_text.toPlainText() == "What is the weather?\nBe brief."


def test_children_are_built_only_when_asked_and_big_lists_page(panel):
    panel.set_state({"messages": conversation(10_000)})
    messages = panel.model.index(0, 0)
    root = panel.model.row_of(messages)
    assert root._kids == {}  # nothing under "messages" exists until the view asks
    assert panel.model.rowCount(messages) == 100  # 10,000 items as 100 ranges of 100
    first_range = panel.model.index(0, 0, messages)
    assert first_range.data() == "[0…99]" and panel.model.index(0, 2, messages).data() == "100 items"
    assert panel.model.rowCount(first_range) == 100 <= CHUNK_AT
    ai = panel.model.index(1, 1, first_range)
    assert ai.data(BadgeRole) == ("ai", "ai")
    assert ai.data() == '⚒ get_weather(city="Paris")'


def test_a_message_list_opens_as_a_conversation(panel):
    panel.set_state({"messages": conversation(7)})
    panel.tree.setCurrentIndex(panel.model.index(0, 0))
    assert panel.detail.currentWidget() is panel.detail_chat
    text = panel.detail_chat.toPlainText()
    assert "question 0: weather in Paris?" in text and "⚒ get_weather(city='Paris')" in text
    assert "answers c0" in text and "It is 18°C and sunny." in text
    shot(panel, "state-conversation")


def test_search_keeps_matches_and_their_ancestors(qtbot, panel):
    panel.set_state({"messages": conversation(6), "user": {"name": "Ada", "city": "Paris"}, "count": 2})
    panel.search.setText("ada")
    qtbot.waitUntil(lambda: panel.matches.text() == "1 match", timeout=3_000)
    assert [r[0] for r in rows(panel)] == ["user"]
    user = panel.model.index(0, 0)
    assert rows(panel, user) == [("name", '"Ada"', "str")]
    assert panel.tree.isExpanded(user)
    panel.set_search("sunny")
    assert [r[0] for r in rows(panel)] == ["messages"]
    assert panel.matches.text() == "2 matches"
    shot(panel, "state-search")
    panel.set_search("")
    assert [r[0] for r in rows(panel)] == ["messages", "user", "count"]


def test_expanded_rows_and_selection_survive_a_refresh(panel):
    panel.set_state({"user": {"name": "Ada"}, "n": 1})
    user = panel.model.index(0, 0)
    panel.tree.expand(user)
    panel.tree.setCurrentIndex(panel.model.index(0, 0, user))
    panel.set_state({"user": {"name": "Grace"}, "n": 2})
    user = panel.model.index(0, 0)
    assert panel.tree.isExpanded(user)
    assert panel.tree.currentIndex().data() == "name"
    assert panel.detail_text.toPlainText() == "Grace"


def test_edit_button_emits_the_intent(qtbot, panel):
    panel.set_state({"a": 1}, read_only=True)
    assert not panel.edit_button.isEnabled()
    panel.set_state({"a": 1}, read_only=False)
    with qtbot.waitSignal(panel.edit_requested, timeout=1_000):
        qtbot.mouseClick(panel.edit_button, Qt.MouseButton.LeftButton)


def test_a_10000_message_state_refreshes_quickly(panel):
    msgs = conversation(10_000)
    state = {"messages": msgs, "question": "weather?", "count": 0}
    panel.set_state(state)
    messages = panel.model.index(0, 0)
    panel.tree.expand(messages)
    panel.tree.expand(panel.model.index(99, 0, messages))
    times = []
    for step in range(11):
        msgs = msgs + [AIMessage(f"step {step}")]
        started = time.perf_counter()
        panel.set_state({**state, "messages": msgs, "count": step}, title=f"step {step}")
        panel.tree.viewport().repaint()
        times.append(time.perf_counter() - started)
    median = statistics.median(times)
    print(f"\nstate panel refresh with 10,000 messages: median {median * 1000:.1f} ms")
    assert panel.tree.isExpanded(panel.model.index(0, 0))
    shot(panel, "state-10k")
