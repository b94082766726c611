"""Time travel into subgraphs: a parent's replay or fork takes its subgraphs back to their
state as of that parent checkpoint; a subgraph's own checkpoint config replays from there."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import thread

SEEN = []


class Tally(TypedDict):
    marks: Annotated[list, operator.add]


class Top(TypedDict):
    steps: Annotated[list, operator.add]


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _counter(api):
    def mark(state):
        SEEN.append(list(state["marks"]))
        return {"marks": ["m"]}

    g = api.StateGraph(Tally)
    g.add_node("mark", mark)
    g.add_edge(api.START, "mark")
    return g.compile(checkpointer=True)


def _top(api, sub):
    g = api.StateGraph(Top)
    g.add_node("first", lambda s: {"steps": ["first"]})
    g.add_node("count", sub)
    g.add_edge(api.START, "first")
    g.add_edge("first", "count")
    return g.compile(checkpointer=api.InMemorySaver())


def case_parent_replay_restores_stateful_subgraph(api, tmp):
    SEEN.clear()
    g = _top(api, _counter(api))
    for _ in range(3):
        g.invoke({"steps": []}, thread())
    second = [s for s in g.get_state_history(thread()) if s.next == ("first",)][1]
    g.invoke(None, second.config)  # the subgraph sees its state after the 1st call
    g.invoke({"steps": []}, thread())  # and a new call continues the replayed branch
    return {"seen": list(SEEN)}


def case_parent_fork_restores_stateful_subgraph(api, tmp):
    SEEN.clear()
    g = _top(api, _counter(api))
    g.invoke({"steps": []}, thread())
    g.invoke({"steps": []}, thread())
    before = [s for s in g.get_state_history(thread()) if s.next == ("count",)][0]
    forked = g.update_state(before.config, {"steps": ["edited"]})
    out = g.invoke(None, forked)
    return {"seen": list(SEEN), "out": norm(out)}


def _asker(api, calls):
    def prep(state):
        calls.append("prep")
        return {"log": ["prep"]}

    def ask(state):
        calls.append("ask")
        return {"log": [f"ask={api.interrupt('ask?')}"]}

    def done(state):
        calls.append("done")
        return {"log": ["done"]}

    g = api.StateGraph(Log)
    g.add_node("prep", prep)
    g.add_node("ask", ask)
    g.add_node("done", done)
    g.add_edge(api.START, "prep")
    g.add_edge("prep", "ask")
    g.add_edge("ask", "done")
    return g.compile(checkpointer=True)


def _parent(api, calls):
    g = api.StateGraph(Log)
    g.add_node("pre", lambda s: {"log": ["pre"]})
    g.add_node("sub", _asker(api, calls))
    g.add_node("post", lambda s: {"log": ["post"]})
    g.add_edge(api.START, "pre")
    g.add_edge("pre", "sub")
    g.add_edge("sub", "post")
    return g.compile(checkpointer=api.InMemorySaver())


def case_replay_from_a_subgraph_checkpoint_then_resume(api, tmp):
    calls = []
    g = _parent(api, calls)
    g.invoke({"log": []}, thread())
    sub_config = g.get_state(thread(), subgraphs=True).tasks[0].state.config
    g.invoke(api.Command(resume="first"), thread())
    calls.clear()
    replayed = g.invoke(None, sub_config)
    replay_calls = list(calls)
    fork = next(iter(g.get_state_history(thread())))
    calls.clear()
    out = g.invoke(api.Command(resume="second"), sub_config)
    return {
        "replayed": norm(replayed), "replay_calls": replay_calls, "resume_calls": list(calls), "out": norm(out),
        "map_keys": sorted(sub_config["configurable"]["checkpoint_map"]),
        "fork": [fork.metadata["source"], list(fork.next),
                 fork.parent_config["configurable"]["checkpoint_id"] == sub_config["configurable"]["checkpoint_map"][""]],
    }


def case_edit_a_subgraph_checkpoint_then_resume(api, tmp):
    calls = []
    g = _parent(api, calls)
    g.invoke({"log": []}, thread())
    sub_config = g.get_state(thread(), subgraphs=True).tasks[0].state.config
    edited = g.update_state(sub_config, {"log": ["edited"]})
    calls.clear()
    paused = g.invoke(None, edited)
    out = g.invoke(api.Command(resume="late"), edited)
    return {"paused": norm(paused), "out": norm(out), "calls": list(calls),
            "edited_ns": edited["configurable"]["checkpoint_ns"],
            "map_keys": sorted(edited["configurable"]["checkpoint_map"])}


def case_second_resume_reaches_second_interrupt_in_subgraph(api, tmp):
    def ask(name):
        return lambda s: {"log": [f"{name}={api.interrupt(name)}"]}

    sub = api.StateGraph(Log)
    sub.add_node("one", ask("one"))
    sub.add_node("two", ask("two"))
    sub.add_edge(api.START, "one")
    sub.add_edge("one", "two")
    g = api.StateGraph(Log)
    g.add_node("sub", sub.compile(checkpointer=True))
    g.add_edge(api.START, "sub")
    g = g.compile(checkpointer=api.InMemorySaver())
    g.invoke({"log": []}, thread())
    g.invoke(api.Command(resume="A"), thread())
    return norm(g.invoke(api.Command(resume="B"), thread()))


def case_resume_at_a_breakpoint_goes_to_the_next_interrupt(api, tmp):
    g = api.StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("ask", lambda s: {"log": [f"ask={api.interrupt('q')}"]})
    g.add_edge(api.START, "a")
    g.add_edge("a", "ask")
    g = g.compile(checkpointer=api.InMemorySaver(), interrupt_before=["ask"])
    paused = g.invoke({"log": []}, thread())
    return {"paused": norm(paused), "out": norm(g.invoke(api.Command(resume="given"), thread()))}
