"""Issue 25 item 5: on every example, at every step, no badge ("superstep N", a join's
"waits for", "✗ conflict", "✓ pending", a router's answer) covers a node, an edge label, a
subgraph's name or another badge."""
from __future__ import annotations

from pathlib import Path

import pytest

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    open_window,
    settings,
    studio_loop,
    wait_ready,
)

_EXAMPLES = sorted([*EXAMPLES.glob("*.py"), *(EXAMPLES / "lessons").glob("*.py")])
_STEPS = 14


def _overlaps(graph) -> list[str]:
    """Each badge that meets a text rectangle or another badge, named."""
    from studio.panels.graph.why import Badge

    texts = []
    for name in graph.node_ids():
        item = graph.node_item(name)
        texts.append((f"node {name}", item.mapRectToScene(item.box_rect())))
    texts += [(f"label {e.edge.label!r}", e.label_rect()) for e in graph._edges if e.edge.label and e.edge.label_pos]
    for cluster in graph._clusters.values():
        texts.append((f"subgraph title {cluster.node_id}", cluster.title_rect()))
    badges = [(f"badge {item.text!r}", item.mapRectToScene(item.plate())) for item in graph.scene.items()
              if isinstance(item, Badge) and item.isVisible()]  # a hidden badge waits to be shown again
    found = []
    for i, (name, rect) in enumerate(badges):
        for other, where in texts + badges[:i]:
            if rect.intersects(where):
                found.append(f"{name} covers {other}")
    return found


@pytest.mark.parametrize("example", _EXAMPLES, ids=[p.stem for p in _EXAMPLES])
def test_no_badge_covers_a_label_a_node_or_another_badge(open_window, qtbot, example: Path) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from studio.panels.graph.why import Badge

    window = open_window(example)
    window.resize(1280, 720)
    graph = window.panels.graph
    seen = 0
    for _ in range(_STEPS):
        if not window.actions.step.isEnabled():
            break
        if window.panels.interrupts.cards():
            break  # waiting for an answer: the marks stay as they are
        with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
            QTest.keyClick(window, Qt.Key.Key_F10)  # Step
        wait_ready(qtbot, window)
        seen += sum(isinstance(item, Badge) and item.isVisible() for item in graph.scene.items())
        assert _overlaps(graph) == [], f"{example.name}: {window.session.status}"
    assert seen > 0, f"{example.name} never showed a badge"
