"""The real window, F11 into a subgraph after the run paused inside it: the resumed
subgraph continues from its own checkpoint, so its finished node is not stepped again."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    settings,
    studio_loop,
    write_graph,
)

TEAM_PAUSING = """
    class S(TypedDict):
        log: Annotated[list, operator.add]

    inner = StateGraph(S)
    inner.add_node("research", lambda s: {"log": ["research"]})
    inner.add_node("write", lambda s: {"log": ["write"]})
    inner.add_edge(START, "research")
    inner.add_edge("research", "write")
    team = inner.compile(interrupt_before=["write"])

    outer = StateGraph(S)
    outer.add_node("team", team)
    outer.add_node("review", lambda s: {"log": ["review"]})
    outer.add_edge(START, "team")
    outer.add_edge("team", "review")
    graph = outer.compile()
    example_input = {"log": []}
"""


def test_step_into_a_subgraph_after_it_paused_continues_inside_it(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "team_pausing", TEAM_PAUSING))
    s = window.session
    outcome = act(qtbot, window, "continue_")  # the subgraph's own breakpoint pauses the parent
    assert "research" not in s.state.values.get("log", ()), "the paused task's writes are not committed"
    assert s.history.get(s.head_id).next == ("team",)
    outcome = act(qtbot, window, "step_into")  # F11 after the pause: into the resumed subgraph
    assert outcome.reason == "inside" and s.status_view().status == "inside team"
    assert "next write" in outcome.message and "research" not in outcome.message.split("next", 1)[1]
    outcome = act(qtbot, window, "step")  # write: the subgraph ends, its task is committed
    assert outcome.reason == "stepped"
    assert s.state.values["log"] == ["research", "write"], "research ran once, before the pause"
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["log"] == ["research", "write", "review"]
