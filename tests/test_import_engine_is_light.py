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
