"""LangSmith tracing turned on with `langsmith.tracing_context(enabled=True)` (or its
environment variables) traces a graph run given no callbacks, as LangChain's runnables are
traced: inside a node, `langsmith.get_current_run_tree()` is the node's own run, child of
the graph's run. With tracing off, a node sees no run tree."""
from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

langsmith = pytest.importorskip("langsmith")

from typing_extensions import TypedDict  # noqa: E402

from engine import END, StateGraph  # noqa: E402


class _Sink(http.server.BaseHTTPRequestHandler):
    """A local stand-in for the LangSmith API: accepts every request, answers `{}`."""

    def _ok(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    do_GET = do_POST = do_PATCH = _ok

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def client() -> Iterator[Any]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield langsmith.Client(api_url=f"http://127.0.0.1:{server.server_address[1]}", api_key="test",
                               auto_batch_tracing=False)
    finally:
        server.shutdown()


class State(TypedDict, total=False):
    foo: int
    seen: Any


def _graph() -> Any:
    def node(state: State) -> State:
        tree = langsmith.get_current_run_tree()
        if tree is None:
            return {"seen": None}
        # a child run: it has a parent, and its trace is the graph's run, not itself
        return {"seen": (tree.name, tree.parent_run_id is not None and tree.trace_id != tree.id, tree.id)}

    builder = StateGraph(State)
    builder.add_node(node)
    builder.set_entry_point("node")
    builder.add_edge("node", END)
    return builder.compile()


def test_a_node_sees_its_own_run_under_the_graphs_run(client: Any) -> None:
    graph = _graph()
    with langsmith.tracing_context(enabled=True, client=client):
        first = graph.invoke({"foo": 1})["seen"]
        second = graph.invoke({"foo": 1})["seen"]
    assert first[:2] == ("node", True)
    assert first[2] != second[2]


def test_async_runs_are_traced_too(client: Any) -> None:
    graph = _graph()

    async def run() -> Any:
        with langsmith.tracing_context(enabled=True, client=client):
            return (await graph.ainvoke({"foo": 1}))["seen"]

    assert asyncio.run(run())[:2] == ("node", True)


def test_without_tracing_a_node_sees_no_run_tree() -> None:
    with langsmith.tracing_context(enabled=False):
        assert _graph().invoke({"foo": 1})["seen"] is None
