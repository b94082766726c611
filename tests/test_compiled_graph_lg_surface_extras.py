"""Smaller pieces of LangGraph's surface on any compiled graph: `output_keys` naming any
state channel (and the values stream showing only supersteps that wrote one), `map()`,
`astream_log()`, `checkpointer = False` set after compiling, a reducer key seen as a
BinaryOperatorAggregate, a Send's own timeout through JsonPlusSerializer, and a Send whose
state carries an untracked value saved without it."""
from __future__ import annotations

import asyncio
import operator
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine import END, START, InMemorySaver, Send, SqliteSaver, StateGraph
from engine.checkpoint.serde_jsonplus import JsonPlusSerializer
from engine.compat.channels import BinaryOperatorAggregate, UntrackedValue
from engine.policies import TimeoutPolicy


class S(TypedDict):
    a: int
    b: int


class Out(TypedDict):
    b: int


def _two_steps() -> Any:
    g = StateGraph(S, output_schema=Out)
    g.add_node("x", lambda s: {"a": 5})
    g.add_node("y", lambda s: {"b": 2})
    g.add_edge(START, "x")
    g.add_edge("x", "y")
    g.add_edge("y", END)
    return g.compile()


def test_output_keys_name_any_state_key_and_only_steps_writing_one_show() -> None:
    graph = _two_steps()
    assert list(graph.stream({"a": 1}, stream_mode="values", output_keys=["a"])) == [{"a": 1}, {"a": 5}]
    assert list(graph.stream({"a": 1}, stream_mode="values", output_keys="b")) == [2]
    assert graph.invoke({"a": 1}) == {"b": 2}


def test_map_invokes_the_graph_on_each_item() -> None:
    graph = _two_steps()
    assert graph.map().invoke([{"a": 1}, {"a": 2}]) == [{"b": 2}, {"b": 2}]


def test_astream_log_has_each_nodes_final_output() -> None:
    graph = _two_steps()

    async def collect() -> list[Any]:
        return [p async for p in graph.astream_log({"a": 1})]

    ops = [op for patch in asyncio.run(collect()) for op in patch.ops]
    finals = {op["path"]: op["value"] for op in ops if op["path"].endswith("/final_output")}
    assert finals["/logs/x/final_output"] == {"a": 5}
    assert finals["/logs/y/final_output"] == {"b": 2}


def test_checkpointer_false_set_after_compiling_saves_nothing_as_a_subgraph() -> None:
    inner_b = StateGraph(S)
    inner_b.add_node("inc", lambda s: {"a": s["a"] + 1})
    inner_b.add_edge(START, "inc")
    inner = inner_b.compile()
    inner.checkpointer = False
    assert inner.checkpointer is None and inner.persistence is False

    outer_b = StateGraph(S)
    outer_b.add_node("call", lambda s: {"a": inner.invoke({"a": s["a"]})["a"]})
    outer_b.add_edge(START, "call")
    saver = InMemorySaver()
    outer = outer_b.compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    for _ in range(2):
        assert outer.invoke({"a": 1}, cfg)["a"] == 2
    # two runs of input, START, call: the inner graph left no checkpoint of its own
    assert [c.config["configurable"]["checkpoint_ns"] for c in saver.list(cfg)] == [""] * 6


def test_a_reducer_key_is_a_binary_operator_aggregate() -> None:
    class R(TypedDict):
        d: Annotated[dict, operator.or_]
        n: int

    g = StateGraph(R)
    g.add_node("n", lambda s: {})
    g.add_edge(START, "n")
    graph = g.compile()
    assert isinstance(graph.channels["d"], BinaryOperatorAggregate)
    assert not isinstance(graph.channels["n"], BinaryOperatorAggregate)
    assert BinaryOperatorAggregate(dict, operator.or_) == graph.channels["d"]


def test_a_sends_own_timeout_round_trips_through_jsonplus() -> None:
    serde = JsonPlusSerializer(allowed_msgpack_modules=None)
    timed = Send("worker", {"x": 1}, timeout=TimeoutPolicy(run_timeout=1, idle_timeout=2))
    assert serde.loads_typed(serde.dumps_typed(timed)) == timed
    plain = Send("worker", {"x": 1})
    assert serde.loads_typed(serde.dumps_typed(plain)) == plain


class _Resource:
    def __init__(self, name: str) -> None:
        self.name = name
        self.lock = threading.Lock()


def test_a_send_carrying_an_untracked_value_is_saved_without_it(tmp_path: Path) -> None:
    class T(TypedDict):
        log: Annotated[list[str], operator.add]
        res: Annotated[_Resource, UntrackedValue]

    def tool(state: T) -> dict[str, Any]:
        return {"log": [f"used {state['res'].name}"], "res": _Resource("new")}

    g = StateGraph(T)
    g.add_node("setup", lambda s: {"log": ["setup"], "res": _Resource("first")})
    g.add_node("tool", tool)
    g.add_edge(START, "setup")
    g.add_conditional_edges("setup", lambda s: [Send("tool", s)])
    graph = g.compile(checkpointer=SqliteSaver(str(tmp_path / "t.sqlite")))
    cfg = {"configurable": {"thread_id": "1"}}
    out = graph.invoke({}, cfg)
    assert out["log"] == ["setup", "used first"] and out["res"].name == "new"
    assert "res" not in graph.get_state(cfg).values


def test_to_json_tags_a_langchain_chain_node_with_its_own_id() -> None:
    from langchain_core.runnables import RunnableLambda

    chain = RunnableLambda(lambda s: {"a": 1}) | RunnableLambda(lambda d: d)
    g = StateGraph(S)
    g.add_node("chain", chain)
    g.add_node("fn", lambda s: {"b": 1})
    g.add_edge(START, "chain")
    g.add_edge("chain", "fn")
    nodes = {n["id"]: n for n in g.compile().get_graph().to_json()["nodes"]}
    assert nodes["chain"]["data"]["id"] == ["langchain", "schema", "runnable", "RunnableSequence"]
    assert nodes["fn"]["data"]["id"] == ["langgraph", "_internal", "_runnable", "RunnableCallable"]
