"""Issue 12, time travel in a real window: two chosen checkpoints compared (1, 2),
active edges (3)."""
from __future__ import annotations

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

CHAIN = """
    class S(TypedDict):
        log: Annotated[list, operator.add]
        route: str

    def prepare(s):
        return {"log": ["prepared"]}
    def router(s):
        return s.get("route") or "review"
    def review(s):
        return {"log": ["reviewed"]}
    def refund(s):
        return {"log": ["refunded"]}
    def close(s):
        return {"log": ["closed"]}

    builder = StateGraph(S)
    for name, fn in (("prepare", prepare), ("review", review), ("refund", refund), ("close", close)):
        builder.add_node(name, fn)
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", router, {"needs review": "review", "refund": "refund"})
    builder.add_edge("review", "close")
    builder.add_edge("refund", "close")
    builder.add_edge("close", END)
    graph = builder.compile()
    example_input = {"log": [], "route": "needs review"}
"""


def _click_row(qtbot, table, row: int, ctrl: bool = False) -> None:
    from PySide6.QtCore import Qt

    rect = table.visualRect(table.model().index(row, 2))
    mod = Qt.KeyboardModifier.ControlModifier if ctrl else Qt.KeyboardModifier.NoModifier
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, mod, rect.center())


def test_ctrl_click_keeps_two_checkpoints_for_compare(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    for _ in range(4):
        act(qtbot, window, "step")
    tl = window.panels.timeline
    table = tl.table
    assert tl.model.rowCount() >= 4
    _click_row(qtbot, table, 1)
    wait_ready(qtbot, window)
    _click_row(qtbot, table, 3, ctrl=True)
    wait_ready(qtbot, window)
    assert len(tl.selected_ids()) == 2, tl.selected_ids()
    assert tl.compare_button.isEnabled()
    with qtbot.waitSignal(window.session.compareReady, timeout=10000) as blocker:
        tl.compare_button.click()
    record = blocker.args[0]
    assert {record.left_id, record.right_id} == set(tl.selected_ids())


def test_compare_dialog_names_sides_by_step_nodes_branch_and_time(open_window, qtbot, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QApplication

    from studio.panels.diff.compare import CompareDialog

    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    for _ in range(3):
        act(qtbot, window, "step")
    s = window.session
    rows = s.history.rows()
    with qtbot.waitSignal(s.compareReady, timeout=10000):
        s.compare(rows[2].id, rows[-1].id)
    qtbot.waitUntil(lambda: any(isinstance(w, CompareDialog) and w.isVisible()
                                for w in QApplication.topLevelWidgets()), timeout=5000)
    dialog = next(w for w in QApplication.topLevelWidgets() if isinstance(w, CompareDialog) and w.isVisible())
    title = dialog.view.title.text()
    assert "step 1 · prepare · main line" in title, title
    assert f"step {rows[-1].step} · review · main line" in title, title
    assert "…" not in title and ":" in title.split("·")[-1]  # a time, no shortened id
    dialog.close()


LOOPY = """
    class S(TypedDict):
        log: Annotated[list, operator.add]

    def prepare(s):
        return {"log": ["prepared"]}
    def check(s):
        return {"log": ["checked"]}
    def review(s):
        return {"log": ["reviewed"]}
    def refund(s):
        return {"log": ["refunded"]}

    builder = StateGraph(S)
    for name, fn in (("prepare", prepare), ("check", check), ("review", review), ("refund", refund)):
        builder.add_node(name, fn)
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", lambda s: "check", ["check", "refund"])
    builder.add_conditional_edges("check", lambda s: "refund", ["review", "refund"])
    builder.add_edge("review", END)
    builder.add_edge("refund", END)
    graph = builder.compile()
    example_input = {"log": []}
"""


def _active(window) -> set[tuple[str, str]]:
    return {(e.edge.source, e.edge.target) for e in window.panels.graph.edge_items() if e.active}


def test_active_edges_start_only_at_what_just_ran(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "loopy", LOOPY))
    s = window.session
    while s.history.get(s.head_id) is None or s.history.get(s.head_id).nodes != ("check",):
        act(qtbot, window, "step_superstep")
    # check's router chose refund: check -> refund is lit, not prepare -> refund (a step older)
    assert s.history.get(s.head_id).next == ("refund",)
    assert _active(window) == {("check", "refund")}, _active(window)
    window.actions.back.trigger()  # an older checkpoint: the same rule
    wait_ready(qtbot, window)
    assert _active(window) == {("prepare", "check")}, _active(window)


def test_conditional_edges_are_labelled_with_their_branch(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    labels = {(e.edge.source, e.edge.target): e.edge.label for e in window.panels.graph.edge_items()}
    assert labels[("prepare", "review")] == "router: needs review"
    assert labels[("prepare", "refund")] == "router: refund"
    window.grab()


def test_an_edit_is_shown_as_an_edit_not_a_node_write(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    s = window.session
    for _ in range(2):
        act(qtbot, window, "step")
    head = s.head_id
    s.edit_and_fork(head, {"log": ["only one"], "route": "refund"})
    qtbot.waitUntil(lambda: s.head_id != head, timeout=10000)
    wait_ready(qtbot, window)
    assert s.history.get(s.head_id).source == "update"
    diff = panel_text(window.panels.diff)
    assert "edited (update" in diff, diff[:800]
    assert "⊕ prepare" not in diff and "prepare ⊕" not in diff
    window.actions.back.trigger()  # read back from the file: the same words
    wait_ready(qtbot, window)
    window.actions.forward.trigger()
    wait_ready(qtbot, window)
    assert "edited (update" in panel_text(window.panels.diff)


def test_inspector_follows_reload_and_restart(open_window, qtbot, tmp_path: Path) -> None:
    path = write_graph(tmp_path, "chain", CHAIN)
    window = open_window(path)
    s = window.session
    inspector = window.panels.inspector
    s.select_node("prepare")
    wait_ready(qtbot, window)
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # prepare ran: its last input is shown
    assert "needs review" in inspector.last_input.toPlainText()
    old_thread = s.thread_id
    window.actions.restart.trigger()  # a new thread: the old run's input is not this run's
    qtbot.waitUntil(lambda: s.thread_id != old_thread, timeout=10000)
    wait_ready(qtbot, window)
    assert "needs review" not in inspector.last_input.toPlainText()
    path.write_text(path.read_text().replace('return {"log": ["prepared"]}',
                                             'return {"log": ["prepared again"]}'), encoding="utf-8")
    with qtbot.waitSignal(s.graphLoaded, timeout=10000):
        window.actions.reload.trigger()
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: "prepared again" in inspector.source.toPlainText(), timeout=5000)


def test_rewind_then_step_lists_only_the_node_that_ran(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "chain", CHAIN))
    s = window.session
    for _ in range(4):
        act(qtbot, window, "step")
    before = {r.id for r in s.history.rows()}
    base = next(r for r in s.history.rows() if r.nodes == ("prepare",))
    s.rewind(base.id)
    wait_ready(qtbot, window)
    act(qtbot, window, "step")  # F10 from the older checkpoint: review runs on a new branch
    new = [r for r in s.history.rows() if r.id not in before]
    assert [r.nodes for r in new if r.nodes] == [("review",)], new  # no row claims prepare ran again
    # the branch's steps do not shift: its "fork" copy (which owns the branch's writes, as
    # LangGraph's does) keeps the rewound step, and review commits at the next one
    fork, ran = new
    assert (fork.step, fork.parent_id, fork.source, fork.nodes) == (base.step, base.id, "fork", ())
    assert (ran.step, ran.parent_id, ran.source) == (base.step + 1, fork.id, "loop")
    assert s.history.branches() == 1  # one branch point: the rewound checkpoint
    assert s.history.branch_point(s.head_id) == base.id
    assert s.history.get(s.head_id).nodes == ("review",)
    model = window.panels.timeline.model
    shown = [model.index(i, 2).data() for i in range(model.rowCount())]
    assert shown.count("prepare") == 1, shown  # the fork row does not repeat prepare


def test_status_messages_go_when_they_stop_being_true(open_window, qtbot, tmp_path: Path) -> None:
    path = write_graph(tmp_path, "chain", CHAIN)
    window = open_window(path)
    s, bar = window.session, window.statusBar()
    s.toggle_breakpoint("review")
    act(qtbot, window, "continue_")
    assert "Breakpoint before review" in bar.currentMessage()
    act(qtbot, window, "step")  # review ran: the breakpoint is no longer what holds
    assert "Breakpoint" not in bar.currentMessage(), bar.currentMessage()
    path.write_text(path.read_text() + "\n)broken(\n", encoding="utf-8")
    window._on_file_changed(str(path))  # as the file watcher does
    qtbot.waitUntil(lambda: window.banner.error is not None, timeout=10000)
    wait_ready(qtbot, window)
    assert "reloading" not in bar.currentMessage(), bar.currentMessage()  # the banner says what holds


def test_an_interrupt_on_a_rewound_branch_resumes(open_window, qtbot, tmp_path: Path) -> None:
    from test_studio_support import EXAMPLES, answer

    window = open_window(EXAMPLES / "approval.py")
    s = window.session
    act(qtbot, window, "continue_")  # to review's interrupt
    (pending,) = window.panels.interrupts.cards()
    answer(qtbot, window, pending.view.interrupt_id, '{"approved": false}')
    act(qtbot, window, "continue_")  # to the end
    base = next(r for r in s.history.rows() if r.nodes == ("prepare",))
    s.rewind(base.id)
    wait_ready(qtbot, window)
    assert not window.panels.interrupts.cards()  # the old branch's question was answered there
    act(qtbot, window, "step")  # review asks again, on a new branch
    (card,) = window.panels.interrupts.cards()
    answer(qtbot, window, card.view.interrupt_id, '{"approved": true}')
    act(qtbot, window, "continue_")
    assert s.state.values.get("approved") is True
    assert s.history.branch_point(s.head_id) == base.id
    ran = [(r.step, r.nodes) for r in s.history.rows() if s.history.branch_point(r.id) == base.id and r.nodes]
    assert ran[0] == (base.step + 1, ("review",)), ran  # the branch's steps do not shift
