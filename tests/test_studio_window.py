"""Driving the real window as a user would: open, step, breakpoints, interrupts, time travel."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    answer,
    event_lines,
    open_window,
    panel_text,
    run_command,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

FANOUT = """
    class S(TypedDict):
        items: Annotated[list, operator.add]
        n: int

    def a(s):
        return {"items": ["alpha"], "n": s["n"] + 1}
    def b(s):
        return {"items": ["beta"]}
    def c(s):
        return {"items": ["gamma"], "bogus": 1}
    def ask(s):
        answer = interrupt({"question": "ship it?"})
        return {"items": [f"answer:{answer}"]}

    builder = StateGraph(S)
    for name, fn in (("a", a), ("b", b), ("c", c), ("ask", ask)):
        builder.add_node(name, fn)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge(["b", "c"], "ask")
    builder.add_edge("ask", END)
    graph = builder.compile()
    example_input = {"n": 0}
"""


def _graph(tmp_path: Path) -> Path:
    return write_graph(tmp_path, "fanout", FANOUT)


def test_step_node_by_node_shows_state_and_diff(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    s, panels = window.session, window.panels
    assert window.actions.step.shortcut().toString() == "F10"
    act(qtbot, window, "step")  # __start__ writes the input
    act(qtbot, window, "step")  # a
    assert s.state.values == {"items": ["alpha"], "n": 1}
    assert "alpha" in panel_text(panels.state)
    act(qtbot, window, "step")  # b: its superstep is not committed yet
    assert "beta" not in panel_text(panels.state)
    act(qtbot, window, "step")  # c: the superstep's last task -> committed, diff shown
    state, diff = panel_text(panels.state), panel_text(panels.diff)
    assert "beta" in state and "gamma" in state
    for expected in ("items", "operator.add", "beta", "gamma", "bogus"):
        assert expected in diff, expected
    assert window.status_step.text() == "step: 2"
    assert "c: wrote items; dropped bogus (not in the schema)" in event_lines(window)


def test_breakpoint_then_interrupt_and_resume(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    s = window.session
    s.select_node("c")
    window.actions.toggle_breakpoint.trigger()  # F9 on the selected node
    assert "c" in s.marks().breakpoints_before
    outcome = act(qtbot, window, "continue_")  # F5
    assert outcome.reason == "breakpoint" and outcome.nodes == ("c",)
    assert s.state.values["items"] == ["alpha"]
    outcome = act(qtbot, window, "continue_")  # passes the breakpoint it stopped at
    assert outcome.reason == "interrupted"
    assert "ship it?" in panel_text(window.panels.interrupts)
    assert s.status_view().status == "interrupted"
    refused = act(qtbot, window, "step")  # stepping past an interrupt needs a value
    assert "resume value" in str(refused)
    [pending] = s.state.driver.interrupts
    answer(qtbot, window, pending.interrupt.id, '"yes"')
    assert s.state.values["items"][-1] == "answer:yes"
    assert s.status_view().status == "done"
    assert panel_text(window.panels.interrupts).count("ship it?") == 0


def test_rewind_then_step_makes_a_branch(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    s = window.session
    act(qtbot, window, "continue_")  # to the interrupt
    rows = s.history.rows()
    after_a = next(r for r in rows if r.nodes == ("a",))
    window.panels.timeline.checkpoint_selected.emit(after_a.id)  # view it (read-only)
    wait_ready(qtbot, window)
    assert s.viewed_id == after_a.id and "beta" not in panel_text(window.panels.state)
    window.actions.rewind.trigger()
    wait_ready(qtbot, window)
    assert s.head_id == after_a.id
    act(qtbot, window, "step_superstep")
    assert s.history.branches() == 1
    fork = [r for r in s.history if r.source == "fork"]
    assert fork and fork[0].parent_id == after_a.id and fork[0].step == after_a.step  # steps do not shift
    head = s.history.get(s.head_id)
    assert head is not None and head.step == after_a.step + 1
    assert len(s.history.children(after_a.id)) == 2
    assert s.state.values["items"] == ["alpha", "beta", "gamma"]
    timeline = panel_text(window.panels.timeline)  # the new branch hangs under a header row
    assert f"↳ branch from step {after_a.step} · 2 checkpoints" in timeline


def test_back_and_forward_in_history(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    s = window.session
    for _ in range(2):
        act(qtbot, window, "step")
    head = s.head_id
    assert window.actions.back.shortcut().toString() == "Ctrl+["
    window.actions.back.trigger()
    wait_ready(qtbot, window)
    assert s.viewed_id == s.history.parent(head)
    assert "viewing" in window.status_state.text()
    window.actions.forward.trigger()
    wait_ready(qtbot, window)
    assert s.viewed_id is None  # back at the head: live again


def test_edit_state_and_fork(open_window, qtbot, tmp_path: Path, monkeypatch) -> None:
    window = open_window(_graph(tmp_path))
    s = window.session
    for _ in range(2):
        act(qtbot, window, "step")
    edited = {"items": ["alpha", "edited"], "n": 41}
    import json

    from PySide6.QtWidgets import QDialog

    from studio.panels import StateEditorDialog

    def type_and_accept(dialog):  # what the user does in the modal dialog
        dialog.editor.setPlainText(json.dumps(edited))
        dialog.ok_button.click()
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(StateEditorDialog, "exec", type_and_accept)
    before = s.head_id
    window.actions.edit_fork.trigger()
    qtbot.waitUntil(lambda: s.head_id != before, timeout=5000)
    wait_ready(qtbot, window)
    head = s.history.get(s.head_id)
    assert head.source == "update" and head.parent_id == before
    assert s.state.values == edited
    act(qtbot, window, "step_superstep")
    assert s.state.values["items"] == ["alpha", "edited", "beta", "gamma"]


def test_stepping_commands_disable_while_busy(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    with qtbot.waitSignal(window.session.commandFinished, timeout=10000):
        window.actions.continue_.trigger()
        assert not window.actions.step.isEnabled() and window.actions.pause.isEnabled()
        assert window.session.step() is False  # a second command is refused, not queued
    assert window.actions.step.isEnabled()


def test_layout_is_remembered(open_window, qtbot, tmp_path: Path, settings) -> None:
    window = open_window(_graph(tmp_path))
    window.docks.events.hide()
    window.close()
    again = open_window(_graph(tmp_path))
    assert not again.docks.events.isVisible() and again.docks.state.isVisible()


TEAM = """
    class S(TypedDict):
        log: Annotated[list, operator.add]

    inner = StateGraph(S)
    inner.add_node("research", lambda s: {"log": ["research"]})
    inner.add_node("write", lambda s: {"log": ["write"]})
    inner.add_edge(START, "research")
    inner.add_edge("research", "write")
    team = inner.compile()

    outer = StateGraph(S)
    outer.add_node("plan", lambda s: {"log": ["plan"]})
    outer.add_node("team", team)
    outer.add_node("review", lambda s: {"log": ["review"]})
    outer.add_edge(START, "plan")
    outer.add_edge("plan", "team")
    outer.add_edge("team", "review")
    graph = outer.compile()
    example_input = {"log": []}
