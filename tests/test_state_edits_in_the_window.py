"""Issue 12, editing a checkpoint's state: messages editable without placeholders that look
like text (4), edits applied through the reducer or replaced by choice and shown as edits
(5), the node the edit counts as chosen, and what runs next said before confirming (6)."""
from __future__ import annotations

import json
import operator
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, AIMessage, HumanMessage, InMemorySaver, Overwrite, StateGraph, add_messages
from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    panel_text,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

# -- Qt-free: the editable form and the plan ----------------------------------------------


class Opaque:
    def __repr__(self) -> str:
        return "Opaque(7)"


def test_messages_are_editable_objects_and_placeholders_cannot_pass_for_text() -> None:
    from studio.core.editable import EditError, to_editable

    hi, yo = HumanMessage("hi", id="h1"), AIMessage("yo", id="a1", response_metadata={"model": "m"})
    values = {"messages": [hi, yo], "thing": Opaque(), "n": 1}
    editable = to_editable(values)
    data = json.loads(editable.text())
    assert data["messages"] == [{"$message": "human", "content": "hi", "id": "h1"},
                                {"$message": "ai", "content": "yo", "id": "a1"}]
    assert data["thing"] == {"$kept": 1, "was": "Opaque(7)"}
    assert editable.changed(data) == {} and editable.restore(data)["thing"] is values["thing"]
    # edit one message's content, delete the other, add a new one
    data["messages"] = [{"$message": "ai", "content": "edited", "id": "a1"}, {"$message": "human", "content": "new"}]
    messages = editable.changed(data)["messages"]
    assert [(type(m).__name__, m.content) for m in messages] == [("AIMessage", "edited"), ("HumanMessage", "new")]
    assert messages[0].id == "a1" and messages[0].response_metadata == {"model": "m"}  # its other fields kept
    # the old bug: a placeholder retyped by hand became a new HumanMessage holding its text
    data["messages"] = [{"$kept": 1, "was": "Opaque(7)"}]  # not a placeholder of this key: it is Opaque's
    assert editable.changed(data)["messages"] == [values["thing"]]
    for bad, where in (({"$kept": 1, "was": "Opaque (7)"}, "thing"), ({"$kept": 9}, "thing"),
                       ({"$message": "robot", "content": "x"}, "thing")):
        data = json.loads(editable.text())
        data["thing"] = bad
        with pytest.raises(EditError, match=rf"^{where}: "):
            editable.changed(data)
    data = json.loads(editable.text())
    data["messages"][1] = "⟨kept #1: AIMessage(yo)⟩"  # a string is a string: text, not a placeholder
    assert editable.changed(data)["messages"][1] == "⟨kept #1: AIMessage(yo)⟩"


class _S(TypedDict):
    log: Annotated[list, operator.add]
    route: str
    messages: Annotated[list, add_messages]


def _graph_at_end():
    builder = StateGraph(_S)
    for name in ("prepare", "review", "refund", "close"):
        builder.add_node(name, lambda s, name=name: {"log": [name]})
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", lambda s: s.get("route") or "review",
                                  {"needs review": "review", "refund": "refund"})
    builder.add_edge("review", "close")
    builder.add_edge("refund", "close")
    builder.add_edge("close", END)
    saver = InMemorySaver()
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"log": [], "route": "needs review",
                  "messages": [HumanMessage("hi", id="h1"), AIMessage("yo", id="a1")]},
                 {"configurable": {"thread_id": "t"}})
    return graph, saver.load("t")


def test_plan_goes_through_the_reducer_or_replaces_by_choice() -> None:
    from studio.core.edits import plan_edit

    graph, base = _graph_at_end()
    log = base.values["log"]
    grown = plan_edit(graph, base, {"log": [*log, "x"]})  # only appended: through operator.add, the tail
    assert [(e.how, e.update, e.after) for e in grown.edits] == [("reduce", ["x"], [*log, "x"])]
    other = plan_edit(graph, base, {"log": ["only one"]})  # the reducer cannot give it: replaced by default
    (edit,) = other.edits
    assert edit.how == "replace" and isinstance(edit.update, Overwrite) and edit.after == ["only one"]
    chosen = plan_edit(graph, base, {"log": ["only one"]}, how={"log": "reduce"})  # as update_state would
    assert [(e.how, e.update, e.after) for e in chosen.edits] == [("reduce", ["only one"], [*log, "only one"])]
    # messages through add_messages: the edited one in place, a removed one as RemoveMessage
    (msgs,) = plan_edit(graph, base, {"messages": [AIMessage("YO", id="a1"), HumanMessage("new")]}).edits
    assert msgs.how == "reduce"
    assert [(type(m).__name__, m.content) for m in msgs.after] == [("AIMessage", "YO"), ("HumanMessage", "new")]
    assert [type(m).__name__ for m in msgs.update] == ["RemoveMessage", "AIMessage", "HumanMessage"]


