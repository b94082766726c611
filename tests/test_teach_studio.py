"""The teaching tools in the real window (offscreen, real graphviz, real SQLite): why on
the graph, pending writes, reducer lines, autoplay, the history scrubber, presentation
mode and the lessons."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    EXAMPLES,
    act,
    open_window,
    panel_text,
    run_command,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

LESSONS = EXAMPLES / "lessons"

CLASH = """
    def keep_max(current, new):
        \"\"\"Keeps the larger of the two numbers.\"\"\"
        return max(current, new)

    class S(TypedDict, total=False):
        topic: str
        best: Annotated[int, keep_max]
        votes: Annotated[list, operator.add]

    b = StateGraph(S)
    b.add_node("alice", lambda s: {"topic": "cats", "best": 3, "votes": ["alice"]})
    b.add_node("bob", lambda s: {"topic": "dogs" if s.get("topic") == "clash" else s["topic"], "best": 5,
                                  "votes": ["bob"]} if s.get("topic") == "clash" else {"best": 5, "votes": ["bob"]})
    b.add_edge(START, "alice")
    b.add_edge(START, "bob")
    graph = b.compile()
    example_input = {"topic": "pets", "best": 0}
"""


def why(window):
    return window.teaching.why


def test_why_on_the_graph_triggers_join_waiting_badge_frame_and_hover(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    graph = window.panels.graph
    act(qtbot, window, "step")  # START writes the input: superstep 1 is planned
    assert set(why(window).together) == {"search_web", "search_db"}
    assert {("__start__", "search_web"), ("__start__", "search_db")} <= set(graph.why.triggered)
    assert graph.why.frame is not None  # the frame around the superstep's two tasks
    for node in ("search_web", "search_db"):
        assert graph.why.frame.contains(graph.node_item(node).sceneBoundingRect().center())
    assert not graph.why.frame.contains(graph.node_item("merge").sceneBoundingRect().center())
    act(qtbot, window, "step")  # search_db: its writes are pending
    assert [b.text for b in graph.why.badges["search_db"]] == ["✓ pending"]
    act(qtbot, window, "step")  # search_web, and the superstep commits
    badges = [b.text for b in graph.why.badges["merge"]]
    assert badges == ["waits for rank_web (1/2)"]
    tip = graph.node_item("merge").toolTip()
    assert tip.startswith("`merge` waits for rank_web: 1 of 2 sources finished (search_db)")
    assert graph.node_item("rank_web").toolTip().startswith("`rank_web` runs next because edge search_web → rank_web")
    graph.show_hover("merge")  # what the mouse over `merge` does
    assert graph.caption.text().startswith("merge waits for rank_web") and graph.caption.isVisibleTo(window)
    graph.show_hover(None)
    assert graph.caption.text() == "1 task (rank_web) runs on the state after step 1"
    act(qtbot, window, "step")  # rank_web: now the join fires
    assert "join" in [label for _s, _t, label in why(window).triggers]
    assert graph.node_item("merge").toolTip().startswith("`merge` runs next because join: all of rank_web, search_db")


def test_send_badge_and_superstep_panel_list_the_sends(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "map_reduce.py")
    act(qtbot, window, "step")  # START
    act(qtbot, window, "step")  # split: sends one summarize per document
    graph = window.panels.graph
    assert [b.text for b in graph.why.badges["summarize"]] == ["Send ×3"]
    assert ("split", "summarize", "Send ×3") in why(window).triggers
    runs = window.teaching.superstep.section("Runs together")
    assert runs is not None and runs.child(0).text(0) == "· summarize ×3"
    assert why(window).hover["summarize"].startswith(
        "`summarize` runs next as 3 tasks: split sent Send('summarize', ...) ×3, and each task gets its own input")


def test_pending_writes_with_their_reducer_then_the_merge(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    panel = window.teaching.superstep
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # search_db finished; search_web not yet
    pending = panel.section("Pending writes (not applied yet)")
    assert pending is not None
    results = pending.child(0)
    assert results.text(0) == "results" and results.text(1) == "1 write · operator.add"
    assert results.child(0).text(0) == "⊕ search_db" and "db: internal wiki" in results.child(0).text(1)
    assert "old + each write" in results.child(0).toolTip(2)
    assert "internal wiki" not in panel_text(window.panels.state)  # pending: not in the state yet
    act(qtbot, window, "step")  # search_web: the commit merges both
    merged = panel.section("Step 1 committed: merged into the state")
    assert merged is not None
    rows = {merged.child(i).text(0): merged.child(i).text(1) for i in range(merged.childCount())}
    assert rows["results"].startswith("search_db → ") and rows["web_hits"].startswith("search_web → ")
    assert panel.section("Pending writes") is None


def test_reducer_lines_in_the_diff_panel_and_a_conflict_explained(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "clash", CLASH))
    act(qtbot, window, "step")  # START
    act(qtbot, window, "step_superstep")  # alice and bob: no clash on topic
    lines = window.panels.diff.reducer_lines()
    assert "best: keep_max: Keeps the larger of the two numbers." in lines
    assert any(line.startswith("votes: operator.add: old + each write") for line in lines)
    assert window.panels.diff.reducers.isVisibleTo(window)
    # a new run where both write the last-value key `topic`
    assert window.session.new_run({"topic": "clash", "best": 0})
    wait_ready(qtbot, window)
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # alice: pending, no conflict yet
    assert window.teaching.superstep.section("Conflicts") is None
    act(qtbot, window, "step")  # bob: the commit refuses the two writes
    conflicts = window.teaching.superstep.section("Conflicts")
    assert conflicts is not None
    assert "topic keeps the last value, and alice and bob each wrote it" in conflicts.child(0).text(0)
    badges = window.panels.graph.why.badges
    assert [b.text for b in badges["bob"]] == ["✗ conflict: topic", "✓ pending"]


def test_autoplay_runs_superstep_by_superstep_and_stops_at_the_end(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    teaching = window.teaching
    assert teaching.actions.play.shortcuts()[0].toString() == "F8"
    teaching.speed.setValue(10.0)
    teaching.mode.setCurrentIndex(teaching.mode.findData("superstep"))
    finished: list[str] = []
    window.session.commandFinished.connect(lambda name, _r: finished.append(name))
    teaching.actions.play.trigger()
    assert teaching.autoplay.playing
    qtbot.waitUntil(lambda: not teaching.autoplay.playing, timeout=30000)
    wait_ready(qtbot, window)
    assert window.session.status == "done"
    assert finished == ["step superstep"] * 4  # START, the fan-out, rank_web, merge
    assert not teaching.actions.play.isChecked()


def test_scrubber_replays_the_view_along_a_branch_without_running(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    session, scrubber = window.session, window.teaching.scrubber
    run_command(qtbot, window, session.continue_run)
    ids = list(scrubber.ids)
    assert len(ids) == 5 and scrubber.at_end()
    ran = len(session.history)
    scrubber.slider.setValue(2)  # as a drag would
    qtbot.waitUntil(lambda: session.viewed_id == ids[2], timeout=10000)
    wait_ready(qtbot, window)
    assert window.teaching.why.viewing and set(window.teaching.why.together) == {"rank_web"}
    assert "summary" not in panel_text(window.panels.state)
    assert scrubber.label.text().startswith("3/5 · step 1 · ")
    scrubber.step_by(-1)
    qtbot.waitUntil(lambda: session.viewed_id == ids[1], timeout=10000)
    assert len(session.history) == ran and session.status == "done"  # nothing ran
    # autoplay while viewing replays the history to the branch's end, never runs
    window.teaching.speed.setValue(10.0)
    window.teaching.actions.play.trigger()
    qtbot.waitUntil(lambda: not window.teaching.autoplay.playing, timeout=20000)
    wait_ready(qtbot, window)  # the last view (the head's) lands
    assert session.viewed_id is None and scrubber.at_end() and len(session.history) == ran
    # another branch: rewind to step 1 and step twice; select the old branch's end
    session.rewind(ids[2])
    wait_ready(qtbot, window)
    act(qtbot, window, "step")
    act(qtbot, window, "step")
    assert scrubber.ids[:3] == ids[:3] and scrubber.ids[3] != ids[3]
    session.select_checkpoint(ids[-1])
    qtbot.waitUntil(lambda: scrubber.ids == ids, timeout=10000)


def test_presentation_zoom_is_remembered_contrast_and_focus_layout(open_window, qtbot, settings) -> None:
    window = open_window(EXAMPLES / "parallel_search.py")
    teaching = window.teaching
    assert [s.toString() for s in teaching.actions.zoom_in.shortcuts()][:1] == ["Ctrl+="]
    assert teaching.actions.zoom_out.shortcuts()[0].toString() == "Ctrl+-"
    teaching.actions.zoom_in.trigger()
    teaching.actions.zoom_in.trigger()
    assert teaching.presentation.zoom == 1.3
    assert "font-size: 13.0pt" in window.styleSheet()  # QWidget's 10pt, zoomed
    assert window.panels.state.font().pointSizeF() > 12
    assert teaching.zoom_label.text().strip() == "130%"
    teaching.actions.high_contrast.setChecked(True)
    assert "QDockWidget::title" in window.styleSheet() and "#ffd400" in window.styleSheet()
    docks = window.docks
    teaching.actions.focus.setChecked(True)
    visible = {d.objectName() for d in (*docks.all(), teaching.superstep_dock) if d.isVisible()}
    assert visible == {"dock-state", "dock-diff"} and window.panels.graph.isVisible()
    teaching.actions.focus.setChecked(False)
    assert docks.timeline.isVisible() and docks.events.isVisibleTo(window) is not None
    assert docks.inspector.isVisible()
    window.close()
    again = open_window(EXAMPLES / "parallel_search.py")  # the same settings file
    assert again.teaching.presentation.zoom == 1.3 and again.teaching.actions.high_contrast.isChecked()
    assert "font-size: 13.0pt" in again.styleSheet()


def test_each_lesson_shows_its_text_and_runs(open_window, qtbot) -> None:
    plain = open_window(EXAMPLES / "parallel_search.py")  # not a lesson: no Lesson, no Superstep panel
    assert not plain.teaching.lesson_dock.isVisible()
    assert not plain.teaching.superstep_dock.isVisible() and not plain.teaching.toolbar.isVisible()
    plain.teaching.toolbar.toggleViewAction().trigger()  # Teach ▸ Teaching Bar
    assert plain.teaching.toolbar.isVisible() and plain.teaching.scrubber.isVisible()
    plain.teaching.superstep_dock.toggleViewAction().trigger()  # Teach ▸ Superstep
    assert plain.teaching.superstep_dock.isVisible()
    plain.close()
    for name, words in (("supersteps_joins", "Supersteps and joins"), ("reducers_conflicts", "Reducers and conflicts"),
                        ("interrupts_time_travel", "Interrupts and time travel")):
        window = open_window(LESSONS / f"{name}.py")
        teaching = window.teaching
        assert teaching.lesson_dock.isVisible() and teaching.superstep_dock.isVisible()
        assert teaching.toolbar.isVisible()
        assert teaching.lesson.title.text() == words
        assert words in teaching.lesson.text() and len(teaching.lesson.text()) > 400
        window.close()
    # one lesson run through in the window (the others run headless in test_explain)
    window = open_window(LESSONS / "supersteps_joins.py")
    run_command(qtbot, window, window.session.continue_run, timeout=30000)
    assert window.session.status == "done"


GOTO = """
    from typing import Literal
    from engine import Command

    class S(TypedDict, total=False):
        n: int

    def pick(s) -> Command[Literal["left", "right"]]:
        return Command(goto="left", update={"n": 1})

    b = StateGraph(S)
    b.add_node("pick", pick)
    b.add_node("left", lambda s: {"n": 2})
    b.add_node("right", lambda s: {"n": 3})
    b.add_edge(START, "pick")
    graph = b.compile()
    example_input = {"n": 0}
