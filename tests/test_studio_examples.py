"""The shipped examples, opened and driven in the real window."""
from __future__ import annotations

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    answer,
    open_window,
    panel_text,
    run_command,
    settings,
    studio_loop,
    wait_ready,
)


def test_react_agent_step_by_step_then_rewind_and_branch(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "react_agent.py")
    s, panels = window.session, window.panels
    assert window.windowTitle().startswith("react_agent.py")
    act(qtbot, window, "step")  # __start__: the question goes into `messages`
    assert "What is 6 * 7" in panel_text(panels.state)
    act(qtbot, window, "step")  # agent: asks for tools
    after_agent = s.head_id
    diff = panel_text(panels.diff)
    assert "messages" in diff and "add_messages" in diff and "agent" in diff
    assert s.history.get(after_agent).next == ("tools",)
    act(qtbot, window, "step")  # tools
    assert "ToolMessage" in {type(m).__name__ for m in s.state.values["messages"]}
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "done"
    assert "The result is 42" in panel_text(panels.state)
    # time travel: back to just after the first agent step, and go on from there
    panels.timeline.checkpoint_selected.emit(after_agent)
    wait_ready(qtbot, window)
    assert "ToolMessage" not in {type(m).__name__ for m in panels.values["messages"]}
    assert "What is 6 * 7" in panel_text(panels.state)
    panels.timeline.rewind_requested.emit(after_agent)
    wait_ready(qtbot, window)
    act(qtbot, window, "step")
    assert s.history.branches() == 1
    assert len(s.history.children(after_agent)) == 2
    assert "↳ branch from step 1" in panel_text(panels.timeline)


def test_approval_interrupt_is_answered_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "approval.py")
    s = window.session
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "interrupted"
    assert "Refund $120.00 to Ada?" in panel_text(window.panels.interrupts)
    [pending] = s.state.driver.interrupts
    answer(qtbot, window, pending.interrupt.id, '"yes"')
    assert s.state.values["approved"] is True
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["status"].startswith("refunded")


def test_parallel_search_superstep_shows_both_branches(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    act(qtbot, window, "step")  # __start__
    act(qtbot, window, "step_superstep")  # search_web and search_db together
    row = window.session.history.get(window.session.head_id)
    assert set(row.nodes) == {"search_web", "search_db"}
    diff = panel_text(window.panels.diff)
    assert "web_hits" in diff and "search_db" in diff
