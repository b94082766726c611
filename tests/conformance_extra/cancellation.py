"""Cancellation, concurrency and timeouts of a superstep's tasks, and a few small behaviours
around them (a re-asked interrupt, push_message, a router's own input schema)."""
import asyncio
import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402


class S(TypedDict):
    log: Annotated[list, operator.add]


class Overall(TypedDict):
    foo: Annotated[int, operator.add]
    bar: str


class RouterIn(TypedDict):
    baz: str


def _fan(api, **nodes):
    g = api.StateGraph(S)
    for name, fn in nodes.items():
        g.add_node(name, fn)
        g.add_edge(api.START, name)
    return g


def case_error_cancels_running_sibling(api, tmp):
    seen = []

    async def stuck(state):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def bad(state):
        await asyncio.sleep(0)
        raise ValueError("I am bad")

    graph = _fan(api, stuck=stuck, bad=bad).compile()
    try:
        asyncio.run(asyncio.wait_for(graph.ainvoke({"log": []}), 10))
    except ValueError as exc:
        seen.append(str(exc))
    return seen


def case_interrupt_asked_again_without_an_answer(api, tmp):
    async def slowish(state):
        for _ in range(3):
            await asyncio.sleep(0)
        return {"log": ["slowish"]}

    async def ask(state):
        return {"log": [api.interrupt("why?")]}

    graph = _fan(api, slowish=slowish, ask=ask).compile(checkpointer=api.InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}

    async def main():
        first = await graph.ainvoke({"log": []}, config)
        updates = [c async for c in graph.astream(None, config, stream_mode="updates")]
        again = await graph.ainvoke(None, config, debug=False, output_keys=["log"])
        return [first["log"], [i.value for i in first["__interrupt__"]],
                [sorted(c) for c in updates], again["log"], [i.value for i in again["__interrupt__"]]]

    return asyncio.run(main())


def case_max_concurrency(api, tmp):
    running = {"now": 0, "most": 0}

    async def work(item):
        running["now"] += 1
        running["most"] = max(running["most"], running["now"])
        for _ in range(3):
            await asyncio.sleep(0)
        running["now"] -= 1
        return {"log": [item]}

    g = api.StateGraph(S)
    g.add_node("work", work)
    g.add_conditional_edges(api.START, lambda s: [api.Send("work", i) for i in range(12)])
    graph = g.compile()
    out = []
    for config in (None, {"max_concurrency": 4}):
        running["most"] = 0
        result = asyncio.run(graph.ainvoke({"log": []}, config))
        out.append([sorted(result["log"]), running["most"]])
    return out


def case_step_timeout(api, tmp):
    async def quick(state):
        return {"log": ["quick"]}

    async def stuck(state):
        await asyncio.Event().wait()

    graph = _fan(api, quick=quick, stuck=stuck).compile()
    graph.step_timeout = 0.05
    seen = []

    async def consume():
        async for chunk in graph.astream({"log": []}, stream_mode="updates"):
            seen.append(chunk)

    try:
        asyncio.run(asyncio.wait_for(consume(), 10))
    except TimeoutError:
        seen.append("timed out")
    return seen


def case_send_timeout_overrides_node_timeout(api, tmp):
    x = extra(api)

    async def slow(state):
        await asyncio.Event().wait()

    g = api.StateGraph(S)
    g.add_node("slow", slow, timeout=x.TimeoutPolicy(idle_timeout=30))
    g.add_conditional_edges(api.START, lambda s: [api.Send("slow", s, timeout=x.TimeoutPolicy(idle_timeout=0.05))])
    try:
        asyncio.run(g.compile().ainvoke({"log": []}))
    except x.NodeTimeoutError as exc:
        return [exc.node, exc.kind, exc.idle_timeout]
    return "no timeout"


def case_task_and_entrypoint_timeouts(api, tmp):
    x = extra(api)
    entrypoint, task = x.entrypoint, x.task

    @task(timeout=x.TimeoutPolicy(idle_timeout=0.05))
    async def stuck_task(v):
        await asyncio.Event().wait()

    @entrypoint()
    async def calls_stuck(v):
        return await stuck_task(v)

    @entrypoint(timeout=0.05)
    async def stuck_entry(v):
        await asyncio.Event().wait()

    out = []
    for flow in (calls_stuck, stuck_entry):
        try:
            asyncio.run(flow.ainvoke(1))
        except x.NodeTimeoutError as exc:
            out.append([exc.node, exc.kind])
    for declare in (lambda: task(timeout=0), lambda: entrypoint(timeout=-1)):
        try:
            declare()
        except ValueError:
            out.append("refused")
    return out


def case_user_raised_cancelled_error_fails_the_run(api, tmp):
    async def ok(state):
        return {"log": ["ok"]}

    async def boom(state):
        raise asyncio.CancelledError("from the node")

    try:
        asyncio.run(_fan(api, ok=ok, boom=boom).compile().ainvoke({"log": []}))
    except Exception as exc:  # noqa: BLE001 - the family is the point
        return [type(exc).__name__, getattr(exc, "node", None)]
    return "no error"


def case_router_with_its_own_input_schema(api, tmp):
    seen = []

    def first(state: Overall):
        return {"foo": 1, "baz": "meow"}

    def route(state: RouterIn):
        seen.append(dict(state))
        return "second" if state["baz"] == "meow" else "__end__"

    g = api.StateGraph(Overall)
    g.add_node("first", first)
    g.add_node("second", lambda s: {"foo": 1, "bar": "done"})
    g.add_edge(api.START, "first")
    g.add_conditional_edges("first", route)
    return [g.compile().invoke({"foo": 0}), seen]