"""


def test_a_command_goto_is_drawn_and_said(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "goto", GOTO))
    act(qtbot, window, "step")  # START
    act(qtbot, window, "step")  # pick returns Command(goto="left")
    graph = window.panels.graph
    assert [b.text for b in graph.why.badges["left"]] == ["goto"]
    assert ("pick", "left", "goto") in why(window).triggers
    assert ("pick", "left") in graph.why.triggered
    assert graph.node_item("left").toolTip().startswith("`left` runs next because pick returned Command(goto='left')")
    assert "does not run next" in graph.node_item("right").toolTip()


def test_after_a_rewind_the_superstep_panel_drops_the_old_branchs_merges(open_window, qtbot) -> None:
    """Rewind to step 1 and step on: the Superstep panel kept showing "Step 4 committed"
    (the old branch's last merge) under the new branch's superstep 2."""
    window = open_window(LESSONS / "interrupts_time_travel.py")
    session = window.session
    run_command(qtbot, window, session.continue_run)  # review asks
    run_command(qtbot, window, lambda: session.resume("no"))  # revise, write, review asks again
    assert why(window).merged_step is not None and why(window).merged_step > 1
    step1 = next(r.id for r in session.history.rows() if r.step == 1 and r.source == "loop")
    session.rewind(step1)
    wait_ready(qtbot, window)
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # review asks again, on the new branch
    view = why(window)
    assert view.step == 2 and view.merged == () and view.merged_step is None