"""


def test_step_into_a_subgraph_steps_its_inner_nodes(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "team", TEAM))
    s = window.session
    act(qtbot, window, "step")  # __start__
    act(qtbot, window, "step")  # plan
    assert window.actions.step_into.shortcut().toString() == "F11"
    shown = []
    s.graphLoaded.connect(lambda view: shown.append(sorted(n.id for n in view.nodes)))
    outcome = act(qtbot, window, "step_into")
    assert outcome.reason == "inside" and s.status_view().status == "inside team"
    assert "research" in shown[-1] and "plan" not in shown[-1]  # the graph view shows the subgraph
    outcome = act(qtbot, window, "step")  # the subgraph's __start__
    assert outcome.reason == "inside" and "next research" in outcome.message
    act(qtbot, window, "step")  # research
    assert "research" in s.state.values["log"] and "write" not in s.state.values["log"]
    assert "team › research: [team] research wrote log" in event_lines(window)
    outcome = act(qtbot, window, "step")  # write: the subgraph ends, its task is committed
    assert outcome.reason == "stepped" and "plan" in shown[-1]  # back to the parent graph
    assert s.history.get(s.head_id).nodes == ("team",)
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["log"][-1] == "review"


def test_run_to_selected_node_and_breakpoint_after(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    s = window.session
    s.select_node("ask")
    outcome = act(qtbot, window, "run_to")  # Ctrl+F10
    assert outcome.reason == "target" and s.history.get(s.head_id).next == ("ask",)
    window.actions.restart.trigger()
    wait_ready(qtbot, window)
    s.select_node("a")
    window.actions.toggle_breakpoint_after.trigger()
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "breakpoint" and outcome.nodes == ("a",)
    assert s.state.values["items"] == ["alpha"]


def test_compare_two_checkpoints(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_graph(tmp_path))
    s = window.session
    act(qtbot, window, "continue_")
    rows = s.history.rows()
    first, last = rows[1].id, rows[-1].id
    with qtbot.waitSignal(s.compareReady, timeout=5000) as blocker:
        window.panels.timeline.compare_requested.emit(first, last)
    record = blocker.args[0]
    assert record.left_id == first and record.right_id == last
    assert {r.key for r in record.diff.rows} >= {"items", "n"}
    from studio.panels import CompareDialog

    dialogs = [d for d in window.findChildren(CompareDialog) if d.isVisible()]
    assert dialogs and "gamma" in panel_text(dialogs[-1])
    dialogs[-1].close()