def test_default_as_node_lets_the_run_go_on() -> None:
    from studio.core.edits import plan_edit

    graph, base = _graph_at_end()
    assert base.nodes_ran == ("close",) and not base.tasks  # the run has ended
    plan = plan_edit(graph, base, {"route": "refund"})
    assert plan.as_node == "prepare" and plan.next == ("refund",)  # close's write would lead to END
    assert plan.next_text() == "Next: refund (F10 runs it)."
    as_close = plan_edit(graph, base, {"route": "refund"}, as_node="close")
    assert as_close.next == () and "the run ends here" in as_close.next_text()
    assert "not a node" in plan_edit(graph, base, {"route": "x"}, as_node="nope").error


# -- in a real window -----------------------------------------------------------------------

CHAT = """
    from engine import add_messages, AIMessage

    class S(TypedDict):
        messages: Annotated[list, add_messages]
        log: Annotated[list, operator.add]
        route: str

    def prepare(s):
        return {"log": ["prepared"], "messages": [AIMessage("answer", id="a1")]}
    def router(s):
        return s.get("route") or "review"
    def review(s):
        return {"log": ["reviewed"]}
    def refund(s):
        return {"log": ["refunded"]}
    def close(s):
        return {"log": ["closed"]}

    builder = StateGraph(S)
    for name, fn in (("prepare", prepare), ("review", review), ("refund", refund), ("close", close)):
        builder.add_node(name, fn)
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", router, {"needs review": "review", "refund": "refund"})
    builder.add_edge("review", "close")
    builder.add_edge("refund", "close")
    builder.add_edge("close", END)
    graph = builder.compile()
    example_input = {"messages": [{"role": "user", "content": "hi", "id": "h1"}], "log": [], "route": "needs review"}
"""


def _with_editor(qtbot, window, checkpoint_id, fn, *, accept: bool = True):
    """Open "Edit state and fork" on `checkpoint_id`, call `fn(dialog)` while it is shown
    (it is modal), then press its OK (or Cancel). Returns fn's result."""
    from PySide6.QtCore import QTimer

    seen: dict = {}

    def poll() -> None:
        dialog = window.panels.editor
        if dialog is None or not dialog.isVisible():
            QTimer.singleShot(20, poll)
            return
        try:
            seen["result"] = fn(dialog)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test below
            seen["error"] = exc
            dialog.reject()
            return
        if accept:
            dialog.ok_button.click()
        else:
            dialog.reject()

    QTimer.singleShot(0, poll)
    window.panels.open_state_editor(checkpoint_id)
    qtbot.waitUntil(lambda: "result" in seen or "error" in seen, timeout=15000)
    if "error" in seen:
        raise seen["error"]
    return seen["result"]


