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
    from studio.core.loader import load_graph

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
    assert s.state.values["log"] == ["second", "triaged", "assigned"]
    state = panel_text(window.panels.state)
    assert "Ticket" in state and "printer on fire" in state and "UnknownValue" not in state


def test_checkpoints_written_by_another_process_appear(open_window, qtbot, tmp_path: Path) -> None:
    from engine import SqliteSaver
    from studio.core.loader import load_graph

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


WENT_WRONG = """
    class S(TypedDict):
        log: Annotated[list, operator.add]
        amount: int

    def plan(s):
        return {"log": ["planned"]}
    def ask(s):
        answer = interrupt({"question": f"Refund {s['amount']}?"})
        return {"log": [f"answer {answer}"]}
    def pay(s):
        if s["amount"] < 0:
            raise ValueError(f"cannot pay {s['amount']}")
        return {"log": ["paid"]}

    builder = StateGraph(S)
    builder.add_node("plan", plan)
    builder.add_node("ask", ask)
    builder.add_node("pay", pay)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", lambda s: "pay" if s["amount"] < 0 else "ask", ["ask", "pay"])
    builder.add_edge("ask", "pay")
    graph = builder.compile()
"""


def _record_failures(tmp_path: Path) -> Path:
    """Two runs that went wrong, written by a script: one raised in `pay`, one waits at `ask`."""
    import pytest

    from engine import SqliteSaver
    from studio.core.loader import load_graph

    path = write_graph(tmp_path, "went_wrong", WENT_WRONG)
    db = tmp_path / "went_wrong.sqlite"
    saver = SqliteSaver(db)
    graph = load_graph(path).graph.with_checkpointer(saver)
    with pytest.raises(ValueError):
        graph.invoke({"log": [], "amount": -5}, {"configurable": {"thread_id": "broken"}})
    graph.invoke({"log": [], "amount": 30}, {"configurable": {"thread_id": "waiting"}})
    saver.close()
    return db


def test_post_mortem_events_are_read_back_from_the_history(open_window, qtbot, tmp_path: Path) -> None:
    from studio.core.convert import clock

    db = _record_failures(tmp_path)
    window = open_window(database=db, thread_id="broken")
    s, events = window.session, window.panels.events
    rows = s.history.rows()
    listed = events.model.events
    # one row per checkpoint (its source, the nodes that made it, the time it was saved) ...
    per_checkpoint = [e for e in listed if e.checkpoint_id]
    assert [e.checkpoint_id for e in per_checkpoint] == [r.id for r in rows]
    assert [e.kind for e in per_checkpoint] == ["input", "loop", "loop"]
    assert per_checkpoint[-1].node == "plan" and "next: pay" in per_checkpoint[-1].text
    assert [e.at for e in per_checkpoint] == [clock(r.created_at) for r in rows]
    # ... then the error the run stopped with, from the writes saved beside the last checkpoint
    error = listed[-1]
    assert error.kind == "error" and error.node == "pay" and "cannot pay -5" in error.text
    assert "ValueError" in error.traceback
    assert events.errors.text() == "1 error"
    model = events.model
    assert model.index(len(listed) - 1, 1).data() == "pay"
    assert model.index(0, 4).data() == clock(rows[0].created_at)  # the Time column
    # clicking a checkpoint's row shows that checkpoint (read-only)
    with qtbot.waitSignal(events.checkpoint_selected, timeout=2000):
        events._on_clicked(model.index(1, 2))
    wait_ready(qtbot, window)
    assert s.viewed_id == rows[1].id


def test_post_mortem_interrupt_cannot_be_resumed_without_the_code(open_window, qtbot, tmp_path: Path) -> None:
    db = _record_failures(tmp_path)
    window = open_window(database=db, thread_id="waiting")
    panel = window.panels.interrupts
    assert [c.view.node for c in panel.cards()] == ["ask"]
    assert panel.cards()[0].question.text() == "Refund 30?"
    panel.cards()[0].editor.setPlainText("true")
    assert not panel.resume_button.isEnabled()
    assert "without the graph's code" in panel.resume_button.toolTip()
    assert panel.why.isVisibleTo(panel)
    assert any(e.kind == "interrupt" and e.node == "ask" for e in window.panels.events.model.events)


def test_viewing_an_older_checkpoint_disables_resume(open_window, qtbot, tmp_path: Path) -> None:
    db = _record_failures(tmp_path)
    path = tmp_path / "went_wrong.py"
    window = open_window(database=db, graph=str(path), thread_id="waiting")
    s, panel = window.session, window.panels.interrupts
    panel.cards()[0].editor.setPlainText("true")
    assert panel.resume_button.isEnabled()  # at the head, with the code: it can go on
    window.actions.back.trigger()  # Ctrl+[: an older checkpoint, read-only
    wait_ready(qtbot, window)
    assert s.viewed_id is not None
    assert not panel.resume_button.isEnabled() and "older checkpoint" in panel.resume_button.toolTip()
    window.actions.forward.trigger()
    wait_ready(qtbot, window)
    assert panel.resume_button.isEnabled()
    with qtbot.waitSignal(s.commandFinished, timeout=10000):
        panel.resume_button.click()
    wait_ready(qtbot, window)
    assert s.state.values["log"] == ["planned", "answer True"]  # resumed: `ask` ran again, `pay` is next
    assert s.history.get(s.head_id).next == ("pay",)


def test_post_mortem_offers_no_rewind_and_never_moves_the_head(open_window, qtbot, tmp_path: Path) -> None:
    """Issue 25 item 13: nothing can be stepped without the code, so nothing offers to rewind."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QContextMenuEvent
    from PySide6.QtWidgets import QApplication, QMenu

    _, db = _record(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        window = open_window(database=db)
    s, timeline = window.session, window.panels.timeline
    head = s.head_id
    table = timeline.table
    first = table.visualRect(timeline.model.index(timeline.model.row_of(s.history.rows()[0].id), 1))
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=first.center())
    qtbot.waitUntil(lambda: s.viewed_id == s.history.rows()[0].id, timeout=5000)
    assert not timeline.rewind_button.isEnabled() and not timeline.fork_button.isEnabled()
    assert "read-only" in timeline.rewind_button.toolTip()
    menus: list[list[tuple[str, bool]]] = []

    def read_menu() -> None:
        menu = next(w for w in QApplication.topLevelWidgets() if isinstance(w, QMenu) and w.isVisible())
        menus.append([(a.text(), a.isEnabled()) for a in menu.actions() if a.text()])
        menu.close()

    from PySide6.QtCore import QTimer

    QTimer.singleShot(200, read_menu)
    at = first.center()  # a right-click's context-menu event
    QApplication.sendEvent(table.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at,
                                                               table.viewport().mapToGlobal(at)))
    qtbot.waitUntil(lambda: bool(menus), timeout=5000)
    assert ("Rewind here", False) in menus[0] and ("Edit state and fork…", False) in menus[0]
    s.rewind(s.history.rows()[0].id)  # even when asked directly, the head stays
    wait_ready(qtbot, window)
    assert s.head_id == head
