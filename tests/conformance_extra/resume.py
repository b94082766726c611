"""Interrupts, failures and resumes in parallel supersteps."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import history, thread

CALLS = []


class S(TypedDict):
    log: Annotated[list, operator.add]
    answer: str


def _par(api, fail_b):
    def a(s):
        CALLS.append("a")
        return {"log": ["a"]}

    def b(s):
        CALLS.append("b")
        if fail_b[0]:
            raise RuntimeError("b failed")
        return {"log": ["b"]}

    g = api.StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_edge(api.START, "a")
    g.add_edge(api.START, "b")
    g.add_edge(["a", "b"], "c")
    return g.compile(checkpointer=api.InMemorySaver())


def case_failed_sibling_resumes_only_failed(api, tmp):
    CALLS.clear()
    fail = [True]
    g = _par(api, fail)
    try:
        g.invoke({"log": []}, thread())
    except RuntimeError as exc:
        err = str(exc)
    state = g.get_state(thread())
    fail[0] = False
    out = g.invoke(None, thread())
    return {"err": err, "next": sorted(state.next), "out": sorted(out["log"]), "calls": sorted(CALLS)}


def _two_interrupts(api):
    def ask(name):
        def node(s):
            v = api.interrupt(f"{name}?")
            return {"log": [f"{name}={v}"]}
        return node

    g = api.StateGraph(S)
    g.add_node("x", ask("x"))
    g.add_node("y", ask("y"))
    g.add_edge(api.START, "x")
    g.add_edge(api.START, "y")
    return g.compile(checkpointer=api.InMemorySaver())


def case_two_interrupts_resume_by_id(api, tmp):
    g = _two_interrupts(api)
    first = g.invoke({"log": []}, thread())
    ids = {i.value: i.id for i in first["__interrupt__"]}
    out = g.invoke(api.Command(resume={ids["x?"]: 1, ids["y?"]: 2}), thread())
    return {"first": sorted(i["interrupt"] for i in norm(first["__interrupt__"])), "out": sorted(out["log"])}


def case_two_interrupts_resume_one_at_a_time(api, tmp):
    g = _two_interrupts(api)
    first = g.invoke({"log": []}, thread())
    ids = {i.value: i.id for i in first["__interrupt__"]}
    mid = g.invoke(api.Command(resume={ids["x?"]: 1}), thread())
    out = g.invoke(api.Command(resume={ids["y?"]: 2}), thread())
    return {"mid": norm(mid), "out": sorted(out["log"])}


def case_two_interrupt_calls_in_one_node(api, tmp):
    def node(s):
        a = api.interrupt("first")
        b = api.interrupt("second")
        return {"answer": f"{a}+{b}"}

    g = api.StateGraph(S)
    g.add_node("n", node)
    g.add_edge(api.START, "n")
    g = g.compile(checkpointer=api.InMemorySaver())
    r1 = g.invoke({"log": []}, thread())
    r2 = g.invoke(api.Command(resume="A"), thread())
    r3 = g.invoke(api.Command(resume="B"), thread())
    return [norm(r1), norm(r2), norm(r3)]


def case_resume_stream_updates(api, tmp):
    def ask(s):
        return {"answer": api.interrupt("q")}

    g = api.StateGraph(S)
    g.add_node("plan", lambda s: {"log": ["plan"]})
    g.add_node("ask", ask)
    g.add_edge(api.START, "plan")
    g.add_edge("plan", "ask")
    g = g.compile(checkpointer=api.InMemorySaver())
    first = [norm(c) for c in g.stream({"log": []}, thread(), stream_mode="updates")]
    second = [norm(c) for c in g.stream(api.Command(resume="ok"), thread(), stream_mode=["updates", "values"])]
    return {"first": first, "second": second, "history": history(g, thread())}


def case_update_state_fresh_thread(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(api.START, "a")
    g = g.compile(checkpointer=api.InMemorySaver())
    g.update_state(thread(), {"log": ["seed"]})
    st = g.get_state(thread())
    out = g.invoke(None, thread())
    return {"next": list(st.next), "values": st.values, "out": out, "history": history(g, thread())}


def case_interrupt_before_resume_stream(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g = g.compile(checkpointer=api.InMemorySaver(), interrupt_before=["b"])
    first = [norm(c) for c in g.stream({"log": []}, thread(), stream_mode=["updates", "values"])]
    second = [norm(c) for c in g.stream(None, thread(), stream_mode=["updates", "values"])]
    return {"first": first, "second": second}


def case_recursion_limit_after_resume(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(api.START, "a")
    g.add_conditional_edges("a", lambda s: api.END if len(s["log"]) >= 6 else "a")
    g = g.compile(checkpointer=api.InMemorySaver(), interrupt_after=["a"])
    g.invoke({"log": []}, thread())
    g.invoke(None, thread())
    g.invoke(None, thread())
    try:
        g.invoke(None, {**thread(), "recursion_limit": 2})
        ok = "no error"
    except Exception as exc:  # noqa: BLE001
        ok = type(exc).__name__
    return {"ok": ok, "log": g.get_state(thread()).values["log"]}


def _one(api, **compile_kw):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(api.START, "a")
    return g.compile(**compile_kw)


def case_resume_with_nothing_left_streams_the_values_once(api, tmp):
    g = _one(api, checkpointer=api.InMemorySaver())
    g.invoke({"log": []}, thread())
    out = {"none": list(g.stream(None, thread(), stream_mode=["values", "updates"])),
           "command": list(g.stream(api.Command(resume="late"), thread(), stream_mode="values"))}
    last = g.get_state(thread()).config
    out["replay_last"] = list(g.stream(None, last, stream_mode="values"))
    return norm(out)


def case_breakpoint_after_the_last_node_pauses(api, tmp):
    g = _one(api, checkpointer=api.InMemorySaver(), interrupt_after=["a"])
    first = list(g.stream({"log": []}, thread(), stream_mode=["values", "updates"]))
    then = [list(g.get_state(thread()).next), list(g.stream(None, thread(), stream_mode=["values", "updates"])),
            g.invoke(None, thread())]
    inner = _one(api, interrupt_after=["a"])
    p = api.StateGraph(S)
    p.add_node("sub", inner)
    p.add_node("after", lambda s: {"log": ["after"]})
    p.add_edge(api.START, "sub")
    p.add_edge("sub", "after")
    p = p.compile(checkpointer=api.InMemorySaver())
    cfg = thread("parent")
    sub_first = [(len(ns), chunk) for ns, chunk in p.stream({"log": []}, cfg, stream_mode="updates", subgraphs=True)]
    sub_next = list(p.get_state(cfg).next)
    sub_then = [(len(ns), chunk) for ns, chunk in p.stream(None, cfg, stream_mode="updates", subgraphs=True)]
    return norm({"first": first, "then": then, "sub_first": sub_first, "sub_next": sub_next, "sub_then": sub_then,
                 "values": p.get_state(cfg).values})
