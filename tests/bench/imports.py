"""`import engine` in a fresh interpreter (issue 24, target 5: at most 150 ms on an idle
machine; networkx, psycopg and the rest load only when used).

Each sample is one child process that times its own import (interpreter start-up is
not counted); engine and LangGraph (`import langgraph.graph`) alternate. The floor
imports the standard-library and third-party modules the engine itself needs to run a
graph (asyncio, sqlite3, dataclasses, orjson), so engine minus floor is the engine's own code.

Every side imports from compiled bytecode, as an installed copy does (pip compiles at
install; Python caches on first import): the children get a bytecode cache of their own
under the bench's work directory, filled by the warm-up round, with
PYTHONDONTWRITEBYTECODE dropped. Without it a machine that sets that variable would time
the compiler, not the import (about half of the figure here).
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from .harness import Context, Row, Target, alternate, median_of

__all__ = ["NAME", "run"]

NAME = "import"

_ROOT = Path(__file__).resolve().parents[2]
_FLOOR = "asyncio, sqlite3, dataclasses, typing, orjson"


def _child(module: str, pycache: Path, statement: str | None = None) -> Callable[[], float]:
    code = ("import time; t = time.perf_counter(); "
            f"{statement or 'import ' + module}; print(time.perf_counter() - t)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSTARTUP", "PYTHONDONTWRITEBYTECODE")}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)

    def once() -> float:
        proc = subprocess.run([sys.executable, "-c", code], cwd=_ROOT, env=env, check=True,
                              capture_output=True, text=True, timeout=60)
        return float(proc.stdout.strip().splitlines()[-1])

    return once


def run(ctx: Context) -> list[Row]:
    p = ctx.profile
    ctx.progress("import: engine in a fresh interpreter")
    runs = max(p.runs, 5)
    pycache = ctx.workdir / "pycache"
    sides = {"engine": _child("engine", pycache)}
    if ctx.langgraph is not None:
        sides["langgraph"] = _child("langgraph.graph", pycache)
    medians = alternate(sides, runs=runs, warmup=1)
    floor = median_of(_child(_FLOOR, pycache), runs=runs)
    # `import engine` loads its names on first use (PEP 562): what a graph needs is the next row
    graph_sides = {"engine": _child("engine", pycache, "from engine import StateGraph")}
    if ctx.langgraph is not None:
        graph_sides["langgraph"] = _child("langgraph.graph", pycache, "from langgraph.graph import StateGraph")
    graph_medians = alternate(graph_sides, runs=runs, warmup=1)
    load = os.getloadavg()[0]
    return [Row(
        key="import.engine", workload="`import engine` in a fresh interpreter", unit="ms",
        engine=medians["engine"] * 1e3,
        langgraph=medians["langgraph"] * 1e3 if "langgraph" in medians else None,
        floor=floor * 1e3, target=Target(kind="max", limit=150),
        note=f"LangGraph: `import langgraph.graph`; floor: `import {_FLOOR}`; all from compiled bytecode; "
             f"load average {load:.1f} (the target is for an idle machine); every name loads on first use, "
             "so the next row is what a graph needs",
    ), Row(
        key="import.state_graph", workload="`from engine import StateGraph` in a fresh interpreter", unit="ms",
        engine=graph_medians["engine"] * 1e3,
        langgraph=graph_medians["langgraph"] * 1e3 if "langgraph" in graph_medians else None,
        floor=floor * 1e3, target=Target(kind="max", limit=150),
        note="LangGraph: `from langgraph.graph import StateGraph`; the floor as above; the saver, store and cache "
             f"modules are not loaded until used; load average {load:.1f}",
    )]
