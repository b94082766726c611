"""Post-mortem: open a checkpoint database without the graph's code, then with it."""
from __future__ import annotations

import warnings
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

RECORDED = """
    from dataclasses import dataclass

    @dataclass
    class Ticket:
        title: str
        priority: int

    class S(TypedDict):
        log: Annotated[list, operator.add]
        ticket: Ticket

    def triage(s):
        return {"log": ["triaged"], "ticket": Ticket("printer on fire", 1)}
    def assign(s):
        return {"log": ["assigned"]}

    builder = StateGraph(S)
    builder.add_node("triage", triage)
    builder.add_node("assign", assign)
    builder.add_edge(START, "triage")
    builder.add_edge("triage", "assign")
    graph = builder.compile(interrupt_before=["assign"])
    example_input = {"log": []}
"""


def _record(tmp_path: Path) -> tuple[Path, Path]:
    """Two threads written by a script (not the studio), the second stopped before `assign`."""
    from engine import SqliteSaver
    from studio.loader import load_graph

    path = write_graph(tmp_path, "recorded", RECORDED)
    loaded = load_graph(path)
    db = tmp_path / "recorded.sqlite"
    saver = SqliteSaver(db)
    graph = loaded.graph.with_checkpointer(saver)
    graph.invoke({"log": ["first"]}, {"configurable": {"thread_id": "older"}})
    graph.invoke({"log": ["second"]}, {"configurable": {"thread_id": "newer"}})
    saver.close()
    return path, db


def test_browse_a_database_without_the_code(open_window, qtbot, tmp_path: Path) -> None:
    _, db = _record(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the Ticket type is unknown here: inert data
        window = open_window(database=db)
    s = window.session
    assert [t.thread_id for t in window.threads] == ["newer", "older"]
    assert s.thread_id == "newer" and s.graph is None
    assert s.status_view().status == "read-only"
    assert not window.actions.step.isEnabled() and not window.actions.rewind.isEnabled()
    graph = window.panels.graph  # drawn from the history: what ran, and what was due next
    assert {"__start__", "triage", "assign"} <= set(graph.node_ids())
    assert "no code loaded" in graph.title.text()
    state = panel_text(window.panels.state)
    assert "printer on fire" in state and "second" in state
    rows = s.history.rows()
    assert [r.source for r in rows] == ["input", "loop", "loop"]
    triaged = rows[-1]
    assert triaged.nodes == ("triage",) and triaged.next == ("assign",)
    diff = panel_text(window.panels.diff)
    assert "triaged" in diff  # computed from the parent's and the child's values
    window.actions.back.trigger()
    wait_ready(qtbot, window)
    assert s.viewed_id == rows[-2].id
    s.open_thread("older")
    wait_ready(qtbot, window)
    assert s.thread_id == "older" and "first" in panel_text(window.panels.state)
    refused = s.step()
    assert refused is True
    qtbot.waitUntil(lambda: not s.busy, timeout=5000)


def test_with_the_code_the_recorded_run_goes_on(open_window, qtbot, tmp_path: Path) -> None:
    path, db = _record(tmp_path)
    window = open_window(database=db, graph=str(path))
    s = window.session
    assert s.thread_id == "newer" and s.graph is not None
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "done"
    assert s._values["log"] == ["second", "triaged", "assigned"]
    state = panel_text(window.panels.state)
    assert "Ticket" in state and "printer on fire" in state and "UnknownValue" not in state


def test_checkpoints_written_by_another_process_appear(open_window, qtbot, tmp_path: Path) -> None:
    from engine import SqliteSaver
    from studio.loader import load_graph

    path, db = _record(tmp_path)
    window = open_window(database=db)
    s = window.session
    before = len(s.history)
    writer = SqliteSaver(db)  # another connection, as another process would have
    graph = load_graph(path).graph.with_checkpointer(writer)
    graph.invoke(None, {"configurable": {"thread_id": "newer"}})  # goes past the breakpoint
    writer.close()
    qtbot.waitUntil(lambda: len(s.history) > before, timeout=5000)
    wait_ready(qtbot, window)
    assert s.history.get(s.head_id).nodes == ("assign",)
    assert "assigned" in panel_text(window.panels.state)
