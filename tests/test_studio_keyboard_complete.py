"""Issue 25 item 6: the graph is usable without a mouse. Ctrl+G focuses it, the arrow keys
and Tab move a clearly visible focus ring among the nodes (and select the node under it),
F9 / Shift+F9 / Ctrl+F10 and the inspector act on that node; the command palette
(Ctrl+Shift+P) lists every action with its key, filters fuzzily and runs one on Enter.
All driven by real key events (QTest)."""
from __future__ import annotations

import pytest

from test_studio_support import answer, open_window, settings, studio_loop, wait_ready, write_graph  # noqa: F401

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, QRect, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

DIAMOND = """
    class S(TypedDict):
        items: Annotated[list, operator.add]

    b = StateGraph(S)
    b.add_node("plan", lambda s: {"items": ["plan"]})
    b.add_node("left", lambda s: {"items": ["left"]})
    b.add_node("right", lambda s: {"items": ["right"]})
    b.add_node("merge", lambda s: {"items": ["merge"]})
    b.add_edge(START, "plan")
    b.add_edge("plan", "left")
    b.add_edge("plan", "right")
    b.add_edge(["left", "right"], "merge")
    graph = b.compile()
    example_input = {"items": []}
"""

CTRL, SHIFT, NONE = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier, \
    Qt.KeyboardModifier.NoModifier


def _focus_graph(qtbot, window):
    QTest.keyClick(window, Qt.Key.Key_G, CTRL)
    canvas = window.panels.graph.canvas
    qtbot.waitUntil(canvas.hasFocus, timeout=5000)
    return canvas


def _centre(window, node):
    item = window.panels.graph.node_item(node)
    return item.sceneBoundingRect().center()


def _ring_pixels(window, node: str, colour: QColor) -> int:
    """How many pixels of `colour` the canvas shows around `node` (the focus ring)."""
    graph = window.panels.graph
    canvas = graph.canvas
    item = graph.node_item(node)
    rect = canvas.mapFromScene(item.sceneBoundingRect()).boundingRect().adjusted(-6, -6, 6, 6)
    image = canvas.viewport().grab().toImage()
    rect = rect.intersected(QRect(QPoint(0, 0), image.size()))
    count = 0
    for x in range(rect.left(), rect.right()):
        for y in range(rect.top(), rect.bottom()):
            pixel = image.pixelColor(x, y)
            if abs(pixel.red() - colour.red()) + abs(pixel.green() - colour.green()) \
                    + abs(pixel.blue() - colour.blue()) < 60:
                count += 1
    return count


def test_arrow_keys_move_the_focus_ring_and_select_the_node(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    graph = window.panels.graph
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F10)  # the input is written: plan runs next
    wait_ready(qtbot, window)
    _focus_graph(qtbot, window)
    assert window.session.state.next_nodes() == ("plan",)
    assert graph.focused_node() == "plan", "the ring starts on the node that runs next (what F9 would toggle)"
    qtbot.waitUntil(lambda: window.session.selected_node == "plan", timeout=5000)
    QTest.keyClick(graph.canvas, Qt.Key.Key_Home)
    assert graph.focused_node() == "__start__", "Home: the first node in reading order"
    QTest.keyClick(graph.canvas, Qt.Key.Key_Down)
    assert graph.focused_node() == "plan"
    qtbot.waitUntil(lambda: window.session.selected_node == "plan", timeout=5000)
    QTest.keyClick(graph.canvas, Qt.Key.Key_Down)
    below = graph.focused_node()
    assert below in ("left", "right")
    side = Qt.Key.Key_Right if below == "left" else Qt.Key.Key_Left
    QTest.keyClick(graph.canvas, side)
    other = graph.focused_node()
    assert {below, other} == {"left", "right"}
    cx = _centre(window, other).x() - _centre(window, below).x()
    assert (cx > 0) == (side == Qt.Key.Key_Right), "Right goes to the node on the right"
    QTest.keyClick(graph.canvas, Qt.Key.Key_Down)
    assert graph.focused_node() == "merge"
    qtbot.waitUntil(lambda: window.session.selected_node == "merge", timeout=5000)
    assert "merge" in window.panels.inspector.title.text() or "merge" in _inspector_text(window)
    assert "merge" in graph.caption.text(), "the caption says why the focused node runs (or not yet)"


