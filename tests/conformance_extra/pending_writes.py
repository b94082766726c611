"""What history records of a superstep once it committed: task results, errors of failed
tasks, interrupts (answered or not) and the re-asked questions of parallel interrupts."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import thread

CALLS = []


class S(TypedDict):
    log: Annotated[list, operator.add]
    tag: str


def _tasks(snap):
    return sorted([t.name, norm(t.result), t.error, sorted(str(i.value) for i in t.interrupts)]
                  for t in snap.tasks)


def _record(graph, config):
    return [{"step": s.metadata.get("step"), "next": sorted(s.next), "tasks": _tasks(s)}
            for s in graph.get_state_history(config)]


def case_history_keeps_failed_task_error_after_retry(api, tmp):
    fail = [True]

    def flaky(s):
        if fail[0]:
            raise RuntimeError("flaky failed")
        return {"log": ["flaky"]}

    g = api.StateGraph(S)
    g.add_node("flaky", flaky)
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(api.START, "flaky")
    g.add_edge("flaky", "after")
    g = g.compile(checkpointer=api.InMemorySaver())
    try:
        g.invoke({"log": ["in"]}, thread())
    except RuntimeError:
        pass
    fail[0] = False
    out = g.invoke(None, thread())
    return {"out": norm(out), "history": _record(g, thread())}


def case_parallel_interrupts_reasked_and_recorded(api, tmp):
    CALLS.clear()

    def ask(name):
        def node(s):
            CALLS.append(name)
            return {"log": [f"{name}={api.interrupt(name + '?')}"]}
        return node

    g = api.StateGraph(S)
    g.add_node("x", ask("x"))
    g.add_node("y", ask("y"))
    g.add_edge(api.START, "x")
    g.add_edge(api.START, "y")
    g = g.compile(checkpointer=api.InMemorySaver())
    first = sorted(sorted(str(i.value) for i in c["__interrupt__"]) for c in g.stream({"log": []}, thread(),
                                                                                       stream_mode="updates"))
    again = [sorted(norm(c).keys()) for c in g.stream(None, thread(), stream_mode="updates")]
    live = g.get_state(thread())
    xid = next(i.id for t in live.tasks if t.name == "x" for i in t.interrupts)
    resumed = [norm({k: (sorted(str(i.value) for i in v) if k == "__interrupt__" else v) for k, v in c.items()})
               for c in g.stream(api.Command(resume={xid: "X"}), thread(), stream_mode="updates")]
    now = g.get_state(thread())
    return {
        "first": first, "again": again, "resumed": resumed, "calls": sorted(CALLS),
        "live": {"next": sorted(now.next), "tasks": _tasks(now), "values": norm(now.values)},
        "history": _record(g, thread()),
    }


def case_update_state_result_in_history(api, tmp):
    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"tag": "a"})
    g.add_node("b", lambda s: {"tag": "b"})
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g = g.compile(checkpointer=api.InMemorySaver(), interrupt_before=["b"])
    g.invoke({"log": []}, thread())
    g.update_state(thread(), {"tag": "by hand", "log": ["edited"]}, as_node="b")
    return {"history": _record(g, thread())}


def case_custom_reducer_results_and_double_writes(api, tmp):
    class J(TypedDict):
        text: Annotated[str, lambda a, b: f"{a}+{b}" if a else b]

    def one(s):
        return api.Command(update=[("text", "one.0"), ("text", "one.1")])

    g = api.StateGraph(J)
    g.add_node("one", one)
    g.add_node("two", lambda s: {"text": "two"})
    g.add_edge(api.START, "one")
    g.add_edge("one", "two")
    g = g.compile(checkpointer=api.InMemorySaver())
    chunks = [norm(c) for c in g.stream({"text": "in"}, thread(), stream_mode="updates")]
    return {"updates": chunks, "history": _record(g, thread())}


def case_send_tasks_listed_first(api, tmp):
    g = api.StateGraph(S)
    g.add_node("fan", lambda s: {"log": ["fan"]})
    g.add_node("work", lambda s: {"log": [f"work {s}"]})
    g.add_node("later", lambda s: {"log": ["later"]})
    g.add_node("zz", lambda s: {"log": ["zz"]})
    g.add_edge(api.START, "fan")
    g.add_conditional_edges("fan", lambda s: [api.Send("work", 1), "zz", api.Send("work", 2)])
    g = g.compile(checkpointer=api.InMemorySaver())
    g.invoke({"log": []}, thread())
    rows = []
    for s in g.get_state_history(thread()):
        rows.append({"next": list(s.next), "paths": [list(t.path) for t in s.tasks],
                     "results": [norm(t.result) for t in s.tasks]})
    return {"rows": rows, "command": repr(api.Command(goto=api.Send("work", 3)))}
