"""The order of astream_events for an async @entrypoint: where each task's `updates` chunk
(the graph's on_chain_stream) falls among the entrypoint's and the tasks' own events."""
import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402


def _order(events):
    return [[e["event"], e["name"]] for e in events if e["event"] in ("on_chain_start", "on_chain_stream",
                                                                      "on_chain_end")]


def _flow(api, last_is_task):
    x = extra(api)

    @x.task()
    async def triple(n: int):
        await asyncio.sleep(0)
        return n * 3

    @x.task()
    async def fails(n: int):
        await asyncio.sleep(0)
        raise ValueError("no")

    @x.entrypoint(checkpointer=api.InMemorySaver())
    async def pipeline(n: int):
        first = await triple(n)
        try:
            await fails(first)
        except ValueError:
            pass
        if last_is_task:
            return await triple(first)
        return first

    return pipeline


def case_last_task_update_between_entrypoint_stream_and_end(api, tmp):
    flow = _flow(api, last_is_task=True)

    async def go():
        cfg = {"configurable": {"thread_id": "e1"}}
        return [e async for e in flow.astream_events(2, cfg, version="v2")]

    return _order(asyncio.run(go()))


def case_entrypoint_returning_plain_value_event_order(api, tmp):
    flow = _flow(api, last_is_task=False)

    async def go():
        cfg = {"configurable": {"thread_id": "e2"}}
        return [e async for e in flow.astream_events(5, cfg, version="v2")]

    return _order(asyncio.run(go()))


def case_one_task_entrypoint_event_order(api, tmp):
    x = extra(api)

    @x.task()
    async def double(n: int):
        return n * 2

    @x.entrypoint()
    async def once(n: int):
        return await double(n)

    async def go():
        return [e async for e in once.astream_events(4, version="v2")]

    return _order(asyncio.run(go()))


def case_graph_run_metadata_takes_shared_configurable_keys(api, tmp):
    g = api.StateGraph(dict)
    g.add_node("n", lambda s: {"a": 1})
    g.add_edge(api.START, "n")
    graph = g.compile(checkpointer=api.InMemorySaver())
    out = []
    for config in ({"configurable": {"thread_id": "7", "graph_id": "g", "other": "x"}},
                   {"configurable": {"thread_id": "8", "run_id": ""}, "metadata": {"thread_id": "own", "ls_integration": "me"}}):
        async def go(config=config):
            return [e async for e in graph.astream_events({"a": 0}, config, version="v2")]
        out.append([[e["name"], sorted(k for k in e["metadata"] if not k.startswith("langgraph_")),
                     e["metadata"].get("thread_id"), e["metadata"].get("ls_integration")]
                    for e in asyncio.run(go()) if e["event"] == "on_chain_start"])
    return out


def case_entrypoint_run_metadata_path_and_triggers(api, tmp):
    x = extra(api)

    @x.entrypoint()
    async def echo(n: int):
        return n

    async def go():
        return [e async for e in echo.astream_events(3, version="v2")]

    return [[e["event"], e["metadata"].get("langgraph_triggers"), e["metadata"].get("langgraph_path"),
             e["metadata"].get("langgraph_step"), e["tags"]] for e in asyncio.run(go()) if e["name"] == "echo"]