TWO_QUESTIONS = """
    class S(TypedDict, total=False):
        said: Annotated[list, operator.add]

    def ask(name):
        return lambda s: {"said": [interrupt(f"{name}?")]}

    b = StateGraph(S)
    b.add_node("plan", lambda s: {"said": ["plan"]})
    b.add_node("first", ask("first"))
    b.add_node("second", ask("second"))
    b.add_edge(START, "plan")
    b.add_edge("plan", "first")
    b.add_edge("first", "second")
    graph = b.compile()
    example_input = {"said": []}
"""


def test_after_a_resume_the_ring_starts_on_the_node_that_runs_next(qtbot, tmp_path, open_window) -> None:
    """Issue 25: after a resume (or any stop) Ctrl+G put the ring on START; it starts on the
    node that runs next, so F9 toggles that node's breakpoint."""
    window = open_window(write_graph(tmp_path, "two_questions", TWO_QUESTIONS))
    graph, s = window.panels.graph, window.session
    with qtbot.waitSignal(s.commandFinished, timeout=20000):
        QTest.keyClick(window, Qt.Key.Key_F5)  # Continue: stops in `first`, asking
    wait_ready(qtbot, window)
    [pending] = s.state.driver.interrupts
    answer(qtbot, window, pending.interrupt.id, '"yes"')  # the resume: `first` ends, `second` is next
    assert s.state.next_nodes() == ("second",), s.state.next_nodes()
    assert s.selected_node is None
    _focus_graph(qtbot, window)
    assert graph.focused_node() == "second", graph.focused_node()
    assert s.selected_node == "second"
    assert graph.node_item("second").focus_ring
    QTest.keyClick(graph.canvas, Qt.Key.Key_F9)
    qtbot.waitUntil(lambda: "second" in s.state.breakpoints[0], timeout=5000)
    assert set(s.state.breakpoints[0]) == {"second"}, "F9 toggled the node under the ring, and only it"


