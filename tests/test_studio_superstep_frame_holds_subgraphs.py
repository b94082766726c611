"""The dashed superstep frame on the graph holds every task of the superstep: a node's box,
and the whole cluster of a task that is a subgraph drawn open (its frame and its name).
Stepped with the real F10 key in the real window (offscreen, graphviz)."""
from __future__ import annotations

from test_studio_support import EXAMPLES, open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def _f10(qtbot, window) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F10)
    wait_ready(qtbot, window)


def test_the_superstep_frame_holds_a_subgraph_cluster(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "subgraph.py")
    graph = window.panels.graph
    cluster = graph.cluster_items().get("research")
    assert cluster is not None, f"the subgraph is drawn open as a cluster: {sorted(graph.cluster_items())}"
    for _ in range(6):  # START, plan, ... until research is the superstep's task
        if "research" in window.teaching.why.together:
            break
        _f10(qtbot, window)
    assert window.teaching.why.together == ("research",), window.teaching.why.together
    frame = graph.why.frame
    assert frame is not None, "a superstep whose only task is a subgraph has a frame"
    whole = cluster.sceneBoundingRect()
    title = cluster.mapRectToScene(cluster.title_rect())
    assert frame.contains(title), (frame, title)  # the subgraph's name is inside
    assert frame.contains(cluster.mapRectToScene(cluster.frame_rect())), (frame, whole)
    for name in ("plan", "write"):
        item = graph.node_item(name)
        if item is not None:
            assert not frame.contains(item.sceneBoundingRect().center()), f"{name} is not in this superstep"
