"""Selecting checkpoints of a 300-wide post-mortem (a real SQLite file, a real window, the
timeline clicked) repaints cheaply: counted, not timed.

- Edges are painted by Qt itself (no Python `paint`), so the strip a selection repaints
  (a row of 300 "✓ pending" badges crossed by 300 fan-out edges) costs no Python call
  per edge; an edge is restyled only when its look changes.
- Fitted in the window, 300 nodes are a few pixels tall: nodes and badges are drawn as
  boxes of their colour, and no name is laid out; zoomed in to read them, each name is
  laid out once, not on every repaint.
"""
from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QGraphicsPathItem

from studio.panels.graph import items, why
from test_studio_support import (  # noqa: F401 (fixtures)
    open_window,
    settings,
    studio_loop,
    wait_ready,
)

WIDE = 300


class _S(TypedDict, total=False):
    round: int
    out: Annotated[list, operator.add]


def _wide_file(path: Path) -> Path:
    """A fan-out of WIDE nodes run twice; in the third round one of them fails, so the
    last checkpoint holds WIDE - 1 pending writes (a post-mortem of a failed run)."""
    from engine import END, START, SqliteSaver, StateGraph

    def make(i: int):
        def work(s: _S) -> dict:
            if s.get("round", 0) >= 3 and i == WIDE // 2:
                raise RuntimeError("boom")
            return {"out": [i]}
        return work

    g = StateGraph(_S)
    names = [f"w{i:03d}" for i in range(WIDE)]
    g.add_node("plan", lambda s: {"round": s.get("round", 0) + 1})
    for i, name in enumerate(names):
        g.add_node(name, make(i))
        g.add_edge("plan", name)
    g.add_node("join", lambda s: {})
    g.add_edge(names, "join")
    g.add_edge(START, "plan")
    g.add_conditional_edges("join", lambda s: "plan" if s["round"] < 9 else END, ["plan", END])
    saver = SqliteSaver(str(path))
    try:
        with pytest.raises(RuntimeError, match="boom"):
            g.compile(checkpointer=saver).invoke({"round": 0, "out": []}, {"configurable": {"thread_id": "wide"}})
    finally:
        saver.close()
    return path


@pytest.fixture
def wide_window(open_window, qtbot, tmp_path):
    window = open_window(database=_wide_file(tmp_path / "wide.sqlite"), thread_id="wide")
    graph = window.panels.graph
    qtbot.waitUntil(lambda: len(graph.node_ids()) >= WIDE and not graph.is_layout_pending(), timeout=30_000)
    wait_ready(qtbot, window)
    return window


def _click_row(qtbot, window, row: int) -> None:
    table = window.panels.timeline.table
    table.scrollTo(table.model().index(row, 0))
    rect = table.visualRect(table.model().index(row, 2))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center()))


def _render(graph) -> None:
    """Paint the graph as the window does (the whole viewport)."""
    view = graph.canvas
    image = QImage(view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)  # as the window's backing store
    painter = QPainter(image)
    view.render(painter)
    painter.end()


def test_edges_have_no_python_paint_and_restyle_only_when_their_look_changes(wide_window, qtbot):
    window, graph = wide_window, wide_window.panels.graph
    assert items.EdgeItem.paint is QGraphicsPathItem.paint  # drawn by Qt: no Python call per edge repaint
    model = window.panels.timeline.model
    rows = [r for r in range(model.rowCount()) if model.checkpoint_at(r) is not None]
    assert len(rows) >= 6
    edges = graph.edge_items()
    for row in rows[-6:]:
        before = {id(e): e.active for e in edges}
        restyled = items.EdgeItem.restyled
        _click_row(qtbot, window, row)
        qtbot.waitUntil(lambda row=row: window.session.viewed_id in (model.checkpoint_at(row).id, None), timeout=20_000)
        wait_ready(qtbot, window)
        changed = sum(1 for e in edges if before[id(e)] != e.active)
        assert items.EdgeItem.restyled - restyled == changed  # one restyle per edge that changed, none for the rest
    last = model.checkpoint_at(rows[-1])
    assert len(graph.why.badges) >= WIDE - 1, last  # the failed superstep: 299 "✓ pending" badges


def test_a_fitted_300_wide_graph_lays_out_no_text_and_a_readable_one_lays_out_each_name_once(wide_window, qtbot):
    window, graph = wide_window, wide_window.panels.graph
    model = window.panels.timeline.model
    _click_row(qtbot, window, model.rowCount() - 1)
    wait_ready(qtbot, window)
    nodes = [graph.node_item(n) for n in graph.node_ids()]
    for node in nodes:
        node._labels.clear()
    graph.fit()
    _render(graph)
    assert sum(len(n._labels) for n in nodes) == 0  # a few pixels tall: boxes, no names laid out
    graph.set_zoom(1.0)
    for _ in range(3):
        for node in nodes[::4]:  # the view holds ~8 nodes: every node is drawn, the glows under them too
            graph.canvas.centerOn(node)
            _render(graph)
    laid_out = sum(len(n._labels) for n in nodes)
    assert 0 < laid_out <= len(nodes) * 2  # once per node (and once more bold), not once per repaint
    sizes = len(why._SIZES)
    _click_row(qtbot, window, model.rowCount() - 2)
    wait_ready(qtbot, window)
    _click_row(qtbot, window, model.rowCount() - 1)
    wait_ready(qtbot, window)
    assert len(why._SIZES) == sizes  # 299 "✓ pending" pills again: measured once, long ago


def test_selecting_checkpoints_again_makes_no_mark_places_no_badge_and_explains_off_the_ui_thread(
        wide_window, qtbot, monkeypatch):
    """The second round over the same checkpoints shows the marks the first round made (hidden
    on the scene meanwhile), puts the badges where they were placed, builds no tree in the
    hidden Superstep panel, and explains each checkpoint on the reader's thread."""
    import threading

    from studio.session import explaining

    window, graph = wide_window, wide_window.panels.graph
    superstep = window.teaching.superstep
    assert not superstep.isVisible()  # its dock is closed in this window
    threads: list[str] = []
    real = explaining.explain_plan

    def explain_plan(**kw):
        threads.append(threading.current_thread().name)
        return real(**kw)

    monkeypatch.setattr(explaining, "explain_plan", explain_plan)
    model = window.panels.timeline.model
    rows = [r for r in range(model.rowCount()) if model.checkpoint_at(r) is not None][-4:]

    def select_all() -> None:
        for row in rows:
            _click_row(qtbot, window, row)
            qtbot.waitUntil(lambda row=row: window.session.viewed_id in (model.checkpoint_at(row).id, None),
                            timeout=20_000)
            wait_ready(qtbot, window)

    select_all()
    made, placings, builds, shown = graph.why.made, graph.why.placings, superstep.builds, graph.why.added
    on_scene = len(graph.scene.items())
    select_all()
    assert graph.why.added - shown >= 300  # the 300 glows and badges came back on screen...
    assert graph.why.made == made  # ...made in the first round, none since
    assert graph.why.placings == placings  # placed where these very badges were placed before
    assert len(graph.scene.items()) == on_scene  # hidden and shown, never added to the scene again
    assert superstep.builds == builds  # hidden: nothing built for it
    assert threads and threading.main_thread().name not in threads  # explained on the reader's thread
    window.teaching.show_superstep()  # its dock opened: the tree of the checkpoint on screen, once
    assert superstep.isVisible()
    assert superstep.builds == builds + 1 and superstep.section("Runs together") is not None