def test_messages_edited_added_and_removed_in_the_window(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chat", CHAT))
    s = window.session
    for _ in range(2):
        act(qtbot, window, "step")
    head = s.head_id

    def edit(dialog):
        data = json.loads(dialog.editor.toPlainText())
        assert [m["$message"] for m in data["messages"]] == ["human", "ai"]
        data["messages"] = [{"$message": "ai", "content": "a better answer", "id": "a1"},
                            {"$message": "human", "content": "thanks"}]  # hi removed, answer edited, one added
        dialog.editor.setPlainText(json.dumps(data))
        dialog.refresh_plan()
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        assert dialog.error.text() == "" and dialog.ok_button.isEnabled()

    _with_editor(qtbot, window, head, edit)
    qtbot.waitUntil(lambda: s.head_id != head, timeout=10000)
    wait_ready(qtbot, window)
    messages = s.state.values["messages"]
    assert [(type(m).__name__, m.content) for m in messages] == [("AIMessage", "a better answer"),
                                                                 ("HumanMessage", "thanks")]
    assert messages[0].id == "a1"

    def unknown_placeholder(dialog):
        data = json.loads(dialog.editor.toPlainText())
        data["messages"][0] = {"$kept": 3, "was": "AIMessage(a better answer)"}
        dialog.editor.setPlainText(json.dumps(data))
        return dialog.error.text(), dialog.ok_button.isEnabled()

    error, enabled = _with_editor(qtbot, window, s.head_id, unknown_placeholder, accept=False)
    assert error.startswith("messages[0]: ") and "not a placeholder" in error and not enabled


def test_edit_through_the_reducer_or_replaced_in_the_window(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chat", CHAT))
    s = window.session
    for _ in range(2):
        act(qtbot, window, "step")
    head = s.head_id
    assert s.state.values["log"] == ["prepared"]

    def through_reducer(dialog):
        data = json.loads(dialog.editor.toPlainText())
        data["log"] = ["only one"]
        dialog.editor.setPlainText(json.dumps(data))
        dialog.refresh_plan()
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        box = dialog.findChild(type(dialog.as_node_box), "how:log")
        assert box.currentText() == "replace the value"  # the default: what was typed
        box.setCurrentIndex(0)
        box.activated.emit(0)  # the user picks "through the reducer (operator.add)"
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        assert dialog.how() == {"log": "reduce"}
        return [e.after for e in dialog.plan.edits]

    assert _with_editor(qtbot, window, head, through_reducer) == [["prepared", "only one"]]
    qtbot.waitUntil(lambda: s.head_id != head, timeout=10000)
    wait_ready(qtbot, window)
    assert s.state.values["log"] == ["prepared", "only one"]  # as update_state({"log": [...]}) does
    assert s.history.get(s.head_id).source == "update"
    diff = panel_text(window.panels.diff)
    assert "edited (update" in diff and "⊕ prepare" not in diff, diff[:600]
    head = s.head_id

    def replaced(dialog):
        data = json.loads(dialog.editor.toPlainText())
        data["log"] = ["just this"]
        dialog.editor.setPlainText(json.dumps(data))
        dialog.refresh_plan()
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        return dialog.how()

    assert _with_editor(qtbot, window, head, replaced) == {"log": "replace"}
    qtbot.waitUntil(lambda: s.head_id != head, timeout=10000)
    wait_ready(qtbot, window)
    assert s.state.values["log"] == ["just this"]
    assert "replaced" in window.statusBar().currentMessage()


def test_choose_as_node_see_what_runs_next_and_f10_goes_on(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chat", CHAT))
    s = window.session
    act(qtbot, window, "continue_")  # to the end: close ran, nothing is next
    assert s.history.get(s.head_id).nodes == ("close",) and not s.history.get(s.head_id).next
    head = s.head_id

    def edit(dialog):
        data = json.loads(dialog.editor.toPlainText())
        data["route"] = "refund"
        dialog.editor.setPlainText(json.dumps(data))
        dialog.refresh_plan()
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        shown = (dialog.as_node_box.currentText(), dialog.next_label.text())
        dialog.as_node_box.setCurrentText("close")
        dialog.as_node_box.activated.emit(dialog.as_node_box.currentIndex())
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        as_close = dialog.next_label.text()
        dialog.as_node_box.setCurrentText("prepare")
        dialog.as_node_box.activated.emit(dialog.as_node_box.currentIndex())
        qtbot.waitUntil(dialog.preview_ready, timeout=10000)
        return shown, as_close

    shown, as_close = _with_editor(qtbot, window, head, edit)
    assert shown == ("prepare", "Next: refund (F10 runs it).")  # said before confirming
    assert "the run ends here" in as_close
    qtbot.waitUntil(lambda: s.head_id != head, timeout=10000)
    wait_ready(qtbot, window)
    assert "as prepare" in window.statusBar().currentMessage()
    assert s.history.get(s.head_id).next == ("refund",)
    act(qtbot, window, "step")  # F10 really goes on
    assert s.history.get(s.head_id).nodes == ("refund",)
