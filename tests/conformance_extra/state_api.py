"""The state API: bulk_update_state, update_state's special as_node values, Commands at a
static breakpoint, task results in history, the checkpointer object API, Overwrite's
JSON forms and the exception families of misuse."""
import operator
from typing import Annotated, TypedDict

from normalize import norm
from support import history, thread


class S(TypedDict):
    foo: str
    tasks: Annotated[list, operator.add]


def _graph(api, **kw):
    g = api.StateGraph(S)
    g.add_node("agent", lambda s: {"foo": "agent"})
    g.add_node("map", lambda s: api.Command(goto=[api.Send("task", {"index": i}) for i in range(2)],
                                            update={"foo": "map"}))
    g.add_node("task", lambda s: {"tasks": [s["index"]]})
    g.add_edge(api.START, "agent")
    g.add_edge("agent", "map")
    return g.compile(checkpointer=api.InMemorySaver(), **kw)


def _raised(fn, api=None):
    try:
        fn()
    except Exception as exc:  # the family a user would catch
        if api is not None and isinstance(exc, api.InvalidUpdateError):
            return "InvalidUpdateError"
        for family in (TypeError, RuntimeError, ValueError):
            if isinstance(exc, family):
                return family.__name__
        return type(exc).__name__
    return None


def _results(graph, config):
    return [[(t.name, norm(t.result)) for t in s.tasks] for s in graph.get_state_history(config)]


def case_bulk_update_rebuilds_a_run(api, tmp):
    g = _graph(api)
    g.bulk_update_state(thread("b"), [
        [({"foo": "in"}, "__input__", None)],
        [({"foo": "in"}, "__start__", None)],
        [({"foo": "agent", "tasks": []}, "agent", None)],
        [(api.Command(goto=[api.Send("task", {"index": 0}), api.Send("task", {"index": 1})],
                      update={"foo": "map"}), "map", None)],
        [({"tasks": [0]}, "task", None), ({"tasks": [1]}, "task", None)],
    ])
    return {"state": norm(g.get_state(thread("b")).values), "history": history(g, thread("b"))}


def case_bulk_update_misuse(api, tmp):
    g = _graph(api)
    return [
        _raised(lambda: g.bulk_update_state(thread(), [])),
        _raised(lambda: g.bulk_update_state(thread(), [[], []])),
        _raised(lambda: g.bulk_update_state(thread(), [[({"foo": "a"}, None, None), ({"foo": "b"}, None, None)]]),
                api),
        _raised(lambda: g.bulk_update_state(thread(), [[(None, api.END, None), (None, "__copy__", None)]]), api),
        _raised(lambda: g.update_state(thread(), None, as_node="__copy__"), api),
    ]


def case_copy_forks_a_sibling(api, tmp):
    g = _graph(api)
    g.invoke({"foo": "in"}, thread())
    at_map = next(s for s in g.get_state_history(thread()) if s.next == ("map",))
    copied = g.update_state(at_map.config, None, as_node="__copy__")
    copy = g.get_state(copied)
    return {"same_parent": copy.parent_config == at_map.parent_config, "copy": history(g, copied)[:1],
            "rerun": norm(g.invoke(None, copied)), "history": history(g, thread())}


def case_end_clears_next_tasks(api, tmp):
    g = _graph(api, interrupt_before=["map"])
    g.invoke({"foo": "in"}, thread())
    g.update_state(thread(), None, as_node=api.END)
    return history(g, thread())


def case_task_results_in_history(api, tmp):
    g = _graph(api)
    g.invoke({"foo": "in"}, thread())
    return [r for r in _results(g, thread()) if len(r) == 1]  # a Send fan-out's results: not kept


class F(TypedDict):
    foo: Annotated[str, operator.add]


def _chain(api):
    g = api.StateGraph(F)
    g.add_node("node1", lambda s: {"foo": "|1"})
    g.add_node("node2", lambda s: {"foo": "|2"})
    g.add_edge(api.START, "node1")
    g.add_edge("node1", "node2")
    return g.compile(checkpointer=api.InMemorySaver(), interrupt_before=["node1"])


def case_commands_at_a_static_breakpoint(api, tmp):
    out = {}
    for name, command in (("resume", api.Command(resume="x")), ("goto", api.Command(goto=["node2"])),
                          ("update", api.Command(update={"foo": "|up"}))):
        g = _chain(api)
        g.invoke({"foo": "abc"}, thread())
        out[name] = norm(g.invoke(command, thread()))
        out[name + "_steps"] = [s["step"] for s in history(g, thread())]
    return out


