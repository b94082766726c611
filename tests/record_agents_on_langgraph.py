"""Records what real LangGraph does with the agent-library examples into
tests/apps/agents_on_langgraph.json, which test_agent_libraries_parity.py compares the
engine with (so the comparison needs no real LangGraph installed).

    python -m tests.record_agents_on_langgraph          # rewrite the file
    python -m tests.record_agents_on_langgraph --print  # print, write nothing

Run it with a Python that has real langgraph, langchain, deepagents, langgraph-supervisor
and langgraph-swarm (the [agents] extra) and without engine.compat installed."""
from __future__ import annotations

import json
import runpy
import sys
from typing import Any

from tests.agent_apps import APPS, EXAMPLES, FIXTURE, comparable_run

__all__ = ["record", "main"]


def _dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return _dump(value.model_dump())
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_dump(v) for v in value]
    return value


def record(name: str) -> dict[str, Any]:
    """One example on real LangGraph: its turns on one thread, then its comparable run."""
    from langgraph.types import Command

    if any(getattr(m, "__retrograph_compat__", False) for n, m in sys.modules.items() if n.startswith("langgraph")):
        raise SystemExit("record_agents_on_langgraph: engine.compat is installed; run it on real LangGraph")
    module = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name=f"recorded_{name}")
    graph, config = module["graph"], {"configurable": {"thread_id": "t"}}
    graph.invoke(module["example_input"], config)
    for kind, value in APPS[name]:
        graph.invoke(Command(resume=value) if kind == "resume" else value, config)
    history = [{"step": s.metadata["step"], "source": s.metadata["source"], "next": list(s.next)}
               for s in graph.get_state_history(config)]
    return comparable_run(history, _dump(graph.get_state(config).values))


def main(argv: list[str]) -> int:
    recorded = {name: record(name) for name in APPS}
    text = json.dumps(recorded, indent=1, sort_keys=True) + "\n"
    if "--print" in argv:
        sys.stdout.write(text)
    else:
        FIXTURE.write_text(text, encoding="utf-8")
        print(f"record_agents_on_langgraph: wrote {FIXTURE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
