"""Threads belong to graphs: Ctrl+T lists the open graph's threads first and marks the others;
picking another graph's thread asks, and opens it read-only (post-mortem), so F5 can never
run this file's code on it ("Continue failed: KeyError")."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox

from engine import SqliteSaver
from studio.core.loader import load_graph
from test_studio_support import open_window, settings, studio_loop, wait_ready, write_graph  # noqa: F401

SPLIT_MERGE = """
    class S(TypedDict, total=False):
        log: Annotated[list, operator.add]
    b = StateGraph(S)
    b.add_node("split", lambda s: {"log": ["split"]})
    b.add_node("merge", lambda s: {"log": ["merge"]})
    b.add_edge(START, "split")
    b.add_edge("split", "merge")
    graph = b.compile()
    example_input = {"log": []}
"""

ONE_NODE = """
    class S(TypedDict, total=False):
        log: Annotated[list, operator.add]
    b = StateGraph(S)
    b.add_node("only", lambda s: {"log": ["only"]})
    b.add_edge(START, "only")
    graph = b.compile()
    example_input = {"log": []}
"""


def other_graphs_thread(tmp_path: Path) -> str:
    """A thread of split_merge.py, run by a script into the studio's database, stopped after `split`."""
    loaded = load_graph(str(write_graph(tmp_path, "split_merge", SPLIT_MERGE)))
    graph = loaded.graph.with_checkpointer(SqliteSaver(str(tmp_path / "runs.sqlite")))
    config = {"configurable": {"thread_id": "theirs"}}
    graph.invoke({"log": []}, config, interrupt_after=["split"])
    return "theirs"


def answer_dialogs(steps: list[Any], seen: dict[str, Any]) -> None:
    """Each modal dialog in turn gets the next step (a function of the dialog)."""

    def poll() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None or not steps:
            if steps:
                QTimer.singleShot(20, poll)
            return
        if seen.get("last") is dialog:
            QTimer.singleShot(20, poll)
            return
        seen["last"] = dialog
        try:
            steps.pop(0)(dialog)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the test
            seen["error"] = exc
            dialog.reject()
            return
        QTimer.singleShot(20, poll)

    QTimer.singleShot(0, poll)


def test_ctrl_t_lists_this_graphs_threads_first_and_opens_another_graphs_read_only(
        open_window, qtbot, tmp_path: Path) -> None:
    theirs = other_graphs_thread(tmp_path)
    window = open_window(write_graph(tmp_path, "one_node", ONE_NODE))
    mine = window.session.thread_id
    QTest.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: window.session.state.values.get("log") == ["only"], timeout=15000)
    wait_ready(qtbot, window)
    seen: dict[str, Any] = {}

    def pick(dialog) -> None:
        rows = [dialog.list.item(i).text() for i in range(dialog.list.count())]
        seen["rows"] = rows
        dialog.list.setFocus()
        QTest.keyClick(dialog.list, Qt.Key.Key_End)  # the last row: the other graph's thread
        QTest.keyClick(dialog.list, Qt.Key.Key_Return)

    def answer(box) -> None:
        assert isinstance(box, QMessageBox)
        seen["question"] = box.text()
        QTest.keyClick(box, Qt.Key.Key_Return)  # the default: Open read-only

    answer_dialogs([pick, answer], seen)
    QTest.keyClick(window, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: window.session.thread_id == theirs or "error" in seen, timeout=15000)
    assert "error" not in seen, seen.get("error")
    wait_ready(qtbot, window)
    assert seen["rows"][0].startswith(mine), seen["rows"]
    assert seen["rows"][1].startswith("— other graphs' threads")
    assert seen["rows"][2].startswith(theirs) and "⚠ another graph: split, merge" in seen["rows"][2]
    assert "split, merge are not nodes of the open one" in seen["question"]
    assert window.session.read_only and window.session.status_view().status == "read-only"
    assert window.session.state.values == {"log": ["split"]}
    QTest.keyClick(window, Qt.Key.Key_F5)  # nothing runs: never this file's code on their thread
    qtbot.wait(300)
    assert "KeyError" not in window.statusBar().currentMessage()
    assert window.banner.error is None or "KeyError" not in window.banner.text.text()
    assert window.session.state.values == {"log": ["split"]}


def test_the_thread_box_too_opens_another_graphs_thread_read_only(open_window, qtbot, tmp_path: Path) -> None:
    theirs = other_graphs_thread(tmp_path)
    window = open_window(write_graph(tmp_path, "one_node", ONE_NODE))
    box = window.thread_box
    box.setFocus()
    for _ in range(box.count()):  # down the box, key by key, to their thread
        if box.currentData() == theirs:
            break
        QTest.keyClick(box, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: window.session.thread_id == theirs, timeout=15000)
    wait_ready(qtbot, window)
    assert window.session.read_only
    assert "run by another graph (split, merge are not nodes of this one)" in window.statusBar().currentMessage()
