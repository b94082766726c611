"""Issue 25: the F1 legend is a small card in a corner of the graph at 1280x720 (it was 392x530
px, half the graph), names and samples in a grid, each one's meaning in its tooltip; at 300%
zoom it still fits the canvas. Driven by F1 and Ctrl+= key presses and a real tooltip event."""
from __future__ import annotations

from test_studio_support import EXAMPLES, open_window, settings, studio_loop, wait_ready  # noqa: F401 (fixtures)


def _key(window, key, modifiers=None) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    QTest.keyClick(window, key, modifiers or Qt.KeyboardModifier.NoModifier)


def _covered(graph) -> float:
    legend, canvas = graph.legend.geometry(), graph.canvas.rect()
    assert canvas.contains(legend), (legend, canvas)  # wholly inside the canvas: every entry shows
    return legend.width() * legend.height() / (canvas.width() * canvas.height())


def test_f1_shows_a_small_corner_card_that_fits_at_300_percent(open_window, qtbot) -> None:
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    from studio.panels.graph.legend import EDGE_ROWS, NODE_ROWS

    window = open_window(EXAMPLES / "react_agent.py")
    window.resize(1280, 720)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    qtbot.wait(150)
    graph = window.panels.graph
    _key(window, Qt.Key.Key_F1)
    qtbot.waitUntil(graph.legend_visible, timeout=5000)
    legend, canvas = graph.legend, graph.canvas.rect()
    share = _covered(graph)
    assert share <= 0.2, f"the legend covers {share:.0%} of the graph ({legend.size()} of {canvas.size()})"
    assert legend.geometry().bottom() >= canvas.bottom() - 12 and legend.x() <= 12  # the bottom left corner
    assert legend.width() * legend.height() < 392 * 530 / 3  # far smaller than the old card
    # every entry is drawn: its meaning is the tooltip over it
    for name, _what, meaning in EDGE_ROWS + NODE_ROWS:
        spot = next(r.center() for r, n, *_ in legend._cells() if n == name)
        assert legend.rect().contains(spot.toPoint()), name
        assert legend.meaning_at(spot.x(), spot.y()) == f"{name}: {meaning}"
    join = next(r.center() for r, n, *_ in legend._cells() if n == "join").toPoint()
    QApplication.sendEvent(legend, QHelpEvent(QEvent.Type.ToolTip, join, legend.mapToGlobal(join)))
    if QToolTip.isVisible():  # (the offscreen platform may hide it at once)
        assert QToolTip.text() == "join: waits for all its sources"
    assert legend.meaning_at(join.x(), join.y()) == "join: waits for all its sources"
    assert legend.meaning_at(1, 1) == ""
    presentation = window.teaching.presentation
    while presentation.zoom < 3.0:
        _key(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.wait(300)
    assert round(presentation.zoom * 100) == 300
    _covered(graph)  # still inside the (smaller) canvas at 300%
    _key(window, Qt.Key.Key_F1)
    qtbot.waitUntil(lambda: not graph.legend_visible(), timeout=5000)
    _key(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
