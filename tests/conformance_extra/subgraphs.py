"""Subgraphs: their own checkpoint namespaces, resumes inside them, stateful subgraphs,
nested state, namespaced streams, their own breakpoints, graphs invoked inside nodes."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import thread

CALLS = []


class S(TypedDict):
    log: Annotated[list, operator.add]


class Inner(TypedDict):
    log: Annotated[list, operator.add]
    scratch: str


def _names(ns):
    """A namespace tuple without its task ids (they are random)."""
    return [segment.split(":")[0] for segment in ns]


def _logger(name, ask=False):
    def node(state, config):
        CALLS.append(name)
        if ask:
            answer = _logger.api.interrupt(f"{name}?")
            return {"log": [f"{name}={answer}"]}
        return {"log": [name]}
    return node


def _inner(api, ask=True, **compile_kw):
    _logger.api = api
    g = api.StateGraph(S)
    g.add_node("a", _logger("a"))
    g.add_node("b", _logger("b", ask=ask))
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    return g.compile(**compile_kw)


def _outer(api, inner, saver=None):
    g = api.StateGraph(S)
    g.add_node("pre", _logger("pre"))
    g.add_node("sub", inner)
    g.add_edge(api.START, "pre")
    g.add_edge("pre", "sub")
    return g.compile(checkpointer=saver or api.InMemorySaver())


def case_resume_inside_subgraph_runs_no_finished_node_again(api, tmp):
    CALLS.clear()
    g = _outer(api, _inner(api))
    first = g.invoke({"log": []}, thread())
    out = g.invoke(api.Command(resume="yes"), thread())
    return {"first": norm(first), "out": norm(out), "calls": list(CALLS)}


def case_resume_inside_subgraph_sqlite(api, tmp):
    CALLS.clear()
    g = _outer(api, _inner(api), api.sqlite_saver(tmp / "sub.db"))
    g.invoke({"log": []}, thread())
    out = g.invoke(api.Command(resume=1), thread())
    return {"out": norm(out), "calls": list(CALLS)}


def case_checkpoint_ns_seen_inside_subgraph(api, tmp):
    seen = []

    def look(state, config):
        seen.append(config["configurable"].get("checkpoint_ns", ""))
        return {"log": ["look"]}

    inner = api.StateGraph(S)
    inner.add_node("look", look)
    inner.add_edge(api.START, "look")
    g = api.StateGraph(S)
    g.add_node("sub", inner.compile())
    g.add_edge(api.START, "sub")
    g.compile(checkpointer=api.InMemorySaver()).invoke({"log": []}, thread())
    return {"segments": [_names(ns.split("|")) for ns in seen],
            "task_ids": [all(":" in s for s in ns.split("|")) for ns in seen]}


def case_stateful_subgraph_keeps_state_across_calls(api, tmp):
    CALLS.clear()
    stateful = _outer(api, _inner(api, ask=False, checkpointer=True))
    stateless = _outer(api, _inner(api, ask=False))
    off = _outer(api, _inner(api, ask=False, checkpointer=False))
    out = {}
    for name, g in (("stateful", stateful), ("stateless", stateless), ("off", off)):
        g.invoke({"log": ["x"]}, thread())
        out[name] = norm(g.invoke({"log": ["y"]}, thread()))
    return out


def case_stateful_graph_invoked_inside_a_node(api, tmp):
    wrapper_builder = api.StateGraph(S)
    wrapper_builder.add_node("agent", _inner(api, ask=False))
    wrapper_builder.add_edge(api.START, "agent")
    wrapper = wrapper_builder.compile(checkpointer=True)
    seen = []

    def call(state):
        out = wrapper.invoke({"log": [f"call{len(seen)}"]})
        seen.append(out["log"])
        return {"log": [len(out["log"])]}

    g = api.StateGraph(S)
    g.add_node("call", call)
    g.add_edge(api.START, "call")
    g = g.compile(checkpointer=api.InMemorySaver())
    g.invoke({"log": []}, thread())
    last = g.invoke({"log": []}, thread())
    return {"seen": seen, "last": norm(last)}


def case_nested_get_state(api, tmp):
    CALLS.clear()
    g = _outer(api, _inner(api))
    g.invoke({"log": []}, thread())
    plain = g.get_state(thread())
    nested = g.get_state(thread(), subgraphs=True)
    sub = nested.tasks[0].state
    direct = g.get_state(sub.config)
    sub_history = list(g.get_state_history(sub.config))
    return {
        "parent": {"values": norm(plain.values), "next": list(plain.next)},
        "plain_task_state_ns": _names(plain.tasks[0].state["configurable"]["checkpoint_ns"].split("|")),
        "sub": {"values": norm(sub.values), "next": list(sub.next),
                "interrupts": norm(list(sub.interrupts)), "step": sub.metadata["step"],
                "ns": _names(sub.config["configurable"]["checkpoint_ns"].split("|"))},
        "direct": {"values": norm(direct.values), "next": list(direct.next)},
        "sub_history": [(h.metadata["step"], list(h.next)) for h in sub_history],
    }


def case_stream_subgraphs_namespaces(api, tmp):
    mid_builder = api.StateGraph(S)
    mid_builder.add_node("inner", _inner(api, ask=False))
    mid_builder.add_edge(api.START, "inner")
    g = api.StateGraph(S)
    g.add_node("mid", mid_builder.compile())
    g.add_edge(api.START, "mid")
    g = g.compile(checkpointer=api.InMemorySaver())
    one = [(_names(ns), norm(chunk))
           for ns, chunk in g.stream({"log": []}, thread("a"), stream_mode="updates", subgraphs=True)]
    two = [(_names(ns), mode, norm(chunk))
           for ns, mode, chunk in g.stream({"log": []}, thread("b"), stream_mode=["values", "updates"],
                                           subgraphs=True)]
    flat = [norm(c) for c in g.stream({"log": []}, thread("c"), stream_mode="updates")]
    return {"one": one, "two": two, "flat": flat}


def case_subgraph_interrupt_before_pauses_parent(api, tmp):
    CALLS.clear()
    g = _outer(api, _inner(api, ask=False, interrupt_before=["b"]))
    first = g.invoke({"log": []}, thread())
    state = g.get_state(thread())
    out = g.invoke(None, thread())
    return {"first": norm(first), "next": list(state.next), "out": norm(out), "calls": list(CALLS)}


def case_subgraph_interrupt_after_pauses_parent(api, tmp):
    CALLS.clear()
    g = _outer(api, _inner(api, ask=False, interrupt_after=["a"]))
    first = g.invoke({"log": []}, thread())
    out = g.invoke(None, thread())
    return {"first": norm(first), "out": norm(out), "calls": list(CALLS)}


def case_interrupt_in_graph_invoked_inside_a_node(api, tmp):
    CALLS.clear()
    inner = _inner(api)

    def call(state):
        CALLS.append("call")
        out = inner.invoke({"log": ["in"]})
        return {"log": [out["log"][-1]]}

    g = api.StateGraph(S)
    g.add_node("call", call)
    g.add_edge(api.START, "call")
    g = g.compile(checkpointer=api.InMemorySaver())
    first = g.invoke({"log": []}, thread())
    out = g.invoke(api.Command(resume="ok"), thread())
    return {"first": norm(first), "out": norm(out), "calls": list(CALLS)}


def case_parent_command_from_graph_invoked_inside_a_node(api, tmp):
    def jump(state):
        return api.Command(graph=api.Command.PARENT, goto="after", update={"log": ["jumped"]})

    inner = api.StateGraph(S)
    inner.add_node("jump", jump)
    inner.add_edge(api.START, "jump")
    inner = inner.compile()

    def call(state):
        inner.invoke({"log": []})
        return {"log": ["not reached"]}

    g = api.StateGraph(S)
    g.add_node("call", call)
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(api.START, "call")
    g = g.compile()
    return {"out": norm(g.invoke({"log": []}))}


def case_subgraph_update_carries_parent_keys_only(api, tmp):
    def work(state):
        return {"log": ["work"], "scratch": "inner only"}

    inner = api.StateGraph(Inner)
    inner.add_node("work", work)
    inner.add_edge(api.START, "work")
    g = api.StateGraph(S)
    g.add_node("sub", inner.compile())
    g.add_edge(api.START, "sub")
    g = g.compile()
    return {"updates": [norm(c) for c in g.stream({"log": []}, stream_mode="updates")]}



class _Child(TypedDict):
    prompt: str
    answers: Annotated[list, operator.add]


class _Parent(TypedDict):
    prompts: list
    answers: Annotated[list, operator.add]


def _asks(api, kind):
    def node(state):
        return {"answers": [f"{kind}{state['prompt']}={api.interrupt(kind + state['prompt'])}"]}
    return node


def case_interrupts_in_sent_subgraphs_resumed_one_id_at_a_time(api, tmp):
    child = api.StateGraph(_Child)
    child.add_node("h", _asks(api, "h"))
    child.add_node("d", _asks(api, "d"))
    child.add_edge(api.START, "h")
    child.add_edge(api.START, "d")
    child = child.compile()
    g = api.StateGraph(_Parent)
    g.add_node("child", child)
    g.add_conditional_edges(api.START, lambda s: [api.Send("child", {"prompt": p, "answers": []})
                                                  for p in s["prompts"]], ["child"])
    g = g.compile(checkpointer=api.InMemorySaver())
    rounds = []
    g.invoke({"prompts": ["a", "b"], "answers": []}, thread())
    for n in range(1, 8):
        pending = sorted(g.get_state(thread()).interrupts, key=lambda i: i.value)
        rounds.append([i.value for i in pending])
        if not pending:
            break
        g.invoke(api.Command(resume={pending[0].id: f"R{n}"}), thread())
    return {"rounds": rounds, "answers": sorted(g.get_state(thread()).values["answers"])}
