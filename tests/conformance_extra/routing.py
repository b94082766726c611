"""Routers, Commands and Sends at their edges: what LangGraph does with odd returns."""
import operator
from typing import Annotated, TypedDict

from support import updates


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def _two(api):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(api.START, "a")
    return g


def case_router_returns_none(api, tmp):
    g = _two(api)
    g.add_conditional_edges("a", lambda s: None)
    return g.compile().invoke({"log": [], "n": 0})


def case_router_list_with_end(api, tmp):
    g = _two(api)
    g.add_conditional_edges("a", lambda s: ["b", api.END])
    return updates(g.compile(), {"log": [], "n": 0})


def case_router_sees_own_writes(api, tmp):
    g = _two(api)
    g.add_conditional_edges("a", lambda s: "b" if s["log"] == ["a"] else api.END)
    return g.compile().invoke({"log": [], "n": 0})


def case_command_goto_end(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: api.Command(update={"n": 5}, goto=api.END))
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    return updates(g.compile(), {"log": [], "n": 0})


def case_command_goto_list_and_send(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: api.Command(goto=["b", api.Send("c", {"log": ["x"], "n": 9})]))
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c" + str(s["n"])]})
    g.add_edge(api.START, "a")
    return g.compile().invoke({"log": [], "n": 0})


def case_send_order_of_writes(api, tmp):
    g = api.StateGraph(S)
    g.add_node("w", lambda s: {"log": [s["n"]]})
    g.add_conditional_edges(api.START, lambda s: [api.Send("w", {"n": i, "log": []}) for i in (3, 1, 2)])
    return g.compile().invoke({"log": [], "n": 0})


def case_parallel_write_order(api, tmp):
    # writes of one superstep are applied in node-name order
    g = api.StateGraph(S)
    for name in ("zeta", "alpha", "mid"):
        g.add_node(name, lambda s, name=name: {"log": [name]})
        g.add_edge(api.START, name)
    return g.compile().invoke({"log": [], "n": 0})


def case_node_returns_list(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: ["not", "a", "dict"])
    g.add_edge(api.START, "a")
    return g.compile().invoke({"log": [], "n": 0})


def case_same_node_twice_in_step(api, tmp):
    # two edges into one node in one superstep: it runs once
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge("a", "c")
    g.add_edge("b", "c")
    return updates(g.compile(), {"log": [], "n": 0}, ordered=False)


def case_input_unknown_keys_dropped(api, tmp):
    g = _two(api)
    return g.compile().invoke({"log": [], "n": 1, "zzz": 3})


def case_recursion_limit_loop_with_condition(api, tmp):
    g = api.StateGraph(S)
    g.add_node("count", lambda s: {"n": s["n"] + 1})
    g.add_edge(api.START, "count")
    g.add_conditional_edges("count", lambda s: api.END if s["n"] >= 3 else "count")
    return g.compile().invoke({"log": [], "n": 0}, {"recursion_limit": 4})


def case_router_hinted_with_the_state_sees_only_state_keys(api, tmp):
    class Overall(TypedDict):
        foo: Annotated[int, operator.add]
        bar: str

    class Private(TypedDict):
        baz: str

    seen = []

    def node_1(state: Overall):
        return {"foo": 1, "baz": "bar"}

    def node_2(state: Private):
        return {"foo": 1, "bar": state["baz"], "something_else": "meow"}

    def node_3(state: Overall):
        return {"foo": 1}

    def router(state: Overall):
        seen.append(dict(state))
        return "node_3" if state["foo"] == 2 else api.END

    g = api.StateGraph(Overall)
    g.add_node(node_1)
    g.add_node(node_2)
    g.add_node(node_3)
    g.add_conditional_edges("node_2", router)
    g.add_edge(api.START, "node_1")
    g.add_edge("node_1", "node_2")
    out = g.compile().invoke({"foo": 0})
    return {"out": out, "router_saw": seen}


def case_router_hinted_with_dict_sees_keys_beyond_the_state(api, tmp):
    seen = []

    def agent(s: S):
        return {"log": ["agent"], "something_extra": "hi there"}

    def decide(data: dict):
        seen.append(data.get("something_extra"))
        return api.END

    g = api.StateGraph(S)
    g.add_node("agent", agent)
    g.add_edge(api.START, "agent")
    g.add_conditional_edges("agent", decide)
    out = g.compile().invoke({"log": [], "n": 0})
    return {"out": out, "router_saw": seen}
