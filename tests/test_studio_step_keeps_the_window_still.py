"""Issue 24: F10 after F10 keeps the "stopped because" banner where it is, so a step never
resizes the graph's canvas (the banner went at the step's start and came back at its end:
two window relayouts and whole-canvas repaints per step, the 10,000-message step's worst
stall). Counted (resize events, banner rebuilds), never timed; a continue (F5) still
takes the banner away while the run moves."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_studio_support import act, open_window, settings, studio_loop, wait_ready, write_graph  # noqa: F401

pytest.importorskip("PySide6")

from PySide6.QtCore import QEvent, QObject  # noqa: E402

CHAIN = """
    class S(TypedDict):
        items: Annotated[list, operator.add]

    b = StateGraph(S)
    names = [f"n{i}" for i in range(8)]
    for name in names:
        b.add_node(name, lambda s, name=name: {"items": [name]})
    b.add_edge(START, names[0])
    for x, y in zip(names, names[1:]):
        b.add_edge(x, y)
    graph = b.compile()
    example_input = {"items": []}
"""


class _Resizes(QObject):
    def __init__(self, widget: Any) -> None:
        super().__init__()
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: Any, event: Any) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Resize:
            self.count += 1
        return False


def test_step_after_step_never_resizes_the_canvas_nor_rebuilds_the_banner(
        open_window: Any, qtbot: Any, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    banner, canvas = window.stop_banner, window.panels.graph.canvas
    act(qtbot, window, "step")  # the input
    act(qtbot, window, "step")  # n0: "Stepped n0"
    qtbot.wait(50)
    assert banner.isVisible() and banner.report is not None and banner.report.kind == "stepped"
    resized = _Resizes(canvas)
    titles = []
    kept = 0
    for _ in range(4):
        buttons, keys = list(banner.buttons), banner.report.keys
        act(qtbot, window, "step")
        qtbot.wait(50)
        assert banner.isVisible(), "the banner stays through a step"
        titles.append(banner.title.text())
        if banner.report.keys == keys:
            kept += 1
            assert len(banner.buttons) == len(buttons) and all(a is b for a, b in zip(banner.buttons, buttons)), \
                "the same keys: the same buttons, not made anew"
    assert kept >= 3
    assert len(set(titles)) == 4, f"each step's own stop is shown: {titles}"
    assert resized.count == 0, f"the canvas was resized {resized.count} times by four steps"


def test_a_continue_still_takes_the_banner_away_while_the_run_moves(
        open_window: Any, qtbot: Any, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    act(qtbot, window, "step")
    act(qtbot, window, "step")
    assert window.stop_banner.isVisible()
    hidden: list[bool] = []
    window.session.busyChanged.connect(lambda busy: hidden.append(not window.stop_banner.isVisible()) if busy else None)
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "done"
    assert hidden and hidden[0], "the banner went as soon as the run moved"
    wait_ready(qtbot, window)
    assert window.stop_banner.isVisible() and window.stop_banner.report.kind == "done"
