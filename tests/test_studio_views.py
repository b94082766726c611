"""What the window shows around a run: edits that replace a list, routes to END drawn as
taken, the legend, a folded inspector for a big state, and the default dock sizes."""
from __future__ import annotations

import json
from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    panel_text,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

LISTS = """
    from engine import AIMessage, HumanMessage, MessagesState

    class S(MessagesState):
        items: Annotated[list, operator.add]
        total: Annotated[int, operator.add]

    def a(s):
        return {"items": ["alpha", "beta"], "total": 1, "messages": [AIMessage("hi there")]}
    def b(s):
        return {"items": ["gamma"]}

    builder = StateGraph(S)
    builder.add_node("a", a)
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    graph = builder.compile()
    example_input = {"items": [], "total": 0, "messages": [HumanMessage("hello")]}
"""


def _edit(qtbot, window, monkeypatch, change) -> None:
    """Edit and fork the head as a user would: change the JSON in the dialog, press OK."""
    from PySide6.QtWidgets import QDialog

    from studio.panels import StateEditorDialog

    def type_and_accept(dialog):
        values = json.loads(dialog.editor.toPlainText())
        change(values)
        dialog.editor.setPlainText(json.dumps(values))
        dialog.ok_button.click()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(StateEditorDialog, "exec", type_and_accept)
    s = window.session
    before = s.head_id
    window.actions.edit_fork.trigger()
    qtbot.waitUntil(lambda: s.head_id != before, timeout=5000)
    wait_ready(qtbot, window)
    assert s.history.get(s.head_id).source == "update" and s.history.parent(s.head_id) == before


def test_any_edit_of_a_reducer_list_forks(open_window, qtbot, tmp_path: Path, monkeypatch) -> None:
    """Removing or changing items of an `operator.add` list replaces it (an Overwrite);
    a pure append still goes through the reducer; an added number is not summed."""
    window = open_window(write_graph(tmp_path, "lists", LISTS))
    s = window.session
    for _ in range(2):
        act(qtbot, window, "step")  # __start__, a
    assert s.state.values["items"] == ["alpha", "beta"]

    def drop_alpha(values):
        values["items"] = ["beta", "edited"]
        values["total"] = 10
        values["messages"] = values["messages"][1:]  # forget the human message

    _edit(qtbot, window, monkeypatch, drop_alpha)
    assert s.state.values["items"] == ["beta", "edited"] and s.state.values["total"] == 10
    assert [m.text for m in s.state.values["messages"]] == ["hi there"]
    assert not window.banner.isVisible()
    assert "items (replaced)" in window.statusBar().currentMessage()

    _edit(qtbot, window, monkeypatch, lambda values: values["items"].append("appended"))
    assert s.state.values["items"] == ["beta", "edited", "appended"]
    assert "items (replaced)" not in window.statusBar().currentMessage()  # a pure append

    act(qtbot, window, "step")  # b goes on from the edited state
    assert s.state.values["items"] == ["beta", "edited", "appended", "gamma"]


DYNAMIC = """
    class S(TypedDict):
        n: int

    def a(s):
        return {"n": s["n"] + 1}
    def b(s):
        return {}
    def route(s):  # no path map, no Literal hint: drawn as "may go anywhere"
        return "b" if s["n"] < 2 else END

    builder = StateGraph(S)
    builder.add_node("a", a)
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_conditional_edges("a", route)
    builder.add_edge("b", "a")
    graph = builder.compile()
    example_input = {"n": 0}
"""


def test_a_router_that_ends_the_run_draws_the_taken_edge_to_end(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "dynamic", DYNAMIC))
    graph = window.panels.graph
    assert "__end__" not in graph.node_ids()  # nothing is known to go there yet
    act(qtbot, window, "continue_")
    qtbot.waitUntil(lambda: "__end__" in graph.node_ids(), timeout=10000)
    wait_ready(qtbot, window)
    taken = {(e.edge.source, e.edge.target) for e in graph.edge_items() if e.kind == "taken"}
    assert {("a", "b"), ("a", "__end__")} <= taken
    window.actions.restart.trigger()  # a new thread: its routes are not known yet
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: "__end__" not in graph.node_ids(), timeout=10000)


def test_the_legend_explains_edges_and_marks(open_window, qtbot, tmp_path: Path) -> None:
    from studio.panels.graph.legend import EDGE_ROWS, NODE_ROWS

    window = open_window(write_graph(tmp_path, "lists", LISTS))
    graph, action = window.panels.graph, window.actions.legend
    assert not graph.legend_visible() and not action.isChecked()
    graph.legend_button.click()  # the "?" in the graph panel
    assert graph.legend_visible() and action.isChecked()
    legend = graph.legend
    canvas = graph.canvas.rect()
    assert canvas.contains(legend.geometry())  # a card in a corner of the graph, wholly shown
    assert legend.width() * legend.height() <= canvas.width() * canvas.height() * 0.2
    names = [name for name, *_ in EDGE_ROWS + NODE_ROWS]
    for name in ("conditional", "dynamic", "join", "command", "taken", "running", "next", "breakpoint",
                 "failed", "interrupted", "trail"):
        assert name in names
    image = legend.grab().toImage()
    assert image.pixelColor(image.width() // 2, image.height() // 2).isValid()
    action.trigger()  # View ▸ Graph Legend (F1) hides it again
    assert not graph.legend_visible() and not graph.legend_button.isChecked()
    assert graph.canvas.viewport().geometry().left() < 5  # the graph has the whole panel


BIG = """
    from engine import HumanMessage, MessagesState

    def chat(s):
        return {"messages": [{"role": "ai", "content": "reply"}]}

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_edge(START, "chat")
    graph = builder.compile()
    example_input = {"messages": [HumanMessage(f"message {i}") for i in range(10_000)]}
"""


def test_the_inspector_folds_a_big_state_and_shows_all_on_demand(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "big", BIG))
    act(qtbot, window, "step")  # __start__
    act(qtbot, window, "step")  # chat: its last input is the 10,000 messages
    inspector = window.panels.inspector
    assert inspector.title.text() == "chat"
    pane = inspector.last_input
    text = pane.toPlainText()
    assert pane.is_folded() and "9,980 earlier messages" in text and '"message 9999"' in text
    assert '"message 0"' not in text and len(text) < 8_000
    pane.set_value(window.session.state.last_io["chat"]["input"] | {})  # a new value renders folded again
    assert pane.is_folded()
    pane.show_all_button.click()
    assert not pane.is_folded() and '"message 0"' in pane.toPlainText()


def test_default_docks_leave_the_graph_the_most_room(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "lists", LISTS))
    window.resize(1600, 1000)
    window.panels.graph.set_legend_visible(False)
    from studio.window.docks import apply_default_sizes

    apply_default_sizes(window, window.docks)
    qtbot.waitUntil(lambda: window.docks.inspector.width() > 300, timeout=3000)
    graph = window.panels.graph.width()
    for dock in window.docks.all():
        assert dock.width() < graph, dock.objectName()
    assert window.docks.inspector.width() >= 320  # the resume editor has room
    assert window.docks.events.width() >= window.docks.timeline.width(), [(d.objectName(), d.width(), d.minimumSizeHint().width(), d.isVisible()) for d in window.docks.all() + [e for e, _, _ in window.docks.extras]]
