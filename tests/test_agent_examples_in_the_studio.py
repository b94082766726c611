"""The agent-library examples open in the studio window and run to their answers there:
the interrupts of human-in-the-loop middleware are answered in the interrupts panel, a
swarm's handoffs move it between its agents, a supervisor's experts run as its nodes."""
from __future__ import annotations

import importlib.util
import json

import pytest

if any(importlib.util.find_spec(m) is None for m in ("langchain", "deepagents", "langgraph_supervisor",
                                                   "langgraph_swarm")):
    # found, never imported: imported here, before engine.compat, they would bind real LangGraph
    pytest.skip("the [agents] extra is not installed", allow_module_level=True)

from test_studio_support import (  # noqa: E402,F401 (fixtures)
    EXAMPLES,
    act,
    answer,
    event_lines,
    open_window,
    panel_text,
    settings,
    studio_loop,
)

APPROVE = json.dumps({"decisions": [{"type": "approve"}]})


def _click_decision_then_resume(qtbot, window, kind: str, edit=None):
    """Press a decision button of the one pending card (then, for `edit`, retype the JSON
    it filled in as edit(value) gives it), then Resume, then continue until done."""
    from PySide6.QtCore import Qt

    panel = window.panels.interrupts
    [card] = panel.cards()
    assert set(card.decision_buttons) == {"approve", "edit", "reject"}
    qtbot.mouseClick(card.decision_buttons[kind], Qt.MouseButton.LeftButton)
    if edit is not None:
        changed = json.dumps(edit(json.loads(card.editor.toPlainText())))
        card.editor.setFocus()
        qtbot.keyClick(card.editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(card.editor, changed)
    assert panel.resume_button.isEnabled(), panel.resume_button.toolTip()
    with qtbot.waitSignal(window.session.commandFinished, timeout=20000) as blocker:
        qtbot.mouseClick(panel.resume_button, Qt.MouseButton.LeftButton)
    if blocker.args[1].reason != "done":
        assert act(qtbot, window, "continue_").reason == "done"


def _answer_to_the_end(qtbot, window, text: str) -> None:
    """Answer the one pending interrupt with `text`, then continue until the run is done."""
    [pending] = window.session.state.driver.interrupts
    outcome = answer(qtbot, window, pending.interrupt.id, text)
    if outcome.reason != "done":
        assert act(qtbot, window, "continue_").reason == "done"


def test_the_approval_and_summary_agent_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_approval_summary.py")
    s = window.session
    nodes = set(s.state.graph.get_graph().nx.nodes)
    assert {"model", "tools", "HumanInTheLoopMiddleware.after_model", "SummarizationMiddleware.before_model"} <= nodes
    assert act(qtbot, window, "continue_").reason == "interrupted"
    assert "Review 1 tool call: issue_refund(order='A-17', amount=30.0)" in panel_text(window.panels.interrupts)
    _click_decision_then_resume(qtbot, window, "approve")
    messages = s.state.values["messages"]
    assert messages[0].content.startswith("Here is a summary of the conversation to date")
    assert messages[-1].content == "Done: refunded 30.00 for A-17."


def test_a_rejected_refund_reaches_the_model(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_approval_summary.py")
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"
    _click_decision_then_resume(qtbot, window, "reject")
    tool_messages = [m for m in s.state.values["messages"] if m.type == "tool"]
    assert "Not approved: please do something else." in tool_messages[-1].content


def test_edited_arguments_reach_the_tool(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_approval_summary.py")
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"

    def half(value):
        [decision] = value["decisions"]
        assert decision["edited_action"] == {"name": "issue_refund", "args": {"order": "A-17", "amount": 30.0}}
        decision["edited_action"]["args"]["amount"] = 15.0
        return value

    _click_decision_then_resume(qtbot, window, "edit", edit=half)
    assert s.state.values["messages"][-1].content.endswith("refunded 15.00 for A-17.")  # after langchain's note


def test_the_deep_agent_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_deep.py")
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"
    assert "/notes.md" in panel_text(window.panels.interrupts)
    _answer_to_the_end(qtbot, window, APPROVE)
    values = s.state.values
    assert values["files"]["/notes.md"]["content"].startswith("# Release 2.0")
    assert [t["content"] for t in values["todos"]] == ["Write the release notes", "Have them reviewed"]
    assert values["messages"][-1].content.endswith("The critic says: Looks good: 2 items, each one line.")
    assert "files" in panel_text(window.panels.state)


def test_the_supervisor_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_supervisor.py")
    s = window.session
    assert {"supervisor", "math_expert", "research_expert"} <= set(s.state.graph.get_graph().nx.nodes)
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["messages"][-1].content == "6 times 7 is 42.0, and the capital of France is Paris."
    assert "6 times 7 is 42.0, and the capital of France is Paris." in panel_text(window.panels.state)


def test_the_swarm_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_swarm.py")
    s = window.session
    assert {"Alice", "Bob"} <= set(s.state.graph.get_graph().nx.nodes)
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["active_agent"] == "Bob"
    assert s.state.values["messages"][-1].content == "Ahoy, Bob here! What be yer question?"
    lines = event_lines(window)
    # the handoff is listed as one, never as an error, and marks no node as failed
    assert "Alice › tools: [Alice] tools handed off to Bob (Command.PARENT)" in lines, lines
    assert not any("raised" in line for line in lines), lines
    model = window.panels.events.model
    assert "error" not in {model.events[r].kind for r in range(model.rowCount())}
    assert not s.state.failed
