"""Issue 25: at 200% zoom in a 1280x720 window the timeline's Nodes column keeps a dozen
characters a line (the Time column gives way; it wrapped "sea/rch/_db" before), and the
graph header keeps the graph's name (the node count gives way into its tooltip; the name
was squeezed to "para"). Zoomed with Ctrl+= and stepped with F10, as a person does."""
from __future__ import annotations

from test_studio_support import EXAMPLES, open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def test_at_200_percent_node_names_and_the_graph_name_stay_readable(open_window, qtbot) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = open_window(EXAMPLES / "parallel_search.py")
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    for _ in range(4):
        with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
            QTest.keyClick(window, Qt.Key.Key_F10)
        wait_ready(qtbot, window)
    timeline, graph = window.panels.timeline, window.panels.graph
    assert not timeline.table.isColumnHidden(3), "at 100% the Time column shows"
    while window.teaching.presentation.zoom < 2.0:
        QTest.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    table = timeline.table

    def nodes_column_fits() -> bool:  # the columns are laid out again after the zoom's relayout
        return table.horizontalHeader().sectionSize(2) >= table.fontMetrics().horizontalAdvance("search_web, s") - 2

    qtbot.waitUntil(lambda: nodes_column_fits() and table.isColumnHidden(3), timeout=5000)
    title = graph.title
    assert title.width() >= title.fontMetrics().horizontalAdvance("parallel_s"), title.width()
    assert not graph.status.isVisible() and "nodes" in title.toolTip()
    QTest.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not table.isColumnHidden(3) and graph.status.isVisible(), timeout=5000)
