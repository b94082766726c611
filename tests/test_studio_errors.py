"""Errors land in the window's banner, never in a crash; history survives every one of them."""
from __future__ import annotations

import dataclasses

import sqlite3
from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    event_lines,
    open_window,
    panel_text,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

FLAKY = """
    class S(TypedDict):
        log: Annotated[list, operator.add]

    def plan(s):
        return {"log": ["plan"]}
    def fetch(s):
        return {"log": ["fetch"]}
    def parse(s):
        BODY

    builder = StateGraph(S)
    builder.add_node("plan", plan)
    builder.add_node("fetch", fetch)
    builder.add_node("parse", parse)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "fetch")
    builder.add_edge("plan", "parse")
    builder.add_edge("fetch", END)
    builder.add_edge("parse", END)
    graph = builder.compile()
    example_input = {"log": []}
"""


def _flaky(tmp_path: Path, body: str) -> Path:
    return write_graph(tmp_path, "flaky", FLAKY.replace("BODY", body))


def test_node_error_then_fix_reload_and_retry(open_window, qtbot, tmp_path: Path) -> None:
    path = _flaky(tmp_path, "raise ValueError('bad page 7')")
    window = open_window(path, watch=False)
    s = window.session
    for _ in range(3):  # __start__, plan, fetch (its writes are saved beside the checkpoint)
        act(qtbot, window, "step")
    outcome = act(qtbot, window, "step")  # parse raises
    assert outcome.reason == "failed" and outcome.nodes == ("parse",)
    banner, stop = window.banner, window.stop_banner  # an error stop is said once, by the stop banner
    assert stop.isVisible() and not banner.isVisible()
    assert stop.title.text() == "Stopped on an error in `parse`: ValueError: bad page 7", stop.title.text()
    assert "Traceback" in stop.trace.toPlainText() and stop.details.isVisible()
    assert banner.error is not None and banner.error.title == "Node `parse` raised ValueError"
    assert "parse" in s.marks().failed
    kept = len(s.history)
    head = s.head_id
    assert s.history.get(head).next == ("fetch", "parse")  # paused at that superstep
    _flaky(tmp_path, "return {'log': ['parsed']}")
    with qtbot.waitSignal(s.graphOpened, timeout=10000):
        window.actions.reload.trigger()  # Ctrl+R (the file imports on a worker thread)
    wait_ready(qtbot, window)
    assert not banner.isVisible() and not stop.isVisible()  # the error went, and its stop
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "done"
    assert s.state.values["log"] == ["plan", "fetch", "parsed"]
    assert len(s.history) == kept + 1 and s.history.parent(s.head_id) == head
    assert "fetch: wrote log (replayed from saved writes)" in event_lines(window)  # the sibling did not re-run


def test_saving_the_file_reloads_it(open_window, qtbot, tmp_path: Path) -> None:
    path = _flaky(tmp_path, "raise ValueError('broken')")
    window = open_window(path)
    act(qtbot, window, "continue_")
    old = window.session.graph
    _flaky(tmp_path, "return {'log': ['ok']}")
    qtbot.waitUntil(lambda: window.session.graph is not old, timeout=5000)
    assert not window.banner.isVisible()
    assert act(qtbot, window, "continue_").reason == "done"


