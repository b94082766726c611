"""Run in a fresh process by test_agent_libraries_on_the_engine.py: every agents_* example
(deepagents, langgraph-supervisor, langgraph-swarm, langchain's create_agent) with all its
turns on the engine through engine.compat, though real LangGraph is installed beside it.
Prints one JSON line: each run's last message, where every loaded `langgraph` module came
from, and whether any module or function of real LangGraph's folder got loaded."""
from __future__ import annotations

import gc
import json
import runpy
import sys
import types
from pathlib import Path

import engine.compat

engine.compat.install()

sys.path.insert(0, sys.argv[1])
from agent_apps import APPS, EXAMPLES  # noqa: E402

from langgraph.types import Command  # noqa: E402

last = {}
for name, turns in APPS.items():
    module = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name=f"example_{name}")
    graph, config = module["graph"], {"configurable": {"thread_id": "t"}}
    out = graph.invoke(module["example_input"], config)
    for kind, value in turns:
        out = graph.invoke(Command(resume=value) if kind == "resume" else value, config)
    last[name] = out["messages"][-1].content

import deepagents  # noqa: E402

real = Path(deepagents.__file__).resolve().parent.parent / "langgraph"  # the site-packages beside it
prefix = str(real) + "/"
print(json.dumps({
    "last": last,
    "real_langgraph_installed": (real / "graph" / "state.py").is_file(),
    "langgraph_modules": sorted({getattr(m, "__file__", None) or "" for n, m in sys.modules.items()
                                 if n == "langgraph" or n.startswith("langgraph.")}),
    "modules_from_real": sorted(n for n, m in list(sys.modules.items())
                                if str(getattr(m, "__file__", None) or "").startswith(prefix)),
    "functions_from_real": sorted({f.__code__.co_filename for f in gc.get_objects()
                                   if isinstance(f, types.FunctionType) and f.__code__.co_filename.startswith(prefix)}),
}))
