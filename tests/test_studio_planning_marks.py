"""The studio shows the Run's planning decisions: a cached task as cached, a deferred
node as waiting (events of a real run, through the events panel, offscreen)."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from PySide6.QtCore import Qt

from engine import START, CachePolicy, InMemoryCache, StateGraph
from studio.core.convert import event_row
from studio.panels import EventsPanel


class S(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def rows_of(graph, inp):
    rows = []
    for event in graph.stream(inp, stream_mode="events"):
        row = event_row(event)
        if row is not None:
            rows.append(row)
    return rows


def panel_texts(qtbot, rows):
    panel = EventsPanel()
    qtbot.addWidget(panel)
    panel.append(rows)
    m = panel.model
    return [m.index(r, 2).data(Qt.ItemDataRole.DisplayRole) for r in range(m.rowCount())]


def test_cached_task_is_shown_as_cached(qtbot):
    g = StateGraph(S)
    g.add_node("slow", lambda s: {"log": [s["x"]]}, cache_policy=CachePolicy())
    g.add_edge(START, "slow")
    graph = g.compile(cache=InMemoryCache())
    first = panel_texts(qtbot, rows_of(graph, {"x": 1, "log": []}))
    again = panel_texts(qtbot, rows_of(graph, {"x": 1, "log": []}))
    assert not any("cached" in t for t in first)
    assert any("wrote log (cached: the node was not called)" in t for t in again)


def test_deferred_node_is_shown_waiting(qtbot):
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_node("fin", lambda s: {"log": ["fin"]}, defer=True)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "fin")
    g.add_edge("b", "c")
    g.add_edge("c", "fin")
    texts = panel_texts(qtbot, rows_of(g.compile(), {"x": 0, "log": []}))
    commits = [t for t in texts if t.startswith("committed")]
    assert any("next: c; waiting: fin (deferred)" in t for t in commits)
    assert any(t.endswith("next: fin") for t in commits)