def test_with_nothing_to_run_next_the_ring_starts_on_start(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    graph = window.panels.graph
    assert not graph.upcoming_nodes()
    _focus_graph(qtbot, window)
    assert graph.focused_node() == "__start__"


def _inspector_text(window) -> str:
    from test_studio_support import panel_text

    return panel_text(window.panels.inspector)


def test_tab_walks_the_nodes_in_reading_order_then_leaves_the_canvas(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    graph = window.panels.graph
    canvas = _focus_graph(qtbot, window)
    seen = [graph.focused_node()]
    for _ in range(len(graph.node_ids()) + 3):
        QTest.keyClick(canvas, Qt.Key.Key_Tab)
        if not canvas.hasFocus():
            break
        seen.append(graph.focused_node())
    assert not canvas.hasFocus(), "Tab past the last node moves the focus on (no keyboard trap)"
    assert seen[:2] == ["__start__", "plan"] and seen[-1] == "merge"
    drawn = {n for n in graph.node_ids() if graph.node_item(n).box.kind != "join"}
    assert set(seen) == drawn and len(seen) == len(drawn), "every node once"
    ys = [_centre(window, n).y() for n in seen]
    assert ys == sorted(ys), "reading order: top to bottom"
    canvas.setFocus(Qt.FocusReason.BacktabFocusReason)
    QTest.keyClick(canvas, Qt.Key.Key_Backtab, SHIFT)
    assert graph.focused_node() == seen[-2], "Shift+Tab goes back one node"


def test_f9_shift_f9_and_ctrl_f10_act_on_the_focused_node(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    graph = window.panels.graph
    canvas = _focus_graph(qtbot, window)
    for _ in range(4):
        if graph.focused_node() == "merge":
            break
        QTest.keyClick(canvas, Qt.Key.Key_Down)
    assert graph.focused_node() == "merge"
    QTest.keyClick(canvas, Qt.Key.Key_F9)
    qtbot.waitUntil(lambda: "merge" in window.session.state.breakpoints[0], timeout=5000)
    assert graph.node_item("merge").marks.break_before, "the red dot is drawn on the focused node"
    QTest.keyClick(canvas, Qt.Key.Key_F9, SHIFT)
    qtbot.waitUntil(lambda: "merge" in window.session.state.breakpoints[1], timeout=5000)
    QTest.keyClick(canvas, Qt.Key.Key_F9)  # off again: Ctrl+F10 alone stops before it
    qtbot.waitUntil(lambda: "merge" not in window.session.state.breakpoints[0], timeout=5000)
    QTest.keyClick(canvas, Qt.Key.Key_Up)
    assert graph.focused_node() in ("left", "right")
    QTest.keyClick(canvas, Qt.Key.Key_Down)
    assert graph.focused_node() == "merge"
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000):
        QTest.keyClick(canvas, Qt.Key.Key_F10, CTRL)
    wait_ready(qtbot, window)
    assert window.session.state.next_nodes() == ("merge",) or "merge" in window.session.state.next_nodes()
    assert window.session.run.status != "done"


def test_the_focus_ring_is_visible_in_both_themes(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    graph = window.panels.graph
    canvas = _focus_graph(qtbot, window)
    QTest.keyClick(canvas, Qt.Key.Key_Down)
    assert graph.focused_node() == "plan"
    orange = QColor("#f97316")
    assert _ring_pixels(window, "plan", orange) > 60, "an orange ring around the focused node"
    assert _ring_pixels(window, "left", orange) < 5, "and none around the others"
    QTest.keyClick(window, Qt.Key.Key_H, CTRL | SHIFT)  # High Contrast
    qtbot.waitUntil(lambda: window.teaching.presentation.high_contrast, timeout=5000)
    canvas.setFocus(Qt.FocusReason.ShortcutFocusReason)
    black = _ring_pixels(window, "plan", QColor("#000000"))
    assert black > 80, "a thick black ring in High Contrast"
    window.actions.step.trigger()  # a node's marks change: the ring stays
    wait_ready(qtbot, window)
    canvas.setFocus(Qt.FocusReason.ShortcutFocusReason)
    assert graph.node_item("plan").focus_ring


def _palette_rows(palette) -> list[tuple[str, str, str]]:
    lst = palette.list
    return [tuple(lst.topLevelItem(i).text(c) for c in range(3)) for i in range(lst.topLevelItemCount())]


def test_command_palette_lists_every_action_with_its_key_and_runs_one(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    QTest.keyClick(window, Qt.Key.Key_P, CTRL | SHIFT)
    palette = window.keyboard.palette
    qtbot.waitUntil(palette.isVisible, timeout=5000)
    rows = _palette_rows(palette)
    names = {r[0] for r in rows}
    for action in window.actions.all():
        name = action.text().replace("&", "").rstrip(".…").strip()
        assert name in names, f"{name} is missing from the palette"
        keys = action.shortcut().toString()
        if keys:
            assert (name, keys) in {(r[0], r[1]) for r in rows}, f"{name} is listed without its key {keys}"
    for teach in ("Zoom In", "High Contrast", "Focus Layout", "Go to Graph"):
        assert teach in names
    QTest.keyClicks(palette.edit, "stp nod")
    assert _palette_rows(palette)[0][0] == "Step Node", "fuzzy: the letters in order, word starts first"
    assert len(_palette_rows(palette)) < len(rows)
    before = window.session.head_id
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000) as blocker:
        QTest.keyClick(palette.edit, Qt.Key.Key_Return)
    wait_ready(qtbot, window)
    assert not palette.isVisible()
    assert blocker.args[0] == "step" and window.session.head_id != before, "Enter ran Step Node (F10)"


def test_palette_arrow_keys_choose_and_escape_closes(qtbot, tmp_path, open_window) -> None:
    window = open_window(write_graph(tmp_path, "diamond", DIAMOND))
    QTest.keyClick(window, Qt.Key.Key_P, CTRL | SHIFT)
    palette = window.keyboard.palette
    qtbot.waitUntil(palette.isVisible, timeout=5000)
    QTest.keyClicks(palette.edit, "legend")
    first = palette.current_entry()
    assert first is not None and first.text == "Graph Legend"
    QTest.keyClick(palette.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.actions.legend.isChecked(), timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_P, CTRL | SHIFT)
    qtbot.waitUntil(palette.isVisible, timeout=5000)
    QTest.keyClicks(palette.edit, "zzqq")
    assert palette.current_entry() is None and "No action matches" in palette.hint.text()
    QTest.keyClick(palette.edit, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not palette.isVisible(), timeout=5000)
