"""Node timeouts and node defaults."""
import asyncio
import sys
from pathlib import Path
from typing import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent))
from extra_api import extra  # noqa: E402


class S(TypedDict):
    n: int


def case_timeout_then_retry(api, tmp):
    x = extra(api)
    calls = []

    async def lucky(state):
        calls.append(1)
        if len(calls) == 1:
            await asyncio.Event().wait()
        return {"n": len(calls)}

    async def never(state):
        await asyncio.Event().wait()

    g = api.StateGraph(S)
    g.add_node("n", lucky, timeout=0.05,
               retry_policy=x.RetryPolicy(retry_on=x.NodeTimeoutError, initial_interval=0.001, jitter=False))
    g.add_edge(api.START, "n")
    out = [asyncio.run(g.compile().ainvoke({"n": 0}))]
    g2 = api.StateGraph(S)
    g2.add_node("n", never, timeout=x.TimeoutPolicy(run_timeout=0.05))
    g2.add_edge(api.START, "n")
    try:
        asyncio.run(g2.compile().ainvoke({"n": 0}))
    except x.NodeTimeoutError as exc:
        out.append([exc.node, exc.kind, exc.run_timeout, exc.idle_timeout])
    return out


def case_timeout_on_sync_node_refused(api, tmp):
    g = api.StateGraph(S)
    g.add_node("n", lambda s: {}, timeout=1)
    g.add_edge(api.START, "n")
    g.compile().invoke({"n": 0})
    return "ran"


def case_node_defaults_retry(api, tmp):
    x = extra(api)
    calls = []

    def flaky(state):
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("again")
        return {"n": len(calls)}

    g = api.StateGraph(S).set_node_defaults(retry_policy=x.RetryPolicy(initial_interval=0.001, jitter=False))
    g.add_node("n", flaky)
    g.add_edge(api.START, "n")
    return g.compile().invoke({"n": 0})
