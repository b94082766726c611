"""Stepping into a graph that a node's code runs, as into a subgraph node (issue 21): F11 at a
deep agent's `task` tool call stops inside its subagent, F10 steps the subagent's nodes
(its checkpoints join the timeline under a nested namespace), Shift+F11 runs the rest and
comes back to the parent. A sync node that calls `invoke()` runs its graph on a worker
thread's own loop: the studio's gate parks it there too. All driven by real key events."""
from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import pytest

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    answer,
    event_lines,
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

APPROVE = '{"decisions": [{"type": "approve"}]}'


def press(qtbot: Any, window: Any, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier
          ) -> Any:
    """Press `key` on the window (its shortcut starts a command); wait for the command's end."""
    from PySide6.QtGui import QKeySequence

    wanted = QKeySequence(key.value | modifier.value)
    [action] = [a for a in window.actions.__dict__.values() if hasattr(a, "shortcut") and a.shortcut() == wanted]
    if QApplication.focusWidget() is not None:  # the key itself, while a widget of the window has the focus
        with qtbot.waitSignal(window.session.commandFinished, timeout=20000) as blocker:
            QTest.keyClick(QApplication.focusWidget(), key, modifier)
        wait_ready(qtbot, window)
        return blocker.args[1]
    name = next(n for n, a in window.actions.__dict__.items() if a is action)
    return act(qtbot, window, name)  # no focus widget offscreen (after a panel's button): the key's action


def shown_nodes(window: Any) -> set[str]:
    view = window.session.state.focus.graph if window.session.state.focus is not None else \
        window.session.graph_view
    return {n.id for n in view.nodes}


def nested_rows(window: Any, prefix: str) -> list[Any]:
    return [r for r in window.session.history.subgraph_rows() if r.namespace.startswith(prefix)]


def _next_is_task_call(window: Any) -> bool:
    run = window.session.state.driver.run
    pending = run.pending if run is not None else ()
    return bool(pending) and pending[0].name == "tools" and "'task'" in repr(pending[0].arg)


needs_agents = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("langchain", "deepagents")),
    reason="the [agents] extra is not installed")


