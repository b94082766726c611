"""The real window and a real SQLite file: a subgraph's checkpoints are listed in the
timeline under the parent checkpoint whose superstep ran them, live and when the thread
is read back; the head stays one of the thread's own checkpoints, even while the run is
paused inside the subgraph."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

from studio.panels.timeline.model import DepthRole, IdRole

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
    outer.add_node("plan", lambda s: {"log": ["plan"]})
    outer.add_node("team", team)
    outer.add_node("review", lambda s: {"log": ["review"]})
    outer.add_edge(START, "plan")
    outer.add_edge("plan", "team")
    outer.add_edge("team", "review")
    graph = outer.compile()
    example_input = {"log": []}
"""


def _lines(window: Any) -> list[tuple[str, int, str, str]]:
    """(checkpoint id, depth, step, nodes text) of every timeline row, top to bottom."""
    model = window.panels.timeline.model
    return [(model.index(r, 0).data(IdRole), model.index(r, 0).data(DepthRole), model.index(r, 0).data(),
             model.index(r, 2).data()) for r in range(model.rowCount())]


def _check_under_team_step(window: Any) -> list[tuple[str, int, str, str]]:
    """The subgraph rows sit right after the parent checkpoint that planned `team`, one level deeper."""
    s = window.session
    lines = _lines(window)
    owner = next(i for i, (cid, *_rest) in enumerate(lines)
                 if s.history.get(cid) is not None and s.history.get(cid).next == ("team",))
    subs = []
    for cid, depth, _step, text in lines[owner + 1:]:
        if s.history.subgraph_row(cid) is None:
            break
        subs.append((cid, depth, _step, text))
        assert depth == lines[owner][1] + 1, lines
        assert s.history.subgraph_row(cid).owner_id == lines[owner][0]
    assert all(s.history.subgraph_row(cid) is None for cid, *_r in lines[owner + 1 + len(subs):]), \
        "every subgraph row is under the step that ran it"
    return subs


def test_subgraph_checkpoints_hang_under_the_parent_step(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "team_pausing", TEAM_PAUSING))
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"  # paused inside `team`, before write
    head = s.history.get(s.head_id)
    assert head is not None and not head.namespace and head.next == ("team",), "the head is a root checkpoint"
    assert s.history.latest_id == s.head_id
    subs = _check_under_team_step(window)
    assert [text for *_r, text in subs] == ["team › (input)", "team › __start__", "team › research"]
    assert all(not s.history.get(cid) for cid, *_r in subs), "subgraph rows are not the thread's checkpoints"

    # F11 into the paused subgraph and step its last node: the new row joins the others live
    assert act(qtbot, window, "step_into").reason == "inside"
    assert act(qtbot, window, "step").reason == "stepped"
    subs = _check_under_team_step(window)
    assert [text for *_r, text in subs][-1] == "team › write"
    assert not s.history.get(s.head_id).namespace and s.history.latest_id == s.head_id
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["log"][-3:] == ["research", "write", "review"]
    live = _lines(window)

    # selecting a subgraph row shows its state read-only; rewind is not offered there
    panel = window.panels.timeline
    row = panel.model.row_of(subs[-1][0])
    with qtbot.waitSignal(s.stateChanged, timeout=10000) as shown:
        panel.table.setCurrentIndex(panel.model.index(row, 0))
    assert shown.args[0]["log"] == ["plan", "research", "write"]
    assert not panel.rewind_button.isEnabled() and s.head_id == s.history.latest_id

    # read back from the file: the same rows in the same places
    with qtbot.waitSignal(s.timelineReset, timeout=10000):
        s.open_thread(s.thread_id)
    wait_ready(qtbot, window)
    assert [(d, t) for _c, d, _s, t in _lines(window)] == [(d, t) for _c, d, _s, t in live]
    _check_under_team_step(window)
    assert not s.history.get(s.history.latest_id).namespace
