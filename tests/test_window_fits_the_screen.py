"""Issue 12 item 12: the window fits the screen and restores its saved geometry."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    open_window,
    settings,
    studio_loop,
    wait_ready,
)


def test_window_fits_the_screen_and_restores_saved_geometry(qtbot, studio_loop, settings, tmp_path: Path) -> None:
    from PySide6.QtGui import QGuiApplication

    from studio.session.session import Session
    from studio.window.docks import save_layout
    from studio.window.main_window import MainWindow

    area = QGuiApplication.primaryScreen().availableGeometry()
    window = MainWindow(Session(tmp_path / "a.sqlite"), settings=settings)
    qtbot.addWidget(window)
    assert window.width() <= area.width() and window.height() <= area.height()
    assert area.contains(window.frameGeometry().topLeft())
    window.resize(min(area.width(), 700) - 20, min(area.height(), 500) - 30)
    window.move(area.left() + 7, area.top() + 9)
    save_layout(window, settings)
    size = window.size()
    window.close()
    again = MainWindow(Session(tmp_path / "b.sqlite"), settings=settings)
    qtbot.addWidget(again)
    assert again.size() == size
    again.close()


ASKS_A_LOT = """
    class S(TypedDict):
        answer: str

    def ask(s):
        details = {f"field_{i:02d}": "a long line of context the reviewer may want to read " * 2 for i in range(60)}
        return {"answer": interrupt({"question": "Approve the refund?", **details})}

    builder = StateGraph(S)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    graph = builder.compile()
    example_input = {"answer": ""}
"""


def _in_view(widget, scroll) -> bool:
    """`widget` is shown, and its top lies inside the scroll area's viewport."""
    from PySide6.QtCore import QPoint

    if not widget.isVisible():
        return False
    top = widget.mapTo(scroll.viewport(), QPoint(0, 0)).y()
    return 0 <= top and top + min(widget.height(), 30) <= scroll.viewport().height()


def test_interrupt_editor_and_its_error_stay_in_view(open_window, qtbot, tmp_path: Path) -> None:
    from test_studio_support import act, write_graph

    window = open_window(write_graph(tmp_path, "asks", ASKS_A_LOT))
    window.resize(1280, 720)
    window.docks.interrupts.hide()  # closed by the user: a question brings it back
    wait_ready(qtbot, window)
    act(qtbot, window, "continue_")
    panel = window.panels.interrupts
    qtbot.waitUntil(lambda: bool(panel.cards()), timeout=10000)
    assert window.docks.interrupts.isVisible()
    card = panel.cards()[0]
    qtbot.waitUntil(lambda: _in_view(card.editor, panel.scroll), timeout=5000)
    # Resume is disabled, and the panel says why in plain view
    assert not panel.resume_button.isEnabled()
    assert panel.why.isVisible() and "Type the value to resume ask with" in panel.why.text()
    card.editor.setPlainText("{not json")
    assert "Line 1" in card.error.text()
    qtbot.waitUntil(lambda: _in_view(card.error, panel.scroll), timeout=5000)
    assert card.width() <= panel.scroll.viewport().width()  # nothing cut at the right either
    assert "see the error under ask" in panel.why.text()
    card.editor.setPlainText("true")
    assert panel.resume_button.isEnabled() and not panel.why.isVisible()
    window.grab().save(str(tmp_path / "interrupt-1280x720.png"))


def _inside(widget, window) -> bool:
    """`widget` is shown and wholly inside the window (not cut off, not in an overflow)."""
    from PySide6.QtCore import QRect

    if not widget.isVisible() or widget.width() < 4 or widget.height() < 4:
        return False
    top_left = widget.mapTo(window, widget.rect().topLeft())
    return window.rect().contains(QRect(top_left, widget.size()))


def test_everything_reachable_at_1280x720(open_window, qtbot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QAbstractButton

    from test_studio_support import EXAMPLES, act

    window = open_window(EXAMPLES / "router.py")
    window.resize(1280, 720)
    window.docks.default_state = None
    from studio.window.docks import apply_default_sizes

    apply_default_sizes(window, window.docks)  # the default layout of a 1280x720 window
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    for _ in range(3):
        act(qtbot, window, "step")
    qtbot.wait(50)  # let the docks settle after the resize (layout only, nothing asserted on time)
    assert _inside(window.thread_box, window), "the thread selector is off screen"
    bar = window.toolbar
    for action in bar.actions():
        if action.isSeparator() or not action.isVisible():
            continue  # (the "⋯" menu shows only when something does not fit)
        button = bar.widgetForAction(action)
        assert button is not None and _inside(button, window), f"{action.text()} is not on the toolbar"
    for dock in window.docks.all():
        dock.raise_()  # a tab of the compact layout's left column comes to the front
        qtbot.wait(20)
        assert _inside(dock, window) and dock.width() >= 200 and dock.height() >= 150, dock.objectName()
        for button in dock.widget().findChildren(QAbstractButton):
            if button.isVisibleTo(dock.widget()) and button.text():
                assert _inside(button, window), f"{dock.objectName()}: {button.text()}"
                assert button.width() >= button.minimumSizeHint().width(), f"{button.text()} is cut"
    graph = window.panels.graph
    assert graph.zoom() >= 0.8, graph.zoom()  # the graph stays readable
    # the legend shows every row inside the canvas
    graph.set_legend_visible(True)
    legend = graph.legend
    assert legend.height() <= graph.canvas.height() and legend.y() + legend.height() <= graph.canvas.height()
    graph.set_legend_visible(False)
    # the right dock keeps its width when an older checkpoint is viewed (its title is longer)
    right = window.docks.state.width()
    state_title = window.panels.state.title
    window.actions.back.trigger()
    wait_ready(qtbot, window)
    qtbot.wait(50)
    assert "viewing" in state_title.text()
    assert window.docks.state.width() == right
    # and the title is whole: wrapped if need be, never cut
    assert state_title.wordWrap() or state_title.fontMetrics().horizontalAdvance(state_title.text()) <= state_title.width()
    window.grab().save(str(tmp_path / "studio-1280x720.png"))


MESSAGES = """
    from engine import add_messages

    class S(TypedDict):
        messages: Annotated[list, add_messages]
        reviewer_notes_for_the_refund: Annotated[list, operator.add]

    def agent(s):
        return {"messages": [("ai", "I will refund Ada")], "reviewer_notes_for_the_refund": ["ok"]}

    builder = StateGraph(S)
    builder.add_node("agent", agent)
    builder.add_edge(START, "agent")
    builder.add_edge("agent", END)
    graph = builder.compile()
    example_input = {"messages": [("user", "refund please")]}
"""


def test_reducer_names_are_not_cut_at_1280x720(open_window, qtbot, tmp_path: Path) -> None:
    from test_studio_support import act, write_graph

    from studio.window.docks import apply_default_sizes

    window = open_window(write_graph(tmp_path, "msgs", MESSAGES))
    window.resize(1280, 720)
    apply_default_sizes(window, window.docks)
    qtbot.waitUntil(lambda: window.width() == 1280, timeout=5000)
    act(qtbot, window, "step")
    act(qtbot, window, "step")
    tree = window.panels.diff.tree
    metrics = tree.fontMetrics()
    reducers = [tree.model().index(r, 1).data() for r in range(tree.model().rowCount())]
    assert "add_messages" in reducers and "operator.add" in reducers, reducers
    assert tree.header().sectionSize(1) >= max(metrics.horizontalAdvance(r) for r in reducers) + 8
    assert tree.header().sectionSize(2) >= 80  # the change keeps room for its badge