def case_resume_on_a_finished_thread(api, tmp):
    g = _graph(api)
    g.invoke({"foo": "in"}, thread())
    return norm(g.invoke(api.Command(resume="late"), thread()))


class Two(TypedDict):
    a: str
    b: str


def case_one_resume_for_two_interrupts(api, tmp):
    g = api.StateGraph(Two)
    g.add_node("x", lambda s: {"a": api.interrupt("qa")})
    g.add_node("y", lambda s: {"b": api.interrupt("qb")})
    g.add_edge(api.START, "x")
    g.add_edge(api.START, "y")
    g = g.compile(checkpointer=api.InMemorySaver())
    g.invoke({"a": "", "b": ""}, thread())
    raised = _raised(lambda: g.invoke(api.Command(resume="one"), thread()))
    answers = {i.id: "re " + i.value for i in g.get_state(thread()).interrupts}
    return {"raised": raised, "then": norm(g.invoke(api.Command(resume=answers), thread()))}


def case_misuse_families(api, tmp):
    g = api.StateGraph(Two)
    g.add_node("x", lambda s: api.Command(graph=api.Command.PARENT, goto="elsewhere", update={"a": "v"}))
    g.add_edge(api.START, "x")

    class NotASaver:
        pass

    return {"checkpointer": _raised(lambda: g.compile(checkpointer=NotASaver())),
            "parent_command": _raised(lambda: g.compile().invoke({"a": ""}))}


class Log(TypedDict):
    messages: Annotated[list, operator.add]


def _diamond(api, write_b, write_c):
    g = api.StateGraph(Log)
    g.add_node("a", lambda s: {"messages": ["a"]})
    g.add_node("b", write_b)
    g.add_node("c", write_c)
    g.add_node("d", lambda s: {"messages": ["d"]})
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "d")
    g.add_edge("c", "d")
    return g.compile(checkpointer=api.InMemorySaver())


def case_overwrite_json_forms(api, tmp):
    plain = lambda s: {"messages": ["c"]}  # noqa: E731
    out = {}
    for name, form in (("sentinel", {"__overwrite__": ["b"]}), ("erased", {"value": ["b"], "type": "__overwrite__"})):
        out[name] = norm(_diamond(api, lambda s, f=form: {"messages": f}, plain).invoke({"messages": ["S"]}, thread()))
    two = _diamond(api, lambda s: {"messages": {"__overwrite__": ["b"]}}, lambda s: {"messages": {"__overwrite__": ["c"]}})
    try:
        two.invoke({"messages": ["S"]}, thread())
        out["two"] = None
    except api.InvalidUpdateError:
        out["two"] = "InvalidUpdateError"
    return out


def case_checkpointer_object_api(api, tmp):
    def fail(s):
        raise ValueError("boom")

    g = api.StateGraph(S)
    g.add_node("a", lambda s: {"foo": "a"})
    g.add_node("b", lambda s: {"tasks": [1]})
    g.add_node("c", fail)
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    saver = api.InMemorySaver()
    g = g.compile(checkpointer=saver)
    _raised(lambda: g.invoke({"foo": ""}, thread(metadata={"who": "me"})))
    tup = saver.get_tuple(thread())
    every = list(saver.list(thread()))
    return {
        "values": tup.checkpoint["channel_values"]["foo"],
        "metadata": tup.metadata,
        "writes": sorted([c, str(v)] for _, c, v in tup.pending_writes if c in ("tasks", "__error__")),
        "get_is_tuple": saver.get(thread())["id"] == tup.checkpoint["id"],
        "steps": [t.metadata["step"] for t in every],
        "limit": [t.metadata["step"] for t in saver.list(thread(), limit=2)],
        "before": [t.metadata["step"] for t in saver.list(thread(), before=every[1].config)],
        "filter": [t.metadata["source"] for t in saver.list(thread(), filter={"source": "input"})],
        "deleted": [saver.delete_thread("t"), saver.get_tuple(thread())],
    }


def case_build_errors_in_langgraphs_words(api, tmp):
    def bad(a):
        return a

    Bad = TypedDict("Bad", {"hello": Annotated[str, bad]})
    g = api.StateGraph(Two)
    g.add_node("start", lambda s: s)
    g.add_edge(api.START, "start")
    g.add_edge("unknown", "start")
    try:
        g.compile()
        unknown = None
    except ValueError as exc:
        unknown = "Found edge starting at unknown node " in str(exc)
    return {"unknown_source": unknown, "bad_reducer": _raised(lambda: api.StateGraph(Bad))}
