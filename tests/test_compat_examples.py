"""The LangGraph-app examples: run on the engine (through engine.compat), compared with a
run on the real LangGraph, and opened and driven in the studio window."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("langchain_core")

from test_studio_support import (  # noqa: E402,F401 (fixtures)
    EXAMPLES,
    ROOT,
    act,
    answer,
    open_window,
    panel_text,
    settings,
    studio_loop,
)

RUN = textwrap.dedent("""
    import json, runpy, sys
    if sys.argv[1] == "engine":
        from engine import compat
        compat.install()
    from langgraph.types import Command
    module = runpy.run_path(sys.argv[2], run_name="example")
    graph, config = module["graph"], {"configurable": {"thread_id": "t"}}
    graph.invoke(module["example_input"], config)
    if graph.get_state(config).next:
        graph.invoke(Command(resume="yes"), config)
    history = [(s.metadata["step"], s.metadata["source"], list(s.next)) for s in graph.get_state_history(config)]
    messages = [(m.type, m.content, getattr(m, "tool_call_id", None)) for m in graph.get_state(config).values["messages"]]
    print(json.dumps({"history": history, "messages": messages}))
""")


def _run(impl: str, name: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if impl == "engine":
        env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", RUN, impl, str(EXAMPLES / f"{name}.py")], capture_output=True,
                         text=True, timeout=120, cwd="/", env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", ["langchain_react", "langchain_approval"])
def test_same_checkpoints_and_messages_as_langgraph(name: str) -> None:
    pytest.importorskip("langgraph.prebuilt")
    ours, theirs = _run("engine", name), _run("langgraph", name)
    assert ours == theirs
    assert ours["messages"][-1][0] == "ai"


def test_react_example_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "langchain_react.py")
    s = window.session
    assert "langgraph imports run on Retrograph's engine" in window.status_state.text()
    assert {"agent", "tools"} <= set(s.state.graph.get_graph().nx.nodes)
    assert act(qtbot, window, "continue_").reason == "done"
    text = panel_text(window.panels.state)
    assert "multiply: 42.0; weather: 18°C and sunny" in text
    assert [type(m).__name__ for m in s.state.values["messages"]] == [
        "HumanMessage", "AIMessage", "ToolMessage", "ToolMessage", "AIMessage"]


def test_approval_example_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "langchain_approval.py")
    s = window.session
    assert act(qtbot, window, "continue_").reason == "interrupted"
    assert "Run these tool calls?" in panel_text(window.panels.interrupts)
    [pending] = s.state.driver.interrupts
    answer(qtbot, window, pending.interrupt.id, '"no"')
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["messages"][-1].content.startswith("The refund was not made: refused by the reviewer")


PREGEL_RUN = textwrap.dedent("""
    import json, runpy, sys
    if sys.argv[1] == "engine":
        from engine import compat
        compat.install()
    module = runpy.run_path(sys.argv[2], run_name="example")
    graph, config = module["graph"], {"configurable": {"thread_id": "t"}}
    out = graph.invoke(module["example_input"], config)
    history = [(s.metadata["step"], s.metadata["source"], sorted(s.next)) for s in graph.get_state_history(config)]
    updates = list(graph.stream(module["example_input"], {"configurable": {"thread_id": "u"}}, stream_mode="updates"))
    print(json.dumps({"out": out, "history": history, "updates": sorted(map(json.dumps, updates))}))
""")


def test_pregel_example_runs_as_on_langgraph() -> None:
    pytest.importorskip("langgraph.pregel")
    runs = {}
    for impl in ("engine", "langgraph"):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        if impl == "engine":
            env["PYTHONPATH"] = str(ROOT)
        done = subprocess.run([sys.executable, "-c", PREGEL_RUN, impl, str(EXAMPLES / "pregel_pipeline.py")],
                              capture_output=True, text=True, timeout=120, cwd="/", env=env)
        assert done.returncode == 0, done.stderr
        runs[impl] = json.loads(done.stdout.splitlines()[-1])
    assert runs["engine"] == runs["langgraph"]
    assert runs["engine"]["out"]["count"] == 3


def test_pregel_example_steps_in_the_window(open_window, qtbot) -> None:
    window = open_window(EXAMPLES / "pregel_pipeline.py")
    s = window.session
    assert {"clean", "count", "shout"} <= set(s.state.graph.get_graph().nx.nodes)
    act(qtbot, window, "step_superstep")  # clean (the input was written into `text` by the start)
    assert s.state.values["words"] == ["hello", "pregel", "world"]
    assert "count" not in s.state.values
    assert act(qtbot, window, "continue_").reason == "done"
    assert s.state.values["count"] == 3 and s.state.values["loud"] == "HELLO PREGEL WORLD"
    assert "HELLO PREGEL WORLD" in panel_text(window.panels.state)
