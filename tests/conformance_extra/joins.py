"""A join (add_edge([a, b], c)) is used up when its target runs, not when it is planned:
an update_state while the target is due, or a fork before it, leaves it due."""
import operator
from typing import Annotated, TypedDict

from support import thread


class S(TypedDict):
    docs: Annotated[list, operator.add]


def _graph(api, **compile_kw):
    def node(name):
        def run(s):
            return {"docs": [name]}
        return run

    g = api.StateGraph(S)
    for name in ("rewrite", "analyze", "left", "right", "answer"):
        g.add_node(name, node(name))
    g.add_edge(api.START, "rewrite")
    g.add_edge("rewrite", "analyze")
    g.add_edge("analyze", "left")
    g.add_edge("rewrite", "right")
    g.add_edge(["left", "right"], "answer")
    g.add_edge("answer", api.END)
    return g.compile(checkpointer=api.InMemorySaver(), **compile_kw)


def case_update_while_join_target_due_keeps_it_due(api, tmp):
    g = _graph(api, interrupt_before=["answer"])
    first = [sorted(c) for c in g.stream({"docs": []}, thread())]
    before = list(g.get_state(thread()).next)
    g.update_state(thread(), {"docs": ["extra"]})
    after_update = list(g.get_state(thread()).next)
    rest = [sorted(c) for c in g.stream(None, thread())]
    final = g.get_state(thread())
    return {"first": first, "before": before, "after_update": after_update, "rest": rest,
            "next": list(final.next), "docs": final.values["docs"]}


def case_update_as_a_source_while_join_target_due(api, tmp):
    g = _graph(api, interrupt_before=["answer"])
    list(g.stream({"docs": []}, thread()))
    g.update_state(thread(), {"docs": ["again"]}, as_node="right")
    due = list(g.get_state(thread()).next)
    out = g.invoke(None, thread())
    return {"due": due, "out": out["docs"]}


def case_join_loop_runs_target_once_per_round(api, tmp):
    class L(TypedDict):
        docs: Annotated[list, operator.add]
        rounds: int

    def src(name):
        def run(s):
            return {"docs": [name]}
        return run

    def join(s):
        return {"docs": ["join"], "rounds": s.get("rounds", 0) + 1}

    g = api.StateGraph(L)
    g.add_node("a", src("a"))
    g.add_node("b", src("b"))
    g.add_node("j", join)
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge(["a", "b"], "j")
    g.add_conditional_edges("j", lambda s: ["a", "b"] if s["rounds"] < 3 else api.END)
    out = g.compile(checkpointer=api.InMemorySaver()).invoke({"docs": [], "rounds": 0}, thread())
    return out
