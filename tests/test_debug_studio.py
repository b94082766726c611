"""The Debug dock in a real window (offscreen, real SQLite): watches for every checkpoint,
conditional breakpoints stopping a continue, field history ("who changed this?") with a
click that jumps, search over every branch, and a recorded replay marked in the timeline."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QPushButton

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    panel_text,
    run_command,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

LOOP = """
    class S(TypedDict, total=False):
        n: int
        log: Annotated[list, operator.add]
        plan: dict

    CALLS = []

    def think(s):
        CALLS.append("think")
        return {"n": s["n"] + 1, "log": [f"think {s['n'] + 1}"],
                "plan": {"steps": ["a", "b"][: s["n"] % 2 + 1], "done": s["n"] >= 3}}
    def act(s):
        return {"log": [f"act {s['n']}"]}
    def again(s):
        return END if s["plan"]["done"] else "think"

    builder = StateGraph(S)
    builder.add_node("think", think)
    builder.add_node("act", act)
    builder.add_edge(START, "think")
    builder.add_edge("think", "act")
    builder.add_conditional_edges("act", again, ["think", END])
    graph = builder.compile()
    example_input = {"n": 0, "log": []}
"""


def settle(qtbot, window) -> None:
    tools = window.session.debugging
    qtbot.waitUntil(lambda: not tools.pending and not tools._refresh.isActive() and not tools._marks.isActive(),
                    timeout=15000)


def _window(open_window, tmp_path: Path):
    return open_window(write_graph(tmp_path, "loop", LOOP))


def test_watches_show_a_value_for_every_checkpoint(open_window, qtbot, tmp_path: Path) -> None:
    window = _window(open_window, tmp_path)
    tools, panel = window.session.debugging, window.debug_dock.panel
    act(qtbot, window, "continue_")
    panel.watch_edit.setText("len(log)")
    panel.watch_edit.returnPressed.emit()
    panel.watch_edit.setText("plan.steps")
    panel.watch_edit.returnPressed.emit()
    settle(qtbot, window)
    model = panel.watch_model
    assert model.columns == ["step", "ran", "len(log)", "plan.steps"]
    rows = {model.cells[i][0]: model.cells[i] for i in range(model.rowCount())}
    assert len(rows) == model.rowCount() == len(window.session.history.rows())  # every checkpoint
    assert rows["-1"][2] == "0" and rows["-1"][3] == "—" and rows["1"][2] == "1" and rows["1"][3] == '["a"]' and rows["2"][3] == '["a"]'
    assert rows[str(max(int(k) for k in rows))][2] == "8"
    # a bad expression names itself and adds nothing
    panel.watch_edit.setText("len(log")
    panel.watch_edit.returnPressed.emit()
    assert "`len(log` is not a valid expression" in panel.errors["watch"].text()
    assert len(tools.watches) == 2


def test_conditional_breakpoints_stop_a_continue(open_window, qtbot, tmp_path: Path) -> None:
    window = _window(open_window, tmp_path)
    panel, s = window.debug_dock.panel, window.session
    window.debug_dock.show_tab(1)
    panel.condition_kind.setCurrentIndex(panel.condition_kind.findData("expression"))  # stop when true
    panel.condition_edit.setText("n >= 2")
    panel.condition_node.setCurrentIndex(panel.condition_node.findData("think"))
    panel.condition_when.setCurrentIndex(panel.condition_when.findData("after"))
    panel.findChild(QPushButton, "addCondition").click()
    assert panel.condition_list.item(0).text() == "after a step: `n >= 2` becomes true at `think`"
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "breakpoint" and "`n >= 2` became true after `think`" in outcome.message
    assert s.state.values["n"] == 2
    window.session.debugging.remove_condition(0)
    # a key change written by a given node, stopping before the write is committed
    window.session.debugging.add_condition("change", "plan.steps", "think", "before")
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "breakpoint" and "`think` is about to write `plan`" in outcome.message
    assert s.state.values["n"] == 2  # not committed yet
    window.session.debugging.remove_condition(0)
    window.session.debugging.add_condition("change", "plan.steps", None, "after")
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "breakpoint" and "`plan.steps` changed (['a', 'b'] → ['a']), written by `think`" in outcome.message
    # bad inputs are named
    window.session.debugging.add_condition("expression", "n >>> 1", "", "after")
    assert "`n >>> 1` is not a valid expression" in panel.errors["condition"].text()
    window.session.debugging.add_condition("change", "n", "nope", "after")
    assert "no node `nope`" in panel.errors["condition"].text()


def test_field_history_lists_each_change_and_a_click_jumps(open_window, qtbot, tmp_path: Path) -> None:
    window = _window(open_window, tmp_path)
    panel, s = window.debug_dock.panel, window.session
    act(qtbot, window, "continue_")
    panel.field_edit.setText("plan.steps")
    panel.field_edit.returnPressed.emit()
    settle(qtbot, window)
    model = panel.field_model
    cells = [model.cells[i] for i in range(model.rowCount())]
    # appears at step 1 (written by think), then alternates with n's parity
    assert [c[0] for c in cells] == ["1", "3", "5", "7"]
    assert cells[0][2:] == ("think", "—", '["a"]') and cells[1][3:] == ('["a"]', '["a", "b"]')
    assert "changed 4 times" in panel.field_title.text()
    target = model.ids[1]
    with qtbot.waitSignal(s.viewChanged, timeout=10000):
        panel.field_view.clicked.emit(model.index(1, 0))
    wait_ready(qtbot, window)
    assert s.viewed_id == target
    panel.field_edit.setText("plan[")
    panel.field_edit.returnPressed.emit()
    settle(qtbot, window)
    assert "`plan[` is not a valid expression" in panel.errors["field"].text()


def test_search_covers_every_branch(open_window, qtbot, tmp_path: Path) -> None:
    window = _window(open_window, tmp_path)
    panel, s = window.debug_dock.panel, window.session
    act(qtbot, window, "continue_")
    first_think = next(r.id for r in s.history.rows() if r.nodes == ("think",))
    head = s.head_id
    s.edit_and_fork(first_think, {"log": ["edited branch"]})
    qtbot.waitUntil(lambda: s.head_id != head, timeout=10000)
    wait_ready(qtbot, window)
    window.session.debugging.search("edited branch", "text", "thread")
    settle(qtbot, window)
    assert panel.search_model.rowCount() == 1 and "every branch searched" in panel.search_note.text()
    assert s.history.branches() == 1  # one fork point: the match is on the second branch
    window.session.debugging.search("n == 3 and len(log) > 4", "expression")
    settle(qtbot, window)
    assert panel.search_model.rowCount() >= 1 and "len(log) > 4" in panel.search_model.cells[0][4]
    window.session.debugging.search("n ==", "expression")
    settle(qtbot, window)
    assert "`n ==` is not a valid expression" in panel.errors["search"].text()


def test_replay_from_the_studio_forks_and_marks_recorded_tasks(open_window, qtbot, tmp_path: Path) -> None:
    window = _window(open_window, tmp_path)
    s, tools = window.session, window.session.debugging
    act(qtbot, window, "continue_")
    before = {r.id for r in s.history.rows()}
    first = min(s.history.rows(), key=lambda r: r.step).id
    module = s.loaded.module
    module.CALLS.clear()
    run_command(qtbot, window, lambda: tools.replay(first, ["think"]))
    settle(qtbot, window)
    result = tools.last_replay
    assert result.status == "done" and module.CALLS == []  # think answered from the recording
    new = {r.id for r in s.history.rows()} - before
    assert result.fork_id in new and result.head_id in new
    timeline = window.panels.timeline.model
    marked = [timeline.data(timeline.index(timeline.row_of(st.checkpoint_id), 2)) for st in result.steps
              if st.recorded]
    assert marked and all(text == "think (rec)" for text in marked)


def test_an_exported_thread_opens_in_the_window(open_window, qtbot, tmp_path: Path) -> None:
    """`retrograph export` then `retrograph open FILE`: the window shows the thread from the file."""
    from engine.checkpoint.export import export_thread
    from engine.checkpoint import SqliteSaver

    window = _window(open_window, tmp_path)
    act(qtbot, window, "continue_")
    thread, rows = window.session.thread_id, len(window.session.history.rows())
    out = tmp_path / "exported.sqlite"
    export_thread(SqliteSaver(str(tmp_path / "runs.sqlite")), thread, out, redact=["plan"])
    viewer = open_window(database=out, thread_id=thread, db=tmp_path / "other.sqlite")
    assert viewer.session.thread_id == thread and len(viewer.session.history.rows()) == rows
    assert viewer.session.state.values["plan"] == "<redacted>" and viewer.session.state.values["n"] == 4


def test_replay_marks_tasks_answered_inside_a_subgraph(open_window, qtbot, tmp_path: Path) -> None:
    """The subgraph example: `research:extract` answered from the recording; the subgraph's
    own row in the timeline says so, and the dialog offers the inner nodes."""
    example = Path(__file__).resolve().parent.parent / "resources" / "examples" / "subgraph.py"
    window = open_window(example)
    s, tools = window.session, window.session.debugging
    act(qtbot, window, "continue_")
    assert "research:extract" in tools.replay_nodes()
    first = min(s.history.rows(), key=lambda r: r.step).id
    run_command(qtbot, window, lambda: tools.replay(first, ["research:extract"]))
    settle(qtbot, window)
    result = tools.last_replay
    assert result.status == "done", result.error
    (marked, nodes), = result.marks.items()
    assert nodes == ("extract",)
    timeline = window.panels.timeline.model
    texts = [str(timeline.data(timeline.index(r, 2))) for r in range(timeline.rowCount())]
    assert any(t.endswith("extract (rec)") and "research" in t for t in texts), texts
