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
    assert "issue_refund" in panel_text(window.panels.interrupts)
    _answer_to_the_end(qtbot, window, APPROVE)
    messages = s.state.values["messages"]
    assert messages[0].content.startswith("Here is a summary of the conversation to date")
    assert messages[-1].content == "Done: refunded 30.00 for A-17."


def test_a_rejected_refund_reaches_the_model(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "agents_approval_summary.py")
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"
    _answer_to_the_end(qtbot, window, json.dumps({"decisions": [{"type": "reject", "message": "not yet"}]}))
    tool_messages = [m for m in s.state.values["messages"] if m.type == "tool"]
    assert "not yet" in tool_messages[-1].content


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
