"""The node inspector shows the code an agent library's node runs, not "source not
available" for its RunnableCallable wrapper: create_agent's middleware hooks show the
middleware's method, a supervisor's experts name the agent graph they run (issue 21)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

if any(importlib.util.find_spec(m) is None for m in ("langchain", "deepagents", "langgraph_supervisor")):
    pytest.skip("the [agents] extra is not installed", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[1] / "resources" / "examples"


def _sources(example: str) -> dict[str, tuple[str, str | None]]:
    from studio.core.convert import node_details
    from studio.core.loader import load_graph

    graph = load_graph(EXAMPLES / f"{example}.py").graph
    return {n: (d.source, d.file) for n in graph.nodes if (d := node_details(graph, None, n))}


def test_middleware_hooks_show_their_methods() -> None:
    sources = _sources("agents_approval_summary")
    assert not any("source not available" in src for src, _ in sources.values()), sources
    source, file = sources["HumanInTheLoopMiddleware.after_model"]
    assert "def after_model(" in source and file is not None and file.endswith("human_in_the_loop.py")
    assert "def before_model(" in sources["SummarizationMiddleware.before_model"][0]
    assert "def model_node(" in sources["model"][0]


def test_a_deep_agents_nodes_show_their_code() -> None:
    sources = _sources("agents_deep")
    assert not any("source not available" in src for src, _ in sources.values()), sources
    assert "def before_agent(" in sources["PatchToolCallsMiddleware.before_agent"][0]


def test_a_supervisors_experts_name_their_agents() -> None:
    sources = _sources("agents_supervisor")
    assert not any("source not available" in src for src, _ in sources.values()), sources
    assert sources["math_expert"][0].startswith("# runs the compiled graph `math_expert` with nodes: model, tools")
