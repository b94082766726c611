"""engine.compat: `import langgraph...` served by the engine, never by an installed LangGraph."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine import compat

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def compat_on():
    compat.install()
    yield
    compat.uninstall()


def _child(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env=env)


def test_langgraph_names_are_the_engines(compat_on) -> None:
    import engine
    from engine.checkpoint.sqlite_aio import AsyncSqliteSaver as EngineAsync
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.config import get_config, get_stream_writer
    from langgraph.constants import END, START
    from langgraph.errors import GraphRecursionError
    from langgraph.graph import MessagesState, StateGraph, add_messages
    from langgraph.graph.message import add_messages as add_messages_2
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Command, Send, interrupt

    assert StateGraph is engine.StateGraph and CompiledStateGraph is engine.CompiledStateGraph
    assert add_messages is add_messages_2 is engine.add_messages and MessagesState is engine.MessagesState
    assert (START, END) == (engine.START, engine.END)
    assert (Command, Send, interrupt) == (engine.Command, engine.Send, engine.interrupt)
    assert (get_config, get_stream_writer) == (engine.get_config, engine.get_stream_writer)
    assert GraphRecursionError is engine.GraphRecursionError
    assert InMemorySaver is engine.InMemorySaver and SqliteSaver is engine.SqliteSaver
    assert AsyncSqliteSaver is EngineAsync
    import langgraph.graph

    assert "StateGraph" in langgraph.graph.__all__ and "StateGraph" in dir(langgraph.graph)


def test_a_name_the_engine_lacks_says_it_is_not_supported(compat_on) -> None:
    with pytest.raises(ImportError, match=r"cannot import name 'NoSuchThing' from 'langgraph.types' \(.*not supported yet by Retrograph"):
        from langgraph.types import NoSuchThing  # noqa: F401
    import langgraph.types

    assert not hasattr(langgraph.types, "NoSuchThing")  # an AttributeError, as for any module
    with pytest.raises(AttributeError, match=r"`langgraph.types.NoSuchThing` is not supported yet by Retrograph"):
        langgraph.types.NoSuchThing  # noqa: B018
    for module in ("langgraph._internal._queue",
                   "langgraph.nonexistent"):
        with pytest.raises(ModuleNotFoundError, match=rf"`{module}` is not supported yet by Retrograph"):
            __import__(module)


def test_an_area_the_engine_lacks_is_not_supported_until_it_exists(compat_on, monkeypatch) -> None:
    monkeypatch.setitem(compat.layout.OPTIONAL, "func", "engine.no_such_module_here")
    with pytest.raises(ModuleNotFoundError, match="`langgraph.func` is not supported yet"):
        import langgraph.func  # noqa: F401


def test_a_name_added_to_the_engine_later_is_served_without_editing_compat(compat_on, monkeypatch) -> None:
    import engine.types

    marker = object()
    monkeypatch.setattr(engine.types, "BrandNewThing", marker, raising=False)
    monkeypatch.setattr(engine.types, "__all__", [*engine.types.__all__, "BrandNewThing"])
    from langgraph.types import BrandNewThing

    assert BrandNewThing is marker


def test_layout_chains() -> None:
    assert compat.chain("checkpoint.sqlite.aio")[:2] == ("engine.checkpoint.sqlite.aio", "engine.checkpoint.sqlite_aio")
    assert compat.chain("checkpoint.postgres")[0] == "engine.checkpoint.postgres"
    assert compat.chain("graph.message")[0] == "engine.messages"
    assert compat.chain("types")[-1] == "engine"


def test_nothing_of_real_langgraph_is_loaded_while_compat_is_on() -> None:
    """In a fresh interpreter where real LangGraph is installed: every `langgraph` module
    is compat's, and none of real LangGraph's files is ever loaded."""
    out = _child("""
        import importlib.util, json, sys
        real = importlib.util.find_spec("langgraph")
        assert real is not None and real.submodule_search_locations, "real langgraph must be installed"
        real_dirs = [str(p) for p in real.submodule_search_locations]
        from engine import compat
        compat.install()
        from typing import TypedDict
        from langgraph.graph import StateGraph, START, END, MessagesState
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langgraph.types import Command, interrupt
        import langgraph.errors, langgraph.constants, langgraph.config, langgraph.runtime
        for name in ("langgraph.pregel", "langgraph.channels"):
            try:
                __import__(name)
            except ImportError:
                pass
        class S(TypedDict):
            n: int
        b = StateGraph(S); b.add_node("inc", lambda s: {"n": s["n"] + 1})
        b.add_edge(START, "inc"); b.add_edge("inc", END)
        result = b.compile(checkpointer=InMemorySaver()).invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
        names = sorted(n for n in sys.modules if n == "langgraph" or n.startswith("langgraph."))
        foreign = sorted(n for n in names if not getattr(sys.modules[n], "__retrograph_compat__", False))
        files = sorted(getattr(m, "__file__", None) or "" for m in list(sys.modules.values()))
        from_real = [f for f in files if any(f.startswith(d) for d in real_dirs)]
        print(json.dumps({"result": result, "names": names, "foreign": foreign, "from_real": from_real}))
    """)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.splitlines()[-1])
    assert report["result"] == {"n": 2}
    assert "langgraph.graph" in report["names"] and "langgraph.checkpoint.sqlite" in report["names"]
    assert report["foreign"] == [] and report["from_real"] == []


def test_install_sets_aside_a_loaded_langgraph_and_uninstall_brings_it_back() -> None:
    out = _child("""
        import sys
        import langgraph.graph as real_graph
        import langgraph.prebuilt, langgraph.checkpoint.sqlite  # much of LangGraph, lazy names included
        from engine import compat
        import engine
        compat.install(); compat.install()  # idempotent
        lg = [n for n in sys.modules if n == "langgraph" or n.startswith("langgraph.")]
        assert not any(not vars(sys.modules[n]).get("__retrograph_compat__") for n in lg), lg
        import langgraph.graph as served
        assert served is not real_graph and served.StateGraph is engine.StateGraph
        compat.uninstall()
        import langgraph.graph as back
        assert back is real_graph and back.StateGraph is not engine.StateGraph
        assert not any(getattr(m, "__retrograph_compat__", False) for m in list(sys.modules.values()))
        print("OK")
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "OK"
