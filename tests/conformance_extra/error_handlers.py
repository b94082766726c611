"""Node error handlers: add_node(error_handler=...) and set_node_defaults(error_handler=...)."""
import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402
from support import history, thread  # noqa: E402


class S(TypedDict):
    log: Annotated[list, operator.add]


def bad(state):
    raise ValueError("boom")


def case_handler_recovers_in_the_same_step(api, tmp):
    x = extra(api)

    def handler(state, error: x.NodeError):
        return {"log": [f"handled {error.node}: {error.error!r}"]}

    g = api.StateGraph(S)
    g.add_node("bad", bad, error_handler=handler)
    g.add_node("ok", lambda s: {"log": ["ok"]})
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(api.START, "bad")
    g.add_edge(api.START, "ok")
    g.add_edge("bad", "after")
    graph = g.compile(checkpointer=api.InMemorySaver())
    chunks = list(graph.stream({"log": []}, thread(), stream_mode="updates"))
    return [sorted(chunks, key=repr), graph.get_state(thread()).values, [h["step"] for h in history(graph, thread())]]


def case_handler_routes_with_command(api, tmp):
    def handler(state):
        return api.Command(update={"log": ["cmd"]}, goto="z")

    g = api.StateGraph(S)
    g.add_node("bad", bad, error_handler=handler)
    g.add_node("z", lambda s: {"log": ["z"]})
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(api.START, "bad")
    g.add_edge("bad", "after")
    return g.compile().invoke({"log": []})


def case_default_handler_and_failing_handler(api, tmp):
    x = extra(api)

    def handler(state, error: x.NodeError):
        return {"log": [error.node]}

    g = api.StateGraph(S).set_node_defaults(error_handler=handler)
    g.add_node("bad", bad)
    g.add_edge(api.START, "bad")
    out = [g.compile().invoke({"log": []})]

    def worse(state):
        raise KeyError("again")

    g2 = api.StateGraph(S)
    g2.add_node("bad", bad, error_handler=worse)
    g2.add_edge(api.START, "bad")
    try:
        g2.compile().invoke({"log": []})
    except KeyError as exc:
        out.append(repr(exc))
    return out


def _handler_beside_a_sibling(api, x, kind):
    import asyncio
    import threading

    handler_ran = threading.Event()

    def handler(state, error: x.NodeError):
        handler_ran.set()
        return {"log": [f"handled {error.node}"]}

    def slow(state):  # waits for the handler of its failed sibling
        return {"log": [f"slow saw handler: {handler_ran.wait(5)}"]}

    async def aslow(state):
        for _ in range(500):
            if handler_ran.is_set():
                break
            await asyncio.sleep(0.01)
        return {"log": [f"slow saw handler: {handler_ran.is_set()}"]}

    async def abad(state):
        raise ValueError("boom")

    g = api.StateGraph(S)
    g.add_node("bad", bad if kind == "sync" else abad, error_handler=handler)
    g.add_node("slow", slow if kind == "sync" else aslow)
    g.add_edge(api.START, "bad")
    g.add_edge(api.START, "slow")
    graph = g.compile(checkpointer=api.InMemorySaver())
    if kind == "sync":
        return sorted(graph.invoke({"log": []}, thread(kind))["log"])
    return sorted(asyncio.run(graph.ainvoke({"log": []}, thread(kind)))["log"])


def case_handler_starts_while_a_sibling_still_runs(api, tmp):
    x = extra(api)
    return {kind: _handler_beside_a_sibling(api, x, kind) for kind in ("sync", "async")}


def case_breakpoints_may_name_an_error_handler(api, tmp):
    x = extra(api)
    crash = [True]

    def handler(state, error: x.NodeError):
        if crash[0]:
            raise KeyError("handler crash")
        return api.Command(update={"log": [f"handled {error.node}"]}, goto="z")

    out = {}
    for key in ("interrupt_before", "interrupt_after"):
        crash[0] = key == "interrupt_before"
        g = api.StateGraph(S)
        g.add_node("bad", bad, error_handler=handler)
        g.add_node("z", lambda s: {"log": ["z"]})
        g.add_edge(api.START, "bad")
        graph = g.compile(checkpointer=api.InMemorySaver(), **{key: ["__error_handler__bad"]})
        runs = []
        for _ in range(3):
            try:
                runs.append(list(graph.stream(None if runs else {"log": []}, thread(key), stream_mode="updates")))
            except KeyError as exc:
                runs.append(repr(exc))
            crash[0] = False
            runs.append(list(graph.get_state(thread(key)).next))
        out[key] = runs
    return out
