"""A LangGraph app file, unmodified, opens in the studio and runs with `retrograph run`."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    ROOT,
    act,
    open_window,
    settings,
    studio_loop,
)

APP = textwrap.dedent("""\
    import operator
    from typing import Annotated, TypedDict
    from langgraph.graph import StateGraph, START, END
    from langgraph.checkpoint.memory import InMemorySaver

    class S(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    def inc(s):
        return {"n": s["n"] + 1, "log": [f"inc {s['n']}"]}

    builder = StateGraph(S)
    builder.add_node("inc", inc)
    builder.add_edge(START, "inc")
    builder.add_edge("inc", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    example_input = {"n": 1, "log": []}
""")


def _app(tmp_path: Path) -> Path:
    path = tmp_path / "lg_app.py"
    path.write_text(APP, encoding="utf-8")
    return path


def test_the_loader_finds_the_graph_of_a_langgraph_file(tmp_path: Path) -> None:
    from engine import CompiledStateGraph
    from studio.core.loader import LoadedGraph, load_graph

    loaded = load_graph(_app(tmp_path))
    assert isinstance(loaded, LoadedGraph), loaded
    assert isinstance(loaded.graph, CompiledStateGraph) and loaded.name == "graph"
    assert loaded.uses_langgraph
    assert loaded.engine_note == "lg_app.py's `langgraph` imports run on Retrograph's engine"


def test_an_engine_file_has_no_note(tmp_path: Path) -> None:
    from studio.core.loader import load_graph

    path = tmp_path / "plain.py"
    path.write_text(APP.replace("from langgraph.graph", "from engine").replace(
        "from langgraph.checkpoint.memory", "from engine"), encoding="utf-8")
    loaded = load_graph(path)
    assert not loaded.uses_langgraph and loaded.engine_note == ""


def test_retrograph_run_says_the_imports_run_on_the_engine(tmp_path: Path) -> None:
    code = "import sys; from studio.__main__ import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code, "run", str(_app(tmp_path)), "--stream-mode", "values"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert out.returncode == 0, out.stderr
    assert "lg_app.py's `langgraph` imports run on Retrograph's engine" in out.stderr
    assert out.stdout.splitlines()[-1] == '{"n": 2, "log": ["inc 1"]}'


def test_the_window_opens_a_langgraph_file_and_says_so(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(_app(tmp_path))
    assert window.session.state.graph is not None
    assert "langgraph imports run on Retrograph's engine" in window.status_state.text()
    assert act(qtbot, window, "continue_").reason == "done"
    assert window.session.state.values == {"n": 2, "log": ["inc 1"]}
