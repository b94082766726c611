"""LangGraph's graph classes are generic, and code built on it writes
`CompiledStateGraph[State, Context, Input, Output]` in annotations that run at import time
(langchain's agents and their users): the engine's classes take the subscript, the alias
still names the class, and calling an alias builds a working graph."""
import operator
from typing import Annotated, Any, TypedDict, get_args, get_origin

from engine import END, START, CompiledStateGraph, StateGraph


class State(TypedDict):
    seen: Annotated[list[str], operator.add]


def test_an_annotation_evaluated_at_definition_time_names_the_compiled_class():
    def make() -> CompiledStateGraph[State, None, State, State]:  # evaluated now: no future import here
        raise AssertionError

    hint = eval("CompiledStateGraph[State, None, State, State]")  # what an unquoted annotation runs
    assert get_origin(hint) is CompiledStateGraph
    assert get_args(hint) == (State, None, State, State)
    assert callable(make)


def test_a_subscripted_state_graph_builds_and_runs_the_same_graph():
    builder = StateGraph[State, Any, State, State](State)
    assert isinstance(builder, StateGraph)
    builder.add_node("a", lambda s: {"seen": ["a"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", END)
    graph: CompiledStateGraph[State, None, State, State] = builder.compile()
    assert isinstance(graph, CompiledStateGraph)
    assert graph.invoke({"seen": []}) == {"seen": ["a"]}


def test_the_langgraph_names_take_the_subscript_too():
    import engine.compat

    engine.compat.install()
    from langgraph.graph import StateGraph as LGStateGraph
    from langgraph.graph.state import CompiledStateGraph as LGCompiled

    assert get_origin(LGCompiled[Any, None, Any, Any]) is CompiledStateGraph
    assert get_origin(LGStateGraph[State]) is StateGraph
