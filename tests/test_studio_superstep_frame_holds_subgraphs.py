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


def test_the_superstep_pill_stays_beside_its_frame_not_inside_another_cluster(open_window, qtbot) -> None:
    """After the subgraph `research` ran, `write` is the next superstep: its pill sat inside
    the research cluster (by that cluster's END), reading as the subgraph's. It goes beside
    `write`'s frame, off every cluster it is not part of."""
    from studio.panels.graph.why import Badge

    window = open_window(EXAMPLES / "subgraph.py")
    graph = window.panels.graph
    for _ in range(8):
        if window.teaching.why.together == ("write",):
            break
        _f10(qtbot, window)
    assert window.teaching.why.together == ("write",), window.teaching.why.together
    frame = graph.why.frame
    pills = [item for key, item in graph.why._keyed.items() if isinstance(key, tuple) and key[0] == "group"
             and isinstance(item, Badge)]
    assert len(pills) == 1, pills
    pill = pills[0].sceneBoundingRect()
    near = frame.adjusted(-pill.width() - 12, -pill.height() - 12, pill.width() + 12, pill.height() + 12)
    assert near.intersects(pill), (frame, pill)
    cluster = graph.cluster_items()["research"]
    assert not cluster.mapRectToScene(cluster.frame_rect()).intersects(pill), (pill, "inside research")
