"""`compiled.nodes`: node objects (their function under `.bound`, `.copy(update)`), and
`compiled.copy(update)`."""
import sys
from pathlib import Path
from typing import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402
from support import thread  # noqa: E402


class S(TypedDict):
    foo: str


def agent(state):
    return {"foo": "agent"}


def on_error(state):
    return {"foo": "handled"}


def case_compiled_nodes_are_node_objects(api, tmp):
    x = extra(api)
    inner = api.StateGraph(S).add_node("x", agent).add_edge(api.START, "x").compile()
    graph = (api.StateGraph(S)
             .add_node("agent", agent, metadata={"team": "a"}, retry_policy=x.RetryPolicy(max_attempts=2),
                       error_handler=on_error)
             .add_node("sub", inner)
             .add_edge(api.START, "agent").add_edge("agent", "sub")
             .compile())
    node = graph.nodes["agent"]
    changed = node.copy({"metadata": {"team": "b"}})
    return {
        "names": list(graph.nodes),
        "triggers": {name: list(n.triggers) for name, n in graph.nodes.items()},
        "metadata": dict(node.metadata), "copied": dict(changed.metadata), "after_copy": dict(node.metadata),
        "retry": [p.max_attempts for p in node.retry_policy],
        "subgraphs": {name: len(n.subgraphs) for name, n in graph.nodes.items()},
        "same_function": changed.bound is node.bound,
    }


def case_compiled_graph_copy(api, tmp):
    graph = api.StateGraph(S).add_node("a", agent).add_node("b", on_error).add_edge(api.START, "a") \
        .add_edge("a", "b").compile()
    copied = graph.copy({"name": "copied", "checkpointer": api.InMemorySaver(), "interrupt_before_nodes": ["b"]})
    out = copied.invoke({"foo": ""}, thread())
    return {"name": copied.name, "original": graph.name, "out": out, "next": list(copied.get_state(thread()).next),
            "plain": graph.copy().invoke({"foo": ""})}
