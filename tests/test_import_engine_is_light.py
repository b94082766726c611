"""`import engine` loads only what running a graph needs: networkx (drawing), psycopg
and the PostgreSQL saver and stores are imported on first use (issue 24: import time;
the time itself is a bench row, this counts modules)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("networkx", "psycopg", "psycopg_pool", "engine.checkpoint.postgres", "engine.store.postgres",
         "engine.store.postgres_aio", "engine.graph.drawing", "engine.graph.render", "langchain_core")


def _loaded(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_import_engine_and_running_a_graph_load_none_of_them() -> None:
    assert _loaded("import engine") == []
    run = ("from typing import TypedDict\nfrom engine import StateGraph, START, SqliteSaver\n"
           "class S(TypedDict):\n    n: int\n"
           "g = StateGraph(S); g.add_node('a', lambda s: {'n': s['n'] + 1}); g.add_edge(START, 'a')\n"
           "import tempfile, os\nd = tempfile.mkdtemp()\n"
           "app = g.compile(checkpointer=SqliteSaver(os.path.join(d, 'x.sqlite')))\n"
           "assert app.invoke({'n': 1}, {'configurable': {'thread_id': 't'}}) == {'n': 2}")
    assert _loaded(run) == []


def test_each_is_there_when_asked_for() -> None:
    assert "engine.checkpoint.postgres" in _loaded("from engine.checkpoint import PostgresSaver")
    assert "engine.store.postgres" in _loaded("from engine.store import PostgresStore")
    assert "engine.store.postgres_aio" in _loaded("from engine.store import AsyncPostgresStore")
    assert "networkx" in _loaded("from engine.graph import DrawableGraph")
    drawn = ("from typing import TypedDict\nfrom engine import StateGraph, START\n"
             "class S(TypedDict):\n    n: int\n"
             "g = StateGraph(S); g.add_node('a', lambda s: s); g.add_edge(START, 'a')\n"
             "assert 'a' in g.compile().get_graph().draw_mermaid()")
    assert "networkx" in _loaded(drawn)


def _engine_modules(code: str) -> list[str]:
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('engine'))))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_import_engine_loads_only_the_package_itself() -> None:
    # every public name is loaded on first use (PEP 562): a count of modules, not a time
    assert _engine_modules("import engine") == ["engine", "engine.lazy"]


def test_a_graph_without_stores_caches_or_sqlite_loads_none_of_their_modules() -> None:
    run = ("from typing import TypedDict\nfrom engine import StateGraph, START, InMemorySaver\n"
           "class S(TypedDict):\n    n: int\n"
           "g = StateGraph(S); g.add_node('a', lambda s: {'n': s['n'] + 1}); g.add_edge(START, 'a')\n"
           "app = g.compile(checkpointer=InMemorySaver())\n"
           "assert app.invoke({'n': 1}, {'configurable': {'thread_id': 't'}}) == {'n': 2}")
    loaded = _engine_modules(run)
    unused = [m for m in loaded if m.startswith(("engine.store.", "engine.cache.", "engine.checkpoint.sqlite"))]
    assert unused == []
    assert "engine.checkpoint.sqlite" in _engine_modules("from engine import SqliteSaver")
    assert "engine.store.sqlite" in _engine_modules("import engine.store; engine.store.SqliteStore")


def test_every_public_name_is_the_one_its_module_defines() -> None:
    code = ("import engine, importlib\n"
            "bad = [n for m, names in engine._SOURCES.items() for n in names\n"
            "       if getattr(engine, n) is not getattr(importlib.import_module(m, 'engine'), n)]\n"
            "assert set(engine.__all__) == {n for names in engine._SOURCES.values() for n in names}\n"
            "assert not bad, bad\n"
            "ns = {}\nexec('from engine import *', ns)\nassert set(engine.__all__) <= set(ns)\n"
            "assert engine.checkpoint.InMemorySaver is engine.InMemorySaver  # a submodule as an attribute\n"
            "assert 'StateGraph' in dir(engine)\n"
            "try:\n    engine.NoSuchName\nexcept AttributeError as exc:\n    assert 'NoSuchName' in str(exc)\n"
            "else:\n    raise AssertionError('no error')")
    assert _engine_modules(code)
