"""A node that calls sys.exit(), raises KeyboardInterrupt, or misuses GeneratorExit is a
failed node: the run stops there with the error shown, what was saved stays (a real SQLite
file), the debugger window stays open, and `retrograph run` says one line and exits non-zero."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.errors import NodeExitError
from engine.policies import TimeoutPolicy
from test_studio_support import (  # noqa: F401 (fixtures)
    ROOT,
    act,
    open_window,
    settings,
    studio_loop,
    write_graph,
)


class S(TypedDict):
    n: int


def _raiser(kind: str, is_async: bool) -> Any:
    def raise_it() -> None:
        if kind == "exit":
            sys.exit(3)
        if kind == "interrupt":
            raise KeyboardInterrupt
        raise GeneratorExit

    if is_async:
        async def node(s: S) -> dict[str, int]:
            raise_it()
            return {}
        return node

    def sync_node(s: S) -> dict[str, int]:
        raise_it()
        return {}
    return sync_node


def _graph(kind: str, is_async: bool, sibling: bool, timed: bool, db: Path) -> Any:
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": s["n"] + 1})
    extra = {"timeout": TimeoutPolicy(run_timeout=30)} if timed else {}
    g.add_node("b", _raiser(kind, is_async), **extra)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    if sibling:  # b fails beside a sibling of its superstep
        g.add_node("c", lambda s: {"n": s["n"] + 10})
        g.add_edge("a", "c")
    return g.compile(checkpointer=SqliteSaver(str(db)))


EXPECTED = {"exit": SystemExit, "interrupt": KeyboardInterrupt, "exitgen": NodeExitError}
SHAPES = [(a, s, t) for a in (False, True) for s in (False, True) for t in (False, True) if a or not t]


@pytest.mark.parametrize("kind", ["exit", "interrupt", "exitgen"])
@pytest.mark.parametrize("is_async,sibling,timed", SHAPES)
@pytest.mark.parametrize("api", ["invoke", "ainvoke"])
def test_the_run_stops_at_the_node_and_keeps_what_was_saved(tmp_path: Path, kind: str, is_async: bool,
                                                            sibling: bool, timed: bool, api: str) -> None:
    db = tmp_path / "runs.sqlite"
    graph = _graph(kind if kind != "exitgen" else "gen", is_async, sibling, timed, db)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(EXPECTED[kind]) as raised:
        if api == "invoke":
            graph.invoke({"n": 1}, config)
        else:
            asyncio.run(graph.ainvoke({"n": 1}, config))
    if kind == "exit":
        assert raised.value.code == 3  # invoke() raises it as the node did
    if kind == "exitgen":
        assert "'b' raised GeneratorExit" in str(raised.value)
    state = graph.get_state(config)
    # the superstep of `b` is still to do (a sibling that finished shows its kept write)
    assert state.values["n"] in ((2, 12) if sibling else (2,)) and "b" in state.next
    failed = [t for t in state.tasks if t.name == "b"]
    assert failed and failed[0].error is not None  # the failure is saved as b's error
    # nothing was lost: a second reader of the real file sees the same checkpoints
    reread = _graph("exit", False, sibling, False, db)
    assert [c.values for c in reread.get_state_history(config)] == \
        [c.values for c in graph.get_state_history(config)]


def test_a_failed_exit_is_retried_like_any_error(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(SystemExit):
        _graph("exit", False, False, False, db).invoke({"n": 1}, config)
    g = StateGraph(S)  # the fixed code resumes from the saved checkpoint
    g.add_node("a", lambda s: {"n": s["n"] + 1})
    g.add_node("b", lambda s: {"n": s["n"] * 100})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    fixed = g.compile(checkpointer=SqliteSaver(str(db)))
    assert fixed.invoke(None, config) == {"n": 200}


EXITING = """
    import sys
    class S(TypedDict):
        n: int
    def a(s):
        return {"n": s["n"] + 1}
    def b(s):
        BODY
    builder = StateGraph(S)
    builder.add_node("a", a)
    builder.add_node("b", b)
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    graph = builder.compile()
    example_input = {"n": 1}
"""


@pytest.mark.parametrize("body,said,code", [
    ("sys.exit(3)", "the run failed: node `b` called sys.exit(3)", 1),
    ("raise GeneratorExit", "the run failed: node `b` raised NodeExitError: Node 'b' raised GeneratorExit", 1),
    # a node's KeyboardInterrupt is what Ctrl+C during the node is: that line, exit 130
    ("raise KeyboardInterrupt", "stopped by Ctrl+C (the supersteps committed before it are saved", 130),
])
def test_retrograph_run_says_one_line_and_exits_non_zero(tmp_path: Path, body: str, said: str, code: int) -> None:
    path = write_graph(tmp_path, "exiting", EXITING.replace("BODY", body))
    db = tmp_path / "runs.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "studio", "run", str(path), "--db", str(db), "--thread", "t"],
                          capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == code, done.stderr
    lines = done.stderr.splitlines()
    assert lines[-1].startswith(f"retrograph: {said}"), lines
    assert len(lines) == 1 + lines[0].startswith("retrograph: thread"), lines  # no traceback
    assert done.stdout.splitlines() == ['{"a": {"n": 2}}']
    kept = SqliteSaver(str(db))
    assert kept.get_tuple({"configurable": {"thread_id": "t"}}) is not None


@pytest.mark.parametrize("body,title", [
    ("sys.exit(3)", "Stopped on an error in `b`: SystemExit: 3"),
    ("raise KeyboardInterrupt", "Stopped on an error in `b`: KeyboardInterrupt"),
])
def test_the_debugger_window_stays_and_shows_the_error(open_window, qtbot, tmp_path: Path,
                                                       body: str, title: str) -> None:
    path = write_graph(tmp_path, "exiting", EXITING.replace("BODY", body))
    window = open_window(path, watch=False)
    outcome = act(qtbot, window, "continue_")
    assert outcome.reason == "failed" and outcome.nodes == ("b",)
    assert window.isVisible()
    banner = window.stop_banner  # an error stop is said once, by the "stopped because" banner
    assert banner.isVisible() and banner.title.text() == title, banner.title.text()
    assert window.session.state.values == {"n": 2}
    outcome = act(qtbot, window, "step")  # the window still answers: F10 retries b (and fails again)
    assert outcome.reason == "failed"
