"""Issue 25 item 7: no view goes stale. During Continue (F5) the status bar's step and the
inspector's last input follow every step; after a stop, viewing an older step shows that
step's "next:", not the head's."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from test_studio_support import (  # noqa: F401 (fixtures)
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

COUNTER = """
    class S(TypedDict):
        n: int

    def tick(s):
        return {"n": s["n"] + 1}

    def done(s):
        return {"n": s["n"]}

    def again(s):
        return "tick" if s["n"] < 6 else "done"

    builder = StateGraph(S)
    builder.add_node("tick", tick)
    builder.add_node("done", done)
    builder.add_edge(START, "tick")
    builder.add_conditional_edges("tick", again, ["tick", "done"])
    builder.add_edge("done", END)
    graph = builder.compile()
    example_input = {"n": 0}
"""


def _click_node(qtbot, window, name: str) -> None:
    panel = window.panels.graph
    qtbot.waitUntil(lambda: panel.node_item(name) is not None, timeout=15000)
    item = panel.node_item(name)
    panel.canvas.ensureVisible(item)
    pos = panel.canvas.mapFromScene(item.sceneBoundingRect().center())
    qtbot.mouseClick(panel.canvas.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_the_status_bar_and_the_inspector_follow_each_step_of_continue(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "counter", COUNTER))
    _click_node(qtbot, window, "tick")
    qtbot.waitUntil(lambda: window.panels.inspector.title.text() == "tick", timeout=10000)
    steps: list[str] = []
    inputs: list[str] = []
    # what the window shows at each commit of the run (the panels' own slots ran first)
    window.session.headChanged.connect(lambda _id: steps.append(window.status_step.text()))
    window.session.detailsChanged.connect(
        lambda _d: inputs.append(window.panels.inspector.last_input.text.toPlainText()))
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F5)  # Continue
    wait_ready(qtbot, window)
    assert window.status_step.text() == "step: 7"
    seen = list(dict.fromkeys(steps))
    assert [f"step: {n}" for n in range(1, 7)] == [s for s in seen if s != "step: 7"][-6:], seen
    assert all(any(f'"n": {n}' in text for text in inputs) for n in range(0, 6)), inputs


def test_an_older_step_shows_its_own_next(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "counter", COUNTER))
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F5)
    wait_ready(qtbot, window)
    assert "next:" not in window.status_state.text()  # the run is over: nothing next
    QTest.keyClick(window, Qt.Key.Key_BracketLeft, Qt.KeyboardModifier.ControlModifier)  # Back (Ctrl+[)
    qtbot.waitUntil(lambda: window.status_step.text() == "step: 6", timeout=10000)
    assert "viewing an older checkpoint" in window.status_state.text()
    assert window.status_state.text().endswith("next: done"), window.status_state.text()
    QTest.keyClick(window, Qt.Key.Key_BracketLeft, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.status_step.text() == "step: 5", timeout=10000)
    assert window.status_state.text().endswith("next: tick"), window.status_state.text()