def test_syntax_error_shows_file_and_line(open_window, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "typo.py"
    path.write_text("from engine import StateGraph\n\ngraph = StateGraph(dict\n")
    window = open_window(path)
    assert window.banner.isVisible()
    assert window.banner.title.text() == "Syntax error in the graph file"
    assert window.banner.text.text().startswith(f"{path}:3: ")
    assert not window.actions.step.isEnabled()


def test_file_without_graph_shows_a_message(open_window, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "nothing.py"
    path.write_text("ANSWER = 42\n")
    window = open_window(path)
    assert window.banner.title.text() == "No graph in the file"
    assert "defines no graph" in window.banner.text.text()


def test_invalid_input_json_shows_a_message_and_keeps_the_text(open_window, qtbot, tmp_path: Path) -> None:
    path = _flaky(tmp_path, "return {}")
    window = open_window(path, input_text='{"log": [1, 2}')
    assert window.banner.title.text() == "Invalid --input"
    assert window.banner.text.text() == ("The input is not valid JSON: Expecting ',' delimiter at line 1, "
                                         "column 14.")
    assert window.input_text == '{"log": [1, 2}'
    refused = act(qtbot, window, "step")
    assert "No input for a new run" in str(refused)
    from studio.window.new_run import NewRunDialog

    texts = dataclasses.replace(window.session.new_run_texts(), input=window.input_text)
    dialog = NewRunDialog(texts, window.session.read_run_texts, window)
    qtbot.addWidget(dialog)
    dialog.start_button.click()
    assert not dialog.problem.isHidden() and "line 1, column 14" in dialog.problem.text()
    assert dialog.text == '{"log": [1, 2}'  # nothing lost
    dialog.editor.setPlainText('{"log": ["x"]}')
    dialog.start_button.click()
    assert dialog.value == {"log": ["x"]}


def test_resume_of_an_interrupt_that_is_gone(open_window, qtbot, tmp_path: Path) -> None:
    path = write_graph(tmp_path, "ask", """
        class S(TypedDict):
            answer: str
        def ask(s):
            return {"answer": interrupt("name?")}
        b = StateGraph(S)
        b.add_node("ask", ask)
        b.add_edge(START, "ask")
        graph = b.compile()
        example_input = {"answer": ""}
    """)
    window = open_window(path)
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"
    outcome = act_resume(qtbot, window, "ada", "0" * 32)
    assert "no longer pending" in str(outcome)
    assert s.state.driver.interrupts  # still waiting, nothing lost
    assert act_resume(qtbot, window, "ada", None).reason == "done"
    assert s.state.values == {"answer": "ada"}


def act_resume(qtbot, window, value, interrupt_id):
    with qtbot.waitSignal(window.session.commandFinished, timeout=10000) as blocker:
        window.session.resume(value, interrupt_id)
    wait_ready(qtbot, window)
    return blocker.args[1]


def test_a_database_that_is_not_retrograph_is_refused(open_window, qtbot, tmp_path: Path) -> None:
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes(x)")
    window = open_window(database=foreign)
    assert window.banner.title.text() == "Cannot open the checkpoint database"
    assert "not a Retrograph checkpoint file" in window.banner.text.text()
    with sqlite3.connect(foreign) as conn:  # left untouched
        assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["notes"]


BAD_NODES = {
    "returns a list": ("def bad(s):\n    return ['not', 'a', 'dict']", "Expected dict"),
    "router to nowhere": ("def bad(s):\n    return {}\ndef route(s):\n    return 'nowhere'", "nowhere"),
    "two writes to a plain key": ("def bad(s):\n    return {'n': 1}\ndef twin(s):\n    return {'n': 2}",
                                  "Can receive only one value per step"),
    "unstorable value": ("def bad(s):\n    return {'n': object()}", "object"),
}


def _bad_graph(tmp_path: Path, case: str) -> Path:
    code, _ = BAD_NODES[case]
    wiring = {
        "router to nowhere": "b.add_conditional_edges('bad', route)",
        "two writes to a plain key": "b.add_node('twin', twin)\nb.add_edge(START, 'twin')",
    }.get(case, "")
    return write_graph(tmp_path, "bad", f"""
class S(TypedDict):
    n: object
{code}
b = StateGraph(S)
b.add_node('bad', bad)
b.add_edge(START, 'bad')
{wiring}
graph = b.compile()
example_input = {{'n': 0}}
""")


import pytest  # noqa: E402


@pytest.mark.parametrize("case", sorted(BAD_NODES))
def test_engine_errors_show_in_the_banner_and_keep_history(open_window, qtbot, tmp_path: Path, case: str) -> None:
    window = open_window(_bad_graph(tmp_path, case))
    s = window.session
    act(qtbot, window, "step")  # __start__
    kept = [r.id for r in s.history.rows()]
    act(qtbot, window, "step_superstep")
    stop = window.stop_banner  # a node's error stop: said by the stop banner; else the error banner
    assert window.banner.isVisible() != stop.isVisible(), case
    shown = stop.text() if stop.isVisible() else window.banner.title.text() + " " + window.banner.text.text()
    assert BAD_NODES[case][1] in shown, shown
    assert [r.id for r in s.history.rows()] == kept  # nothing was committed, nothing lost
    assert window.isVisible()


def test_f5_keeps_the_writes_of_a_failed_nodes_siblings(open_window, qtbot, tmp_path: Path) -> None:
    """F5 runs a superstep's tasks together: when one raises, the others still finish and
    their writes are saved, so a retry after the fix runs only the failed node (as F10 does)."""
    path = _flaky(tmp_path, "raise ValueError('bad page 7')")
    window = open_window(path, watch=False)
    s = window.session
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "failed" and outcome.nodes == ("parse",)
    assert "fetch: wrote log" in event_lines(window)  # the sibling finished despite the failure
    assert s.marks().failed == frozenset({"parse"})
    _flaky(tmp_path, "return {'log': ['parsed']}")
    with qtbot.waitSignal(s.graphOpened, timeout=10000):
        window.actions.reload.trigger()
    wait_ready(qtbot, window)
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["log"] == ["plan", "fetch", "parsed"]
    assert "fetch: wrote log (replayed from saved writes)" in event_lines(window)