@needs_agents
def test_f11_at_a_task_tool_call_steps_through_the_subagent(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_deep.py")
    s = window.session
    assert press(qtbot, window, Qt.Key.Key_F5).reason == "interrupted"  # the write waits for approval
    [pending] = s.state.driver.interrupts
    answer(qtbot, window, pending.interrupt.id, APPROVE)
    for _ in range(12):  # F10 until the lead agent's `task` call to the critic is next
        if _next_is_task_call(window):
            break
        press(qtbot, window, Qt.Key.Key_F10)
    assert _next_is_task_call(window)
    parent_nodes = shown_nodes(window)
    assert nested_rows(window, "tools:") == []

    outcome = press(qtbot, window, Qt.Key.Key_F11)
    assert outcome.reason == "inside", outcome
    assert s.status_view().status == "inside tools"
    assert s.inside_subgraph == "tools"
    inner = shown_nodes(window)
    assert "PatchToolCallsMiddleware.before_agent" in inner and inner != parent_nodes  # the subagent's graph
    outcome = press(qtbot, window, Qt.Key.Key_F10)  # the subagent's input
    assert outcome.reason == "inside" and "next PatchToolCallsMiddleware.before_agent" in outcome.message
    # the subagent starts on the task's description, in its own state
    assert [m.content for m in s.state.values["messages"]] == ["Review the release notes in /notes.md"]
    press(qtbot, window, Qt.Key.Key_F10)  # before_agent
    outcome = press(qtbot, window, Qt.Key.Key_F10)  # the critic's model asks to read the file
    assert outcome.reason == "inside"
    assert s.state.values["messages"][-1].tool_calls[0]["name"] == "read_file"
    assert any(line.startswith("tools › model: [tools] model") for line in event_lines(window)), event_lines(window)
    rows = nested_rows(window, "tools:")
    assert len(rows) >= 3 and len({r.namespace for r in rows}) == 1, rows  # one nested namespace
    assert {"model"} <= {n for r in rows for n in r.nodes}
    assert all(s.history.get(r.id) is None for r in rows), "the subagent's rows are not the thread's own"
    head = s.head_id

    outcome = press(qtbot, window, Qt.Key.Key_F11, Qt.KeyboardModifier.ShiftModifier)  # step out
    assert outcome.reason == "stepped" and outcome.nodes == ("tools",), outcome
    assert s.inside_subgraph is None and shown_nodes(window) == parent_nodes
    assert s.head_id != head and s.history.get(s.head_id).nodes == ("tools",)
    review = s.state.values["messages"][-1]
    assert review.type == "tool" and review.content == "Looks good: 2 items, each one line."
    assert len(nested_rows(window, "tools:")) > len(rows)  # the rest of the subagent's steps
    assert press(qtbot, window, Qt.Key.Key_F5).reason == "done"
    assert s.state.values["messages"][-1].content.endswith("The critic says: Looks good: 2 items, each one line.")


SYNC_CALLER = """
    import threading

    class S(TypedDict):
        log: Annotated[list, operator.add]

    inner = StateGraph(S)
    inner.add_node("research", lambda s: {"log": ["research on " + threading.current_thread().name]})
    inner.add_node("write", lambda s: {"log": ["write"]})
    inner.add_edge(START, "research")
    inner.add_edge("research", "write")
    helper = inner.compile()

    def ask_helper(state):
        # a plain sync call, as an "agent as a tool" makes: it runs on this worker thread's own loop
        out = helper.invoke({"log": []})
        return {"log": ["helper said " + ", ".join(out["log"])]}

    b = StateGraph(S)
    b.add_node("ask_helper", ask_helper)
    b.add_node("done", lambda s: {"log": ["done"]})
    b.add_edge(START, "ask_helper")
    b.add_edge("ask_helper", "done")
    graph = b.compile()
    example_input = {"log": []}
"""


def test_a_graph_invoked_on_a_worker_threads_loop_parks_at_the_gate(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "sync_caller", SYNC_CALLER))
    s = window.session
    press(qtbot, window, Qt.Key.Key_F10)  # __start__
    outcome = press(qtbot, window, Qt.Key.Key_F11)
    assert outcome.reason == "inside" and s.inside_subgraph == "ask_helper", outcome
    child = s.state.driver.gate.child
    assert child is not None and child.loop_thread != threading.get_ident(), "the helper runs on its own thread"
    assert {"research", "write"} <= shown_nodes(window)
    press(qtbot, window, Qt.Key.Key_F10)  # the helper's input
    outcome = press(qtbot, window, Qt.Key.Key_F10)  # research, on the worker thread
    assert outcome.reason == "inside" and "next write" in outcome.message
    assert s.state.values["log"][0].startswith("research on ") and "MainThread" not in s.state.values["log"][0]
    outcome = press(qtbot, window, Qt.Key.Key_F10)  # write: the helper ends, ask_helper's step commits
    assert outcome.reason == "stepped" and s.inside_subgraph is None
    assert s.state.values["log"][-1].startswith("helper said research on ")
    assert press(qtbot, window, Qt.Key.Key_F5).reason == "done"


def test_stop_while_parked_on_another_loop_ends_the_worker(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "sync_caller", SYNC_CALLER))
    s = window.session
    press(qtbot, window, Qt.Key.Key_F10)
    assert press(qtbot, window, Qt.Key.Key_F11).reason == "inside"
    worker = s.state.driver.gate.child.loop_thread
    QTest.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)  # stop
    wait_ready(qtbot, window)
    # the helper's loop was cancelled at the gate: its thread is free again, nothing more ran
    qtbot.waitUntil(lambda: not any(t.ident == worker and "research" in repr(getattr(t, "_target", ""))
                                    for t in threading.enumerate()), timeout=5000)
    assert s.state.driver.gate is None and s.inside_subgraph is None
    assert "helper said" not in repr(s.state.values)


def test_f11_on_a_node_that_runs_no_graph_is_a_step(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "sync_caller", SYNC_CALLER))
    s = window.session
    press(qtbot, window, Qt.Key.Key_F10)
    press(qtbot, window, Qt.Key.Key_F11)  # ask_helper: inside
    press(qtbot, window, Qt.Key.Key_F11, Qt.KeyboardModifier.ShiftModifier)  # out
    outcome = press(qtbot, window, Qt.Key.Key_F11)  # `done` runs no graph: a plain step
    assert outcome.reason == "done" and outcome.nodes == ("done",), outcome
    assert s.inside_subgraph is None and s.state.driver.gate is None
