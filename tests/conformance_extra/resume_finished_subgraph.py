"""A resumed run and a subgraph whose own history is already finished: in the superstep
the parent resumes, the subgraph continues its checkpoint (nothing left to run) rather
than running again on its input; an update_state that finished it counts."""
import operator
from typing import Annotated, TypedDict

from support import thread


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    city: str


class P(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _inner(api, calls, **compile_kw):
    def pick(state):
        calls.append("pick")
        return {"log": ["pick"], "city": "sf"}

    def report(state):
        calls.append("report")
        return {"log": [f"report {state['city']}"]}

    g = api.StateGraph(S)
    g.add_node("pick", pick)
    g.add_node("report", report)
    g.add_edge(api.START, "pick")
    g.add_edge("pick", "report")
    return g.compile(**compile_kw)


def case_subgraph_finished_by_update_state_is_not_rerun(api, tmp):
    calls = []
    inner = _inner(api, calls, interrupt_before=["report"])

    def call_inner(state):
        calls.append("call_inner")
        return inner.invoke(state)

    g = api.StateGraph(P)
    g.add_node("first", lambda s: {"log": ["first"]})
    g.add_node("call_inner", call_inner)
    g.add_edge(api.START, "first")
    g.add_edge("first", "call_inner")
    graph = g.compile(checkpointer=api.InMemorySaver())
    cfg = thread()
    run1 = [(len(ns), chunk) for ns, chunk in
            graph.stream({"log": ["in"]}, cfg, stream_mode="updates", subgraphs=True)]
    sub = graph.get_state(cfg, subgraphs=True).tasks[0].state
    graph.update_state(sub.config, {"log": ["edited"]}, as_node="report")
    after_update = graph.get_state(cfg, subgraphs=True).tasks[0].state.next
    run2 = [(len(ns), chunk) for ns, chunk in
            graph.stream(None, cfg, stream_mode="updates", subgraphs=True)]
    return {"run1": run1, "next_before": list(sub.next), "next_after": list(after_update), "run2": run2,
            "calls": calls, "values": graph.get_state(cfg).values}


def _ask_after_subgraph(api, mode):
    calls = []
    inner = _inner(api, calls, checkpointer=mode)

    def ask(state):
        got = inner.invoke({"log": ["x"]})
        answer = api.interrupt("question")
        return {"log": [answer, len(got["log"])]}

    def later(state):
        got = inner.invoke({"log": ["y"]})
        return {"log": ["later", len(got["log"])]}

    g = api.StateGraph(P)
    g.add_node("ask", ask)
    g.add_node("later", later)
    g.add_edge(api.START, "ask")
    g.add_edge("ask", "later")
    graph = g.compile(checkpointer=api.InMemorySaver())
    cfg = thread(str(mode))
    graph.invoke({"log": []}, cfg)
    final = graph.invoke(api.Command(resume="answer"), cfg)
    return {"final": final, "calls": calls}


def case_finished_subgraph_in_an_interrupted_node_keeps_its_output(api, tmp):
    return {str(mode): _ask_after_subgraph(api, mode) for mode in (None, True)}
