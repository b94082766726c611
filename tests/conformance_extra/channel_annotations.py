"""LangGraph's channel classes as state annotations: EphemeralValue, UntrackedValue, AnyValue,
Topic (with and without accumulate), BinaryOperatorAggregate and LastValue; what nodes read,
what the output, the checkpoints and the streams show, and the one-write-per-step guards."""
import operator
from typing import Annotated, TypedDict

from support import history, thread


def _channels(api):
    if api.impl == "langgraph":
        import langgraph.channels as ch
    else:
        import engine.compat.channels as ch
    return ch


def _graph(api, saver=None):
    ch = _channels(api)

    class S(TypedDict, total=False):
        eph: Annotated[str, ch.EphemeralValue]
        unt: Annotated[str, ch.UntrackedValue]
        lv: Annotated[int, ch.LastValue]
        top: Annotated[str, ch.Topic(str)]
        acc: Annotated[str, ch.Topic(str, accumulate=True)]
        agg: Annotated[int, ch.BinaryOperatorAggregate(int, operator.add)]
        anyv: Annotated[int, ch.AnyValue]
        seen: Annotated[list, operator.add]

    def a(s):
        return {"eph": "e1", "unt": "u1", "lv": 1, "top": "t1", "acc": ["x", "y"], "agg": 2, "anyv": 5,
                "seen": [("a", sorted(s))]}

    def b(s):
        return {"seen": [("b", sorted(s), s.get("eph"), s.get("top"))]}

    def c(s):
        return {"seen": [("c", sorted(s), s.get("unt"))], "top": ["t2", "t3"], "agg": 3, "acc": "z"}

    g = api.StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", c)
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", api.END)
    return g.compile(checkpointer=saver)


def case_channel_annotations_through_a_run(api, tmp):
    g = _graph(api, api.InMemorySaver())
    out = g.invoke({"eph": "in", "unt": "secret", "seen": []}, thread())
    return {"out": {k: out[k] for k in sorted(out)}, "state": sorted(g.get_state(thread()).values.items()),
            "history": history(g, thread())}


def case_channel_annotations_in_the_values_stream(api, tmp):
    g = _graph(api)
    return [sorted(chunk) for chunk in g.stream({"seen": []}, stream_mode="values")]


def case_untracked_value_is_not_in_a_sqlite_checkpoint(api, tmp):
    g = _graph(api, api.sqlite_saver(tmp / "c.db"))
    g.invoke({"unt": "secret-token", "seen": []}, thread())
    return {"state": sorted(g.get_state(thread()).values), "in_file": b"secret-token" in (tmp / "c.db").read_bytes()}


def _two_writers(api, ann):
    class S(TypedDict, total=False):
        k: ann
        o: int

    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"k": 1})
    g.add_node("b", lambda s: {"k": 2})
    g.add_node("c", lambda s: {"o": s.get("k", "none")})
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge(["a", "b"], "c")
    try:
        return g.compile().invoke({})
    except api.InvalidUpdateError as exc:
        return {"raised": str(exc).split("\n")[0]}


def case_channel_guards_on_two_writes_in_one_step(api, tmp):
    ch = _channels(api)
    return [
        _two_writers(api, Annotated[int, ch.EphemeralValue]),
        _two_writers(api, Annotated[int, ch.UntrackedValue]),
        _two_writers(api, Annotated[int, ch.UntrackedValue(int, guard=False)]),
        _two_writers(api, Annotated[int, ch.EphemeralValue(int, guard=False)]),
        _two_writers(api, Annotated[int, ch.AnyValue]),
        _two_writers(api, Annotated[int, ch.LastValue]),
        _two_writers(api, Annotated[list, ch.Topic(int)]),
        _two_writers(api, Annotated[int, ch.BinaryOperatorAggregate(int, operator.add)]),
    ]
